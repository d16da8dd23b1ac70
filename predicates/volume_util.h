/*
 * volume_util.h: helpers shared by the volume predicates (VolumeBinding,
 * VolumeZone, the non-CSI and CSI volume limits): storage-class lookup the
 * way component-helpers/storage/volume reads it, generic ephemeral claim
 * ownership, the lister "not found" texts, the CSI migration feature gates
 * and the csi-translation-lib subset we implement.
 */
#ifndef PREDICATES_VOLUME_UTIL_H
#define PREDICATES_VOLUME_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "framework/semantics.h"
#include "kube/base/arena.h"
#include "kube/model/types.h"

#define PRED_VOL_ANN_STORAGE_CLASS  "volume.beta.kubernetes.io/storage-class"
#define PRED_VOL_ANN_BIND_COMPLETED "pv.kubernetes.io/bind-completed"
#define PRED_VOL_ANN_SELECTED_NODE  "volume.kubernetes.io/selected-node"
#define PRED_VOL_ANN_MIGRATED_PLUGINS                                          \
    "storage.alpha.kubernetes.io/migrated-plugins"

/* In-tree plugin (provisioner) names and their CSI drivers. */
#define PRED_VOL_PLUGIN_EBS    "kubernetes.io/aws-ebs"
#define PRED_VOL_PLUGIN_GCE    "kubernetes.io/gce-pd"
#define PRED_VOL_PLUGIN_AZURE  "kubernetes.io/azure-disk"
#define PRED_VOL_PLUGIN_CINDER "kubernetes.io/cinder"
#define PRED_VOL_DRIVER_EBS    "ebs.csi.aws.com"
#define PRED_VOL_DRIVER_GCE    "pd.csi.storage.gke.io"
#define PRED_VOL_DRIVER_AZURE  "disk.csi.azure.com"
#define PRED_VOL_DRIVER_CINDER "cinder.csi.openstack.org"

/* What the client-go listers say when an object is missing. */
#define PRED_VOL_PVC_NOT_FOUND "persistentvolumeclaim \"%s\" not found"
#define PRED_VOL_PV_NOT_FOUND  "persistentvolume \"%s\" not found"
#define PRED_VOL_SC_NOT_FOUND  "storageclass.storage.k8s.io \"%s\" not found"

/* Messages the volume plugins turn into statuses (v1.22 texts). */
#define PRED_VOL_ERR_NO_CLAIM_NAME "PersistentVolumeClaim had no name"
#define PRED_VOL_ERR_LOOKUP_PVC    "looking up PVC %s/%s: " PRED_VOL_PVC_NOT_FOUND
#define PRED_VOL_ERR_NOT_OWNED     "PVC %s/%s is not owned by pod"

/*
 * GetPersistentVolumeClaimClass: the beta annotation when present, else
 * spec.storageClassName ("" when neither).
 */
const char *pred_vol_claim_class(const struct kube_persistent_volume_claim *c);

/* GetPersistentVolumeClass: the beta annotation, else the spec field. */
const char *pred_vol_pv_class(const struct kube_persistent_volume *pv);

/* metav1.IsControlledBy(pvc, pod): a controller owner ref with pod's UID. */
bool pred_vol_controlled_by(const struct kube_persistent_volume_claim *c,
                            const struct kube_pod *pod);

/*
 * The claim a pod volume uses: the PVC claimName ("" possible) or the
 * generic ephemeral "<pod>-<volume>"; NULL for other kinds. Evaluated as
 * 1.20 (sem, D17) a generic ephemeral volume has none: v1.20.2's
 * GenericEphemeralVolume gate is off, so VolumeBinding skips the volume,
 * and its volume-limit plugins have no ephemeral support at all.
 */
const char *pred_vol_claim_name(const struct kube_volume *v,
                                enum kpe_semantics sem);

/*
 * The feature gates v1.22 consults for CSI migration. Defaults are release
 * sem's: CSIMigration on, AWS, GCE and AzureDisk off, CSIMigrationOpenStack
 * on from 1.21 (off in v1.20.2, D11);
 * the environment variable KPE_FEATURE_GATES, written like kube-scheduler's
 * --feature-gates ("CSIMigrationAWS=true,CSIMigrationGCE=false"), overrides
 * them so the extender can mirror a scheduler run with other gates.
 */
struct pred_vol_gates {
    bool csi_migration;
    bool aws;
    bool gce;
    bool azure_disk;
    bool openstack;
};

void pred_vol_gates_load(struct pred_vol_gates *g, enum kpe_semantics sem);

/*
 * isCSIMigrationOn: the gates for plugin are on and the CSINode (NULL:
 * none) lists plugin in its migrated-plugins annotation.
 */
bool pred_vol_migration_on(const struct pred_vol_gates *g,
                           const struct kube_csi_node *cn, const char *plugin);

/* The in-tree plugin name of a migratable PV source kind, else NULL. */
const char *pred_vol_intree_plugin(enum kube_volume_kind kind);

/* The CSI driver an in-tree plugin name migrates to, else NULL. */
const char *pred_vol_csi_driver_for(const char *plugin);

/*
 * TranslateInTreePVToCSI, reduced to the driver and volume handle (strings
 * from a). Returns 0, or -1 when the PV cannot be translated.
 */
int pred_vol_translate_pv(struct arena *a,
                          const struct kube_persistent_volume *pv,
                          const char **driver, const char **handle);

/*
 * GetCSIAttachLimitKey: "attachable-volumes-csi-<driver>", shortened with a
 * SHA-1 suffix when 63 characters or longer. Returns memory from a, or NULL
 * when out of memory.
 */
const char *pred_vol_csi_limit_key(struct arena *a, const char *driver);

/* ---- VolumeBinding matching (volume_binding_match.c) ---- */

/* volumeutil.CheckNodeAffinity: the PV's required node affinity admits the
 * node's labels (nil affinity admits every node). */
bool pred_vb_pv_fits_node(const struct kube_persistent_volume *pv,
                          const struct kube_node *node);

/* MatchTopologySelectorTerms(class.allowedTopologies, node labels). */
bool pred_vb_topology_matches(const struct kube_storage_class *sc,
                              const struct kube_node *node);

struct cluster;
struct pred_vol_set;

/*
 * FindMatchingVolume on the scheduler path (node set, delayed binding):
 * a PV pre-bound to the claim, else the smallest Available PV of the
 * claim's class with enough capacity, the same volume mode, matching
 * selector, access modes and node affinity, not in chosen (PV names).
 * Returns the PV or NULL; on an error returns NULL with *err set (a).
 */
const struct kube_persistent_volume *pred_vb_find_matching(
    const struct cluster *c, const struct kube_persistent_volume_claim *claim,
    const struct kube_node *node, const struct pred_vol_set *chosen,
    struct arena *a, const char **err);

/* A small set of strings (IDs), allocated from an arena. */
struct pred_vol_set {
    struct arena *a;
    size_t n, cap;
    const char **keys;
    const char **vals; /* CSI: the limit key of each unique volume */
};

void pred_vol_set_init(struct pred_vol_set *s, struct arena *a);
/* Index of key, or -1. */
long pred_vol_set_find(const struct pred_vol_set *s, const char *key);
/* Insert or overwrite; returns 0, or -1 when out of memory. */
int pred_vol_set_put(struct pred_vol_set *s, const char *key, const char *val);

#endif
