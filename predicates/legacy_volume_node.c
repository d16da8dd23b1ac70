/*
 * legacy_volume_node.c: NoVolumeNodeConflict (compat legacy). Dropped in
 * v1.9 (kubernetes#55039, superseded by CheckVolumeBinding); this is the
 * v1.8 VolumeNodeChecker (algorithm/predicates NewVolumeNodePredicate):
 * every PVC-backed volume must be bound, and its PV's node affinity must
 * admit the node. Unlike v1.8, which read the alpha annotation behind the
 * PersistentLocalVolumes gate, the affinity is spec.nodeAffinity.required,
 * matched as v1.22's volume CheckNodeAffinity does (terms ORed, node
 * labels only: it builds a node without a name, so matchFields are skipped).
 */
#include <string.h>

#include "kube/model/labels.h"
#include "predicates/plugins.h"
#include "predicates/volume_binding.h"
#include "predicates/predicates.h"

#define PRED_NAME_NO_VOLUME_NODE_CONFLICT "NoVolumeNodeConflict"

/* v1.8's own error texts, and the listers' NotFound messages. */
#define VN_NO_CLAIM_NAME "PersistentVolumeClaim had no name"
#define VN_PVC_NOT_FOUND "persistentvolumeclaim \"%s\" not found"
#define VN_NOT_BOUND     "PersistentVolumeClaim is not bound: \"%s\""
#define VN_PV_NOT_FOUND  "persistentvolume \"%s\" not found"

/*
 * The PV behind one claim, or NULL with r failed (PRED_ERROR: the old
 * predicate returned an error, which aborts the pod's scheduling).
 */
static const struct kube_persistent_volume *bound_pv(const struct cluster *c,
                                                     const char *ns,
                                                     const char *claim,
                                                     struct pred_result *r)
{
    const struct kube_persistent_volume_claim *pvc;
    const struct kube_persistent_volume *pv;

    if (!claim || !*claim) {
        pred_fail(r, PRED_ERROR, VN_NO_CLAIM_NAME);
        return NULL;
    }
    pvc = cluster_pvc(c, ns, claim);
    if (!pvc) {
        pred_failf(r, PRED_ERROR, VN_PVC_NOT_FOUND, claim);
        return NULL;
    }
    if (!pvc->volume_name || !*pvc->volume_name) {
        pred_failf(r, PRED_ERROR, VN_NOT_BOUND, claim);
        return NULL;
    }
    pv = cluster_pv(c, pvc->volume_name);
    if (!pv)
        pred_failf(r, PRED_ERROR, VN_PV_NOT_FOUND, pvc->volume_name);
    return pv;
}

enum pred_code pred_no_volume_node_conflict_filter(const struct pred_cycle *cy,
                                                   const void *args,
                                                   const void *state,
                                                   const struct node_info *ni,
                                                   struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;
    size_t i;

    (void)args;
    (void)state;
    for (i = 0; i < pod->n_volumes; i++) {
        const struct kube_volume *v = &pod->volumes[i];
        const struct kube_persistent_volume *pv;

        if (v->kind != KUBE_VOL_PVC)
            continue;
        pv = bound_pv(cy->cluster, pod->namespace, v->id, r);
        if (!pv)
            return r->code;
        /* CheckNodeAffinity builds a node from labels alone: no name. */
        if (pv->node_affinity && !kube_node_selector_matches(
                                     pv->node_affinity, &ni->node->labels, ""))
            return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                             PRED_REASON_NODE_CONFLICT);
    }
    return PRED_FIT;
}

const struct pred_plugin pred_plugin_no_volume_node_conflict = {
    { PRED_NAME_NO_VOLUME_NODE_CONFLICT, 0 },
    NULL,
    pred_no_volume_node_conflict_filter,
    (const char *const[]){ PRED_REASON_NODE_CONFLICT, NULL },
    PRED_STABLE_NO_VOLUMES,
};

const struct pred_def pred_no_volume_node_conflict = {
    .name = PRED_NAME_NO_VOLUME_NODE_CONFLICT,
    .aliases = NULL,
    .flags = PRED_LEGACY,
    .needs = KPE_NEED_PVS | KPE_NEED_PVCS,
    .parse_args = NULL,
    .plugins = { NULL },
    .own = &pred_plugin_no_volume_node_conflict,
    .doc = "the node matches the node affinity of the pod's bound local "
           "volumes (v1.9)",
};
