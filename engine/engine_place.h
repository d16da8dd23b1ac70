/*
 * engine_place.h: one placement decision of kube-scheduler v1.22
 * (scheduleOne up to the assume step) for one pod on one cluster: list
 * the nodes in NodeTree order, filter from the rotating start until
 * enough fit (engine_nodes_to_score.h), score the feasible ones unless
 * only one, select the host (engine_select.h). The standalone scheduler
 * and simulate/diff (whatif/) decide through this one function; each
 * then assumes the pod on the chosen node its own way (the live cache, a
 * snapshot's cluster_add_pod).
 */
#ifndef ENGINE_ENGINE_PLACE_H
#define ENGINE_ENGINE_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine_nominated.h"
#include "engine/evaluate.h"

/* ErrNoNodesAvailable of v1.22. */
#define ENGINE_NO_NODES "no nodes available to schedule pods"

/* The state one scheduler keeps across decisions (one thread at a time). */
struct engine_placer {
    int percentage;    /* percentageOfNodesToScore (0: adaptive) */
    size_t next_start; /* nextStartNodeIndex */
    uint64_t rng;      /* selectHost's splitmix64 state */
    /* NULL, or node verdicts kept across decisions (filter_cache.h): only
     * for a caller that forgets what it changes, as whatif_place does. */
    struct filter_cache *cache;
    /* NULL, or PreScore states kept across decisions (prescore_cache.h),
     * under the same promise. */
    struct prescore_cache *prescore;
    /* The pods nominated to nodes (after preemptions), which a pod of
     * lower or equal priority must leave room for; set by the caller
     * before each decision (NULL: none, the pass is unchanged). */
    const struct engine_nominees *nominees;
    /* Private: the node order buffers, grown as needed. */
    const struct node_info **node_buf;
    size_t *node_idx;
    size_t node_cap;
};

/* A placer; seed 0 is taken as 1. */
void engine_placer_init(struct engine_placer *pl, int percentage,
                        uint64_t seed);
void engine_placer_free(struct engine_placer *pl);

/*
 * Decide where pod goes on cl under plans. Returns 0 with *node set (a
 * node of cl), 1 when no node fits with *msg the FitError summary
 * ("0/N nodes are available: ...", or ENGINE_NO_NODES) and *filtered
 * the filter pass (every node tried, with its verdict), or -1 with *msg
 * on an internal error. filtered and msg come from a.
 */
int engine_place(struct engine_placer *pl, const struct eval_plans *plans,
                 const struct kube_pod *pod, const struct cluster *cl,
                 struct arena *a, struct eval_result *filtered,
                 const struct node_info **node, const char **msg);

#endif
