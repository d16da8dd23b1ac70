/*
 * service_affinity.h: CheckServiceAffinity's failure reason (v1.22
 * serviceaffinity), for its tests. Exactly as kube-scheduler prints it; the
 * predicate itself is service_affinity.c.
 */
#ifndef PREDICATES_SERVICE_AFFINITY_H
#define PREDICATES_SERVICE_AFFINITY_H

#define PRED_REASON_SERVICE_AFFINITY "node(s) didn't match service affinity"

#endif
