/*
 * engine_select.h: selectHost of kube-scheduler v1.22, the host selection
 * step after filter and score (evaluate.h).
 */
#ifndef ENGINE_ENGINE_SELECT_H
#define ENGINE_ENGINE_SELECT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The index of the highest total in totals[0..n) (n > 0), one of several
 * equal ones uniformly at random (reservoir sampling with *rng, a
 * splitmix64 state).
 */
/* The next draw of a splitmix64 state (selectHost's and preemption's
 * random offset). */
uint64_t engine_rng_next(uint64_t *rng);

size_t engine_select_host(const int64_t *totals, size_t n, uint64_t *rng);

#endif
