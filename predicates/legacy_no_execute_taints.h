/*
 * legacy_no_execute_taints.h: PodToleratesNodeNoExecuteTaints' failure reason
 * (v1.16 predicates/error.go; dropped before v1.22), for its tests. Exactly
 * as kube-scheduler prints it; the predicate itself is
 * legacy_no_execute_taints.c.
 */
#ifndef PREDICATES_LEGACY_NO_EXECUTE_TAINTS_H
#define PREDICATES_LEGACY_NO_EXECUTE_TAINTS_H

#define PRED_REASON_TAINTS_LEGACY                                              \
    "node(s) had taints that the pod didn't tolerate"

#endif
