/*
 * registry.c: the priority rows, sorted by key as v1.22 generates score
 * plugins (legacy_registry.go: sorted keys in AppendPriorityConfigs), with
 * the default weights of LegacyRegistry.DefaultPriorities. Also the
 * argument parsers for the custom priorities (labelPreference,
 * serviceAntiAffinity, requestedToCapacityRatioArguments, highComm).
 */
#include "priorities/priorities.h"

#include <string.h>

#include "policy/policy.h"

#define PS (KPE_EP_PRESCORE | KPE_EP_SCORE)
#define NEED_SPREAD                                                            \
    (KPE_NEED_ALL_PODS | KPE_NEED_SERVICES | KPE_NEED_CONTROLLERS)

static prio_parse_args_fn parse_node_label;
static prio_parse_args_fn parse_service_affinity;
static prio_parse_args_fn parse_rtcr;
static prio_parse_args_fn parse_high_comm;

static const struct prio_def prio_rows[] = {
    /* name, flags, default weight, needs, args kind, parse, v1.22 plugin */
    { PRIO_NAME_BALANCED_ALLOCATION,
      PRIO_DEFAULT,
      1,
      KPE_NEED_PODS_ON_NODE,
      PRIO_ARGS_NONE,
      NULL,
      { { "NodeResourcesBalancedAllocation", KPE_EP_SCORE } } },
    { PRIO_NAME_CUSTOM_PRIORITY_POLICY,
      PRIO_EXTENSION,
      0,
      0,
      PRIO_ARGS_HIGH_COMM,
      parse_high_comm,
      { { NULL, 0 } } },
    { PRIO_NAME_EQUAL,
      PRIO_SKIPPED,
      0,
      0,
      PRIO_ARGS_NONE,
      NULL,
      { { NULL, 0 } } },
    { PRIO_NAME_EVEN_PODS_SPREAD,
      PRIO_DEFAULT,
      2,
      KPE_NEED_ALL_PODS,
      PRIO_ARGS_TOPOLOGY_SPREAD,
      NULL,
      { { "PodTopologySpread", PS } } },
    { PRIO_NAME_IMAGE_LOCALITY,
      PRIO_DEFAULT,
      1,
      0,
      PRIO_ARGS_NONE,
      NULL,
      { { "ImageLocality", KPE_EP_SCORE } } },
    { PRIO_NAME_INTER_POD_AFFINITY,
      PRIO_DEFAULT,
      1,
      KPE_NEED_ALL_PODS | KPE_NEED_NAMESPACES,
      PRIO_ARGS_INTER_POD,
      NULL,
      { { "InterPodAffinity", PS } } },
    { PRIO_NAME_LEAST_REQUESTED,
      PRIO_DEFAULT,
      1,
      KPE_NEED_PODS_ON_NODE,
      PRIO_ARGS_RESOURCES,
      NULL,
      { { "NodeResourcesLeastAllocated", KPE_EP_SCORE } } },
    { PRIO_NAME_MOST_REQUESTED,
      0,
      0,
      KPE_NEED_PODS_ON_NODE,
      PRIO_ARGS_RESOURCES,
      NULL,
      { { "NodeResourcesMostAllocated", KPE_EP_SCORE } } },
    { PRIO_NAME_NODE_AFFINITY,
      PRIO_DEFAULT,
      1,
      0,
      PRIO_ARGS_NONE,
      NULL,
      { { "NodeAffinity", PS } } },
    { PRIO_NAME_NODE_LABEL,
      PRIO_CUSTOM_ONLY | PRIO_WEIGHT_LABELS,
      0,
      0,
      PRIO_ARGS_NODE_LABEL,
      parse_node_label,
      { { "NodeLabel", KPE_EP_SCORE } } },
    { PRIO_NAME_NODE_PREFER_AVOID_PODS,
      PRIO_DEFAULT,
      10000,
      0,
      PRIO_ARGS_NONE,
      NULL,
      { { "NodePreferAvoidPods", KPE_EP_SCORE } } },
    { PRIO_NAME_RTCR,
      PRIO_CUSTOM_ONLY,
      0,
      KPE_NEED_PODS_ON_NODE,
      PRIO_ARGS_RTCR,
      parse_rtcr,
      { { "RequestedToCapacityRatio", KPE_EP_SCORE } } },
    { PRIO_NAME_RESOURCE_LIMITS,
      PRIO_LEGACY,
      0,
      0,
      PRIO_ARGS_NONE,
      NULL,
      { { NULL, 0 } } },
    { PRIO_NAME_SELECTOR_SPREAD,
      PRIO_DEFAULT,
      1,
      NEED_SPREAD,
      PRIO_ARGS_TOPOLOGY_SPREAD,
      NULL,
      { { "PodTopologySpread", PS } } },
    { PRIO_NAME_SERVICE_AFFINITY,
      PRIO_CUSTOM_ONLY | PRIO_WEIGHT_LABELS,
      0,
      KPE_NEED_ALL_PODS | KPE_NEED_SERVICES,
      PRIO_ARGS_SERVICE_AFFINITY,
      parse_service_affinity,
      { { "ServiceAffinity", KPE_EP_SCORE } } },
    { PRIO_NAME_TAINT_TOLERATION,
      PRIO_DEFAULT,
      1,
      0,
      PRIO_ARGS_NONE,
      NULL,
      { { "TaintToleration", PS } } },
};

