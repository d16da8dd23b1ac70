/*
 * volume_binding.c: CheckVolumeBinding, the v1.22 VolumeBinding plugin
 * (plugins/volumebinding: volume_binding.go PreFilter/Filter and binder.go
 * GetPodVolumes/FindPodVolumes). Binding itself (Reserve/PreBind) is the
 * scheduler's business, not the extender's.
 */
#include <stdlib.h>
#include <string.h>

#include "kube/model/labels.h"
#include "predicates/plugins.h"
#include "predicates/volume_binding.h"
#include "predicates/volume_util.h"
#include "predicates/predicates.h"

#define PRED_REASON_NOT_ENOUGH_SPACE   "node(s) did not have enough free storage"
#define PRED_NAME_CHECK_VOLUME_BINDING "CheckVolumeBinding"

#define NO_PROVISIONER "kubernetes.io/no-provisioner"

struct vb_state {
    bool skip; /* the pod uses no claims */
    size_t n_bound;
    const struct kube_persistent_volume_claim **bound;
    size_t n_delay; /* unbound WaitForFirstConsumer claims, by size */
    const struct kube_persistent_volume_claim **delay;
};

/* podHasPVCs: every claim exists, is not being deleted and, for generic
 * ephemeral volumes, belongs to the pod. */
static enum pred_code check_claims(struct pred_cycle *cy, bool *has,
                                   struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;
    size_t i;

    *has = false;
    for (i = 0; i < pod->n_volumes; i++) {
        const struct kube_volume *v = &pod->volumes[i];
        const char *name = pred_vol_claim_name(v);
        const struct kube_persistent_volume_claim *c;

        if (!name)
            continue;
        *has = true;
        c = cluster_pvc(cy->cluster, pod->namespace, name);
        if (!c)
            return pred_failf(r, PRED_UNFIT_UNRESOLVABLE,
                              PRED_VOL_PVC_NOT_FOUND, name);
        if (c->deleting)
            return pred_failf(r, PRED_UNFIT_UNRESOLVABLE,
                              "persistentvolumeclaim \"%s\" is being deleted",
                              name);
        if (v->kind == KUBE_VOL_EPHEMERAL && !pred_vol_controlled_by(c, pod))
            return pred_failf(r, PRED_UNFIT_UNRESOLVABLE,
                              "persistentvolumeclaim \"%s\" was not created "
                              "for the pod",
                              name);
    }
    return PRED_FIT;
}

/* IsDelayBindingMode; -1 with r set when the class has no binding mode. */
static int delay_binding(const struct pred_cycle *cy,
                         const struct kube_persistent_volume_claim *c,
                         struct pred_result *r)
{
    const char *cls = pred_vol_claim_class(c);
    const struct kube_storage_class *sc;

    if (!*cls)
        return 0;
    sc = cluster_storage_class(cy->cluster, cls);
    if (!sc)
        return 0;
    if (!sc->volume_binding_mode || !*sc->volume_binding_mode) {
        pred_failf(r, PRED_ERROR,
                   "VolumeBindingMode not set for StorageClass \"%s\"", cls);
        return -1;
    }
    return !strcmp(sc->volume_binding_mode, "WaitForFirstConsumer");
}

