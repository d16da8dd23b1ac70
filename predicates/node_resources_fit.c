/*
 * node_resources_fit.c: PodFitsResources (and the first check of
 * GeneralPredicates), the v1.22 NodeResourcesFit filter plugin
 * (plugins/noderesources/fit.go): pod count, then cpu, memory,
 * ephemeral-storage and every scalar the pod requests against the node's
 * allocatable minus what its pods already request (predicates.md B.6).
 */
#include "predicates/node_resources_fit.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kube/model/resources.h"
#include "predicates/plugins.h"
#include "predicates/predicates.h"

#define PRED_NAME_POD_FITS_RESOURCES "PodFitsResources"

/* Read by the filter when the prefilter did not run (v1.22 wording). */
#define FIT_NO_STATE                                                           \
    "error reading \"PreFilterNodeResourcesFit\" from cycleState: not found"

/* What the prefilter computes once per pod. */
struct fit_state {
    const struct kube_resources *req; /* cy->pod_request */
    struct pred_fit_ignored ignored;
};

/* Go's int64 subtraction wraps; do the same without signed overflow. */
static int64_t sub_wrap(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

static bool listed(const char *const *v, size_t n, const char *s, size_t len)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (strlen(v[i]) == len && !strncmp(v[i], s, len))
            return true;
    }
    return false;
}

/* An extended resource named in ignoredResources or whose group is in
 * ignoredResourceGroups; other classes are never skipped. */
static bool ignored(const struct pred_fit_ignored *ig, const char *name)
{
    const char *slash;

    if (!ig || !kube_resource_is_extended(name))
        return false;
    if (listed(ig->names, ig->n_names, name, strlen(name)))
        return true;
    if (!ig->n_groups)
        return false;
    slash = strchr(name, '/');
    return listed(ig->groups, ig->n_groups, name,
                  slash ? (size_t)(slash - name) : strlen(name));
}

/* want > allocatable - used, as fit.go compares (int64, wrapping). */
static void check(struct pred_result *r, const char *name, int64_t want,
                  int64_t alloc, int64_t used)
{
    if (want > sub_wrap(alloc, used))
        pred_failf(r, PRED_UNFIT, PRED_REASON_INSUFFICIENT, name);
}

enum pred_code pred_node_resources_fit_check(const struct kube_resources *req,
                                             const struct node_info *ni,
                                             const struct pred_fit_ignored *ig,
                                             struct pred_result *r)
{
    const struct kube_resources *alloc = &ni->node->allocatable;
    const struct kube_resources *used = &ni->requested;
    size_t i;

    if ((int64_t)ni->n_pods + 1 > alloc->pods)
        pred_fail(r, PRED_UNFIT, PRED_REASON_TOO_MANY_PODS);
    if (req->milli_cpu == 0 && req->memory == 0 &&
        req->ephemeral_storage == 0 && req->n_scalars == 0)
        return r->code;
    check(r, "cpu", req->milli_cpu, alloc->milli_cpu, used->milli_cpu);
    check(r, "memory", req->memory, alloc->memory, used->memory);
    check(r, "ephemeral-storage", req->ephemeral_storage,
          alloc->ephemeral_storage, used->ephemeral_storage);
    for (i = 0; i < req->n_scalars; i++) {
        const char *name = req->scalars[i].name;

        if (ignored(ig, name))
            continue;
        check(r, name, req->scalars[i].value,
              kube_resources_scalar(alloc, name, NULL),
              kube_resources_scalar(used, name, NULL));
    }
    return r->code;
}

enum pred_code pred_node_resources_fit_prefilter(struct pred_cycle *cy,
                                                 const void *args, void **state,
                                                 struct pred_result *r)
{
    struct fit_state *s = arena_calloc(cy->arena, 1, sizeof(*s));

    (void)args;
    if (!s)
        return pred_fail(r, PRED_ERROR, "NodeResourcesFit: out of memory");
    s->ignored.names = cy->ignored_resources;
    s->ignored.n_names = cy->n_ignored_resources;
    s->req = &cy->pod_request;
    *state = s;
    return PRED_FIT;
}

enum pred_code pred_node_resources_fit_filter(const struct pred_cycle *cy,
                                              const void *args,
                                              const void *state,
                                              const struct node_info *ni,
                                              struct pred_result *r)
{
    const struct fit_state *s = state;

    (void)cy;
    (void)args;
    if (!s)
        return pred_fail(r, PRED_ERROR, FIT_NO_STATE);
    return pred_node_resources_fit_check(s->req, ni, &s->ignored, r);
}

const struct pred_plugin pred_plugin_node_resources_fit = {
    { "NodeResourcesFit", KPE_EP_PREFILTER | KPE_EP_FILTER },
    pred_node_resources_fit_prefilter,
    pred_node_resources_fit_filter,
    (const char *const[]){ PRED_REASON_INSUFFICIENT, PRED_REASON_TOO_MANY_PODS,
                           NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_pod_fits_resources = {
    .name = PRED_NAME_POD_FITS_RESOURCES,
    .aliases = NULL,
    .flags = 0,
    .needs = KPE_NEED_PODS_ON_NODE,
    .parse_args = NULL,
    .plugins = { &pred_plugin_node_resources_fit },
    .own = NULL,
    .doc = "the node has room for the pod's requests and one more pod",
};
