/*
 * cluster.h: the cluster snapshot the predicates and priorities read,
 * built the way kube-scheduler v1.22 builds its NodeInfo list
 * (pkg/scheduler/framework/types.go, internal/cache): per node its
 * non-terminal pods, their summed requests, non-zero request sums, used
 * host ports, pods with (anti-)affinity and image states; cluster-wide the
 * services, controllers, volumes and namespaces.
 *
 * Pods are added and removed one at a time, so a live source can keep the
 * aggregates up to date without rebuilding the world.
 */
#ifndef KUBE_CLUSTER_CLUSTER_H
#define KUBE_CLUSTER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/cluster/node_tree.h"
#include "kube/cluster/term_index.h"
#include "kube/model/types.h"

/* The node annotation NodePreferAvoidPods reads. */
#define KUBE_ANNOTATION_PREFER_AVOID_PODS                                      \
    "scheduler.alpha.kubernetes.io/preferAvoidPods"

/* A host port in use on a node, normalised (ip "0.0.0.0", proto "TCP"). */
struct used_port {
    const char *ip;
    const char *protocol;
    int32_t port;
};

/* One image name as the whole cluster sees it (ImageStateSummary). */
struct image_state {
    const char *name;
    int64_t size;      /* sizeBytes of the first node that reported it */
    int32_t num_nodes; /* nodes whose status lists this name */
    size_t last_mark;  /* private: the generation that last counted it */
};

/*
 * One (anti-)affinity term of a pod on a node that InterPodAffinity
 * reads. Scoring (processExistingPod): required affinity terms, scored
 * with hardPodAffinityWeight, and preferred affinity and anti-affinity
 * terms with their weights. Filtering: required anti-affinity terms (the
 * existing pods' anti-affinity the incoming pod must not match). A list
 * with an unparsable term is left out whole, as v1.22 drops it.
 */
enum aff_entry_kind {
    AFF_ENTRY_REQUIRED,       /* requiredDuringScheduling pod affinity */
    AFF_ENTRY_PREFERRED,      /* preferred pod affinity: +weight */
    AFF_ENTRY_PREFERRED_ANTI, /* preferred pod anti-affinity: -weight */
    AFF_ENTRY_REQUIRED_ANTI   /* required pod anti-affinity (filter only) */
};

struct aff_entry {
    const struct kube_pod *pod;
    uint32_t term;  /* id in cluster.terms */
    int32_t weight; /* preferred terms' weight as written; required: 0 */
    enum aff_entry_kind kind;
};

struct node_info {
    const struct kube_node *node;
    size_t index; /* position in cluster.nodes (input order) */
    /* The node's KUBE_ANNOTATION_PREFER_AVOID_PODS text, or NULL. */
    const char *avoid_pods;
    /* Two bits per label key of the node (a Bloom filter, set by
     * node_info_set_node): a key whose bits are not both set is not
     * there, known without reading the node's labels. 0: not computed
     * (or no labels): node_info_label reads them. */
    uint64_t label_keys;

    size_t n_pods;
    const struct kube_pod **pods;
    size_t cap_pods;

    /* Sum of effective requests (kube_pod_request) over pods. */
    struct kube_resources requested;
    size_t cap_scalars;
    /* Sum of non-zero requests (kube_pod_nonzero_request). */
    int64_t nonzero_milli_cpu;
    int64_t nonzero_memory;

    size_t n_ports;
    struct used_port *ports;
    size_t cap_ports;

    /* Pods with any pod affinity or anti-affinity term (PodsWithAffinity). */
    size_t n_affinity_pods;
    const struct kube_pod **affinity_pods;
    size_t cap_affinity_pods;
    /* Pods with required anti-affinity terms. */
    size_t n_anti_affinity_pods;
    /* Their terms, pod by pod in affinity_pods order. */
    size_t n_aff_entries;
    struct aff_entry *aff_entries;
    size_t cap_aff_entries;
    /* A view's node with pods added: those bring no entries, so the
     * entries do not cover affinity_pods (read the pods instead). */
    bool entries_partial;

    /* The node's image names, each pointing into the cluster table,
     * sorted by address so node_info_has_image can bisect. */
    size_t n_images;
    const struct image_state **images;
    size_t cap_images; /* room in images (incremental updates) */
};

struct cluster {
    struct arena arena; /* aggregates; objects stay in their own arenas */
    const struct kube_objects *objs;

    size_t n_nodes;
    struct node_info *nodes;

    /* name -> node index, open addressing; size is a power of two */
    size_t node_slots;
    int32_t *node_index;

    /* Image states of the nodes known at build time; states for names
     * that nodes added or updated later bring live in the arena. */
    size_t n_images;
    struct image_state *image_table;
    /* name -> image_state, open addressing; size is a power of two */
    struct image_state **image_slots;
    size_t image_nslots;
    size_t image_nused;
    size_t image_mark; /* private: generation for deduplicating names */

    size_t cap_nodes; /* room in nodes; 0: exactly n_nodes */

    /* Distinct affinity terms of accounted pods (aff_entries' ids). */
    struct term_index terms;
    /* The nodes by zone, in kube-scheduler's walking order (node_tree.h). */
    struct node_tree tree;

    size_t n_orphan_pods; /* pods bound to nodes we have no Node for */
    size_t n_pods;        /* pods accounted on nodes */
    /* of them, pods with required anti-affinity terms (the nodes'
     * n_anti_affinity_pods summed; a view keeps its own) */
    size_t n_anti_affinity_pods;
};

