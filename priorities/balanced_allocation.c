/*
 * balanced_allocation.c: BalancedResourceAllocation, the v1.22 score plugin
 * NodeResourcesBalancedAllocation (noderesources/balanced_allocation.go):
 * 100 × (1 − |cpu fraction − memory fraction|), each fraction of the
 * allocatable in use once the pod is placed, capped at 1.
 *
 * Patch level: v1.22.4 and later (upstream #105845, cherry-picked to
 * release-1.22): both sides count actual requests (NodeInfo.Requested and
 * the pod's requests without the 100m / 200Mi defaults). v1.22.0-3 used
 * the non-zero sums as LeastAllocated does; the latest v1.22 patch is the
 * one a v1.22 cluster runs.
 */
#include "priorities/plugins.h"
#include "priorities/resource_allocation.h"
#include "priorities/priorities.h"

#include <math.h>

#define PRIO_NAME_BALANCED_ALLOCATION "BalancedResourceAllocation"

/* fractionOfCapacity of entry i, capped at 1; excluded: 1. */
static double fraction(const struct prio_res_pod *rp, size_t i,
                       const struct node_info *ni)
{
    int64_t alloc, req;
    double f;

    if (!prio_res_node_pair_at(rp, i, ni, &alloc, &req))
        return 1;
    f = (double)req / (double)alloc;
    return f > 1 ? 1 : f;
}

/*
 * Score: only cpu and memory (v1.22 takes no resource list here; state is
 * prio_res_prescore_balanced's). Never fails; no normalisation.
 */
int prio_balanced_allocation_score(const struct prio_cycle *cy,
                                   const void *args, const void *state,
                                   const struct node_info *ni, int64_t *score,
                                   struct err *e)
{
    double cpu, mem, diff;

    (void)cy;
    (void)args;
    (void)e;
    cpu = fraction(state, 0, ni); /* the default list: cpu, memory */
    mem = fraction(state, 1, ni);
    diff = fabs(cpu - mem);
    *score = prio_f2i64((1 - diff) * (double)PRIO_MAX_NODE_SCORE);
    return 0;
}

const struct prio_plugin prio_plugin_balanced_allocation = {
    { "NodeResourcesBalancedAllocation", KPE_EP_SCORE },
    prio_res_prescore_balanced,
    prio_balanced_allocation_score,
    NULL,
};

const struct prio_def prio_balanced_resource_allocation = {
    .name = PRIO_NAME_BALANCED_ALLOCATION,
    .aliases = NULL,
    .flags = PRIO_DEFAULT,
    .default_weight = 1,
    .needs = KPE_NEED_PODS_ON_NODE,
    .parse_args = NULL,
    .plugins = { &prio_plugin_balanced_allocation },
    .own = NULL,
    .gate_off = NULL,
    .doc = "favours nodes whose cpu and memory use stay balanced with the pod",
};
