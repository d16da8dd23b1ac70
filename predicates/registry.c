/*
 * registry.c: the predicate rows, in run order. v1.22's 19 keys keep the
 * order of legacy_registry.go predicateOrdering; the names v1.22 dropped
 * sit where the v1.13-v1.16 orderings ran them; our predicates come last.
 * Mirrors pkg/scheduler/framework/plugins/legacy_registry.go.
 */
#include "predicates/predicates.h"

#include <string.h>

#include "policy/policy.h"

#define NEED_VOLUMES                                                           \
    (KPE_NEED_PODS_ON_NODE | KPE_NEED_PVS | KPE_NEED_PVCS |                    \
     KPE_NEED_STORAGE_CLASSES | KPE_NEED_CSINODES)
#define PF (KPE_EP_PREFILTER | KPE_EP_FILTER)

static pred_parse_args_fn parse_node_label;
static pred_parse_args_fn parse_service_affinity;
static pred_parse_args_fn parse_high_comm;

static const struct pred_def pred_rows[] = {
    /* name, flags, needs, args kind, parse_args, v1.22 plugins */
    { PRED_NAME_CHECK_NODE_CONDITION,
      PRED_LEGACY,
      0,
      PRED_ARGS_NONE,
      NULL,
      { { NULL, 0 } } },
    { PRED_NAME_CHECK_NODE_UNSCHEDULABLE,
      PRED_MANDATORY | PRED_DEFAULT,
      0,
      PRED_ARGS_NONE,
      NULL,
      { { "NodeUnschedulable", KPE_EP_FILTER } } },
    { PRED_NAME_GENERAL_PREDICATES,
      PRED_DEFAULT,
      KPE_NEED_PODS_ON_NODE,
      PRED_ARGS_NONE,
      NULL,
      { { "NodeResourcesFit", PF },
        { "NodeName", KPE_EP_FILTER },
        { "NodePorts", PF },
        { "NodeAffinity", PF } } },
    { PRED_NAME_HOST_NAME,
      0,
      0,
      PRED_ARGS_NONE,
      NULL,
      { { "NodeName", KPE_EP_FILTER } } },
    { PRED_NAME_POD_FITS_HOST_PORTS,
      0,
      KPE_NEED_PODS_ON_NODE,
      PRED_ARGS_NONE,
      NULL,
      { { "NodePorts", PF } } },
    { PRED_NAME_MATCH_NODE_SELECTOR,
      0,
      0,
      PRED_ARGS_NONE,
      NULL,
      { { "NodeAffinity", PF } } },
    { PRED_NAME_POD_FITS_RESOURCES,
      0,
      KPE_NEED_PODS_ON_NODE,
      PRED_ARGS_NONE,
      NULL,
      { { "NodeResourcesFit", PF } } },
    { PRED_NAME_NO_DISK_CONFLICT,
      PRED_DEFAULT,
      KPE_NEED_PODS_ON_NODE,
      PRED_ARGS_NONE,
      NULL,
      { { "VolumeRestrictions", KPE_EP_FILTER } } },
    { PRED_NAME_POD_TOLERATES_NODE_TAINTS,
      PRED_MANDATORY | PRED_DEFAULT,
      0,
      PRED_ARGS_NONE,
      NULL,
      { { "TaintToleration", KPE_EP_FILTER } } },
    { PRED_NAME_NO_EXECUTE_TAINTS,
      PRED_LEGACY,
      0,
      PRED_ARGS_NONE,
      NULL,
      { { NULL, 0 } } },
    { PRED_NAME_CHECK_NODE_LABEL_PRESENCE,
      PRED_CUSTOM_ONLY,
      0,
      PRED_ARGS_NODE_LABEL,
      parse_node_label,
      { { "NodeLabel", KPE_EP_FILTER } } },
    { PRED_NAME_CHECK_SERVICE_AFFINITY,
      PRED_CUSTOM_ONLY,
      KPE_NEED_ALL_PODS | KPE_NEED_SERVICES,
      PRED_ARGS_SERVICE_AFFINITY,
      parse_service_affinity,
      { { "ServiceAffinity", PF } } },
    { PRED_NAME_MAX_EBS_VOLUME_COUNT,
      PRED_DEFAULT,
      NEED_VOLUMES,
      PRED_ARGS_NONE,
      NULL,
      { { "EBSLimits", KPE_EP_FILTER } } },
    { PRED_NAME_MAX_GCE_PD_VOLUME_COUNT,
      PRED_DEFAULT,
      NEED_VOLUMES,
      PRED_ARGS_NONE,
      NULL,
      { { "GCEPDLimits", KPE_EP_FILTER } } },
    { PRED_NAME_MAX_CSI_VOLUME_COUNT,
      PRED_DEFAULT,
      NEED_VOLUMES,
      PRED_ARGS_NONE,
      NULL,
      { { "NodeVolumeLimits", KPE_EP_FILTER } } },
    { PRED_NAME_MAX_AZURE_DISK_COUNT,
      PRED_DEFAULT,
      NEED_VOLUMES,
      PRED_ARGS_NONE,
      NULL,
      { { "AzureDiskLimits", KPE_EP_FILTER } } },
    { PRED_NAME_MAX_CINDER_VOLUME_COUNT,
      0,
      NEED_VOLUMES,
      PRED_ARGS_NONE,
      NULL,
      { { "CinderLimits", KPE_EP_FILTER } } },
    { PRED_NAME_CHECK_VOLUME_BINDING,
      PRED_DEFAULT,
      KPE_NEED_PVS | KPE_NEED_PVCS | KPE_NEED_STORAGE_CLASSES,
      PRED_ARGS_NONE,
      NULL,
      { { "VolumeBinding", PF | KPE_EP_RESERVE | KPE_EP_PREBIND } } },
    { PRED_NAME_NO_VOLUME_ZONE_CONFLICT,
      PRED_DEFAULT,
      KPE_NEED_PVS | KPE_NEED_PVCS | KPE_NEED_STORAGE_CLASSES,
      PRED_ARGS_NONE,
      NULL,
      { { "VolumeZone", KPE_EP_FILTER } } },
    { PRED_NAME_CHECK_NODE_MEMORY_PRESSURE,
      PRED_LEGACY,
      0,
      PRED_ARGS_NONE,
      NULL,
      { { NULL, 0 } } },
    { PRED_NAME_CHECK_NODE_PID_PRESSURE,
      PRED_LEGACY,
      0,
      PRED_ARGS_NONE,
      NULL,
      { { NULL, 0 } } },
    { PRED_NAME_CHECK_NODE_DISK_PRESSURE,
      PRED_LEGACY,
      0,
      PRED_ARGS_NONE,
      NULL,
      { { NULL, 0 } } },
    { PRED_NAME_NO_VOLUME_NODE_CONFLICT,
      PRED_LEGACY,
      KPE_NEED_PVS | KPE_NEED_PVCS,
      PRED_ARGS_NONE,
      NULL,
      { { NULL, 0 } } },
    { PRED_NAME_EVEN_PODS_SPREAD,
      PRED_DEFAULT,
      KPE_NEED_ALL_PODS,
      PRED_ARGS_NONE,
      NULL,
      { { "PodTopologySpread", PF } } },
    { PRED_NAME_MATCH_INTER_POD_AFFINITY,
      PRED_DEFAULT,
      KPE_NEED_ALL_PODS | KPE_NEED_NAMESPACES,
      PRED_ARGS_NONE,
      NULL,
      { { "InterPodAffinity", PF } } },
    { PRED_NAME_HIGH_COMM,
      PRED_EXTENSION,
      0,
      PRED_ARGS_HIGH_COMM,
      parse_high_comm,
      { { NULL, 0 } } },
    { PRED_NAME_POD_FITS_HOST_NEW,
      PRED_EXTENSION,
      0,
      PRED_ARGS_NONE,
      NULL,
      { { NULL, 0 } } },
};

