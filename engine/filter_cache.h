/*
 * filter_cache.h: the filter verdicts of a run of replicas of one pod,
 * node by node, so that each placement re-runs the filters only where
 * their answer can have changed: on the node the last replica went to.
 * A verdict is kept when every filter that decided it is invariant for
 * the pod: its answer depends on the pod and that one node only (labels,
 * taints, conditions, its pods' requests, ports, volumes), never on
 * other nodes or on what the replicas placed so far changed elsewhere
 * (each plugin declares it: struct pred_plugin's stable, some only for
 * pods without volumes or pod
 * affinity terms or spread constraints). Such a verdict (a fit or a
 * rejection) stays exact while the pod is the same and the node is
 * unchanged: the caller forgets a node when it assumes a pod on it, and
 * clears everything when the pod changes. The rotating start and the
 * FitError are unaffected: the filter loop still walks (and counts) every
 * node; only the verdict comes from here.
 */
#ifndef ENGINE_FILTER_CACHE_H
#define ENGINE_FILTER_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/pred_eval.h"
#include "kube/base/arena.h"

struct filter_cache_entry {
    uint64_t gen; /* valid when equal to the cache's */
    struct pred_verdict verdict;
};

struct filter_cache {
    uint64_t gen;
    size_t cap;
    struct filter_cache_entry *e; /* by node_info.index */
    const struct pred_plan *plan; /* NULL until the first verdict kept */
    size_t prefix;  /* leading steps invariant for the pod (of plan) */
    struct arena a; /* the kept verdicts' copies */
};

void filter_cache_init(struct filter_cache *fc);
void filter_cache_free(struct filter_cache *fc);

/* Forget every verdict (another pod, another plan or cluster). */
void filter_cache_clear(struct filter_cache *fc);

/* Forget the verdict of node index i (its pods changed). */
void filter_cache_forget(struct filter_cache *fc, size_t i);

/* The kept verdict of node index i under plan, or NULL. */
const struct pred_verdict *filter_cache_get(struct filter_cache *fc,
                                            const struct pred_plan *plan,
                                            size_t i);

/*
 * Keep v, the verdict pred_eval_node just gave ev for node index i, when
 * it qualifies (see above; never after a prefilter rejection). Returns 0,
 * or -1 when out of memory.
 */
int filter_cache_put(struct filter_cache *fc, const struct pred_eval *ev,
                     size_t i, const struct pred_verdict *v);

#endif