/* byPVCSize, made stable: smaller storage requests first. */
static void sort_by_size(const struct kube_persistent_volume_claim **v,
                         size_t n)
{
    size_t i, j;

    for (i = 1; i < n; i++) {
        const struct kube_persistent_volume_claim *x = v[i];

        for (j = i; j > 0 && v[j - 1]->request_storage > x->request_storage;
             j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* GetPodVolumes: split the claims; immediate unbound ones fail the pod. */
static enum pred_code split_claims(struct pred_cycle *cy, struct vb_state *st,
                                   struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;
    size_t i, n_immediate = 0;

    st->bound = arena_calloc(cy->arena, pod->n_volumes, sizeof(*st->bound));
    st->delay = arena_calloc(cy->arena, pod->n_volumes, sizeof(*st->delay));
    if (!st->bound || !st->delay)
        return pred_fail(r, PRED_ERROR, "out of memory");
    for (i = 0; i < pod->n_volumes; i++) {
        const char *name = pred_vol_claim_name(&pod->volumes[i]);
        const struct kube_persistent_volume_claim *c;
        int delay;

        if (!name)
            continue;
        c = cluster_pvc(cy->cluster, pod->namespace, name);
        if (*c->volume_name &&
            kube_labels_get(&c->annotations, PRED_VOL_ANN_BIND_COMPLETED)) {
            st->bound[st->n_bound++] = c;
            continue;
        }
        delay = delay_binding(cy, c, r);
        if (delay < 0)
            return PRED_ERROR;
        if (delay && !*c->volume_name)
            st->delay[st->n_delay++] = c;
        else
            n_immediate++;
    }
    if (n_immediate)
        return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                         PRED_REASON_UNBOUND_IMMEDIATE);
    sort_by_size(st->delay, st->n_delay);
    return PRED_FIT;
}

enum pred_code pred_volume_binding_prefilter(struct pred_cycle *cy,
                                             const void *args, void **state,
                                             struct pred_result *r)
{
    struct vb_state *st = arena_calloc(cy->arena, 1, sizeof(*st));
    bool has;

    (void)args;
    if (!st)
        return pred_fail(r, PRED_ERROR, "out of memory");
    *state = st;
    if (check_claims(cy, &has, r) != PRED_FIT)
        return r->code;
    if (!has) {
        st->skip = true;
        return PRED_FIT;
    }
    return split_claims(cy, st, r);
}

/* The outcome flags of FindPodVolumes, turned into reasons at the end. */
struct vb_verdict {
    bool bound_ok, unbound_ok, storage_ok, pvs_found;
};

/* checkBoundClaims: each bound PV exists and admits the node. */
static void check_bound(const struct pred_cycle *cy, const struct vb_state *st,
                        const struct kube_node *node, struct vb_verdict *v)
{
    size_t i;

    for (i = 0; i < st->n_bound; i++) {
        const struct kube_persistent_volume *pv =
            cluster_pv(cy->cluster, st->bound[i]->volume_name);

        if (!pv) {
            v->pvs_found = false;
            return;
        }
        if (!pred_vb_pv_fits_node(pv, node)) {
            v->bound_ok = false;
            return;
        }
    }
}

/* checkVolumeProvisions for one claim: 1 ok, 0 not here, -1 error. */
static int can_provision(const struct pred_cycle *cy,
                         const struct kube_persistent_volume_claim *c,
                         const struct kube_node *node, struct pred_result *r)
{
    const char *cls = pred_vol_claim_class(c);
    const struct kube_storage_class *sc;

    if (!*cls) {
        pred_failf(r, PRED_ERROR, "no class for claim \"%s/%s\"", c->namespace,
                   c->name);
        return -1;
    }
    sc = cluster_storage_class(cy->cluster, cls);
    if (!sc) {
        pred_failf(r, PRED_ERROR, "failed to find storage class \"%s\"", cls);
        return -1;
    }
    if (!sc->provisioner || !*sc->provisioner ||
        !strcmp(sc->provisioner, NO_PROVISIONER))
        return 0;
    /* CSIStorageCapacity is not modelled: capacity counts as sufficient. */
    return pred_vb_topology_matches(sc, node) ? 1 : 0;
}

/* The unbound claims: selected node, static matches, then provisioning. */
static enum pred_code check_unbound(const struct pred_cycle *cy,
                                    const struct vb_state *st,
                                    const struct kube_node *node,
                                    struct vb_verdict *v, struct pred_result *r)
{
    const struct kube_persistent_volume_claim **prov;
    struct pred_vol_set chosen;
    size_t i, n_prov = 0;
    const char *err;

    prov = arena_calloc(cy->arena, st->n_delay, sizeof(*prov));
    if (!prov)
        return pred_fail(r, PRED_ERROR, "out of memory");
    for (i = 0; i < st->n_delay; i++) {
        const char *sel = kube_labels_get(&st->delay[i]->annotations,
                                          PRED_VOL_ANN_SELECTED_NODE);

        if (sel && strcmp(sel, node->name)) {
            v->unbound_ok = false;
            return PRED_FIT;
        }
        if (sel)
            prov[n_prov++] = st->delay[i];
    }
    pred_vol_set_init(&chosen, cy->arena);
    for (i = 0; i < st->n_delay; i++) {
        const struct kube_persistent_volume *pv;

        if (kube_labels_get(&st->delay[i]->annotations,
                            PRED_VOL_ANN_SELECTED_NODE))
            continue;
        pv = pred_vb_find_matching(cy->cluster, st->delay[i], node, &chosen,
                                   cy->arena, &err);
        if (err)
            return pred_fail(r, PRED_ERROR, err);
        if (!pv) {
            v->unbound_ok = false;
            prov[n_prov++] = st->delay[i];
        } else if (pred_vol_set_put(&chosen, pv->name, NULL) < 0) {
            return pred_fail(r, PRED_ERROR, "out of memory");
        }
    }
    if (!n_prov)
        return PRED_FIT;
    v->unbound_ok = true;
    for (i = 0; i < n_prov; i++) {
        int ok = can_provision(cy, prov[i], node, r);

        if (ok < 0)
            return PRED_ERROR;
        if (!ok) {
            v->unbound_ok = false;
            break;
        }
    }
    return PRED_FIT;
}

enum pred_code pred_volume_binding_filter(const struct pred_cycle *cy,
                                          const void *args, const void *state,
                                          const struct node_info *ni,
                                          struct pred_result *r)
{
    const struct vb_state *st = state;
    struct vb_verdict v = { true, true, true, true };

    (void)args;
    if (!st || st->skip)
        return PRED_FIT;
    check_bound(cy, st, ni->node, &v);
    if (st->n_delay && check_unbound(cy, st, ni->node, &v, r) != PRED_FIT)
        return r->code;
    if (!v.bound_ok)
        pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_NODE_CONFLICT);
    if (!v.unbound_ok)
        pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_BIND_CONFLICT);
    if (!v.storage_ok)
        pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_NOT_ENOUGH_SPACE);
    if (!v.pvs_found)
        pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_PV_NOT_EXIST);
    return r->code;
}

const struct pred_plugin pred_plugin_volume_binding = {
    { "VolumeBinding",
      KPE_EP_PREFILTER | KPE_EP_FILTER | KPE_EP_RESERVE | KPE_EP_PREBIND },
    pred_volume_binding_prefilter,
    pred_volume_binding_filter,
    (const char *const[]){ PRED_REASON_UNBOUND_IMMEDIATE,
                           PRED_REASON_NODE_CONFLICT, PRED_REASON_BIND_CONFLICT,
                           PRED_REASON_NOT_ENOUGH_SPACE,
                           PRED_REASON_PV_NOT_EXIST, NULL },
    PRED_STABLE_NO_VOLUMES,
};

const struct pred_def pred_check_volume_binding = {
    .name = PRED_NAME_CHECK_VOLUME_BINDING,
    .aliases = NULL,
    .flags = PRED_DEFAULT,
    .needs = KPE_NEED_PVS | KPE_NEED_PVCS | KPE_NEED_STORAGE_CLASSES,
    .parse_args = NULL,
    .plugins = { &pred_plugin_volume_binding },
    .own = NULL,
    .doc =
        "the pod's claims are bound to volumes the node can reach, or can be",
};
