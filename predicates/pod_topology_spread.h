/*
 * pod_topology_spread.h: a read-only view of the PodTopologySpread
 * prefilter state (the pair counts and each key's minimum), for tests and
 * diagnostics. state is what pred_pod_topology_spread_prefilter stored.
 */
#ifndef PREDICATES_POD_TOPOLOGY_SPREAD_H
#define PREDICATES_POD_TOPOLOGY_SPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hard (DoNotSchedule) constraints the state holds. */
size_t pred_spread_state_constraints(const void *state);

/* Registered (key, value) pairs. */
size_t pred_spread_state_pairs(const void *state);

/* The count of a registered pair: true and *count set, or false. */
bool pred_spread_state_count(const void *state, const char *key,
                             const char *value, int64_t *count);

/*
 * The minimum count over the key's registered pairs (INT32_MAX when it
 * has none), or -1 when no constraint uses the key.
 */
int64_t pred_spread_state_min(const void *state, const char *key);

/* Its failure reasons, exactly as kube-scheduler prints them (v1.22). */
#define PRED_REASON_SPREAD                                                     \
    "node(s) didn't match pod topology spread constraints"
#define PRED_REASON_SPREAD_LABEL                                               \
    "node(s) didn't match pod topology spread constraints (missing required "  \
    "label)"

#endif
