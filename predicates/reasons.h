/*
 * reasons.h: the failure reason strings, exactly as kube-scheduler prints
 * them (each plugin's ErrReason constants; v1.22 unless noted), so
 * "0/N nodes are available: ..." messages read the same. Predicates and
 * tests both use these macros. Formats take printf arguments.
 */
#ifndef PREDICATES_REASONS_H
#define PREDICATES_REASONS_H

/* nodeunschedulable */
#define PRED_REASON_UNSCHEDULABLE     "node(s) were unschedulable"
#define PRED_REASON_UNKNOWN_CONDITION "node(s) had unknown conditions"

/* nodename */
#define PRED_REASON_NODE_NAME "node(s) didn't match the requested node name"

/* nodeports */
#define PRED_REASON_NODE_PORTS                                                 \
    "node(s) didn't have free ports for the requested pod ports"

/* nodeaffinity */
#define PRED_REASON_NODE_AFFINITY                                              \
    "node(s) didn't match Pod's node affinity/selector"

/* noderesources (fit.go) */
#define PRED_REASON_TOO_MANY_PODS "Too many pods"
#define PRED_REASON_INSUFFICIENT  "Insufficient %s" /* resource name */

/* volumerestrictions */
#define PRED_REASON_DISK_CONFLICT "node(s) had no available disk"

/* tainttoleration: key, value of the first untolerated taint */
#define PRED_REASON_TAINT                                                      \
    "node(s) had taint {%s: %s}, that the pod didn't tolerate"

/* nodelabel */
#define PRED_REASON_NODE_LABEL "node(s) didn't have the requested labels"

/* serviceaffinity */
#define PRED_REASON_SERVICE_AFFINITY "node(s) didn't match service affinity"

/* nodevolumelimits (CSI and non-CSI) */
#define PRED_REASON_MAX_VOLUME_COUNT "node(s) exceed max volume count"

/* volumebinding */
#define PRED_REASON_BIND_CONFLICT                                              \
    "node(s) didn't find available persistent volumes to bind"
#define PRED_REASON_NODE_CONFLICT    "node(s) had volume node affinity conflict"
#define PRED_REASON_NOT_ENOUGH_SPACE "node(s) did not have enough free storage"
#define PRED_REASON_UNBOUND_IMMEDIATE                                          \
    "pod has unbound immediate PersistentVolumeClaims"
/* v1.22 wording; v1.23 (#105196) prefixed "node(s) unavailable due to one
 * or more " */
#define PRED_REASON_PV_NOT_EXIST "pvc(s) bound to non-existent pv(s)"

/* volumezone */
#define PRED_REASON_VOLUME_ZONE "node(s) had no available volume zone"

/* podtopologyspread */
#define PRED_REASON_SPREAD                                                     \
    "node(s) didn't match pod topology spread constraints"
#define PRED_REASON_SPREAD_LABEL                                               \
    "node(s) didn't match pod topology spread constraints (missing required "  \
    "label)"

/* interpodaffinity */
#define PRED_REASON_AFFINITY_NOT_MATCH                                         \
    "node(s) didn't match pod affinity/anti-affinity rules"
#define PRED_REASON_AFFINITY_RULES "node(s) didn't match pod affinity rules"
#define PRED_REASON_ANTI_AFFINITY_RULES                                        \
    "node(s) didn't match pod anti-affinity rules"
#define PRED_REASON_EXISTING_ANTI_AFFINITY                                     \
    "node(s) didn't satisfy existing pods anti-affinity rules"

/* Seed 002's ErrPodNotMatchHostName (v1.13 predicates/error.go) */
#define PRED_REASON_HOST_NAME_SEED "node(s) didn't match the requested hostname"

/* Dropped before v1.22 (v1.16 predicates/error.go), for compat legacy */
#define PRED_REASON_NOT_READY       "node(s) were not ready"
#define PRED_REASON_NETWORK_UNAVAIL "node(s) had unavailable network"
#define PRED_REASON_MEMORY_PRESSURE "node(s) had memory pressure"
#define PRED_REASON_DISK_PRESSURE   "node(s) had disk pressure"
#define PRED_REASON_PID_PRESSURE    "node(s) had pid pressure"
#define PRED_REASON_TAINTS_LEGACY                                              \
    "node(s) had taints that the pod didn't tolerate"

#endif
