/*
 * legacy_node_condition.c: CheckNodeCondition, a predicate v1.22 no longer
 * has (compat legacy), with the semantics of its last release (v1.16
 * predicates.go CheckNodeConditionPredicate): a node whose Ready condition
 * is not True, whose NetworkUnavailable condition is not False, or which
 * is cordoned (spec.unschedulable, tolerations not consulted) is rejected.
 *
 * Code: v1.16 listed these reasons as unresolvable (error.go
 * unresolvablePredicateFailureErrors), and the framework wrapper of the
 * next releases (migration.PredicateResultToFrameworkStatus) turned them
 * into UnschedulableAndUnresolvable, the code v1.22 reports as
 * FailedAndUnresolvableNodes; so PRED_UNFIT_UNRESOLVABLE.
 */
#include "predicates/plugins.h"

#include <string.h>

#include "predicates/node_unschedulable.h"
#include "predicates/legacy_node_condition.h"
#include "predicates/predicates.h"

#define PRED_NAME_CHECK_NODE_CONDITION "CheckNodeCondition"

/*
 * Filter: one reason per offending condition, in node.status.conditions
 * order, then "unschedulable" when the node is cordoned; a node_info
 * without a node fails with "unknown conditions".
 */
enum pred_code pred_check_node_condition_filter(const struct pred_cycle *cy,
                                                const void *args,
                                                const void *state,
                                                const struct node_info *ni,
                                                struct pred_result *r)
{
    const struct kube_node *node;

    (void)cy;
    (void)args;
    (void)state;
    if (!ni || !ni->node)
        return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                         PRED_REASON_UNKNOWN_CONDITION);
    node = ni->node;
    for (size_t i = 0; i < node->n_conditions; i++) {
        const struct kube_node_condition *c = &node->conditions[i];
        const char *type = c->type ? c->type : "";
        const char *status = c->status ? c->status : "";

        if (!strcmp(type, "Ready") && strcmp(status, "True"))
            pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_NOT_READY);
        else if (!strcmp(type, "NetworkUnavailable") && strcmp(status, "False"))
            pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_NETWORK_UNAVAIL);
    }
    if (node->unschedulable)
        pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_UNSCHEDULABLE);
    return r->code;
}

const struct pred_plugin pred_plugin_check_node_condition = {
    { PRED_NAME_CHECK_NODE_CONDITION, 0 },
    NULL,
    pred_check_node_condition_filter,
    (const char *const[]){ PRED_REASON_NOT_READY, PRED_REASON_NETWORK_UNAVAIL,
                           PRED_REASON_UNSCHEDULABLE,
                           PRED_REASON_UNKNOWN_CONDITION, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_check_node_condition = {
    .name = PRED_NAME_CHECK_NODE_CONDITION,
    .aliases = NULL,
    .flags = PRED_LEGACY,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { NULL },
    .own = &pred_plugin_check_node_condition,
    .doc = "node Ready, network available and schedulable (v1.8-v1.16)",
};
