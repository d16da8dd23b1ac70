/*
 * volume_zone.c: NoVolumeZoneConflict, the v1.22 VolumeZone filter plugin
 * (plugins/volumezone): the zone and region labels of every bound PV the
 * pod claims must admit the node's value for the same key.
 */
#include <string.h>

#include "kube/model/labels.h"
#include "predicates/plugins.h"
#include "predicates/volume_zone.h"
#include "predicates/volume_util.h"
#include "predicates/predicates.h"

#define PRED_NAME_NO_VOLUME_ZONE_CONFLICT "NoVolumeZoneConflict"

static const char *const zone_labels[] = {
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
};

#define N_ZONE_LABELS (sizeof(zone_labels) / sizeof(zone_labels[0]))

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
}

/*
 * LabelZonesToSet(value).Has(want): value split on "__", each part trimmed.
 * *bad is set when a part is empty (the label is then ignored upstream).
 */
static bool zones_have(const char *value, const char *want, bool *bad)
{
    bool hit = false;

    *bad = false;
    for (;;) {
        const char *sep = strstr(value, "__");
        const char *b = value, *e = sep ? sep : value + strlen(value);

        while (b < e && is_space(*b))
            b++;
        while (e > b && is_space(e[-1]))
            e--;
        if (b == e) {
            *bad = true;
            return false;
        }
        if ((size_t)(e - b) == strlen(want) && !strncmp(b, want, strlen(want)))
            hit = true;
        if (!sep)
            return hit;
        value = sep + 2;
    }
}

/* The bound PV's zone labels against the node's (nodeConstraints). */
static enum pred_code check_pv(const struct pred_cycle *cy,
                               const struct kube_node *node,
                               const char *pv_name, struct pred_result *r)
{
    const struct kube_persistent_volume *pv = cluster_pv(cy->cluster, pv_name);
    size_t i;

    if (!pv)
        return pred_failf(r, PRED_UNFIT_UNRESOLVABLE, PRED_VOL_PV_NOT_FOUND,
                          pv_name);
    for (i = 0; i < N_ZONE_LABELS; i++) {
        const char *v = kube_labels_get(&pv->labels, zone_labels[i]);
        const char *nv = kube_labels_get(&node->labels, zone_labels[i]);
        bool bad;

        if (!v)
            continue;
        if (!zones_have(v, nv ? nv : "", &bad) && !bad)
            return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                             PRED_REASON_VOLUME_ZONE);
    }
    return PRED_FIT;
}

/* An unbound claim: skipped when its class binds on first consumer. */
static enum pred_code
check_unbound(const struct pred_cycle *cy,
              const struct kube_persistent_volume_claim *c,
              struct pred_result *r)
{
    const char *cls = pred_vol_claim_class(c);
    const struct kube_storage_class *sc;

    if (!*cls)
        return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                         "PersistentVolumeClaim had no pv name and "
                         "storageClass name");
    sc = cluster_storage_class(cy->cluster, cls);
    if (!sc)
        return pred_failf(r, PRED_UNFIT_UNRESOLVABLE, PRED_VOL_SC_NOT_FOUND,
                          cls);
    if (!sc->volume_binding_mode || !*sc->volume_binding_mode)
        return pred_failf(r, PRED_UNFIT_UNRESOLVABLE,
                          "VolumeBindingMode not set for StorageClass \"%s\"",
                          cls);
    if (!strcmp(sc->volume_binding_mode, "WaitForFirstConsumer"))
        return PRED_FIT;
    return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                     "PersistentVolume had no name");
}

static bool has_zone_label(const struct kube_node *node)
{
    size_t i;

    for (i = 0; i < N_ZONE_LABELS; i++) {
        if (kube_labels_get(&node->labels, zone_labels[i]))
            return true;
    }
    return false;
}

enum pred_code pred_volume_zone_filter(const struct pred_cycle *cy,
                                       const void *args, const void *state,
                                       const struct node_info *ni,
                                       struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;
    size_t i;

    (void)args;
    (void)state;
    if (!pod->n_volumes || !has_zone_label(ni->node))
        return PRED_FIT;
    for (i = 0; i < pod->n_volumes; i++) {
        const struct kube_volume *v = &pod->volumes[i];
        const struct kube_persistent_volume_claim *c;
        enum pred_code code;

        if (v->kind != KUBE_VOL_PVC)
            continue;
        if (!v->id || !*v->id)
            return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                             PRED_VOL_ERR_NO_CLAIM_NAME);
        c = cluster_pvc(cy->cluster, pod->namespace, v->id);
        if (!c)
            return pred_failf(r, PRED_UNFIT_UNRESOLVABLE,
                              PRED_VOL_PVC_NOT_FOUND, v->id);
        if (*c->volume_name)
            code = check_pv(cy, ni->node, c->volume_name, r);
        else
            code = check_unbound(cy, c, r);
        if (code != PRED_FIT)
            return code;
    }
    return PRED_FIT;
}

const struct pred_plugin pred_plugin_volume_zone = {
    { "VolumeZone", KPE_EP_FILTER },
    NULL,
    pred_volume_zone_filter,
    (const char *const[]){ PRED_REASON_VOLUME_ZONE, NULL },
    PRED_STABLE_NO_VOLUMES,
};

const struct pred_def pred_no_volume_zone_conflict = {
    .name = PRED_NAME_NO_VOLUME_ZONE_CONFLICT,
    .aliases = NULL,
    .flags = PRED_DEFAULT,
    .needs = KPE_NEED_PVS | KPE_NEED_PVCS | KPE_NEED_STORAGE_CLASSES,
    .parse_args = NULL,
    .plugins = { &pred_plugin_volume_zone },
    .own = NULL,
    .doc = "the node is in the zones of the pod's bound volumes",
};
