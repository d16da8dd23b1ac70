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
#include "kube/base/strbuf.h"

#include <math.h>

#define PRIO_NAME_RTCR "RequestedToCapacityRatio"

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

    (void)e;
    if (a && a->value) {
        const struct prio_resources_arg *r = a->value;

        shape = r->shape;
        n_shape = r->shape ? r->n_shape : 0;
    }
    for (i = 0; i < rp->list.n; i++) {
        if (rp->shadowed[i] || !prio_res_node_pair_at(rp, i, ni, &alloc, &req))
            continue;
        if (alloc == 0 || req > alloc) /* alloc 0: 1.20/1.21 only (D14) */
            util = MAX_UTILIZATION;
        else if (cy->semantics >= KPE_SEM_1_22)
            util = prio_div64(prio_mul64(req, MAX_UTILIZATION), alloc);
        else /* v1.20.2 and v1.21 round up (D3) */
            util =
                MAX_UTILIZATION -
                prio_div64(prio_mul64(prio_sub64(alloc, req), MAX_UTILIZATION),
                           alloc);
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
 * v1.20.2's ValidateRequestedToCapacityRatioArgs (validation_pluginargs.go:
 * validateFunctionShape, then validateResourcesNoMax): the first problem
 * only, as a plain sentence; the score bound is MaxCustomPriorityScore
 * (10). docs/VERSION-SEMANTICS.md D4: v1.21 is believed to keep them.
 */
static int validate_rtcr_v120(const struct policy_shape_point *shape,
                              size_t n_shape, const struct policy_resource *res,
                              size_t n_res, struct err *e)
{
    static const char pre[] = "RequestedToCapacityRatio args: ";
    size_t i;

    if (n_shape == 0)
        return err_set(e, "%sat least one point must be specified", pre);
    for (i = 1; i < n_shape; i++)
        if (shape[i - 1].utilization >= shape[i].utilization)
            return err_set(e,
                           "%sutilization values must be sorted. "
                           "Utilization[%zu]==%d >= Utilization[%zu]==%d",
                           pre, i - 1, (int)shape[i - 1].utilization, i,
                           (int)shape[i].utilization);
    for (i = 0; i < n_shape; i++) {
        if (shape[i].utilization < 0)
            return err_set(e,
                           "%sutilization values must not be less than 0. "
                           "Utilization[%zu]==%d",
                           pre, i, (int)shape[i].utilization);
        if (shape[i].utilization > MAX_UTILIZATION)
            return err_set(e,
                           "%sutilization values must not be greater than "
                           "100. Utilization[%zu]==%d",
                           pre, i, (int)shape[i].utilization);
        if (shape[i].score < 0)
            return err_set(e,
                           "%sscore values must not be less than 0. "
                           "Score[%zu]==%d",
                           pre, i, (int)shape[i].score);
        if (shape[i].score > PRIO_MAX_CUSTOM_SCORE)
            return err_set(e,
                           "%sscore values must not be greater than 10. "
                           "Score[%zu]==%d",
                           pre, i, (int)shape[i].score);
    }
    for (i = 0; i < n_res; i++)
        if (res[i].weight < 1)
            return err_set(e,
                           "%sresource %s weight %lld must not be less "
                           "than 1",
                           pre, res[i].name ? res[i].name : "",
                           (long long)res[i].weight);
    return 0;
}

/*
 * v1.22's ValidateRequestedToCapacityRatioArgs: shape non-empty, utilizations
 * strictly increasing (first offence only), utilization in [0, 100], score
 * in [0, 10], resource weights >= 1. Errors aggregate as "[a, b]".
 */
static int validate_rtcr(const struct policy_shape_point *shape, size_t n_shape,
                         const struct policy_resource *res, size_t n_res,
                         struct err *e)
{
    struct strbuf b;
    size_t i, n = 0;
    char *one = NULL;
    int rc = 0;

    strbuf_init(&b, 0);
#define ERR(...)                                                               \
    do {                                                                       \
        strbuf_add(&b, n ? ", " : "");                                         \
        strbuf_printf(&b, __VA_ARGS__);                                        \
        n++;                                                                   \
    } while (0)
    if (n_shape == 0) {
        ERR("shape: Required value: at least one point must be specified");
    } else {
        for (i = 1; i < n_shape; i++) {
            if (shape[i - 1].utilization >= shape[i].utilization) {
                ERR("shape[%zu].utilization: Invalid value: %d: utilization "
                    "values must be sorted in increasing order",
                    i, (int)shape[i].utilization);
                break;
            }
        }
        for (i = 0; i < n_shape; i++) {
            if (shape[i].utilization < 0 || shape[i].utilization > 100)
                ERR("shape[%zu].utilization: Invalid value: %d: not in valid "
                    "range [0, 100]",
                    i, (int)shape[i].utilization);
            if (shape[i].score < 0 || shape[i].score > 10)
                ERR("shape[%zu].score: Invalid value: %d: not in valid range "
                    "[0, 10]",
                    i, (int)shape[i].score);
        }
    }
    for (i = 0; i < n_res; i++) {
        if (res[i].weight < 1)
            ERR("resources[%zu].weight: Invalid value: %lld: resource weight "
                "of %s not in valid range [1, inf)",
                i, (long long)res[i].weight, res[i].name ? res[i].name : "");
    }
#undef ERR
    if (n) {
        one = b.s ? b.s : "";
        rc = err_set(e,
                     n > 1 ? "RequestedToCapacityRatio args: [%s]"
                           : "RequestedToCapacityRatio args: %s",
                     one);
    }
    strbuf_free(&b);
    return rc;
}

