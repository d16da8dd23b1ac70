/*
 * least_allocated.c: LeastRequestedPriority, the v1.22 score plugin
 * NodeResourcesLeastAllocated (noderesources/least_allocated.go): the
 * weighted average share of each resource left free after placing the pod.
 */
#include "priorities/plugins.h"
#include "priorities/resource_allocation.h"
#include "priorities/priorities.h"

#define PRIO_NAME_LEAST_REQUESTED "LeastRequestedPriority"

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

const struct prio_plugin prio_plugin_least_allocated = {
    { "NodeResourcesLeastAllocated", KPE_EP_SCORE },
    prio_res_prescore_args_non_zero,
    prio_least_allocated_score,
    NULL,
};

const struct prio_def prio_least_requested_priority = {
    .name = PRIO_NAME_LEAST_REQUESTED,
    .aliases = NULL,
    .flags = PRIO_DEFAULT,
    .default_weight = 1,
    .needs = KPE_NEED_PODS_ON_NODE,
    .values = &prio_default_resources_values,
    .resolved = &prio_resources_resolved,
    .parse_args = NULL,
    .finish = prio_resources_finish,
    .fit_strategy = "LeastAllocated",
    .plugins = { &prio_plugin_least_allocated },
    .own = NULL,
    .gate_off = NULL,
    .doc = "favours nodes with the most free cpu and memory",
};
