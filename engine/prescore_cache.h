/*
 * prescore_cache.h: PreScore states kept across the placements of
 * replicas of one pod, for the one PreScore whose state a replica cannot
 * change: InterPodAffinity's, when the pod has no pod affinity or
 * anti-affinity term. Its state is then the sum, by topology value, of
 * the existing pods' terms that match the pod (node labels, namespaces,
 * the existing pods' affinity terms); placing a pod without terms adds
 * none of those. The caller (whatif_place) keeps the cache only while
 * every pod placed is such a replica and clears it otherwise.
 */
#ifndef ENGINE_PRESCORE_CACHE_H
#define ENGINE_PRESCORE_CACHE_H

#include <stdbool.h>

#include "engine/prio_eval.h"
#include "kube/base/arena.h"

struct prescore_cache {
    const struct prio_plan *plan; /* the states are this plan's */
    bool have[PRIO_PLAN_MAX];
    void *states[PRIO_PLAN_MAX];
    struct arena a; /* the states */
};

void prescore_cache_init(struct prescore_cache *pc);
void prescore_cache_free(struct prescore_cache *pc);
void prescore_cache_clear(struct prescore_cache *pc);

/* Whether plugin's PreScore state for pod may be kept (see above). */
bool prescore_cache_keeps(const struct prio_plugin *plugin,
                          const struct kube_pod *pod);

#endif
