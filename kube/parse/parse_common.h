/*
 * parse_common.h: internal to kube/parse*.c. Decoders for the pieces many
 * kinds share (metadata, label maps and selectors, node selector terms,
 * taints and tolerations, resource lists, affinity, volume sources) and
 * the per-kind decoders the document dispatcher calls. Each reads at the
 * walk's current path and fails with that path in the message.
 */
#ifndef KUBE_PARSE_PARSE_COMMON_H
#define KUBE_PARSE_PARSE_COMMON_H

#include <stdbool.h>

#include "kube/base/json_walk.h"
#include "kube/model/types.h"

/* ObjectMeta, as every kind needs some of it. */
struct kube_meta {
    const char *name;
    const char *namespace; /* "default" for namespaced kinds when absent */
    const char *uid;
    const char *resource_version;
    int64_t creation_timestamp;
    bool deleting;
    struct kube_labels labels;
    struct kube_labels annotations;
    size_t n_owner_refs;
    struct kube_owner_ref *owner_refs;
};

/* obj.metadata; metadata.name is required. */
int kube_parse_meta(struct jw *w, const cJSON *obj, bool namespaced,
                    struct kube_meta *m);

/* A string map (labels, selectors): absent/null leaves present false. */
int kube_parse_labels(struct jw *w, const cJSON *obj, const char *key,
                      struct kube_labels *out);

/* A metav1.LabelSelector; absent/null gives *out = NULL (nil). */
int kube_parse_label_selector(struct jw *w, const cJSON *obj, const char *key,
                              struct kube_label_selector **out);

/* A v1.NodeSelector; absent/null gives *out = NULL. */
int kube_parse_node_selector(struct jw *w, const cJSON *obj, const char *key,
                             struct kube_node_selector **out);

/* The v1.NodeSelectorTerm v (at the current path). */
int kube_parse_node_selector_term(struct jw *w, const cJSON *v,
                                  struct kube_node_selector_term *out);

int kube_parse_tolerations(struct jw *w, const cJSON *obj, const char *key,
                           struct kube_toleration **out, size_t *n);
int kube_parse_taints(struct jw *w, const cJSON *obj, const char *key,
                      struct kube_taint **out, size_t *n);

/* A v1.ResourceList; *present tells whether the key was set (may be NULL). */
int kube_parse_resources(struct jw *w, const cJSON *obj, const char *key,
                         struct kube_resources *out, bool *present);

/* A pod's spec.affinity (all-empty when absent). */
int kube_parse_affinity(struct jw *w, const cJSON *obj, const char *key,
                        struct kube_affinity *out);

/*
 * The volume source in obj (a pod volume, or a PV spec when pv is true:
 * then persistentVolumeClaim and ephemeral are not sources). Fills kind,
 * read_only, id and the kind-specific fields; leaves name alone.
 */
int kube_parse_volume_source(struct jw *w, const cJSON *obj, bool pv,
                             struct kube_volume *out);

/* Per-kind decoders of the object j at the current path. */
int kube_decode_pod(struct jw *w, const cJSON *j, struct kube_pod *out);
int kube_decode_node(struct jw *w, const cJSON *j, struct kube_node *out);
int kube_decode_service(struct jw *w, const cJSON *j, struct kube_service *out);
int kube_decode_rc(struct jw *w, const cJSON *j,
                   struct kube_replication_controller *out);
int kube_decode_workload(struct jw *w, const cJSON *j,
                         struct kube_workload *out);
int kube_decode_namespace(struct jw *w, const cJSON *j,
                          struct kube_namespace *out);
int kube_decode_pv(struct jw *w, const cJSON *j,
                   struct kube_persistent_volume *out);
int kube_decode_pvc(struct jw *w, const cJSON *j,
                    struct kube_persistent_volume_claim *out);
int kube_decode_storage_class(struct jw *w, const cJSON *j,
                              struct kube_storage_class *out);
int kube_decode_csi_node(struct jw *w, const cJSON *j,
                         struct kube_csi_node *out);
int kube_decode_pdb(struct jw *w, const cJSON *j, struct kube_pdb *out);

#endif
