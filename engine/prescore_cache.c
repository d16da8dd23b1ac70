/*
 * prescore_cache.c: the PreScore states of prescore_cache.h.
 */
#include "engine/prescore_cache.h"

#include <string.h>

#include "priorities/plugins.h"

void prescore_cache_init(struct prescore_cache *pc)
{
    memset(pc, 0, sizeof(*pc));
    arena_init(&pc->a, 0);
}

void prescore_cache_free(struct prescore_cache *pc)
{
    arena_destroy(&pc->a);
    memset(pc, 0, sizeof(*pc));
}

void prescore_cache_clear(struct prescore_cache *pc)
{
    prescore_cache_free(pc);
    prescore_cache_init(pc);
}

bool prescore_cache_keeps(const struct prio_plugin *plugin,
                          const struct kube_pod *pod)
{
    const struct kube_pod_affinity *aff = &pod->affinity.pod_affinity;
    const struct kube_pod_affinity *anti = &pod->affinity.pod_anti_affinity;

    return plugin->prescore == prio_inter_pod_affinity_prescore &&
           !aff->n_required && !aff->n_preferred && !anti->n_required &&
           !anti->n_preferred;
}
