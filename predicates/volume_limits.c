/*
 * volume_limits.c: MaxEBSVolumeCount, MaxGCEPDVolumeCount,
 * MaxAzureDiskVolumeCount and MaxCinderVolumeCount, the v1.22 non-CSI
 * volume limit plugins (plugins/nodevolumelimits/non_csi.go): one shared
 * algorithm over a provider row, four thin entry points.
 */
#include <stdlib.h>
#include <string.h>

#include "kube/model/labels.h"
#include "kube/model/resources.h"
#include "predicates/plugins.h"
#include "predicates/volume_limits.h"
#include "predicates/volume_util.h"
#include "predicates/predicates.h"

#define PRED_NAME_MAX_EBS_VOLUME_COUNT    "MaxEBSVolumeCount"
#define PRED_NAME_MAX_GCE_PD_VOLUME_COUNT "MaxGCEPDVolumeCount"
#define PRED_NAME_MAX_AZURE_DISK_COUNT    "MaxAzureDiskVolumeCount"
#define PRED_NAME_MAX_CINDER_VOLUME_COUNT "MaxCinderVolumeCount"

struct provider {
    enum kube_volume_kind kind; /* inline and PV source kind */
    const char *plugin;         /* in-tree provisioner / plugin name */
    const char *limit_key;      /* node allocatable override */
    int default_limit;
};

static const struct provider ebs = { KUBE_VOL_AWS_EBS, PRED_VOL_PLUGIN_EBS,
                                     "attachable-volumes-aws-ebs", 39 };
static const struct provider gce = { KUBE_VOL_GCE_PD, PRED_VOL_PLUGIN_GCE,
                                     "attachable-volumes-gce-pd", 16 };
static const struct provider azure = { KUBE_VOL_AZURE_DISK,
                                       PRED_VOL_PLUGIN_AZURE,
                                       "attachable-volumes-azure-disk", 16 };
static const struct provider cinder = { KUBE_VOL_CINDER, PRED_VOL_PLUGIN_CINDER,
                                        "attachable-volumes-cinder", 256 };

#define EBS_NITRO_LIMIT 25

/* The synthetic ID of an unbound claim; "<" never starts a real ID. */
#define UNBOUND_ID "<unbound>/%s/%s"

/* matchProvisioner: the claim's spec class names a class of this plugin. */
static bool match_provisioner(const struct cluster *c,
                              const struct kube_persistent_volume_claim *pvc,
                              const struct provider *p)
{
    const struct kube_storage_class *sc;

    if (!pvc->has_storage_class_name)
        return false;
    sc = cluster_storage_class(c, pvc->storage_class_name);
    return sc && sc->provisioner && !strcmp(sc->provisioner, p->plugin);
}

/* The ID a claim of pod counts under, or NULL; errors go to r. */
static const char *claim_id(const struct pred_cycle *cy,
                            const struct provider *p,
                            const struct kube_pod *pod,
                            const struct kube_volume *v, bool new_pod,
                            struct pred_result *r)
{
    const char *name = pred_vol_claim_name(v, cy->semantics),
               *ns = pod->namespace;
    const struct kube_persistent_volume_claim *pvc;
    const struct kube_persistent_volume *pv;

    if (!*name) {
        pred_fail(r, PRED_ERROR, PRED_VOL_ERR_NO_CLAIM_NAME);
        return NULL;
    }
    pvc = cluster_pvc(cy->cluster, ns, name);
    if (!pvc) {
        if (new_pod)
            pred_failf(r, PRED_ERROR, PRED_VOL_ERR_LOOKUP_PVC, ns, name, name);
        return NULL;
    }
    if (v->kind == KUBE_VOL_EPHEMERAL && !pred_vol_controlled_by(pvc, pod)) {
        pred_failf(r, PRED_ERROR, PRED_VOL_ERR_NOT_OWNED, ns, name);
        return NULL;
    }
    pv = *pvc->volume_name ? cluster_pv(cy->cluster, pvc->volume_name) : NULL;
    if (!pv) {
        if (match_provisioner(cy->cluster, pvc, p))
            return arena_sprintf(cy->arena, UNBOUND_ID, ns, name);
        return NULL;
    }
    return pv->kind == p->kind ? pv->volume_id : NULL;
}

