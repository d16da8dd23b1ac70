/*
 * high_comm_arg.c: the highComm argument (see high_comm_arg.h).
 */
#include "framework/high_comm_arg.h"

#include <string.h>

#include "framework/args_check.h"
#include "kube/model/labels.h"

const struct kpe_arg_field kpe_high_comm_fields[3] = {
    { .name = "podLabel",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct policy_high_comm_arg, pod_label),
      .type_doc = "string",
      .def = "high-comm" },
    { .name = "nodeLabel",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct policy_high_comm_arg, node_label),
      .type_doc = "string",
      .def = "node.kubernetes.io/rdma-enabled" },
    { .name = "nodeLabelValue",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct policy_high_comm_arg, node_label_value),
      .type_doc = "string",
      .def = "true" },
};

int kpe_high_comm_check(const char *key, const struct policy_high_comm_arg *hc,
                        const void **merged, struct err *e)
{
    const struct policy_high_comm_arg *prev = *merged;
    const char *msgs[1];
    char q[96];

    if (kpe_qualified_name_errors(hc->pod_label, msgs, 1))
        return err_set(e, "%s.podLabel: invalid label key %s: %s", key,
                       err_quote(q, sizeof(q), hc->pod_label, 60), msgs[0]);
    if (kpe_qualified_name_errors(hc->node_label, msgs, 1))
        return err_set(e, "%s.nodeLabel: invalid label key %s: %s", key,
                       err_quote(q, sizeof(q), hc->node_label, 60), msgs[0]);
    if (!kpe_is_label_value(hc->node_label_value))
        return err_set(e,
                       "%s.nodeLabelValue: invalid label value %s: "
                       "must be 63 characters or less, alphanumeric at both "
                       "ends, with '-', '_' or '.' between",
                       key, err_quote(q, sizeof(q), hc->node_label_value, 60));
    if (prev && (strcmp(prev->pod_label, hc->pod_label) ||
                 strcmp(prev->node_label, hc->node_label) ||
                 strcmp(prev->node_label_value, hc->node_label_value)))
        return err_set(e,
                       "%s: conflicts with the %s argument of an earlier "
                       "entry; one plugin can have one set of arguments",
                       key, key);
    *merged = hc;
    return 0;
}

void kpe_high_comm_pod(const struct kpe_arg_schema *schema,
                       const struct policy_high_comm_arg *value,
                       const struct kube_pod *pod,
                       struct kpe_high_comm_pod *out)
{
    if (value)
        out->arg = *value;
    else
        kpe_arg_defaults(schema, &out->arg);
    out->high_comm = kube_labels_get(&pod->labels, out->arg.pod_label) != NULL;
}
