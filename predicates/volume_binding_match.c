/*
 * volume_binding_match.c: PV-to-PVC matching for CheckVolumeBinding, as
 * v1.22's pkg/controller/volume/persistentvolume/util FindMatchingVolume
 * does it on the scheduler path, plus PV node affinity and StorageClass
 * allowedTopologies checks (see volume_util.h).
 */
#include <string.h>

#include "kube/cluster/cluster.h"
#include "kube/model/labels.h"
#include "predicates/volume_util.h"

bool pred_vb_pv_fits_node(const struct kube_persistent_volume *pv,
                          const struct kube_node *node)
{
    /* CheckNodeAffinity builds a node from the labels alone: no name. */
    return !pv->node_affinity ||
           kube_node_selector_matches(pv->node_affinity, &node->labels, "");
}

bool pred_vb_topology_matches(const struct kube_storage_class *sc,
                              const struct kube_node *node)
{
    size_t i, j;

    if (!sc->n_allowed_topologies)
        return true;
    for (i = 0; i < sc->n_allowed_topologies; i++) {
        const struct kube_topology_term *t = &sc->allowed_topologies[i];
        bool ok = t->n_exprs > 0;

        for (j = 0; ok && j < t->n_exprs; j++) {
            ok = t->exprs[j].n_values > 0 &&
                 kube_requirement_matches(&t->exprs[j], &node->labels);
        }
        if (ok)
            return true;
    }
    return false;
}

/* IsVolumeBoundToClaim. */
static bool bound_to_claim(const struct kube_persistent_volume *pv,
                           const struct kube_persistent_volume_claim *c)
{
    if (!pv->claim_ref_namespace)
        return false;
    if (strcmp(pv->claim_ref_name, c->name) ||
        strcmp(pv->claim_ref_namespace, c->namespace))
        return false;
    return !*pv->claim_ref_uid ||
           (c->uid && !strcmp(pv->claim_ref_uid, c->uid));
}

/* CheckVolumeModeMismatches (unset means Filesystem on both sides). */
static bool mode_mismatch(const struct kube_persistent_volume *pv,
                          const struct kube_persistent_volume_claim *c)
{
    const char *want =
        c->volume_mode && *c->volume_mode ? c->volume_mode : "Filesystem";
    const char *have =
        pv->volume_mode && *pv->volume_mode ? pv->volume_mode : "Filesystem";

    return strcmp(want, have) != 0;
}

/* CheckAccessModes: every mode the claim asks for is offered by the PV. */
static bool access_modes_ok(const struct kube_persistent_volume *pv,
                            const struct kube_persistent_volume_claim *c)
{
    size_t i, j;

    for (i = 0; i < c->n_access_modes; i++) {
        bool found = false;

        for (j = 0; !found && j < pv->n_access_modes; j++)
            found = !strcmp(c->access_modes[i], pv->access_modes[j]);
        if (!found)
            return false;
    }
    return true;
}

/* The checks an unbound-to-this-claim PV must pass (after prebinding). */
static bool candidate_ok(const struct kube_persistent_volume *pv,
                         const struct kube_persistent_volume_claim *c,
                         const char *cls)
{
    if (!pv->phase || strcmp(pv->phase, "Available"))
        return false;
    if (c->selector && !kube_label_selector_matches(c->selector, &pv->labels))
        return false;
    if (strcmp(pred_vol_pv_class(pv), cls))
        return false;
    return access_modes_ok(pv, c);
}

const struct kube_persistent_volume *pred_vb_find_matching(
    const struct cluster *cl, const struct kube_persistent_volume_claim *c,
    const struct kube_node *node, const struct pred_vol_set *chosen,
    struct arena *a, const char **err)
{
    const struct kube_persistent_volume *best = NULL;
    const char *cls = pred_vol_claim_class(c);
    size_t i;

    *err = NULL;
    if (c->selector && c->selector->invalid) {
        *err = arena_sprintf(a,
                             "error creating internal label selector for "
                             "claim: %s/%s: %s",
                             c->namespace, c->name, c->selector->invalid);
        return NULL;
    }
    for (i = 0; i < cl->objs->n_pvs; i++) {
        const struct kube_persistent_volume *pv = cl->objs->pvs[i];
        bool fits;

        /* pvCache.ListPVs(class) */
        if (strcmp(pred_vol_pv_class(pv), cls) ||
            pred_vol_set_find(chosen, pv->name) >= 0)
            continue;
        if (pv->claim_ref_namespace && !bound_to_claim(pv, c))
            continue;
        if (pv->capacity_storage < c->request_storage || mode_mismatch(pv, c) ||
            pv->deleting)
            continue;
        fits = pred_vb_pv_fits_node(pv, node);
        if (bound_to_claim(pv, c))
            return fits ? pv : NULL;
        if (!candidate_ok(pv, c, cls) || !fits)
            continue;
        if (!best || best->capacity_storage > pv->capacity_storage)
            best = pv;
    }
    return best;
}
