/*
 * taint_toleration.c: PodToleratesNodeTaints (mandatory), the v1.22
 * TaintToleration filter plugin (plugins/tainttoleration). Every NoSchedule
 * and NoExecute taint of the node must be tolerated by the pod;
 * PreferNoSchedule taints only matter for scoring.
 */
#include "predicates/plugins.h"

#include <string.h>

#include "kube/model/labels.h"
#include "predicates/taint_toleration.h"
#include "predicates/predicates.h"

#define PRED_NAME_POD_TOLERATES_NODE_TAINTS "PodToleratesNodeTaints"

static bool filtered_effect(const char *effect)
{
    return effect &&
           (!strcmp(effect, "NoSchedule") || !strcmp(effect, "NoExecute"));
}

/*
 * Filter: the first NoSchedule/NoExecute taint, in node.spec.taints order,
 * that no toleration of the pod tolerates fails the node with
 * UnschedulableAndUnresolvable, naming that taint's key and value.
 */
enum pred_code pred_taint_toleration_filter(const struct pred_cycle *cy,
                                            const void *args, const void *state,
                                            const struct node_info *ni,
                                            struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;
    const struct kube_node *node;

    (void)args;
    (void)state;
    if (!ni || !ni->node)
        return pred_fail(r, PRED_ERROR, "invalid nodeInfo");
    node = ni->node;
    for (size_t i = 0; i < node->n_taints; i++) {
        const struct kube_taint *t = &node->taints[i];

        if (!filtered_effect(t->effect))
            continue;
        if (kube_tolerations_tolerate(pod->tolerations, pod->n_tolerations, t))
            continue;
        return pred_failf(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_TAINT,
                          t->key ? t->key : "", t->value ? t->value : "");
    }
    return PRED_FIT;
}

const struct pred_plugin pred_plugin_taint_toleration = {
    { "TaintToleration", KPE_EP_FILTER },
    NULL,
    pred_taint_toleration_filter,
    (const char *const[]){ PRED_REASON_TAINT, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_pod_tolerates_node_taints = {
    .name = PRED_NAME_POD_TOLERATES_NODE_TAINTS,
    .aliases = NULL,
    .flags = PRED_MANDATORY | PRED_DEFAULT,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { &pred_plugin_taint_toleration },
    .own = NULL,
    .doc = "the pod tolerates the node's NoSchedule and NoExecute taints",
};
