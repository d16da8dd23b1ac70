/*
 * types.h: the Kubernetes object model, reduced to what the legacy
 * predicates and priorities read. Every struct is plain data owned by the
 * arena it was parsed into (kube/parse/parse.h); strings are NUL-terminated and
 * NULL when the field was absent. Arrays come as (n_x, x) pairs.
 *
 * Quantities are parsed once: cpu in millicores (MilliValue), everything
 * else in base units rounded up (Value), as kube-scheduler v1.22 reads them.
 */
#ifndef KUBE_MODEL_TYPES_H
#define KUBE_MODEL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- labels, annotations and other string maps ---- */

struct kube_label {
    const char *key;
    const char *value;
};

/*
 * A string map, sorted by key (strcmp) with unique keys, so lookups can
 * bisect. `present` distinguishes an absent/null map from an empty one
 * where that matters (Service spec.selector: nil matches nothing).
 */
struct kube_labels {
    size_t n;
    struct kube_label *items;
    bool present;
};

/* ---- label selectors (metav1.LabelSelector and node selector terms) ---- */

enum kube_selector_op {
    KUBE_OP_IN,
    KUBE_OP_NOT_IN,
    KUBE_OP_EXISTS,
    KUBE_OP_DOES_NOT_EXIST,
    KUBE_OP_GT,
    KUBE_OP_LT,
};

struct kube_requirement {
    const char *key;
    enum kube_selector_op op;
    size_t n_values;
    const char **values;
    int64_t int_value; /* KUBE_OP_GT/LT: the single value, parsed */
};

/*
 * metav1.LabelSelector after conversion: matchLabels become In
 * requirements. A nil selector is represented by a NULL pointer at the
 * use site; an empty one (n_reqs == 0) matches everything. `invalid` is set
 * (with the reason) when the selector cannot be converted (bad operator,
 * In without values, ...): matching then is an error for the caller.
 */
struct kube_label_selector {
    size_t n_reqs;
    struct kube_requirement *reqs;
    const char *invalid; /* NULL when valid, else why it is not */
};

/* One v1.NodeSelectorTerm: expressions and fields are ANDed. */
struct kube_node_selector_term {
    size_t n_exprs;
    struct kube_requirement *exprs; /* matchExpressions */
    size_t n_fields;
    struct kube_requirement *fields; /* matchFields (metadata.name only) */
    const char *invalid;             /* parse error: the term never matches */
};

/* v1.NodeSelector: terms are ORed. */
struct kube_node_selector {
    size_t n_terms;
    struct kube_node_selector_term *terms;
};

struct kube_preferred_term {
    int32_t weight;
    struct kube_node_selector_term term;
};

/* ---- taints and tolerations ---- */

struct kube_taint {
    const char *key;
    const char *value;  /* "" when absent */
    const char *effect; /* NoSchedule, PreferNoSchedule, NoExecute */
};

struct kube_toleration {
    const char *key;    /* "" when absent */
    const char *op;     /* "" when absent (= Equal), "Equal", "Exists" */
    const char *value;  /* "" when absent */
    const char *effect; /* "" when absent (= all effects) */
};

/* ---- resources ---- */

struct kube_scalar {
    const char *name; /* e.g. "example.com/gpu", "hugepages-2Mi" */
    int64_t value;    /* Value(): base units rounded up */
};

#define KUBE_RES_CPU               0x01u
#define KUBE_RES_MEMORY            0x02u
#define KUBE_RES_EPHEMERAL_STORAGE 0x04u
#define KUBE_RES_PODS              0x08u

/*
 * A v1.ResourceList. `has` records which of the four native keys were
 * present (the non-zero defaults depend on "key missing", not "zero").
 * cpu_value is Value() of cpu (whole cores, rounded up), kept for the
 * v1.22 overhead quirk in scoring. Scalars keep input order; names other
 * than the four native ones and not scalar (see kube/model/resources.h) are
 * kept too, because filtering decides what to ignore.
 */
struct kube_resources {
    unsigned has;
    int64_t milli_cpu;
    int64_t cpu_value;
    int64_t memory;
    int64_t ephemeral_storage;
    int64_t pods;
    size_t n_scalars;
    struct kube_scalar *scalars;
};

/* ---- pods ---- */

struct kube_container_port {
    int32_t container_port;
    int32_t host_port;    /* 0 when absent */
    const char *protocol; /* "TCP" when absent */
    const char *host_ip;  /* "" when absent */
};

struct kube_container {
    const char *name;
    const char *image;
    struct kube_resources requests;
    struct kube_resources limits;
    size_t n_ports;
    struct kube_container_port *ports;
};

enum kube_volume_kind {
    KUBE_VOL_OTHER = 0, /* a kind no predicate inspects */
    KUBE_VOL_PVC,
    KUBE_VOL_EPHEMERAL, /* generic ephemeral: PVC "<pod>-<volume>" */
    KUBE_VOL_GCE_PD,
    KUBE_VOL_AWS_EBS,
    KUBE_VOL_AZURE_DISK,
    KUBE_VOL_CINDER,
    KUBE_VOL_ISCSI,
    KUBE_VOL_RBD,
    KUBE_VOL_CSI, /* inline CSI volume */
};