static const struct pred_alias pred_alias_rows[] = {
    { PRED_NAME_POD_FITS_PORTS, PRED_NAME_POD_FITS_HOST_PORTS },
    { PRED_NAME_CUSTOM_PREDICATE_POLICY, PRED_NAME_POD_FITS_HOST_NEW },
};

/* legacy_registry.go predicateOrdering, kept here for tests. */
static const char *const v122_ordering[] = {
    PRED_NAME_CHECK_NODE_UNSCHEDULABLE,
    PRED_NAME_GENERAL_PREDICATES,
    PRED_NAME_HOST_NAME,
    PRED_NAME_POD_FITS_HOST_PORTS,
    PRED_NAME_MATCH_NODE_SELECTOR,
    PRED_NAME_POD_FITS_RESOURCES,
    PRED_NAME_NO_DISK_CONFLICT,
    PRED_NAME_POD_TOLERATES_NODE_TAINTS,
    PRED_NAME_CHECK_NODE_LABEL_PRESENCE,
    PRED_NAME_CHECK_SERVICE_AFFINITY,
    PRED_NAME_MAX_EBS_VOLUME_COUNT,
    PRED_NAME_MAX_GCE_PD_VOLUME_COUNT,
    PRED_NAME_MAX_CSI_VOLUME_COUNT,
    PRED_NAME_MAX_AZURE_DISK_COUNT,
    PRED_NAME_MAX_CINDER_VOLUME_COUNT,
    PRED_NAME_CHECK_VOLUME_BINDING,
    PRED_NAME_NO_VOLUME_ZONE_CONFLICT,
    PRED_NAME_EVEN_PODS_SPREAD,
    PRED_NAME_MATCH_INTER_POD_AFFINITY,
};

