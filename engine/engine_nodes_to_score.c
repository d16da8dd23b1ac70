/*
 * engine_nodes_to_score.c: percentageOfNodesToScore in the standalone
 * scheduler, after kube-scheduler v1.22's core/generic_scheduler.go: how
 * many feasible nodes end the search (numFeasibleNodesToFind) and the
 * search from the rotating start (findNodesThatPassFilters, over the one
 * filter loop in evaluate.c).
 */
#include "engine/engine_nodes_to_score.h"

size_t engine_num_feasible_nodes_to_find(int percentage, size_t n_all)
{
    size_t want;
    long pct = percentage;

    if (n_all < ENGINE_MIN_FEASIBLE_NODES || percentage >= 100)
        return n_all;
    if (pct <= 0) {
        /* n_all / 125 may exceed 50: compare before subtracting. */
        size_t drop = n_all / 125;

        pct = drop >= ENGINE_BASE_PERCENT_TO_SCORE - ENGINE_MIN_FEASIBLE_PERCENT
                  ? ENGINE_MIN_FEASIBLE_PERCENT
                  : ENGINE_BASE_PERCENT_TO_SCORE - (long)drop;
    }
    want = n_all * (size_t)pct / 100;
    return want < ENGINE_MIN_FEASIBLE_NODES ? ENGINE_MIN_FEASIBLE_NODES : want;
}

int engine_find_feasible(const struct pred_plan *plan,
                         const struct kube_pod *pod, const struct cluster *c,
                         const struct node_info *const *nodes, size_t n,
                         int percentage, size_t *next_start,
                         struct filter_cache *fc, struct arena *a,
                         struct eval_result *out, struct err *e)
{
    size_t n_find = engine_num_feasible_nodes_to_find(percentage, n);
    size_t start = *next_start % n;
    bool rejected = false;
    int rc;

    rc = eval_filter_cached(plan, pod, c, nodes, n, start, n_find, fc, a, out,
                            &rejected, e);
    if (!rejected && out->nodes)
        *next_start = (start + out->n_nodes) % n;
    return rc;
}
