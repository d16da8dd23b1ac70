/*
 * engine_fit_error.h: FitError.Error() of kube-scheduler v1.22, the
 * summary of an evaluation in which no node fits.
 */
#ifndef ENGINE_ENGINE_FIT_ERROR_H
#define ENGINE_ENGINE_FIT_ERROR_H

#include "kube/base/arena.h"
#include "engine/evaluate.h"

/*
 * "0/N nodes are available: " then every failure reason over all nodes
 * of r counted, as "COUNT REASON" strings sorted bytewise and joined with
 * ", ", then ".". Allocated from a; NULL when out of memory.
 */
char *engine_fit_error(struct arena *a, const struct eval_result *r);

#endif
