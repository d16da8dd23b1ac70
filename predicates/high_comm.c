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

#include "predicates/predicates.h"

#define NAME   "HighCommPodFilter"
#define REASON "Node does not support RDMA"

/* Its argument: "highComm" with the fields and defaults of high_comm_arg.h;
 * an entry without one runs with the defaults. */
static const struct kpe_arg_schema schema = KPE_HIGH_COMM_SCHEMA("highComm");

/* What the filter needs of the pod, found once per pod: args is a struct
 * pred_args whose value is the highComm value (NULL: the defaults). */
static void resolve(const void *args, const struct kube_pod *pod,
                    struct kpe_high_comm_pod *st)
{
    const struct pred_args *pa = args;

    kpe_high_comm_pod(&schema, pa ? pa->value : NULL, pod, st);
}

/* The pod's label is read once, not once per node: most pods are not
 * high-comm, and then every node fits without a look at it. */
static enum pred_code prefilter(struct pred_cycle *cy, const void *args,
                                void **state, struct pred_result *r)
{
    struct kpe_high_comm_pod *st = arena_alloc(cy->arena, sizeof(*st));

    if (!st)
        return pred_fail(r, PRED_ERROR, "out of memory");
    resolve(args, cy->pod, st);
    *state = st;
    return PRED_FIT;
}

/*
 * The filter: a pod with the label fits a node whose label has the value;
 * every other pod fits. Failure is Unschedulable, as the seed's plugin
 * returns. Without a PreFilter state (a caller that skipped it), the pod
 * is read here.
 */
static enum pred_code filter(const struct pred_cycle *cy, const void *args,
                             const void *state, const struct node_info *ni,
                             struct pred_result *r)
{
    const struct kpe_high_comm_pod *st = state;
    struct kpe_high_comm_pod own;
    const char *have;

    if (!st) {
        resolve(args, cy->pod, &own);
        st = &own;
    }
    if (!st->high_comm)
        return PRED_FIT;
    if (!ni || !ni->node)
        return pred_fail(r, PRED_ERROR, "node not found");
    have = node_info_label(ni, st->arg.node_label);
    if (have && !strcmp(have, st->arg.node_label_value))
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
    { NAME, 0 },
    prefilter,
    filter,
    (const char *const[]){ REASON, NULL },
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