struct kube_volume {
    const char *name;
    enum kube_volume_kind kind;
    bool read_only;
    /*
     * The identifying string of the source: PVC claimName, GCE pdName,
     * EBS volumeID, Azure diskName, Cinder volumeID, iSCSI iqn, RBD image,
     * CSI driver. "" when the field was absent.
     */
    const char *id;
    const char *rbd_pool; /* "rbd" when absent (API default) */
    size_t n_rbd_monitors;
    const char **rbd_monitors;
    const char *iscsi_target_portal;
    int32_t iscsi_lun;
    int32_t ebs_partition;
    const char *fs_type;
};

struct kube_owner_ref {
    const char *api_version;
    const char *kind;
    const char *name;
    const char *uid;
    bool controller;
};

/* One pod (anti-)affinity term. */
struct kube_pod_affinity_term {
    struct kube_label_selector *selector; /* NULL = nil: matches nothing */
    size_t n_namespaces;
    const char **namespaces;
    /* NULL = nil: no namespaces besides the list; empty = all */
    struct kube_label_selector *namespace_selector;
    const char *topology_key;
};

struct kube_weighted_pod_affinity_term {
    int32_t weight;
    struct kube_pod_affinity_term term;
};

struct kube_pod_affinity {
    size_t n_required;
    struct kube_pod_affinity_term *required;
    size_t n_preferred;
    struct kube_weighted_pod_affinity_term *preferred;
};

struct kube_affinity {
    /* nodeAffinity.requiredDuringScheduling...: NULL when absent */
    struct kube_node_selector *node_required;
    size_t n_node_preferred;
    struct kube_preferred_term *node_preferred;
    struct kube_pod_affinity pod_affinity;
    struct kube_pod_affinity pod_anti_affinity;
};

struct kube_topology_spread_constraint {
    int32_t max_skew;
    const char *topology_key;
    const char *when_unsatisfiable;       /* DoNotSchedule | ScheduleAnyway */
    struct kube_label_selector *selector; /* NULL = nil */
};

struct kube_pod_condition {
    const char *type;
    const char *status;
    const char *reason;
};

struct kube_pod {
    /* metadata */
    const char *name;
    const char *namespace; /* "default" when absent */
    const char *uid;
    const char *resource_version;
    int64_t creation_timestamp; /* seconds since the epoch, 0 if absent */
    bool deleting;              /* metadata.deletionTimestamp set */
    struct kube_labels labels;
    struct kube_labels annotations;
    size_t n_owner_refs;
    struct kube_owner_ref *owner_refs;

    /* spec */
    const char *node_name;      /* "" when absent */
    const char *scheduler_name; /* "default-scheduler" when absent */
    bool has_priority;
    int32_t priority;
    /* spec.preemptionPolicy: "" when absent (PreemptLowerPriority). */
    const char *preemption_policy;
    struct kube_labels node_selector;
    struct kube_affinity affinity; /* all-empty when absent */
    size_t n_tolerations;
    struct kube_toleration *tolerations;
    size_t n_containers;
    struct kube_container *containers;
    size_t n_init_containers;
    struct kube_container *init_containers;
    bool has_overhead;
    struct kube_resources overhead;
    size_t n_volumes;
    struct kube_volume *volumes;
    size_t n_spread_constraints;
    struct kube_topology_spread_constraint *spread_constraints;

    /* status */
    const char *phase; /* "" when absent */
    const char *nominated_node_name;
    bool has_start_time;
    int64_t start_time; /* status.startTime, seconds since the epoch */
    size_t n_conditions;
    struct kube_pod_condition *conditions;
};

/* ---- nodes ---- */

struct kube_node_condition {
    const char *type;   /* Ready, MemoryPressure, ... */
    const char *status; /* True, False, Unknown */
};

struct kube_container_image {
    size_t n_names;
    const char **names;
    int64_t size_bytes;
};

struct kube_node_address {
    const char *type;
    const char *address;
};

struct kube_node {
    const char *name;
    const char *uid;
    const char *resource_version;
    struct kube_labels labels;
    struct kube_labels annotations;
    bool unschedulable;
    size_t n_taints;
    struct kube_taint *taints;
    struct kube_resources allocatable;
    struct kube_resources capacity;
    size_t n_images;
    struct kube_container_image *images;
    size_t n_conditions;
    struct kube_node_condition *conditions;
    size_t n_addresses;
    struct kube_node_address *addresses;
};

/* ---- services and controllers ---- */

struct kube_service {
    const char *name;
    const char *namespace;
    struct kube_labels selector; /* present == false: nil selector */
};

/* ReplicationController: a plain map selector. */
struct kube_replication_controller {
    const char *name;
    const char *namespace;
    struct kube_labels selector;
};