#define N_ROWS (sizeof(pred_rows) / sizeof(pred_rows[0]))

const struct pred_def *pred_registry(size_t *n)
{
    *n = N_ROWS;
    return pred_rows;
}

const struct pred_alias *pred_aliases(size_t *n)
{
    *n = sizeof(pred_alias_rows) / sizeof(pred_alias_rows[0]);
    return pred_alias_rows;
}

const char *const *pred_v122_ordering(size_t *n)
{
    *n = sizeof(v122_ordering) / sizeof(v122_ordering[0]);
    return v122_ordering;
}

const struct pred_def *pred_lookup(const char *name)
{
    size_t i, n;
    const struct pred_alias *al = pred_aliases(&n);

    if (!name)
        return NULL;
    for (i = 0; i < n; i++) {
        if (!strcmp(al[i].name, name)) {
            name = al[i].target;
            break;
        }
    }
    for (i = 0; i < N_ROWS; i++) {
        if (!strcmp(pred_rows[i].name, name))
            return &pred_rows[i];
    }
    return NULL;
}

const struct pred_def *pred_for_args_kind(enum pred_args_kind kind)
{
    size_t i;

    for (i = 0; i < N_ROWS; i++) {
        if (kind != PRED_ARGS_NONE && pred_rows[i].args_kind == kind)
            return &pred_rows[i];
    }
    return NULL;
}

size_t pred_index(const struct pred_def *d)
{
    return (size_t)(d - pred_rows);
}

/* Append src to dst (both arena lists); returns 0 or -1 on OOM. */
static int strlist_append(struct arena *a, struct policy_strlist *dst,
                          const struct policy_strlist *src, struct err *e)
{
    const char **v;
    size_t i;

    if (src->n == 0)
        return 0;
    if (dst->n + src->n > POLICY_MAX_LIST)
        return err_set(e, "more than %d labels", POLICY_MAX_LIST);
    v = arena_calloc(a, dst->n + src->n, sizeof(*v));
    if (!v)
        return err_set(e, "out of memory");
    for (i = 0; i < dst->n; i++)
        v[i] = dst->v[i];
    for (i = 0; i < src->n; i++)
        v[dst->n + i] = src->v[i];
    dst->v = v;
    dst->n += src->n;
    return 0;
}

/* labelsPresence: labels appended to presentLabels or absentLabels. */
static int parse_node_label(const struct policy_pred_arg *arg, struct arena *a,
                            struct pred_args *out, struct err *e)
{
    if (!arg || !arg->has_labels_presence)
        return 0;
    return strlist_append(a,
                          arg->labels_presence_presence
                              ? &out->u.node_label.present
                              : &out->u.node_label.absent,
                          &arg->labels_presence_labels, e);
}

/* serviceAffinity: labels appended to affinityLabels. */
static int parse_service_affinity(const struct policy_pred_arg *arg,
                                  struct arena *a, struct pred_args *out,
                                  struct err *e)
{
    if (!arg || !arg->has_service_affinity)
        return 0;
    return strlist_append(a, &out->u.service_affinity.labels,
                          &arg->service_affinity_labels, e);
}

static int parse_high_comm(const struct policy_pred_arg *arg, struct arena *a,
                           struct pred_args *out, struct err *e)
{
    const struct policy_high_comm_arg *hc =
        arg && arg->has_high_comm ? &arg->high_comm : NULL;

    (void)a;
    return policy_high_comm_args(hc, &out->u.high_comm.pod_label,
                                 &out->u.high_comm.node_label,
                                 &out->u.high_comm.node_label_value, e);
}
