/*
 * place.h: pods placed one after another on a cluster snapshot as the
 * scheduler places them: each decision through engine_place (the
 * standalone scheduler's), and each placement assumed on the snapshot
 * (cluster_add_pod of a copy bound to the chosen node, as the
 * scheduler's cache assumes) before the next pod is decided, so
 * resources, ports, (anti-)affinity, spreading and volume limits see it.
 * Shared by simulate and diff.
 */
#ifndef WHATIF_PLACE_H
#define WHATIF_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine_place.h"
#include "engine/filter_cache.h"
#include "engine/prescore_cache.h"
#include "engine/evaluate.h"
#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/cluster/cluster.h"

/* One pod's outcome. */
struct whatif_placement {
    const struct kube_pod *pod; /* the pod as asked (not the bound copy) */
    const char *node;           /* NULL: unschedulable */
    const char *message;        /* unschedulable: the FitError summary */
    const char *top_predicate;  /* unschedulable: it rejected most nodes */
    size_t top_count;           /* ... that many */
};

/* A placement run over one cluster (which it changes: pods are added). */
struct whatif_sim {
    const struct eval_plans *plans;
    struct cluster *c;
    struct engine_placer placer;
    struct arena *a; /* copies of placed pods, messages */
    size_t n_placed;
    /* Verdicts kept while the pods placed are replicas of one pod (the
     * same but for name and uid): see whatif_place. */
    struct filter_cache cache;
    struct prescore_cache prescore;
    struct kube_pod last; /* the previous pod asked, name and uid cleared */
    bool have_last;
    bool no_cache; /* KPE_WHATIF_NO_CACHE set: the reference path, tests */
};

/*
 * Start placing onto c with plans (both must outlive the run), as a
 * scheduler with percentageOfNodesToScore `percentage` (0: adaptive)
 * and tie-breaking seed `seed`. Memory comes from a.
 */
void whatif_sim_init(struct whatif_sim *s, const struct eval_plans *plans,
                     struct cluster *c, int percentage, uint64_t seed,
                     struct arena *a);
void whatif_sim_free(struct whatif_sim *s);

/*
 * Decide where pod goes (its spec.nodeName and nominatedNodeName are
 * ignored: it is placed afresh) and, when it fits, assume it there.
 * While pod is a replica of the previous pod (whatif_replica of the same
 * one), node-local rejections of unchanged nodes are not re-evaluated
 * (filter_cache.h) and PreScore states that such a replica cannot change
 * are reused (prescore_cache.h); the environment variable
 * KPE_WHATIF_NO_CACHE (any
 * value) turns that off, for the tests that prove it changes nothing.
 * Returns 0 with out filled (out->node NULL when it fits nowhere), or -1
 * with e set on a plugin's internal error.
 */
int whatif_place(struct whatif_sim *s, const struct kube_pod *pod,
                 struct whatif_placement *out, struct err *e);

/*
 * Replica i of pod: a copy named "NAME-i" with its own uid, from a.
 * NULL when out of memory.
 */
struct kube_pod *whatif_replica(struct arena *a, const struct kube_pod *pod,
                                size_t i);

/*
 * The predicate that rejected the most nodes of a filter pass (the first met
 * on ties), with *count; NULL when none failed.
 */
const char *whatif_top_predicate(const struct eval_result *r, size_t *count);

/* What a node has requested: CPU (millicores), memory (bytes), pods. */
struct whatif_usage {
    int64_t cpu;
    int64_t memory;
    int64_t pods;
};

/*
 * Every node's requests now, by node index (c->nodes order), from a;
 * NULL when out of memory.
 */
struct whatif_usage *whatif_usage_take(const struct cluster *c,
                                       struct arena *a);

#endif
