/*
 * pod_fits_host_new.h: PodFitsHostNew's failure reason (seed 002's
 * ErrPodNotMatchHostName, v1.13 predicates/error.go), for its tests. Exactly
 * as kube-scheduler prints it; the predicate itself is pod_fits_host_new.c.
 */
#ifndef PREDICATES_POD_FITS_HOST_NEW_H
#define PREDICATES_POD_FITS_HOST_NEW_H

/* Seed 002's ErrPodNotMatchHostName (v1.13 predicates/error.go) */
#define PRED_REASON_HOST_NAME_SEED "node(s) didn't match the requested hostname"

#endif
