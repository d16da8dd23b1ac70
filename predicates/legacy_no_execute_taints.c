/*
 * legacy_no_execute_taints.c: PodToleratesNodeNoExecuteTaints, a predicate
 * v1.22 no longer has (compat legacy), with the semantics of its last
 * release (v1.16 predicates.go): every NoExecute taint of the node must be
 * tolerated by the pod; other effects are ignored.
 *
 * Code: PRED_UNFIT_UNRESOLVABLE. Its reason (ErrTaintsTolerationsNotMatch)
 * was in v1.16's unresolvable set and became UnschedulableAndUnresolvable
 * under the framework wrapper that followed (see legacy_node_condition.c).
 */
#include "predicates/plugins.h"

#include <string.h>

#include "kube/model/labels.h"
#include "predicates/legacy_no_execute_taints.h"
#include "predicates/predicates.h"

#define PRED_NAME_NO_EXECUTE_TAINTS "PodToleratesNodeNoExecuteTaints"

/*
 * Filter: fit when the pod tolerates every NoExecute taint; otherwise the
 * v1.16 generic reason (no taint named). A node_info without a node has no
 * taints, so fits, as v1.16's nodeInfo.Taints() gave none.
 */
enum pred_code pred_no_execute_taints_filter(const struct pred_cycle *cy,
                                             const void *args,
                                             const void *state,
                                             const struct node_info *ni,
                                             struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;

    (void)args;
    (void)state;
    if (!ni || !ni->node)
        return PRED_FIT;
    for (size_t i = 0; i < ni->node->n_taints; i++) {
        const struct kube_taint *t = &ni->node->taints[i];

        if (!t->effect || strcmp(t->effect, "NoExecute"))
            continue;
        if (!kube_tolerations_tolerate(pod->tolerations, pod->n_tolerations, t))
            return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                             PRED_REASON_TAINTS_LEGACY);
    }
    return PRED_FIT;
}

const struct pred_plugin pred_plugin_no_execute_taints = {
    { PRED_NAME_NO_EXECUTE_TAINTS, 0 },
    NULL,
    pred_no_execute_taints_filter,
    (const char *const[]){ PRED_REASON_TAINTS_LEGACY, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_pod_tolerates_node_no_execute_taints = {
    .name = PRED_NAME_NO_EXECUTE_TAINTS,
    .aliases = NULL,
    .flags = PRED_LEGACY,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { NULL },
    .own = &pred_plugin_no_execute_taints,
    .doc = "the pod tolerates the node's NoExecute taints (v1.9-v1.12)",
};