/* filterVolumes: add the pod's volume IDs of this provider to set. */
static enum pred_code collect(const struct pred_cycle *cy,
                              const struct provider *p,
                              const struct kube_pod *pod, bool new_pod,
                              struct pred_vol_set *set, struct pred_result *r)
{
    size_t i;

    for (i = 0; i < pod->n_volumes; i++) {
        const struct kube_volume *v = &pod->volumes[i];
        const char *id = NULL;

        if (v->kind == p->kind)
            id = v->id;
        else if (pred_vol_claim_name(v, cy->semantics))
            id = claim_id(cy, p, pod, v, new_pod, r);
        if (r->code == PRED_ERROR)
            return PRED_ERROR;
        if (id && pred_vol_set_put(set, id, NULL) < 0)
            return pred_fail(r, PRED_ERROR, "out of memory");
    }
    return PRED_FIT;
}

/* getMaxVolLimitFromEnv: a positive KUBE_MAX_PD_VOLS, else -1. */
static long env_limit(void)
{
    const char *s = getenv("KUBE_MAX_PD_VOLS");
    const char *d;
    char *end;
    long v;

    if (!s || !*s)
        return -1;
    d = (*s == '+' || *s == '-') ? s + 1 : s;
    if (*d < '0' || *d > '9')
        return -1;
    v = strtol(s, &end, 10);
    return (*end || v <= 0) ? -1 : v;
}

/* The node's instance type: the first of the two labels in key order. */
static const char *instance_type(const struct kube_node *n)
{
    const char *t =
        kube_labels_get(&n->labels, "beta.kubernetes.io/instance-type");

    if (!t)
        t = kube_labels_get(&n->labels, "node.kubernetes.io/instance-type");
    return t ? t : "";
}

/* EBSNitroLimitRegex "^[cmr]5.*|t3|z1d" (only the first part anchored). */
static bool ebs_nitro(const char *t)
{
    return (strchr("cmr", t[0]) && t[0] && t[1] == '5') || strstr(t, "t3") ||
           strstr(t, "z1d");
}

static int64_t max_volumes(const struct provider *p, const struct kube_node *n)
{
    long env = env_limit();
    bool found = false;
    int64_t alloc =
        kube_resources_scalar(&n->allocatable, p->limit_key, &found);

    if (found)
        return alloc;
    if (env > 0)
        return env;
    if (p == &ebs && ebs_nitro(instance_type(n)))
        return EBS_NITRO_LIMIT;
    return p->default_limit;
}

static enum pred_code run(const struct provider *p, const struct pred_cycle *cy,
                          const struct node_info *ni, struct pred_result *r)
{
    struct pred_vol_set want, have;
    struct pred_vol_gates gates;
    size_t i, n_new = 0;

    if (!cy->pod->n_volumes)
        return PRED_FIT;
    pred_vol_set_init(&want, cy->arena);
    if (collect(cy, p, cy->pod, true, &want, r) != PRED_FIT)
        return r->code;
    if (!want.n)
        return PRED_FIT;
    pred_vol_gates_load(&gates, cy->semantics);
    if (pred_vol_migration_on(
            &gates, cluster_csi_node(cy->cluster, ni->node->name), p->plugin))
        return PRED_FIT;
    pred_vol_set_init(&have, cy->arena);
    for (i = 0; i < ni->n_pods; i++) {
        if (collect(cy, p, ni->pods[i], false, &have, r) != PRED_FIT)
            return r->code;
    }
    for (i = 0; i < want.n; i++) {
        if (pred_vol_set_find(&have, want.keys[i]) < 0)
            n_new++;
    }
    if ((int64_t)(have.n + n_new) > max_volumes(p, ni->node))
        return pred_fail(r, PRED_UNFIT, PRED_REASON_MAX_VOLUME_COUNT);
    return PRED_FIT;
}

enum pred_code pred_ebs_limits_filter(const struct pred_cycle *cy,
                                      const void *args, const void *state,
                                      const struct node_info *ni,
                                      struct pred_result *r)
{
    (void)args;
    (void)state;
    return run(&ebs, cy, ni, r);
}

