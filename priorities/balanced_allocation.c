/*
 * balanced_allocation.c: BalancedResourceAllocation, the v1.22 score plugin
 * NodeResourcesBalancedAllocation (noderesources/balanced_allocation.go),
 * per --semantics (docs/VERSION-SEMANTICS.md D1):
 *
 * 1.22: 100 × (1 − std), std the population standard deviation of the
 * fractions of the allocatable in use once the pod is placed, each capped
 * at 1, over the resources whose allocatable is not 0; for cpu and memory
 * std = |f_cpu − f_mem| / 2, one fraction or none gives 0 (upstream
 * #101946, CHANGELOG-1.22 v1.22.0). Patch level: v1.22.4 and later
 * (#105845, cherry-pick #106081): both sides count actual requests
 * (NodeInfo.Requested and the pod's requests without the 100m / 200Mi
 * defaults); the latest v1.22 patch is the one a v1.22 cluster runs.
 *
 * 1.20 (v1.20.2) and 1.21 (latest patch, after the #105238 revert):
 * 100 × (1 − |f_cpu − f_mem|) on the non-zero requests, a fraction of an
 * allocatable of 0 is 1, and 0 when either fraction is 1 or more
 * (v1.20.2 balancedResourceScorer).
 */
#include "priorities/plugins.h"
#include "priorities/resource_allocation.h"
#include "priorities/priorities.h"

#include <math.h>

#define PRIO_NAME_BALANCED_ALLOCATION "BalancedResourceAllocation"

/* v1.20.2 fractionOfCapacity of entry i: not capped, allocatable 0 is 1. */
static double fraction_v120(const struct prio_res_pod *rp, size_t i,
                            const struct node_info *ni)
{
    int64_t alloc, req;

    if (!prio_res_node_pair_at(rp, i, ni, &alloc, &req) || alloc == 0)
        return 1;
    return (double)req / (double)alloc;
}

static int64_t score_v120(const struct prio_res_pod *rp,
                          const struct node_info *ni)
{
    double cpu = fraction_v120(rp, 0, ni), mem = fraction_v120(rp, 1, ni);

    if (cpu >= 1 || mem >= 1)
        return 0;
    return prio_f2i64((1 - fabs(cpu - mem)) * (double)PRIO_MAX_NODE_SCORE);
}

/* v1.22: the capped fractions of the included resources, then 1 − std. */
static int64_t score_v122(const struct prio_res_pod *rp,
                          const struct node_info *ni)
{
    double f[2], std = 0;
    size_t i, n = 0;
    int64_t alloc, req;

    for (i = 0; i < 2; i++) {
        if (!prio_res_node_pair_at(rp, i, ni, &alloc, &req))
            continue;
        f[n] = (double)req / (double)alloc;
        if (f[n] > 1)
            f[n] = 1;
        n++;
    }
    if (n == 2)
        std = fabs((f[0] - f[1]) / 2);
    return prio_f2i64((1 - std) * (double)PRIO_MAX_NODE_SCORE);
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
    (void)args;
    (void)e;
    /* state: the default list, cpu then memory */
    *score = cy->semantics >= KPE_SEM_1_22 ? score_v122(state, ni)
                                           : score_v120(state, ni);
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
