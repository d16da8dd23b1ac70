/*
 * volume_restrictions.c: NoDiskConflict, the v1.22 VolumeRestrictions
 * filter plugin (plugins/volumerestrictions): an inline GCE PD, AWS EBS,
 * iSCSI or RBD volume of the pod must not conflict with the same disk
 * mounted by a pod already on the node (predicates.md B.7). The
 * ReadWriteOncePod check is behind an alpha gate in v1.22 and is off.
 */
#include <stdbool.h>
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/volume_restrictions.h"
#include "predicates/predicates.h"

#define PRED_NAME_NO_DISK_CONFLICT "NoDiskConflict"

/* The volume kinds this plugin compares. */
static bool checked_kind(enum kube_volume_kind k)
{
    return k == KUBE_VOL_GCE_PD || k == KUBE_VOL_AWS_EBS ||
           k == KUBE_VOL_ISCSI || k == KUBE_VOL_RBD;
}

/* Whether the two monitor lists share at least one entry. */
static bool have_overlap(const struct kube_volume *a,
                         const struct kube_volume *b)
{
    size_t i, j;

    for (i = 0; i < a->n_rbd_monitors; i++) {
        for (j = 0; j < b->n_rbd_monitors; j++) {
            if (!strcmp(a->rbd_monitors[i], b->rbd_monitors[j]))
                return true;
        }
    }
    return false;
}

/* isVolumeConflict for one pair of volumes of the same kind. */
static bool volumes_conflict(const struct kube_volume *v,
                             const struct kube_volume *ev)
{
    bool both_ro = v->read_only && ev->read_only;

    if (v->kind != ev->kind || strcmp(v->id, ev->id))
        return false;
    switch (v->kind) {
    case KUBE_VOL_GCE_PD: /* same pdName, unless both read-only */
    case KUBE_VOL_ISCSI:  /* same iqn, unless both read-only */
        return !both_ro;
    case KUBE_VOL_AWS_EBS: /* same volumeID, read-only or not */
        return true;
    case KUBE_VOL_RBD: /* same image, pool and a shared monitor */
        return have_overlap(v, ev) && !strcmp(v->rbd_pool, ev->rbd_pool) &&
               !both_ro;
    default:
        return false;
    }
}

/* Whether v conflicts with any volume of the existing pod. */
static bool conflicts_with_pod(const struct kube_volume *v,
                               const struct kube_pod *existing)
{
    size_t i;

    for (i = 0; i < existing->n_volumes; i++) {
        if (volumes_conflict(v, &existing->volumes[i]))
            return true;
    }
    return false;
}

enum pred_code pred_volume_restrictions_filter(const struct pred_cycle *cy,
                                               const void *args,
                                               const void *state,
                                               const struct node_info *ni,
                                               struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;
    size_t i, j;

    (void)args;
    (void)state;
    for (i = 0; i < pod->n_volumes; i++) {
        const struct kube_volume *v = &pod->volumes[i];

        if (!checked_kind(v->kind))
            continue;
        for (j = 0; j < ni->n_pods; j++) {
            if (conflicts_with_pod(v, ni->pods[j]))
                return pred_fail(r, PRED_UNFIT, PRED_REASON_DISK_CONFLICT);
        }
    }
    return PRED_FIT;
}

const struct pred_plugin pred_plugin_volume_restrictions = {
    { "VolumeRestrictions", KPE_EP_FILTER },
    NULL,
    pred_volume_restrictions_filter,
    (const char *const[]){ PRED_REASON_DISK_CONFLICT, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_no_disk_conflict = {
    .name = PRED_NAME_NO_DISK_CONFLICT,
    .aliases = NULL,
    .flags = PRED_DEFAULT,
    .needs = KPE_NEED_PODS_ON_NODE,
    .parse_args = NULL,
    .plugins = { &pred_plugin_volume_restrictions },
    .own = NULL,
    .doc = "no other pod on the node mounts the same GCE PD, EBS, RBD or iSCSI "
           "volume in a conflicting way",
};
