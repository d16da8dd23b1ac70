/*
 * high_comm.c: HighCommPodFilter, seed 000's custom filter plugin (no
 * v1.22 equivalent; served by the extender). A pod carrying the label key
 * args.pod_label (any value, the seed's first version) fits only nodes
 * whose label args.node_label equals args.node_label_value; other pods are
 * not restricted. Defaults: "high-comm", "node.kubernetes.io/rdma-enabled",
 * "true".
 */
#include "predicates/plugins.h"

#include <string.h>

#include "kube/model/labels.h"
#include "predicates/predicates.h"
#include "predicates/reasons.h"

static const char *or_default(const char *v, const char *def)
{
    return v ? v : def;
}

/*
 * Filter: args is a struct pred_args of kind PRED_ARGS_HIGH_COMM (NULL
 * members take the defaults) or of kind PRED_ARGS_NONE / NULL (all
 * defaults). Failure is Unschedulable, as the seed's plugin returns.
 */
enum pred_code pred_high_comm_filter(const struct pred_cycle *cy,
                                     const void *args, const void *state,
                                     const struct node_info *ni,
                                     struct pred_result *r)
{
    const struct pred_args *a = args;
    const char *pod_label = PRED_HIGH_COMM_DEFAULT_POD_LABEL;
    const char *node_label = PRED_HIGH_COMM_DEFAULT_NODE_LABEL;
    const char *want = PRED_HIGH_COMM_DEFAULT_NODE_VALUE;
    const char *have;

    (void)state;
    if (a && a->kind == PRED_ARGS_HIGH_COMM) {
        pod_label = or_default(a->u.high_comm.pod_label, pod_label);
        node_label = or_default(a->u.high_comm.node_label, node_label);
        want = or_default(a->u.high_comm.node_label_value, want);
    }
    if (!kube_labels_get(&cy->pod->labels, pod_label))
        return PRED_FIT;
    if (!ni || !ni->node)
        return pred_fail(r, PRED_ERROR, "node not found");
    have = kube_labels_get(&ni->node->labels, node_label);
    if (have && !strcmp(have, want))
        return PRED_FIT;
    return pred_fail(r, PRED_UNFIT, PRED_REASON_HIGH_COMM);
}

const struct pred_plugin pred_plugin_high_comm = {
    { PRED_NAME_HIGH_COMM, 0 },
    NULL,
    pred_high_comm_filter,
    (const char *const[]){ PRED_REASON_HIGH_COMM, NULL },
};

/* highComm: defaults filled in, checked, equal across entries. */
static int parse_high_comm_args(const void *written, struct arena *a,
                                struct pred_args *out, struct err *e)
{
    (void)a;
    return kpe_high_comm_args(written, &out->u.high_comm.pod_label,
                              &out->u.high_comm.node_label,
                              &out->u.high_comm.node_label_value, e);
}

/* The typed arguments, as check shows them. */
static const struct kpe_arg_field high_comm_resolved_fields[] = {
    { .name = "podLabel",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct pred_args, u.high_comm.pod_label) },
    { .name = "nodeLabel",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct pred_args, u.high_comm.node_label) },
    { .name = "nodeLabelValue",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct pred_args, u.high_comm.node_label_value) },
};

static const struct kpe_arg_schema high_comm_resolved = {
    .key = "highComm",
    .fields = KPE_ARG_FIELDS(high_comm_resolved_fields),
};

const struct pred_def pred_high_comm_pod_filter = {
    .name = PRED_NAME_HIGH_COMM,
    .aliases = NULL,
    .flags = PRED_EXTENSION,
    .needs = 0,
    .args_kind = PRED_ARGS_HIGH_COMM,
    .args = &kpe_high_comm_schema,
    .resolved = &high_comm_resolved,
    .parse_args = parse_high_comm_args,
    .plugins = { NULL },
    .own = &pred_plugin_high_comm,
    .doc =
        "seed 000: pods with the high-comm label fit only RDMA-enabled nodes",
};
