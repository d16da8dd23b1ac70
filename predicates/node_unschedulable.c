/*
 * node_unschedulable.c: CheckNodeUnschedulable (mandatory), the v1.22
 * NodeUnschedulable filter plugin (plugins/nodeunschedulable). A node with
 * spec.unschedulable rejects every pod that does not tolerate the taint
 * {node.kubernetes.io/unschedulable, "", NoSchedule}.
 */
#include "predicates/plugins.h"

#include "kube/model/labels.h"
#include "predicates/node_unschedulable.h"
#include "predicates/predicates.h"

#define PRED_NAME_CHECK_NODE_UNSCHEDULABLE "CheckNodeUnschedulable"

#define UNSCHEDULABLE_TAINT_KEY "node.kubernetes.io/unschedulable"

/*
 * Filter: fit unless the node is cordoned and the pod does not tolerate
 * the unschedulable taint. Both failures are UnschedulableAndUnresolvable:
 * evicting pods never uncordons a node.
 */
enum pred_code pred_node_unschedulable_filter(const struct pred_cycle *cy,
                                              const void *args,
                                              const void *state,
                                              const struct node_info *ni,
                                              struct pred_result *r)
{
    static const struct kube_taint taint = {
        UNSCHEDULABLE_TAINT_KEY,
        "",
        "NoSchedule",
    };
    const struct kube_pod *pod = cy->pod;

    (void)args;
    (void)state;
    if (!ni || !ni->node)
        return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                         PRED_REASON_UNKNOWN_CONDITION);
    if (!ni->node->unschedulable)
        return PRED_FIT;
    if (kube_tolerations_tolerate(pod->tolerations, pod->n_tolerations, &taint))
        return PRED_FIT;
    return pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_UNSCHEDULABLE);
}

const struct pred_plugin pred_plugin_node_unschedulable = {
    { "NodeUnschedulable", KPE_EP_FILTER },
    NULL,
    pred_node_unschedulable_filter,
    (const char *const[]){ PRED_REASON_UNSCHEDULABLE,
                           PRED_REASON_UNKNOWN_CONDITION, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_check_node_unschedulable = {
    .name = PRED_NAME_CHECK_NODE_UNSCHEDULABLE,
    .aliases = NULL,
    .flags = PRED_MANDATORY | PRED_DEFAULT,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { &pred_plugin_node_unschedulable },
    .own = NULL,
    .doc = "node not cordoned, unless the pod tolerates "
           "node.kubernetes.io/unschedulable",
};
