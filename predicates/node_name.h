/*
 * node_name.h: HostName's failure reason (v1.22 nodename), for its tests.
 * Exactly as kube-scheduler prints it; the predicate itself is node_name.c.
 */
#ifndef PREDICATES_NODE_NAME_H
#define PREDICATES_NODE_NAME_H

#define PRED_REASON_NODE_NAME "node(s) didn't match the requested node name"

#endif
