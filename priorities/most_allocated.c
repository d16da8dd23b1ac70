/*
 * most_allocated.c: MostRequestedPriority, the v1.22 score plugin
 * NodeResourcesMostAllocated (noderesources/most_allocated.go): the
 * weighted average share of each resource in use once the pod is placed.
 */
#include "priorities/plugins.h"
#include "priorities/resource_allocation.h"
#include "priorities/priorities.h"

#define PRIO_NAME_MOST_REQUESTED "MostRequestedPriority"

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

const struct prio_plugin prio_plugin_most_allocated = {
    { "NodeResourcesMostAllocated", KPE_EP_SCORE },
    prio_res_prescore_args_non_zero,
    prio_most_allocated_score,
    NULL,
};

const struct prio_def prio_most_requested_priority = {
    .name = PRIO_NAME_MOST_REQUESTED,
    .aliases = NULL,
    .flags = 0,
    .default_weight = 0,
    .needs = KPE_NEED_PODS_ON_NODE,
    .values = &prio_default_resources_values,
    .resolved = &prio_resources_resolved,
    .parse_args = NULL,
    .finish = prio_resources_finish,
    .fit_strategy = "MostAllocated",
    .plugins = { &prio_plugin_most_allocated },
    .own = NULL,
    .gate_off = NULL,
    .doc = "favours nodes with the least free cpu and memory (bin packing)",
};
