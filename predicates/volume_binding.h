/*
 * volume_binding.h: CheckVolumeBinding's failure reasons (v1.22
 * volumebinding) that other files match: its tests, and NoVolumeNodeConflict,
 * which reports the same node conflict. Exactly as kube-scheduler prints
 * them; the predicate itself is volume_binding.c.
 */
#ifndef PREDICATES_VOLUME_BINDING_H
#define PREDICATES_VOLUME_BINDING_H

#define PRED_REASON_BIND_CONFLICT                                              \
    "node(s) didn't find available persistent volumes to bind"
#define PRED_REASON_NODE_CONFLICT "node(s) had volume node affinity conflict"
#define PRED_REASON_UNBOUND_IMMEDIATE                                          \
    "pod has unbound immediate PersistentVolumeClaims"
/* v1.22 wording; v1.23 (#105196) prefixed "node(s) unavailable due to one
 * or more " */
#define PRED_REASON_PV_NOT_EXIST "pvc(s) bound to non-existent pv(s)"

#endif
