/*
 * requested_to_capacity_ratio.c: the custom priority
 * requestedToCapacityRatioArguments, the v1.22 score plugin
 * RequestedToCapacityRatio (noderesources/requested_to_capacity_ratio.go):
 * each resource's utilisation after placing the pod is mapped through a
 * broken-linear shape (Policy scores 0..10, scaled ×10), and the node gets
 * the weighted average of the non-zero results, rounded half away from 0.
 */
#include "priorities/plugins.h"
#include "priorities/resource_allocation.h"
#include "priorities/priorities.h"

#include <math.h>

#define MAX_UTILIZATION 100

/* Without args (not reachable from a Policy): favour the least requested. */
static const struct policy_shape_point default_shape[] = {
    { 0, PRIO_MAX_CUSTOM_SCORE },
    { MAX_UTILIZATION, 0 },
};

int64_t prio_rtcr_broken_linear(const struct policy_shape_point *shape,
                                size_t n, int64_t scale, int64_t p)
{
    int64_t u0, u1, s0, s1;
    size_t i;

    if (n == 0)
        return 0;
    for (i = 0; i < n; i++) {
        if (p > shape[i].utilization)
            continue;
        s1 = prio_mul64(shape[i].score, scale);
        if (i == 0)
            return s1;
        s0 = prio_mul64(shape[i - 1].score, scale);
        u0 = shape[i - 1].utilization;
        u1 = shape[i].utilization;
        return prio_add64(
            s0, prio_div64(prio_mul64(prio_sub64(s1, s0), prio_sub64(p, u0)),
                           prio_sub64(u1, u0)));
    }
    return prio_mul64(shape[n - 1].score, scale);
}

/*
 * Score: resources exactly as the argument lists them (cpu and memory as
 * NonZeroRequested); a resource whose shaped score is 0 drops out of the
 * average. Never fails; no normalisation.
 */
int prio_requested_to_capacity_ratio_score(const struct prio_cycle *cy,
                                           const void *args, const void *state,
                                           const struct node_info *ni,
                                           int64_t *score, struct err *e)
{
    const struct prio_args *a = args;
    const struct policy_shape_point *shape = default_shape;
    size_t n_shape = sizeof(default_shape) / sizeof(default_shape[0]), i;
    const int64_t scale = PRIO_MAX_NODE_SCORE / PRIO_MAX_CUSTOM_SCORE;
    const struct prio_res_pod *rp = state;
    int64_t num = 0, den = 0, alloc, req, util, s;

    (void)cy;
    (void)e;
    if (a && a->kind == PRIO_ARGS_RTCR) {
        shape = a->u.rtcr.shape;
        n_shape = a->u.rtcr.shape ? a->u.rtcr.n_shape : 0;
    }
    for (i = 0; i < rp->list.n; i++) {
        if (rp->shadowed[i] || !prio_res_node_pair_at(rp, i, ni, &alloc, &req))
            continue;
        util = req > alloc
                   ? MAX_UTILIZATION
                   : prio_div64(prio_mul64(req, MAX_UTILIZATION), alloc);
        s = prio_rtcr_broken_linear(shape, n_shape, scale, util);
        if (s > 0) {
            num = prio_add64(num, prio_mul64(s, rp->list.v[i].weight));
            den = prio_add64(den, rp->list.v[i].weight);
        }
    }
    *score = den == 0 ? 0 : prio_f2i64(round((double)num / (double)den));
    return 0;
}

const struct prio_plugin prio_plugin_requested_to_capacity_ratio = {
    { "RequestedToCapacityRatio", KPE_EP_SCORE },
    prio_res_prescore_args_non_zero,
    prio_requested_to_capacity_ratio_score,
    NULL,
};

/*
 * requestedToCapacityRatioArguments: shape and resources copied as given
 * (no defaulting on the legacy path), then checked as the plugin's args
 * validation does (validation_pluginargs.go).
 */
static int parse_rtcr_args(const struct policy_prio_arg *arg, struct arena *a,
                           struct prio_args *out, struct err *e)
{
    (void)a;
    if (!arg || !arg->has_rtcr)
        return 0;
    out->u.rtcr.shape = arg->shape;
    out->u.rtcr.n_shape = arg->n_shape;
    out->u.rtcr.resources = arg->resources;
    out->u.rtcr.n_resources = arg->n_resources;
    return kpe_validate_rtcr(arg->shape, arg->n_shape, arg->resources,
                             arg->n_resources, e);
}

const struct prio_def prio_requested_to_capacity_ratio = {
    .name = PRIO_NAME_RTCR,
    .aliases = NULL,
    .flags = PRIO_CUSTOM_ONLY,
    .default_weight = 0,
    .needs = KPE_NEED_PODS_ON_NODE,
    .args_kind = PRIO_ARGS_RTCR,
    .parse_args = parse_rtcr_args,
    .plugins = { &prio_plugin_requested_to_capacity_ratio },
    .own = NULL,
    .gate_off = NULL,
    .doc = "scores utilization through the piecewise-linear shape an argument "
           "gives",
};
