/*
 * legacy_pressure.h: the node pressure predicates' failure reasons (v1.16
 * predicates/error.go; dropped before v1.22), for their tests. Exactly as
 * kube-scheduler prints them; the predicate itself is legacy_pressure.c.
 */
#ifndef PREDICATES_LEGACY_PRESSURE_H
#define PREDICATES_LEGACY_PRESSURE_H

#define PRED_REASON_MEMORY_PRESSURE "node(s) had memory pressure"
#define PRED_REASON_DISK_PRESSURE   "node(s) had disk pressure"
#define PRED_REASON_PID_PRESSURE    "node(s) had pid pressure"

#endif
