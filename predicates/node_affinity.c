/*
 * node_affinity.c: MatchNodeSelector (and part of GeneralPredicates), the
 * v1.22 NodeAffinity filter plugin (plugins/nodeaffinity): the pod's
 * spec.nodeSelector map and its required node affinity terms must both
 * match the node. A Policy never sets the plugin's addedAffinity.
 */
#include "predicates/plugins.h"

#include "kube/model/labels.h"
#include "predicates/node_affinity.h"
#include "predicates/predicates.h"

#define PRED_NAME_MATCH_NODE_SELECTOR "MatchNodeSelector"

/*
 * Filter: every nodeSelector pair present with an equal value in the
 * node's labels, and, when requiredDuringScheduling... is set, at least one
 * of its terms matching (terms ORed; empty or unparseable terms match
 * nothing). Failure is UnschedulableAndUnresolvable.
 */
enum pred_code pred_node_affinity_filter(const struct pred_cycle *cy,
                                         const void *args, const void *state,
                                         const struct node_info *ni,
                                         struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;
    const struct kube_node *node;
    const struct kube_node_selector *required;

    (void)args;
    (void)state;
    if (!ni || !ni->node)
        return pred_fail(r, PRED_ERROR, "node not found");
    node = ni->node;
    required = pod->affinity.node_required;
    if (pod->node_selector.n &&
        !kube_labels_contain(&node->labels, &pod->node_selector))
        return pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_NODE_AFFINITY);
    if (required &&
        !kube_node_selector_matches(required, &node->labels, node->name))
        return pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_NODE_AFFINITY);
    return PRED_FIT;
}

const struct pred_plugin pred_plugin_node_affinity = {
    { "NodeAffinity", KPE_EP_PREFILTER | KPE_EP_FILTER },
    NULL,
    pred_node_affinity_filter,
    (const char *const[]){ PRED_REASON_NODE_AFFINITY, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_match_node_selector = {
    .name = PRED_NAME_MATCH_NODE_SELECTOR,
    .aliases = NULL,
    .flags = 0,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { &pred_plugin_node_affinity },
    .own = NULL,
    .doc = "the node matches the pod's nodeSelector and required node affinity",
};
