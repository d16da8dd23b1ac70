/*
 * resource_limits.c: ResourceLimitsPriority (compat legacy only; dropped
 * before v1.22). Mirrors the last release that had it, v1.19's score
 * plugin NodeResourceLimits (noderesources/resource_limits.go): a node
 * scores 1 when it can satisfy the pod's cpu or memory limit, else 0; a
 * tie-breaker for Least/MostRequested.
 */
#include "priorities/plugins.h"

#include "priorities/resource_allocation.h"
#include "priorities/priorities.h"

#define PRIO_NAME_RESOURCE_LIMITS "ResourceLimitsPriority"

/*
 * getResourceLimits for cpu (millicores) and memory: summed over the
 * containers, then raised to any single init container's limit.
 */
static void pod_limits(const struct kube_pod *pod, int64_t *cpu, int64_t *mem)
{
    const struct kube_resources *l;
    size_t i;

    *cpu = 0;
    *mem = 0;
    for (i = 0; i < pod->n_containers; i++) {
        l = &pod->containers[i].limits;
        if (l->has & KUBE_RES_CPU)
            *cpu = prio_add64(*cpu, l->milli_cpu);
        if (l->has & KUBE_RES_MEMORY)
            *mem = prio_add64(*mem, l->memory);
    }
    for (i = 0; i < pod->n_init_containers; i++) {
        l = &pod->init_containers[i].limits;
        if ((l->has & KUBE_RES_CPU) && l->milli_cpu > *cpu)
            *cpu = l->milli_cpu;
        if ((l->has & KUBE_RES_MEMORY) && l->memory > *mem)
            *mem = l->memory;
    }
}

/* computeScore: the limit is set, the node advertises and it fits. */
static bool fits(int64_t limit, int64_t allocatable)
{
    return limit != 0 && allocatable != 0 && limit <= allocatable;
}

/*
 * Score: 1 when the cpu limit or the memory limit fits the node's
 * allocatable, else 0 (a pod without limits, or a node advertising
 * nothing, scores 0). The pod side is a few containers, recomputed per
 * node without allocation.
 */
int prio_resource_limits_score(const struct prio_cycle *cy, const void *args,
                               const void *state, const struct node_info *ni,
                               int64_t *score, struct err *e)
{
    const struct kube_resources *al = &ni->node->allocatable;
    int64_t cpu, mem;

    (void)args;
    (void)state;
    (void)e;
    pod_limits(cy->pod, &cpu, &mem);
    *score = fits(cpu, al->milli_cpu) || fits(mem, al->memory) ? 1 : 0;
    return 0;
}

/*
 * NormalizeScore: none upstream (ScoreExtensions() returned nil in v1.19),
 * so the raw 0 or 1 stands on the 0..100 scale; kept as an identity so the
 * row has every hook.
 */
int prio_resource_limits_normalize(const struct prio_cycle *cy,
                                   const void *args, const void *state,
                                   int64_t *scores, struct err *e)
{
    (void)cy;
    (void)args;
    (void)state;
    (void)scores;
    (void)e;
    return 0;
}

const struct prio_plugin prio_plugin_resource_limits = {
    { PRIO_NAME_RESOURCE_LIMITS, 0 },
    NULL,
    prio_resource_limits_score,
    prio_resource_limits_normalize,
};

const struct prio_def prio_resource_limits_priority = {
    .name = PRIO_NAME_RESOURCE_LIMITS,
    .aliases = NULL,
    .flags = PRIO_LEGACY,
    .default_weight = 0,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { NULL },
    .own = &prio_plugin_resource_limits,
    .gate_off = NULL,
    .doc = "favours nodes that can satisfy the pod's cpu and memory limits "
           "(v1.12-v1.18)",
};
