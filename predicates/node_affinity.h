/*
 * node_affinity.h: MatchNodeSelector's failure reason (v1.22 nodeaffinity),
 * for its tests. Exactly as kube-scheduler prints it; the predicate itself is
 * node_affinity.c.
 */
#ifndef PREDICATES_NODE_AFFINITY_H
#define PREDICATES_NODE_AFFINITY_H

#define PRED_REASON_NODE_AFFINITY                                              \
    "node(s) didn't match Pod's node affinity/selector"

#endif
