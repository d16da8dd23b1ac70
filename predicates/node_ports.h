/*
 * node_ports.h: PodFitsHostPorts' failure reason (v1.22 nodeports), for its
 * tests. Exactly as kube-scheduler prints it; the predicate itself is
 * node_ports.c.
 */
#ifndef PREDICATES_NODE_PORTS_H
#define PREDICATES_NODE_PORTS_H

#define PRED_REASON_NODE_PORTS                                                 \
    "node(s) didn't have free ports for the requested pod ports"

#endif
