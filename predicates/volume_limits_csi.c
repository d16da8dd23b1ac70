/*
 * volume_limits_csi.c: MaxCSIVolumeCountPred, the v1.22 NodeVolumeLimits
 * plugin (plugins/nodevolumelimits/csi.go): counts the unique CSI volumes
 * (PVC and generic ephemeral claims, in-tree PVs translated when their
 * migration is on) per attach-limit key against the node's limits.
 */
#include <stdlib.h>
#include <string.h>

#include "kube/model/resources.h"
#include "predicates/plugins.h"
#include "predicates/volume_limits.h"
#include "predicates/volume_util.h"
#include "predicates/predicates.h"

#define PRED_NAME_MAX_CSI_VOLUME_COUNT "MaxCSIVolumeCountPred"

struct csi_ctx {
    const struct pred_cycle *cy;
    const struct kube_csi_node *cn;
    struct pred_vol_gates gates;
};

/* getCSIDriverInfoFromSC: the class provisioner and a synthetic handle. */
static void driver_from_class(const struct csi_ctx *x,
                              const struct kube_persistent_volume_claim *pvc,
                              const char **driver, const char **handle)
{
    const char *cls = pred_vol_claim_class(pvc);
    const struct kube_storage_class *sc;
    const char *prov;

    if (!*cls)
        return;
    sc = cluster_storage_class(x->cy->cluster, cls);
    if (!sc)
        return;
    prov = sc->provisioner ? sc->provisioner : "";
    if (pred_vol_csi_driver_for(prov)) {
        if (!pred_vol_migration_on(&x->gates, x->cn, prov))
            return;
        prov = pred_vol_csi_driver_for(prov);
    }
    *driver = prov;
    *handle = arena_sprintf(x->cy->arena, "<unbound>-%s/%s", pvc->namespace,
                            pvc->name);
}

/* getCSIDriverInfo: the driver and handle of the claim's volume. */
static void driver_info(const struct csi_ctx *x,
                        const struct kube_persistent_volume_claim *pvc,
                        const char **driver, const char **handle)
{
    const struct kube_persistent_volume *pv = NULL;

    *driver = *handle = NULL;
    if (*pvc->volume_name)
        pv = cluster_pv(x->cy->cluster, pvc->volume_name);
    if (!pv) {
        driver_from_class(x, pvc, driver, handle);
        return;
    }
    if (pv->kind == KUBE_VOL_CSI) {
        *driver = pv->csi_driver;
        *handle = pv->csi_handle;
        return;
    }
    if (!pred_vol_intree_plugin(pv->kind) ||
        !pred_vol_migration_on(&x->gates, x->cn,
                               pred_vol_intree_plugin(pv->kind)))
        return;
    if (pred_vol_translate_pv(x->cy->arena, pv, driver, handle) < 0)
        *driver = *handle = NULL;
}

/* filterAttachableVolumes: unique name -> limit key for pod's volumes. */
static enum pred_code collect(const struct csi_ctx *x,
                              const struct kube_pod *pod, bool new_pod,
                              struct pred_vol_set *set, struct pred_result *r)
{
    size_t i;

    for (i = 0; i < pod->n_volumes; i++) {
        const struct kube_volume *v = &pod->volumes[i];
        const char *name = pred_vol_claim_name(v, x->cy->semantics),
                   *ns = pod->namespace;
        const struct kube_persistent_volume_claim *pvc;
        const char *driver, *handle, *uniq, *key;

        if (!name)
            continue;
        if (!*name)
            return pred_fail(r, PRED_ERROR, PRED_VOL_ERR_NO_CLAIM_NAME);
        pvc = cluster_pvc(x->cy->cluster, ns, name);
        if (!pvc) {
            if (new_pod)
                return pred_failf(r, PRED_ERROR, PRED_VOL_ERR_LOOKUP_PVC, ns,
                                  name, name);
            continue;
        }
        if (v->kind == KUBE_VOL_EPHEMERAL && !pred_vol_controlled_by(pvc, pod))
            return pred_failf(r, PRED_ERROR, PRED_VOL_ERR_NOT_OWNED, ns, name);
        driver_info(x, pvc, &driver, &handle);
        if (!driver || !*driver || !handle || !*handle)
            continue;
        uniq = arena_sprintf(x->cy->arena, "%s/%s", driver, handle);
        key = pred_vol_csi_limit_key(x->cy->arena, driver);
        if (!uniq || !key || pred_vol_set_put(set, uniq, key) < 0)
            return pred_fail(r, PRED_ERROR, "out of memory");
    }
    return PRED_FIT;
}

