/*
 * rdma_aware.c: our CustomPriorityPolicy (alias RdmaAwarePriority), no
 * v1.22 counterpart: pods that communicate heavily (label key
 * highComm.podLabel, default "high-comm") prefer RDMA nodes (label
 * highComm.nodeLabel equal to highComm.nodeLabelValue, default
 * node.kubernetes.io/rdma-enabled = "true"); all other pods prefer to
 * leave those nodes free.
 */
#include "priorities/plugins.h"

#include <string.h>

#include "kube/model/labels.h"
#include "priorities/priorities.h"

/* The highComm names from args, or the defaults of predicates.h. */
static void names(const struct prio_args *a, const char **pod_label,
                  const char **node_label, const char **node_value)
{
    bool hc = a && a->kind == PRIO_ARGS_HIGH_COMM;

    *pod_label = hc && a->u.high_comm.pod_label
                     ? a->u.high_comm.pod_label
                     : PRED_HIGH_COMM_DEFAULT_POD_LABEL;
    *node_label = hc && a->u.high_comm.node_label
                      ? a->u.high_comm.node_label
                      : PRED_HIGH_COMM_DEFAULT_NODE_LABEL;
    *node_value = hc && a->u.high_comm.node_label_value
                      ? a->u.high_comm.node_label_value
                      : PRED_HIGH_COMM_DEFAULT_NODE_VALUE;
}

/*
 * Score: 100 when the pod's kind (high-comm or not) matches the node's
 * (RDMA or not), else 0. Only the pod label's key matters; the node label
 * must equal the value exactly. No normalisation.
 */
int prio_rdma_aware_score(const struct prio_cycle *cy, const void *args,
                          const void *state, const struct node_info *ni,
                          int64_t *score, struct err *e)
{
    const char *pod_label, *node_label, *node_value, *have;
    bool high_comm, rdma;

    (void)state;
    (void)e;
    names(args, &pod_label, &node_label, &node_value);
    high_comm = kube_labels_get(&cy->pod->labels, pod_label) != NULL;
    have = kube_labels_get(&ni->node->labels, node_label);
    rdma = have && !strcmp(have, node_value);
    *score = high_comm == rdma ? PRIO_MAX_NODE_SCORE : 0;
    return 0;
}

const struct prio_plugin prio_plugin_rdma_aware = {
    { PRIO_NAME_CUSTOM_PRIORITY_POLICY, 0 },
    NULL,
    prio_rdma_aware_score,
    NULL,
};

/* highComm: defaults filled in, checked, equal across entries. */
static int parse_high_comm_args(const void *written, struct arena *a,
                                struct prio_args *out, struct err *e)
{
    (void)a;
    return kpe_high_comm_args(written, &out->u.high_comm.pod_label,
                              &out->u.high_comm.node_label,
                              &out->u.high_comm.node_label_value, e);
}

/* The typed arguments, as check shows them: {"highComm": {...}}. */
static const struct kpe_arg_field high_comm_resolved_fields[] = {
    { .name = "highComm",
      .type = KPE_ARG_OBJECT,
      .offset = offsetof(struct prio_args, u.high_comm),
      .elem = &kpe_high_comm_schema },
};

static const struct kpe_arg_schema high_comm_resolved = {
    .key = "highComm",
    .fields = KPE_ARG_FIELDS(high_comm_resolved_fields),
};

const struct prio_def prio_custom_priority_policy = {
    .name = PRIO_NAME_CUSTOM_PRIORITY_POLICY,
    .aliases = (const char *const[]){ PRIO_NAME_RDMA_AWARE, NULL },
    .flags = PRIO_EXTENSION,
    .default_weight = 0,
    .needs = 0,
    .args_kind = PRIO_ARGS_HIGH_COMM,
    .args = &kpe_high_comm_schema,
    .resolved = &high_comm_resolved,
    .parse_args = parse_high_comm_args,
    .plugins = { NULL },
    .own = &prio_plugin_rdma_aware,
    .gate_off = NULL,
    .doc =
        "seed 003: high-comm pods score RDMA nodes 10, other pods score them 0",
};
