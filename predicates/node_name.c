/*
 * node_name.c: HostName (and part of GeneralPredicates), the v1.22
 * NodeName filter plugin (plugins/nodename): a pod that names a node in
 * spec.nodeName fits only that node.
 */
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/reasons.h"

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
