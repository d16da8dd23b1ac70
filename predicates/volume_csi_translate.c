/*
 * volume_csi_translate.c: the part of k8s.io/csi-translation-lib (v1.22)
 * the volume predicates need: which PV sources are migratable, the CSI
 * driver of each in-tree plugin, the driver and volume handle of a
 * translated PV, and GetCSIAttachLimitKey (pkg/volume/util). Covers AWS
 * EBS, GCE PD, Azure Disk and Cinder; Azure File, vSphere and Portworx are
 * not modelled (their PV sources parse as "other" and never count).
 */
#include "predicates/volume_util.h"

#include <string.h>

#include <openssl/evp.h>

#include "kube/model/labels.h"

static const struct {
    enum kube_volume_kind kind;
    const char *plugin;
    const char *driver;
} migratable[] = {
    { KUBE_VOL_AWS_EBS, PRED_VOL_PLUGIN_EBS, PRED_VOL_DRIVER_EBS },
    { KUBE_VOL_GCE_PD, PRED_VOL_PLUGIN_GCE, PRED_VOL_DRIVER_GCE },
    { KUBE_VOL_AZURE_DISK, PRED_VOL_PLUGIN_AZURE, PRED_VOL_DRIVER_AZURE },
    { KUBE_VOL_CINDER, PRED_VOL_PLUGIN_CINDER, PRED_VOL_DRIVER_CINDER },
};

#define N_MIGRATABLE (sizeof(migratable) / sizeof(migratable[0]))

const char *pred_vol_intree_plugin(enum kube_volume_kind kind)
{
    size_t i;

    for (i = 0; i < N_MIGRATABLE; i++) {
        if (migratable[i].kind == kind)
            return migratable[i].plugin;
    }
    return NULL;
}

const char *pred_vol_csi_driver_for(const char *plugin)
{
    size_t i;

    for (i = 0; plugin && i < N_MIGRATABLE; i++) {
        if (!strcmp(migratable[i].plugin, plugin))
            return migratable[i].driver;
    }
    return NULL;
}

/*
 * KubernetesVolumeIDToEBSVolumeID: "aws://<zone>/vol-x" becomes "vol-x";
 * a bare ID is kept. Returns NULL when the URL form is malformed.
 */
static const char *ebs_volume_id(struct arena *a, const char *id)
{
    const char *path, *end;

    if (strncmp(id, "aws://", 6))
        return id;
    path = strchr(id + 6, '/');
    if (!path)
        path = id + strlen(id);
    while (*path == '/')
        path++;
    end = path + strlen(path);
    while (end > path && end[-1] == '/')
        end--;
    if (end - path < 4 || strncmp(path, "vol-", 4) ||
        memchr(path, '/', (size_t)(end - path)))
        return NULL;
    return arena_strndup(a, path, (size_t)(end - path));
}

/* The region of a GCE zone ("us-central1-a" -> "us-central1"), len bytes. */
static int gce_region(const char *zone, size_t len, const char **reg,
                      size_t *reg_len)
{
    const char *d1 = memchr(zone, '-', len), *d2;

    if (!d1)
        return -1;
    d2 = memchr(d1 + 1, '-', len - (size_t)(d1 + 1 - zone));
    if (!d2)
        return -1;
    *reg = zone;
    *reg_len = (size_t)(d2 - zone);
    return 0;
}

/* The GCE PD CSI handle for pdName given the PV's zone label value. */
static const char *gce_handle(struct arena *a, const char *zones,
                              const char *pd)
{
    const char *sep = zones ? strstr(zones, "__") : NULL;
    const char *reg = NULL, *z = zones;
    size_t reg_len = 0;

    if (!zones || !*zones)
        return arena_sprintf(a,
                             "projects/UNSPECIFIED/zones/UNSPECIFIED/"
                             "disks/%s",
                             pd);
    if (!sep)
        return arena_sprintf(a, "projects/UNSPECIFIED/zones/%s/disks/%s", zones,
                             pd);
    while (z) {
        const char *next = strstr(z, "__");
        size_t len = next ? (size_t)(next - z) : strlen(z);
        const char *r;
        size_t rl;

        if (gce_region(z, len, &r, &rl) < 0 ||
            (reg && (rl != reg_len || strncmp(r, reg, rl))))
            return NULL;
        reg = r;
        reg_len = rl;
        z = next ? next + 2 : NULL;
    }
    return arena_sprintf(a, "projects/UNSPECIFIED/regions/%.*s/disks/%s",
                         (int)reg_len, reg, pd);
}

int pred_vol_translate_pv(struct arena *a,
                          const struct kube_persistent_volume *pv,
                          const char **driver, const char **handle)
{
    const char *zones, *id = pv->volume_id ? pv->volume_id : "";

    *driver = pred_vol_csi_driver_for(pred_vol_intree_plugin(pv->kind));
    *handle = NULL;
    switch (pv->kind) {
    case KUBE_VOL_AWS_EBS:
        *handle = ebs_volume_id(a, id);
        break;
    case KUBE_VOL_GCE_PD:
        zones = kube_labels_get(&pv->labels,
                                "failure-domain.beta.kubernetes.io/zone");
        if (!zones || !*zones)
            zones = kube_labels_get(&pv->labels, "topology.kubernetes.io/zone");
        *handle = gce_handle(a, zones, id);
        break;
    case KUBE_VOL_AZURE_DISK:
        *handle = pv->azure_disk_uri ? pv->azure_disk_uri : "";
        break;
    case KUBE_VOL_CINDER:
        *handle = id;
        break;
    default:
        return -1;
    }
    return *driver && *handle ? 0 : -1;
}

#define CSI_LIMIT_PREFIX  "attachable-volumes-csi-"
#define RESOURCE_NAME_MAX 63

const char *pred_vol_csi_limit_key(struct arena *a, const char *driver)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    char hashed[17];
    size_t i;

    if (strlen(CSI_LIMIT_PREFIX) + strlen(driver) < RESOURCE_NAME_MAX)
        return arena_sprintf(a, "%s%s", CSI_LIMIT_PREFIX, driver);
    if (!EVP_Digest(driver, strlen(driver), md, &md_len, EVP_sha1(), NULL) ||
        md_len < 8)
        return NULL;
    for (i = 0; i < 8; i++) {
        hashed[2 * i] = hex[md[i] >> 4];
        hashed[2 * i + 1] = hex[md[i] & 15];
    }
    hashed[16] = '\0';
    return arena_sprintf(a, "%s%.23s%s", CSI_LIMIT_PREFIX, driver, hashed);
}
