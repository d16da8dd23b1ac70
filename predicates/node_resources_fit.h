/*
 * node_resources_fit.h: the resource check behind PodFitsResources (and
 * the first part of GeneralPredicates), exposed so tests can pass the
 * ignoredResourceGroups a Policy can never set. The plugin entry points
 * are declared in predicates/plugins.h.
 */
#ifndef PREDICATES_NODE_RESOURCES_FIT_H
#define PREDICATES_NODE_RESOURCES_FIT_H

#include <stddef.h>

#include "kube/cluster/cluster.h"
#include "kube/model/types.h"
#include "predicates/framework.h"

/*
 * NodeResourcesFitArgs' ignore lists. Only extended resources are ever
 * skipped: hugepages, kubernetes.io/ and attachable-volumes-* names are
 * checked even when listed.
 */
struct pred_fit_ignored {
    const char *const *names; /* ignoredResources: whole names */
    size_t n_names;
    const char *const *groups; /* ignoredResourceGroups: text before '/' */
    size_t n_groups;
};

/*
 * fitsRequest: compare the pod's effective request req with the node's
 * allocatable minus what its pods already request. Appends every reason
 * ("Too many pods" first, then cpu, memory, ephemeral-storage, then the
 * pod's scalars in request order) to r and returns PRED_UNFIT when there
 * is any, else PRED_FIT. ig may be NULL (nothing ignored).
 */
enum pred_code pred_node_resources_fit_check(const struct kube_resources *req,
                                             const struct node_info *ni,
                                             const struct pred_fit_ignored *ig,
                                             struct pred_result *r);

/* Its failure reasons, exactly as kube-scheduler prints them (v1.22). */
#define PRED_REASON_TOO_MANY_PODS "Too many pods"
#define PRED_REASON_INSUFFICIENT  "Insufficient %s" /* resource name */

#endif
