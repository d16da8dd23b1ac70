/*
 * high_comm.c: HighCommPodFilter, seed 000's custom filter plugin (no
 * v1.22 equivalent; served by the extender). A pod carrying the label key
 * podLabel (any value, the seed's first version) fits only nodes whose
 * label nodeLabel equals nodeLabelValue; other pods are not restricted.
 * Its argument, highComm, has the defaults "high-comm",
 * "node.kubernetes.io/rdma-enabled" and "true", which the framework applies
 * before the filter runs. This file is the whole predicate: its name, its
 * reason, its argument, its code and its descriptor (registered by one
 * line in predicates/registry.c).
 */
#include <string.h>

#include "kube/model/labels.h"
#include "predicates/predicates.h"

#define NAME   "HighCommPodFilter"
#define REASON "Node does not support RDMA"

/* Its argument: "highComm" with the fields and defaults of high_comm_arg.h;
 * an entry without one runs with the defaults. */
static const struct kpe_arg_schema schema = KPE_HIGH_COMM_SCHEMA("highComm");

/*
 * Filter: args is a struct pred_args whose value is the highComm value
 * (NULL: the defaults). Failure is Unschedulable, as the seed's plugin
 * returns.
 */
static enum pred_code filter(const struct pred_cycle *cy, const void *args,
                             const void *state, const struct node_info *ni,
                             struct pred_result *r)
{
    const struct pred_args *pa = args;
    const struct policy_high_comm_arg *a = pa ? pa->value : NULL;
    struct policy_high_comm_arg dflt = { NULL, NULL, NULL };
    const char *have;

    (void)state;
    if (!a) {
        kpe_arg_defaults(&schema, &dflt);
        a = &dflt;
    }
    if (!kube_labels_get(&cy->pod->labels, a->pod_label))
        return PRED_FIT;
    if (!ni || !ni->node)
        return pred_fail(r, PRED_ERROR, "node not found");
    have = node_info_label(ni, a->node_label);
    if (have && !strcmp(have, a->node_label_value))
        return PRED_FIT;
    return pred_fail(r, PRED_UNFIT, REASON);
}

/* highComm (defaults applied): checked, equal across entries. */
static int parse_args(const void *written, struct arena *a,
                      struct pred_args *out, struct err *e)
{
    (void)a;
    return kpe_high_comm_check(schema.key, written, &out->value, e);
}

static const struct pred_plugin plugin = {
    { NAME, 0 },        NULL, filter, (const char *const[]){ REASON, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_high_comm_pod_filter = {
    .name = NAME,
    .flags = PRED_EXTENSION,
    .args = &schema,
    .parse_args = parse_args,
    .own = &plugin,
    .doc =
        "seed 000: pods with the high-comm label fit only RDMA-enabled nodes",
};