enum pred_code pred_gce_pd_limits_filter(const struct pred_cycle *cy,
                                         const void *args, const void *state,
                                         const struct node_info *ni,
                                         struct pred_result *r)
{
    (void)args;
    (void)state;
    return run(&gce, cy, ni, r);
}

enum pred_code pred_azure_disk_limits_filter(const struct pred_cycle *cy,
                                             const void *args,
                                             const void *state,
                                             const struct node_info *ni,
                                             struct pred_result *r)
{
    (void)args;
    (void)state;
    return run(&azure, cy, ni, r);
}

enum pred_code pred_cinder_limits_filter(const struct pred_cycle *cy,
                                         const void *args, const void *state,
                                         const struct node_info *ni,
                                         struct pred_result *r)
{
    (void)args;
    (void)state;
    return run(&cinder, cy, ni, r);
}

const struct pred_plugin pred_plugin_ebs_limits = {
    { "EBSLimits", KPE_EP_FILTER },
    NULL,
    pred_ebs_limits_filter,
    (const char *const[]){ PRED_REASON_MAX_VOLUME_COUNT, NULL },
    PRED_STABLE_NO_VOLUMES,
};

const struct pred_plugin pred_plugin_gce_pd_limits = {
    { "GCEPDLimits", KPE_EP_FILTER },
    NULL,
    pred_gce_pd_limits_filter,
    (const char *const[]){ PRED_REASON_MAX_VOLUME_COUNT, NULL },
    PRED_STABLE_NO_VOLUMES,
};

const struct pred_plugin pred_plugin_azure_disk_limits = {
    { "AzureDiskLimits", KPE_EP_FILTER },
    NULL,
    pred_azure_disk_limits_filter,
    (const char *const[]){ PRED_REASON_MAX_VOLUME_COUNT, NULL },
    PRED_STABLE_NO_VOLUMES,
};

const struct pred_plugin pred_plugin_cinder_limits = {
    { "CinderLimits", KPE_EP_FILTER },
    NULL,
    pred_cinder_limits_filter,
    (const char *const[]){ PRED_REASON_MAX_VOLUME_COUNT, NULL },
    PRED_STABLE_NO_VOLUMES,
};

const struct pred_def pred_max_ebs_volume_count = {
    .name = PRED_NAME_MAX_EBS_VOLUME_COUNT,
    .aliases = NULL,
    .flags = PRED_DEFAULT,
    .needs = PRED_NEED_VOLUMES,
    .parse_args = NULL,
    .plugins = { &pred_plugin_ebs_limits },
    .own = NULL,
    .doc = "the pod adds no EBS volume beyond the node limit",
};

const struct pred_def pred_max_gce_pd_volume_count = {
    .name = PRED_NAME_MAX_GCE_PD_VOLUME_COUNT,
    .aliases = NULL,
    .flags = PRED_DEFAULT,
    .needs = PRED_NEED_VOLUMES,
    .parse_args = NULL,
    .plugins = { &pred_plugin_gce_pd_limits },
    .own = NULL,
    .doc = "the pod adds no GCE PD volume beyond the node limit",
};

const struct pred_def pred_max_azure_disk_volume_count = {
    .name = PRED_NAME_MAX_AZURE_DISK_COUNT,
    .aliases = NULL,
    .flags = PRED_DEFAULT,
    .needs = PRED_NEED_VOLUMES,
    .parse_args = NULL,
    .plugins = { &pred_plugin_azure_disk_limits },
    .own = NULL,
    .doc = "the pod adds no Azure disk beyond the node limit",
};

const struct pred_def pred_max_cinder_volume_count = {
    .name = PRED_NAME_MAX_CINDER_VOLUME_COUNT,
    .aliases = NULL,
    .flags = 0,
    .needs = PRED_NEED_VOLUMES,
    .parse_args = NULL,
    .plugins = { &pred_plugin_cinder_limits },
    .own = NULL,
    .doc = "the pod adds no Cinder volume beyond the node limit",
};
