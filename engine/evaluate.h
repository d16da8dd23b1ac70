/*
 * evaluate.h: one pod against a list of nodes under a policy — filter the
 * nodes, then score the feasible ones — as a v1.22 scheduling cycle does up
 * to host selection (engine_select.h picks the host). The one filter loop
 * (eval_filter) and the one filter-then-score evaluator, shared by
 * explain, the extender verbs and the standalone scheduler.
 */
#ifndef ENGINE_EVALUATE_H
#define ENGINE_EVALUATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/base/arena.h"
#include "kube/cluster/cluster.h"
#include "kube/base/err.h"
#include "engine/pred_eval.h"
#include "engine/prio_eval.h"

/* A policy's two plans, built once per loaded policy. */
struct eval_plans {
    struct pred_plan pred;
    struct prio_plan prio;
};

int eval_plans_build(const struct policy *p, struct eval_plans *plans,
                     struct err *e);

struct eval_node {
    const struct node_info *ni;
    struct pred_verdict verdict;
    bool feasible;
    int feasible_index; /* index into scores' node axis, -1 if infeasible */
};

struct eval_result {
    size_t n_nodes;
    struct eval_node *nodes; /* in input order */
    size_t n_feasible;
    const struct node_info **feasible;
    bool scored;
    struct prio_result prio; /* over feasible, when scored */
    int selected; /* index into nodes of the best total (first on ties), -1 */
};

#define EVAL_FILTER 0x1u /* run the predicates (else every node passes) */
#define EVAL_SCORE  0x2u /* score the feasible nodes */

/*
 * Evaluate pod on nodes[0..n) of cluster c. Everything is allocated from
 * a. Returns 0, or -1 with e set when a plugin fails internally (the pod
 * cannot be decided now).
 */
/*
 * findNodesThatPassFilters of v1.22, one node at a time: filter nodes[0..n)
 * of cluster c with plan, starting at nodes[start % n] and wrapping
 * around, until `want` nodes fit or every node was tried. out->nodes holds
 * the nodes tried in the order tried (out->n_nodes of them), out->feasible
 * those that fit, in the same order (room for at most `want`). A prefilter
 * rejection tries every node from nodes[0], each carrying the rejection,
 * and sets *rejected (may be NULL). Everything is allocated from a.
 * Returns 0, or -1 with e set on a plugin's internal error (out->n_nodes
 * then counts the nodes tried before it).
 */
int eval_filter(const struct pred_plan *plan, const struct kube_pod *pod,
                const struct cluster *c, const struct node_info *const *nodes,
                size_t n, size_t start, size_t want, struct arena *a,
                struct eval_result *out, bool *rejected, struct err *e);

/*
 * eval_filter, taking and keeping node verdicts in fc (filter_cache.h)
 * when fc is not NULL: same nodes tried, same verdicts, less work.
 */
struct filter_cache;
int eval_filter_cached(const struct pred_plan *plan, const struct kube_pod *pod,
                       const struct cluster *c,
                       const struct node_info *const *nodes, size_t n,
                       size_t start, size_t want, struct filter_cache *fc,
                       struct arena *a, struct eval_result *out, bool *rejected,
                       struct err *e);

int evaluate_pod(const struct eval_plans *plans, const struct kube_pod *pod,
                 const struct cluster *c, const struct node_info *const *nodes,
                 size_t n, unsigned what, struct arena *a,
                 struct eval_result *out, struct err *e);

#endif