static const struct prio_alias prio_alias_rows[] = {
    { PRIO_NAME_SERVICE_SPREADING, PRIO_NAME_SELECTOR_SPREAD },
    { PRIO_NAME_RDMA_AWARE, PRIO_NAME_CUSTOM_PRIORITY_POLICY },
};

#define N_ROWS (sizeof(prio_rows) / sizeof(prio_rows[0]))

const struct prio_def *prio_registry(size_t *n)
{
    *n = N_ROWS;
    return prio_rows;
}

const struct prio_alias *prio_aliases(size_t *n)
{
    *n = sizeof(prio_alias_rows) / sizeof(prio_alias_rows[0]);
    return prio_alias_rows;
}

const struct prio_def *prio_lookup(const char *name)
{
    size_t i, n;
    const struct prio_alias *al = prio_aliases(&n);

    if (!name)
        return NULL;
    for (i = 0; i < n; i++) {
        if (!strcmp(al[i].name, name)) {
            name = al[i].target;
            break;
        }
    }
    for (i = 0; i < N_ROWS; i++) {
        if (!strcmp(prio_rows[i].name, name))
            return &prio_rows[i];
    }
    return NULL;
}

const struct prio_def *prio_for_args_kind(enum prio_args_kind kind)
{
    size_t i;

    for (i = 0; i < N_ROWS; i++) {
        if ((prio_rows[i].flags & (PRIO_CUSTOM_ONLY | PRIO_EXTENSION)) &&
            prio_rows[i].args_kind == kind)
            return &prio_rows[i];
    }
    return NULL;
}

size_t prio_index(const struct prio_def *d)
{
    return (size_t)(d - prio_rows);
}

/* Append one string to an arena list. */
static int strlist_push(struct arena *a, struct policy_strlist *l,
                        const char *s, struct err *e)
{
    const char **v;

    if (l->n >= POLICY_MAX_LIST)
        return err_set(e, "more than %d labels", POLICY_MAX_LIST);
    v = arena_calloc(a, l->n + 1, sizeof(*v));
    if (!v)
        return err_set(e, "out of memory");
    if (l->n)
        memcpy(v, l->v, l->n * sizeof(*v));
    v[l->n++] = s ? s : "";
    l->v = v;
    return 0;
}

/* labelPreference: one label, preferred present or absent. */
static int parse_node_label(const struct policy_prio_arg *arg, struct arena *a,
                            struct prio_args *out, struct err *e)
{
    if (!arg || !arg->has_label_preference)
        return 0;
    return strlist_push(a,
                        arg->label_preference_presence
                            ? &out->u.node_label.present
                            : &out->u.node_label.absent,
                        arg->label_preference_label, e);
}

/* serviceAntiAffinity: one label to spread a service's pods over. */
static int parse_service_affinity(const struct policy_prio_arg *arg,
                                  struct arena *a, struct prio_args *out,
                                  struct err *e)
{
    if (!arg || !arg->has_service_anti_affinity)
        return 0;
    return strlist_push(a, &out->u.service_affinity.labels,
                        arg->service_anti_affinity_label, e);
}

/*
 * requestedToCapacityRatioArguments: shape and resources copied as given
 * (no defaulting on the legacy path), then checked as the plugin's args
 * validation does (validation_pluginargs.go).
 */
static int parse_rtcr(const struct policy_prio_arg *arg, struct arena *a,
                      struct prio_args *out, struct err *e)
{
    (void)a;
    if (!arg || !arg->has_rtcr)
        return 0;
    out->u.rtcr.shape = arg->shape;
    out->u.rtcr.n_shape = arg->n_shape;
    out->u.rtcr.resources = arg->resources;
    out->u.rtcr.n_resources = arg->n_resources;
    return policy_validate_rtcr(arg->shape, arg->n_shape, arg->resources,
                                arg->n_resources, e);
}

static int parse_high_comm(const struct policy_prio_arg *arg, struct arena *a,
                           struct prio_args *out, struct err *e)
{
    const struct policy_high_comm_arg *hc =
        arg && arg->has_high_comm ? &arg->high_comm : NULL;

    (void)a;
    return policy_high_comm_args(hc, &out->u.high_comm.pod_label,
                                 &out->u.high_comm.node_label,
                                 &out->u.high_comm.node_label_value, e);
}