/* ReplicaSet and StatefulSet share this shape. */
struct kube_workload {
    const char *name;
    const char *namespace;
    struct kube_label_selector *selector; /* NULL = nil */
};

/* ---- storage ---- */

struct kube_persistent_volume {
    const char *name;
    struct kube_labels labels;
    struct kube_labels annotations;
    int64_t capacity_storage; /* bytes */
    size_t n_access_modes;
    const char **access_modes;
    const char *storage_class_name;  /* "" when absent */
    const char *volume_mode;         /* "" when absent */
    const char *claim_ref_namespace; /* NULL when no claimRef */
    const char *claim_ref_name;
    const char *claim_ref_uid;
    struct kube_node_selector *node_affinity; /* spec.nodeAffinity.required */
    enum kube_volume_kind kind; /* source kind, as for pod volumes */
    const char *volume_id;      /* EBS volumeID, GCE pdName, ... */
    const char *csi_driver;     /* spec.csi.driver */
    const char *csi_handle;     /* spec.csi.volumeHandle */
    const char *azure_disk_uri; /* spec.azureDisk.diskURI */
    const char *phase;
    bool deleting;
};

struct kube_persistent_volume_claim {
    const char *name;
    const char *namespace;
    const char *uid;
    struct kube_labels labels;
    struct kube_labels annotations;
    size_t n_owner_refs;
    struct kube_owner_ref *owner_refs;
    bool deleting;
    const char *volume_name; /* "" when unbound */
    bool has_storage_class_name;
    const char *storage_class_name; /* "" when absent */
    size_t n_access_modes;
    const char **access_modes;
    int64_t request_storage; /* spec.resources.requests.storage, bytes */
    struct kube_label_selector *selector; /* NULL = nil */
    const char *volume_mode;
    const char *phase;
};

/* A StorageClass allowedTopologies term: ANDed key/values requirements. */
struct kube_topology_term {
    size_t n_exprs;
    struct kube_requirement *exprs; /* always KUBE_OP_IN */
};

struct kube_storage_class {
    const char *name;
    const char *provisioner;
    const char *volume_binding_mode; /* "" when absent */
    size_t n_allowed_topologies;
    struct kube_topology_term *allowed_topologies;
};

struct kube_csi_node_driver {
    const char *name;
    const char *node_id;
    bool has_allocatable_count;
    int32_t allocatable_count;
    size_t n_topology_keys;
    const char **topology_keys;
};

struct kube_csi_node {
    const char *name;
    struct kube_labels annotations;
    size_t n_drivers;
    struct kube_csi_node_driver *drivers;
};

struct kube_namespace {
    const char *name;
    struct kube_labels labels;
};

/* ---- a parsed document: one object or a List of mixed kinds ---- */

enum kube_kind {
    KUBE_KIND_UNKNOWN = 0,
    KUBE_KIND_POD,
    KUBE_KIND_NODE,
    KUBE_KIND_SERVICE,
    KUBE_KIND_REPLICATION_CONTROLLER,
    KUBE_KIND_REPLICA_SET,
    KUBE_KIND_STATEFUL_SET,
    KUBE_KIND_PERSISTENT_VOLUME,
    KUBE_KIND_PERSISTENT_VOLUME_CLAIM,
    KUBE_KIND_STORAGE_CLASS,
    KUBE_KIND_CSI_NODE,
    KUBE_KIND_NAMESPACE,
    KUBE_KIND_PDB,
};

/* Room for an array indexed by enum kube_kind. */
#define KUBE_KIND_COUNT (KUBE_KIND_PDB + 1)

/*
 * A PodDisruptionBudget as preemption reads it (policy/v1beta1 and v1
 * alike): which pods it covers and how many may still be disrupted.
 */
struct kube_pdb {
    const char *name;
    const char *namespace;
    struct kube_label_selector *selector; /* spec.selector; NULL = nil */
    int32_t disruptions_allowed;          /* status.disruptionsAllowed */
    struct kube_labels disrupted; /* status.disruptedPods: pod name -> time */
};

/* Objects gathered from one or more documents, in input order per kind. */
struct kube_objects {
    size_t n_pods;
    struct kube_pod **pods;
    size_t n_nodes;
    struct kube_node **nodes;
    size_t n_services;
    struct kube_service **services;
    size_t n_rcs;
    struct kube_replication_controller **rcs;
    size_t n_replica_sets;
    struct kube_workload **replica_sets;
    size_t n_stateful_sets;
    struct kube_workload **stateful_sets;
    size_t n_pvs;
    struct kube_persistent_volume **pvs;
    size_t n_pvcs;
    struct kube_persistent_volume_claim **pvcs;
    size_t n_storage_classes;
    struct kube_storage_class **storage_classes;
    size_t n_csi_nodes;
    struct kube_csi_node **csi_nodes;
    size_t n_namespaces;
    struct kube_namespace **namespaces;
    size_t n_pdbs;
    struct kube_pdb **pdbs;
    size_t n_skipped; /* objects of kinds we do not model (Events, ...) */
};

#endif