/*
 * Build the snapshot from objs (which must outlive the cluster): every
 * node, then every non-terminal pod with spec.nodeName on a known node.
 * Returns 0, or -1 with e set (duplicate node names, out of memory).
 */
int cluster_build(struct cluster *c, const struct kube_objects *objs,
                  struct err *e);

void cluster_free(struct cluster *c);

/*
 * Point ni at node and read once what plugins would look up per request
 * (avoid_pods, label_keys). Every ni->node assignment goes through here.
 */
void node_info_set_node(struct node_info *ni, const struct kube_node *node);

/*
 * The value of the node's label key, or NULL: kube_labels_get on its
 * labels, answered from label_keys alone for most absent keys (a plugin
 * asking every node of a request for a label few carry then reads only
 * the node_info).
 */
const char *node_info_label(const struct node_info *ni, const char *key);

/* The node called name, or NULL. */
const struct node_info *cluster_node(const struct cluster *c, const char *name);

/*
 * Account one more pod on its node (an assumed or newly bound pod).
 * Terminal pods and pods without a known node are not accounted.
 * Returns 1 when accounted, 0 when not, -1 on allocation failure.
 */
int cluster_add_pod(struct cluster *c, const struct kube_pod *pod);

/*
 * Undo cluster_add_pod for the pod with this namespace/name on its node.
 * Returns 1 when found and removed, 0 when it was not accounted. For an
 * active pod whose node is unknown (an orphan), n_orphan_pods drops by
 * one.
 */
int cluster_remove_pod(struct cluster *c, const struct kube_pod *pod);

/*
 * Read-only views of c in which one node's pods differ (preemption's
 * "what if these victims were gone", the nominated pods that kube-scheduler
 * counts on a node). A view shares everything with c except its node
 * array and the changed node's aggregates, which come from a. Never
 * modify or free a view; it is valid while c and a are. Added pods count
 * for the filters (requests, ports, pods with affinity) but bring no
 * scoring entries.
 *
 * cluster_view_begin: view = c with its own node array (0, -1 when out of
 * memory). cluster_view_set_node: node idx of view becomes c's node idx
 * without the pods ch drops (by UID or address) and with ch->add
 * accounted (0, -1 when out of memory; any other node changed before
 * must have been reset). cluster_view_reset_node: node idx back to c's.
 */
struct cluster_view_change {
    const char *const *drop_uids;
    size_t n_drop_uids;
    const struct kube_pod *const *drop;
    size_t n_drop;
    const struct kube_pod *const *add;
    size_t n_add;
};

int cluster_view_begin(struct arena *a, const struct cluster *c,
                       struct cluster *view);
int cluster_view_set_node(struct arena *a, const struct cluster *c,
                          struct cluster *view, size_t idx,
                          const struct cluster_view_change *ch);
void cluster_view_reset_node(const struct cluster *c, struct cluster *view,
                             size_t idx);

/*
 * A view of c in which node `node` no longer has the pods whose UIDs are
 * listed (the extender's preempt verb). Returns 1, 0 when c has no such
 * node, or -1 when out of memory.
 */
int cluster_view_without_pods(struct arena *a, const struct cluster *c,
                              const char *node, const char *const *uids,
                              size_t n_uids, struct cluster *view);

/*
 * Incremental node changes, for a live source (kube/client/cache.c). The node
 * object must outlive its place in the cluster (until it is updated or
 * removed). Aggregates come from the same code as cluster_build, so a
 * cluster changed step by step equals one built from the final objects
 * (node order aside: removal keeps the order of the others, additions go
 * last).
 *
 * cluster_add_node: a new node without pods. Returns 1, 0 when a node of
 * that name exists, -1 when out of memory.
 * cluster_update_node: replace the node object of the same name, keeping
 * its pods; image states follow the new object. Returns 1, 0 when there is
 * no such node, -1 when out of memory.
 * cluster_remove_node: drop the node; its pods are no longer accounted
 * and count as orphans (n_orphan_pods) until removed with
 * cluster_remove_pod, which forgets an orphan. Returns 1, or 0 when there
 * is no such node.
 */
int cluster_add_node(struct cluster *c, const struct kube_node *node);
int cluster_update_node(struct cluster *c, const struct kube_node *node);
int cluster_remove_node(struct cluster *c, const char *name);

/* True when the pod counts for scheduling (phase not Succeeded/Failed). */
bool cluster_pod_is_active(const struct kube_pod *pod);

/*
 * Whether a wanted host port (ip "" = 0.0.0.0, protocol "" = TCP)
 * conflicts with the ports used on the node (HostPortInfo.CheckConflict).
 */
bool node_info_port_conflict(const struct node_info *ni, const char *ip,
                             const char *protocol, int32_t port);

/* The cluster-wide state of an image name, or NULL when no node has it. */
const struct image_state *cluster_image(const struct cluster *c,
                                        const char *name);

/* Whether the node lists the image (st from cluster_image; NULL: false). */
bool node_info_has_image(const struct node_info *ni,
                         const struct image_state *st);

/* The Namespace object called name, or NULL. */
const struct kube_namespace *cluster_namespace(const struct cluster *c,
                                               const char *name);

/* Cluster-wide lookups; NULL when absent. */
const struct kube_persistent_volume_claim *
cluster_pvc(const struct cluster *c, const char *ns, const char *name);
const struct kube_persistent_volume *cluster_pv(const struct cluster *c,
                                                const char *name);
const struct kube_storage_class *cluster_storage_class(const struct cluster *c,
                                                       const char *name);
const struct kube_csi_node *cluster_csi_node(const struct cluster *c,
                                             const char *name);

#endif
