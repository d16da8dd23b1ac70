/*
 * node_unschedulable.h: CheckNodeUnschedulable's failure reasons (v1.22
 * nodeunschedulable), which CheckNodeCondition and the tests also match.
 * Exactly as kube-scheduler prints them; the predicate itself is
 * node_unschedulable.c.
 */
#ifndef PREDICATES_NODE_UNSCHEDULABLE_H
#define PREDICATES_NODE_UNSCHEDULABLE_H

#define PRED_REASON_UNSCHEDULABLE     "node(s) were unschedulable"
#define PRED_REASON_UNKNOWN_CONDITION "node(s) had unknown conditions"

#endif
