/*
 * taint_toleration.h: PodToleratesNodeTaints' failure reason (v1.22
 * tainttoleration), for its tests. Exactly as kube-scheduler prints it; the
 * predicate itself is taint_toleration.c.
 */
#ifndef PREDICATES_TAINT_TOLERATION_H
#define PREDICATES_TAINT_TOLERATION_H

#define PRED_REASON_TAINT                                                      \
    "node(s) had taint {%s: %s}, that the pod didn't tolerate"

#endif
