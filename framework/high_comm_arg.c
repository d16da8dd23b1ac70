/*
 * high_comm_arg.c: the highComm argument (see high_comm_arg.h).
 */
#include "framework/high_comm_arg.h"

#include <string.h>

#include "framework/args_check.h"

static const struct kpe_arg_field fields[] = {
    { .name = "podLabel",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct policy_high_comm_arg, pod_label),
      .type_doc = "string",
      .def = PRED_HIGH_COMM_DEFAULT_POD_LABEL },
    { .name = "nodeLabel",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct policy_high_comm_arg, node_label),
      .type_doc = "string",
      .def = PRED_HIGH_COMM_DEFAULT_NODE_LABEL },
    { .name = "nodeLabelValue",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct policy_high_comm_arg, node_label_value),
      .type_doc = "string",
      .def = PRED_HIGH_COMM_DEFAULT_NODE_VALUE },
};

const struct kpe_arg_schema kpe_high_comm_schema = {
    .key = "highComm",
    .api_order = 100, /* ours: after every v1.22 member */
    .size = sizeof(struct policy_high_comm_arg),
    .fields = KPE_ARG_FIELDS(fields),
    .note = "ours: optional; one set of values per policy",
};

int kpe_high_comm_args(const struct policy_high_comm_arg *hc, const char **pod,
                       const char **node, const char **value, struct err *e)
{
    const char *p = PRED_HIGH_COMM_DEFAULT_POD_LABEL;
    const char *nl = PRED_HIGH_COMM_DEFAULT_NODE_LABEL;
    const char *v = PRED_HIGH_COMM_DEFAULT_NODE_VALUE;
    const char *msgs[1];
    char q[96];

    if (hc && hc->pod_label)
        p = hc->pod_label;
    if (hc && hc->node_label)
        nl = hc->node_label;
    if (hc && hc->node_label_value)
        v = hc->node_label_value;
    if (kpe_qualified_name_errors(p, msgs, 1))
        return err_set(e, "highComm.podLabel: invalid label key %s: %s",
                       err_quote(q, sizeof(q), p, 60), msgs[0]);
    if (kpe_qualified_name_errors(nl, msgs, 1))
        return err_set(e, "highComm.nodeLabel: invalid label key %s: %s",
                       err_quote(q, sizeof(q), nl, 60), msgs[0]);
    if (!kpe_is_label_value(v))
        return err_set(e,
                       "highComm.nodeLabelValue: invalid label value %s: "
                       "must be 63 characters or less, alphanumeric at both "
                       "ends, with '-', '_' or '.' between",
                       err_quote(q, sizeof(q), v, 60));
    if (*pod && (strcmp(*pod, p) || strcmp(*node, nl) || strcmp(*value, v)))
        return err_set(e, "highComm: conflicts with the highComm argument of "
                          "an earlier entry; one plugin can have one set of "
                          "arguments");
    *pod = p;
    *node = nl;
    *value = v;
    return 0;
}