/* The requestedToCapacityRatioArguments argument as written. */
struct rtcr_arg {
    struct policy_shape_point *shape;
    size_t n_shape;
    struct policy_resource *resources;
    size_t n_resources;
};

static const struct kpe_arg_field point_fields[] = {
    { .name = "utilization",
      .type = KPE_ARG_INT32,
      .offset = offsetof(struct policy_shape_point, utilization),
      .type_doc = "int32" },
    { .name = "score",
      .type = KPE_ARG_INT32,
      .offset = offsetof(struct policy_shape_point, score),
      .type_doc = "int32" },
};

static const struct kpe_arg_schema point_schema = {
    .key = "shape",
    .size = sizeof(struct policy_shape_point),
    .fields = KPE_ARG_FIELDS(point_fields),
};

static const struct kpe_arg_field rtcr_fields[] = {
    { .name = "shape",
      .type = KPE_ARG_OBJECTS,
      .offset = offsetof(struct rtcr_arg, shape),
      .count_offset = offsetof(struct rtcr_arg, n_shape),
      .elem = &point_schema,
      .type_doc = "[]{utilization int32 0..100, score int32 0..10}" },
    { .name = "resources",
      .type = KPE_ARG_OBJECTS,
      .offset = offsetof(struct rtcr_arg, resources),
      .count_offset = offsetof(struct rtcr_arg, n_resources),
      .elem = &prio_resource_schema,
      .type_doc = "[]{name string, weight int64 >= 1}",
      .def = "[]" },
};

static const struct kpe_arg_schema rtcr_schema = {
    .key = "requestedToCapacityRatioArguments",
    .api_order = 2,
    .size = sizeof(struct rtcr_arg),
    .fields = KPE_ARG_FIELDS(rtcr_fields),
    .note = "any unregistered priority name with this argument (upstream "
            "tests use RequestedToCapacityRatioPriority); score is 0..10; "
            "resources are not defaulted (omitted: every node scores 0)",
};

/*
 * requestedToCapacityRatioArguments: shape and resources copied as given
 * (no defaulting on the legacy path); checked in finish_rtcr, once the
 * last entry is known, as the plugin's construction does.
 */
static int parse_rtcr_args(const void *written, struct arena *a,
                           struct prio_args *out, struct err *e)
{
    const struct rtcr_arg *r = written;
    struct prio_resources_arg *v;

    if (!r)
        return 0;
    v = arena_calloc(a, 1, sizeof(*v)); /* a later entry replaces it */
    if (!v)
        return err_set(e, "out of memory");
    v->shape = r->shape;
    v->n_shape = r->n_shape;
    v->resources = r->resources;
    v->n_resources = r->n_resources;
    v->rtcr = true;
    out->value = v;
    return 0;
}

/*
 * The plugin's args validation (validation_pluginargs.go), run when the
 * plugin is built from the last entry's arguments: v1.20.2's sentences for
 * 1.20 and 1.21 (D4), v1.22's field list for 1.22.
 */
static int finish_rtcr(struct prio_args *out, const struct prio_policy_facts *f,
                       struct arena *a, struct err *e)
{
    const struct prio_resources_arg *v = out->value;

    (void)a;
    if (!v)
        return 0;
    if (f->semantics < KPE_SEM_1_22)
        return validate_rtcr_v120(v->shape, v->n_shape, v->resources,
                                  v->n_resources, e);
    return validate_rtcr(v->shape, v->n_shape, v->resources, v->n_resources, e);
}

/* The typed arguments, as check shows them. */
static const struct kpe_arg_field rtcr_resolved_fields[] = {
    { .name = "shape",
      .type = KPE_ARG_OBJECTS,
      .offset = offsetof(struct prio_resources_arg, shape),
      .count_offset = offsetof(struct prio_resources_arg, n_shape),
      .elem = &point_schema },
    { .name = "resources",
      .type = KPE_ARG_OBJECTS,
      .offset = offsetof(struct prio_resources_arg, resources),
      .count_offset = offsetof(struct prio_resources_arg, n_resources),
      .elem = &prio_resource_schema },
};

static const struct kpe_arg_schema rtcr_resolved = {
    .key = "requestedToCapacityRatio",
    .fields = KPE_ARG_FIELDS(rtcr_resolved_fields),
};

const struct prio_def prio_requested_to_capacity_ratio = {
    .name = PRIO_NAME_RTCR,
    .aliases = NULL,
    .flags = PRIO_CUSTOM_ONLY,
    .default_weight = 0,
    .needs = KPE_NEED_PODS_ON_NODE,
    .args = &rtcr_schema,
    .resolved = &rtcr_resolved,
    .parse_args = parse_rtcr_args,
    .finish = finish_rtcr,
    .fit_strategy = "RequestedToCapacityRatio",
    .plugins = { &prio_plugin_requested_to_capacity_ratio },
    .own = NULL,
    .gate_off = NULL,
    .doc = "scores utilization through the piecewise-linear shape an argument "
           "gives",
};
