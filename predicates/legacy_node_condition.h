/*
 * legacy_node_condition.h: CheckNodeCondition's own failure reasons (v1.16
 * predicates/error.go; dropped before v1.22), for its tests. Exactly as
 * kube-scheduler prints them; the predicate itself is
 * legacy_node_condition.c.
 */
#ifndef PREDICATES_LEGACY_NODE_CONDITION_H
#define PREDICATES_LEGACY_NODE_CONDITION_H

/* Dropped before v1.22 (v1.16 predicates/error.go), for compat legacy */
#define PRED_REASON_NOT_READY       "node(s) were not ready"
#define PRED_REASON_NETWORK_UNAVAIL "node(s) had unavailable network"

#endif
