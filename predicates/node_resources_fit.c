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

#include "kube/resources.h"
#include "policy/policy.h"
#include "predicates/plugins.h"
#include "predicates/reasons.h"

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

/* The extenders' managedResources with ignoredByScheduler set. */
static int collect_ignored(const struct policy *p, struct arena *a,
                           struct pred_fit_ignored *ig)
{
    const struct policy_doc *d;
    const char **names;
    size_t i, j, n = 0;

    if (!p)
        return 0;
    d = &p->doc;
    for (i = 0; i < d->n_extenders; i++)
        n += d->extenders[i].n_managed_resources;
    if (!n)
        return 0;
    names = arena_calloc(a, n, sizeof(*names));
    if (!names)
        return -1;
    for (i = 0; i < d->n_extenders; i++) {
        const struct policy_extender *x = &d->extenders[i];

        for (j = 0; j < x->n_managed_resources; j++) {
            if (x->managed_resources[j].ignored_by_scheduler)
                names[ig->n_names++] = x->managed_resources[j].name;
        }
    }
    ig->names = names;
    return 0;
}

enum pred_code pred_node_resources_fit_prefilter(struct pred_cycle *cy,
                                                 const void *args, void **state,
                                                 struct pred_result *r)
{
    struct fit_state *s = arena_calloc(cy->arena, 1, sizeof(*s));

    (void)args;
    if (!s || collect_ignored(cy->policy, cy->arena, &s->ignored) < 0)
        return pred_fail(r, PRED_ERROR, "NodeResourcesFit: out of memory");
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
