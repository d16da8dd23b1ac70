/*
 * most_allocated.c: MostRequestedPriority, the v1.22 score plugin
 * NodeResourcesMostAllocated (noderesources/most_allocated.go): the
 * weighted average share of each resource in use once the pod is placed.
 */
#include "priorities/plugins.h"
#include "priorities/resource_allocation.h"

/*
 * mostRequestedScore: requested * 100 / allocatable, with requested capped
 * at allocatable (v1.22: an over-committed resource scores 100, not 0).
 */
static int64_t most_requested(int64_t requested, int64_t allocatable)
{
    if (allocatable == 0)
        return 0;
    if (requested > allocatable)
        requested = allocatable;
    return prio_div64(prio_mul64(requested, PRIO_MAX_NODE_SCORE), allocatable);
}

/*
 * Score: over the resources of args (default cpu=1, memory=1), cpu and
 * memory counted as NonZeroRequested. Never fails; no normalisation.
 */
int prio_most_allocated_score(const struct prio_cycle *cy, const void *args,
                              const void *state, const struct node_info *ni,
                              int64_t *score, struct err *e)
{
    (void)cy;
    (void)args;
    (void)e;
    *score = prio_res_weighted_score(state, ni, most_requested);
    return 0;
}
