/*
 * least_allocated.c: LeastRequestedPriority, the v1.22 score plugin
 * NodeResourcesLeastAllocated (noderesources/least_allocated.go): the
 * weighted average share of each resource left free after placing the pod.
 */
#include "priorities/plugins.h"
#include "priorities/resource_allocation.h"

/*
 * leastRequestedScore: (allocatable - requested) * 100 / allocatable, and 0
 * once the node is over-committed.
 */
static int64_t least_requested(int64_t requested, int64_t allocatable)
{
    if (allocatable == 0 || requested > allocatable)
        return 0;
    return prio_div64(
        prio_mul64(prio_sub64(allocatable, requested), PRIO_MAX_NODE_SCORE),
        allocatable);
}

/*
 * Score: over the resources of args (default cpu=1, memory=1), cpu and
 * memory counted as NonZeroRequested. Never fails; no normalisation.
 */
int prio_least_allocated_score(const struct prio_cycle *cy, const void *args,
                               const void *state, const struct node_info *ni,
                               int64_t *score, struct err *e)
{
    (void)cy;
    (void)args;
    (void)e;
    *score = prio_res_weighted_score(state, ni, least_requested);
    return 0;
}
