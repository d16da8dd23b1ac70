/*
 * node_name.c: HostName (and part of GeneralPredicates), the v1.22
 * NodeName filter plugin (plugins/nodename): a pod that names a node in
 * spec.nodeName fits only that node.
 */
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/node_name.h"
#include "predicates/predicates.h"

#define PRED_NAME_HOST_NAME "HostName"

enum pred_code pred_node_name_filter(const struct pred_cycle *cy,
                                     const void *args, const void *state,
                                     const struct node_info *ni,
                                     struct pred_result *r)
{
    const char *want = cy->pod->node_name;

    (void)args;
    (void)state;
    if (!want || !*want || !strcmp(want, ni->node->name))
        return PRED_FIT;
    return pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_NODE_NAME);
}

const struct pred_plugin pred_plugin_node_name = {
    { "NodeName", KPE_EP_FILTER },
    NULL,
    pred_node_name_filter,
    (const char *const[]){ PRED_REASON_NODE_NAME, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_host_name = {
    .name = PRED_NAME_HOST_NAME,
    .aliases = NULL,
    .flags = 0,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { &pred_plugin_node_name },
    .own = NULL,
    .doc = "spec.nodeName, when set, names the node",
};
