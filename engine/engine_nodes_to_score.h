/*
 * engine_nodes_to_score.h: percentageOfNodesToScore of the standalone
 * scheduler and simulate (numFeasibleNodesToFind and findNodesThatPassFilters
 * of kube-scheduler v1.22).
 */
#ifndef ENGINE_ENGINE_NODES_TO_SCORE_H
#define ENGINE_ENGINE_NODES_TO_SCORE_H

#include <stddef.h>

#include "engine/evaluate.h"

/* minFeasibleNodesToFind and minFeasibleNodesPercentageToFind of v1.22. */
#define ENGINE_MIN_FEASIBLE_NODES    100
#define ENGINE_MIN_FEASIBLE_PERCENT  5
#define ENGINE_BASE_PERCENT_TO_SCORE 50

/*
 * numFeasibleNodesToFind of v1.22: how many feasible nodes, once found,
 * end the search among n_all nodes. percentage is
 * percentageOfNodesToScore: 0 (or less) adapts it to the cluster size
 * (50 - n_all/125, at least 5); 100 or more means every node. Never
 * fewer than 100 nodes, unless the cluster is smaller.
 */
size_t engine_num_feasible_nodes_to_find(int percentage, size_t n_all);

/*
 * findNodesThatPassFilters of v1.22, one node at a time: filter
 * nodes[0..n) (n > 0) of cluster c with plan, starting at *next_start and
 * wrapping around, until engine_num_feasible_nodes_to_find(percentage, n)
 * nodes fit or every node was tried (eval_filter); then advance
 * *next_start by the number of nodes tried (modulo n). A prefilter
 * rejection marks every node and leaves *next_start alone. out->nodes
 * holds the nodes tried in the order tried (all n when none fits, so
 * engine_fit_error counts them all); out->feasible the nodes that fit, in
 * the same order. Everything is allocated from a. Returns 0, or -1 with e
 * set on a plugin's internal error (*next_start still advances over the
 * nodes tried before it). fc (may be NULL) is eval_filter_cached's.
 */
int engine_find_feasible(const struct pred_plan *plan,
                         const struct kube_pod *pod, const struct cluster *c,
                         const struct node_info *const *nodes, size_t n,
                         int percentage, size_t *next_start,
                         struct filter_cache *fc, struct arena *a,
                         struct eval_result *out, struct err *e);

#endif
