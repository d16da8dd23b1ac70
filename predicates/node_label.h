/*
 * node_label.h: CheckNodeLabelPresence's failure reason (v1.22 nodelabel),
 * for its tests. Exactly as kube-scheduler prints it; the predicate itself is
 * node_label.c.
 */
#ifndef PREDICATES_NODE_LABEL_H
#define PREDICATES_NODE_LABEL_H

#define PRED_REASON_NODE_LABEL "node(s) didn't have the requested labels"

#endif