/* Record limit key = value in lim (values kept as decimal strings). */
static int put_limit(struct arena *a, struct pred_vol_set *lim, const char *key,
                     int64_t value)
{
    const char *v = arena_sprintf(a, "%lld", (long long)value);

    return v ? pred_vol_set_put(lim, key, v) : -1;
}

/* getVolumeLimits: allocatable attachable-volumes-*, then CSINode counts. */
static int volume_limits(const struct csi_ctx *x, const struct kube_node *n,
                         struct pred_vol_set *lim)
{
    size_t i;

    for (i = 0; i < n->allocatable.n_scalars; i++) {
        const struct kube_scalar *s = &n->allocatable.scalars[i];

        if (kube_resource_is_attachable_volume(s->name) &&
            put_limit(x->cy->arena, lim, s->name, s->value) < 0)
            return -1;
    }
    for (i = 0; x->cn && i < x->cn->n_drivers; i++) {
        const struct kube_csi_node_driver *d = &x->cn->drivers[i];
        const char *key;

        if (!d->has_allocatable_count)
            continue;
        key = pred_vol_csi_limit_key(x->cy->arena, d->name);
        if (!key || put_limit(x->cy->arena, lim, key, d->allocatable_count) < 0)
            return -1;
    }
    return 0;
}

/* Count of entries of set whose limit key is key. */
static int64_t count_key(const struct pred_vol_set *set, const char *key)
{
    int64_t n = 0;
    size_t i;

    for (i = 0; i < set->n; i++) {
        if (!strcmp(set->vals[i], key))
            n++;
    }
    return n;
}

enum pred_code pred_node_volume_limits_filter(const struct pred_cycle *cy,
                                              const void *args,
                                              const void *state,
                                              const struct node_info *ni,
                                              struct pred_result *r)
{
    struct pred_vol_set want, have, fresh, lim;
    struct csi_ctx x;
    size_t i;

    (void)args;
    (void)state;
    if (!cy->pod->n_volumes)
        return PRED_FIT;
    x.cy = cy;
    x.cn = cluster_csi_node(cy->cluster, ni->node->name);
    pred_vol_gates_load(&x.gates, cy->semantics);
    pred_vol_set_init(&want, cy->arena);
    if (collect(&x, cy->pod, true, &want, r) != PRED_FIT || !want.n)
        return r->code;
    pred_vol_set_init(&lim, cy->arena);
    pred_vol_set_init(&have, cy->arena);
    pred_vol_set_init(&fresh, cy->arena);
    if (volume_limits(&x, ni->node, &lim) < 0)
        return pred_fail(r, PRED_ERROR, "out of memory");
    if (!lim.n)
        return PRED_FIT;
    for (i = 0; i < ni->n_pods; i++) {
        if (collect(&x, ni->pods[i], false, &have, r) != PRED_FIT)
            return r->code;
    }
    for (i = 0; i < want.n; i++) {
        if (pred_vol_set_find(&have, want.keys[i]) < 0 &&
            pred_vol_set_put(&fresh, want.keys[i], want.vals[i]) < 0)
            return pred_fail(r, PRED_ERROR, "out of memory");
    }
    for (i = 0; i < fresh.n; i++) {
        long at = pred_vol_set_find(&lim, fresh.vals[i]);

        if (at >= 0 &&
            count_key(&have, fresh.vals[i]) + count_key(&fresh, fresh.vals[i]) >
                strtoll(lim.vals[at], NULL, 10))
            return pred_fail(r, PRED_UNFIT, PRED_REASON_MAX_VOLUME_COUNT);
    }
    return PRED_FIT;
}

const struct pred_plugin pred_plugin_node_volume_limits = {
    { "NodeVolumeLimits", KPE_EP_FILTER },
    NULL,
    pred_node_volume_limits_filter,
    (const char *const[]){ PRED_REASON_MAX_VOLUME_COUNT, NULL },
    PRED_STABLE_NO_VOLUMES,
};

const struct pred_def pred_max_csi_volume_count = {
    .name = PRED_NAME_MAX_CSI_VOLUME_COUNT,
    .aliases = NULL,
    .flags = PRED_DEFAULT,
    .needs = PRED_NEED_VOLUMES,
    .parse_args = NULL,
    .plugins = { &pred_plugin_node_volume_limits },
    .own = NULL,
    .doc = "the pod adds no CSI volume beyond the driver's limit on the node "
           "(CSINode)",
};
