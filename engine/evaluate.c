/*
 * evaluate.c: filter then score one pod over a node list (see header).
 */
#include "engine/evaluate.h"

#include "engine/filter_cache.h"

#include <string.h>

int eval_plans_build(const struct policy *p, struct eval_plans *plans,
                     struct err *e)
{
    if (pred_plan_build(p, &plans->pred, e) < 0)
        return -1;
    return prio_plan_build(p, &plans->prio, e);
}

/* Size out for n nodes and at most cap feasible ones. */
static int result_alloc(struct eval_result *out, size_t n, size_t cap,
                        struct arena *a, struct err *e)
{
    memset(out, 0, sizeof(*out));
    out->selected = -1;
    out->nodes = arena_calloc(a, n ? n : 1, sizeof(*out->nodes));
    out->feasible = arena_calloc(a, cap ? cap : 1, sizeof(*out->feasible));
    if (!out->nodes || !out->feasible)
        return err_set(e, "out of memory evaluating %zu nodes", n);
    return 0;
}

int eval_filter_cached(const struct pred_plan *plan, const struct kube_pod *pod,
                       const struct cluster *c,
                       const struct node_info *const *nodes, size_t n,
                       size_t start, size_t want, struct filter_cache *fc,
                       struct arena *a, struct eval_result *out, bool *rejected,
                       struct err *e)
{
    struct pred_eval ev;
    size_t i, at;
    int rc = 0;

    if (result_alloc(out, n, want, a, e) < 0)
        return -1;
    if (pred_eval_begin(&ev, plan, pod, c, a, e) < 0)
        return -1;
    if (rejected)
        *rejected = ev.rejected;
    if (ev.rejected)
        fc = NULL; /* every node carries the rejection: nothing to keep */
    /* A rejection: every node carries it, in input order. */
    at = ev.rejected || !n ? 0 : start % n;
    for (i = 0; i < n && out->n_feasible < want;
         i++, at = at + 1 < n ? at + 1 : 0) {
        struct eval_node *en = &out->nodes[i];
        const struct pred_verdict *kept;

        en->ni = nodes[at];
        en->feasible_index = -1;
        if (plan->n_steps == 0) {
            en->verdict.code = PRED_FIT; /* no filter plugins */
        } else if (fc && (kept = filter_cache_get(fc, plan, en->ni->index))) {
            en->verdict = *kept;
        } else if (pred_eval_node(&ev, en->ni, &en->verdict, e) < 0) {
            rc = err_prefix(e, "node %s: ", en->ni->node->name);
            break;
        } else if (fc &&
                   filter_cache_put(fc, &ev, en->ni->index, &en->verdict) < 0) {
            rc = err_set(e, "out of memory");
            break;
        }
        en->feasible = en->verdict.code == PRED_FIT;
        if (en->feasible) {
            en->feasible_index = (int)out->n_feasible;
            out->feasible[out->n_feasible++] = en->ni;
        }
    }
    out->n_nodes = i;
    return rc;
}

int eval_filter(const struct pred_plan *plan, const struct kube_pod *pod,
                const struct cluster *c, const struct node_info *const *nodes,
                size_t n, size_t start, size_t want, struct arena *a,
                struct eval_result *out, bool *rejected, struct err *e)
{
    return eval_filter_cached(plan, pod, c, nodes, n, start, want, NULL, a, out,
                              rejected, e);
}

/* Every node passes unfiltered (EVAL_FILTER not asked for). */
static int pass_all(const struct node_info *const *nodes, size_t n,
                    struct arena *a, struct eval_result *out, struct err *e)
{
    size_t i;

    if (result_alloc(out, n, n, a, e) < 0)
        return -1;
    out->n_nodes = n;
    for (i = 0; i < n; i++) {
        out->nodes[i].ni = nodes[i];
        out->nodes[i].feasible = true;
        out->nodes[i].feasible_index = (int)i;
        out->feasible[i] = nodes[i];
    }
    out->n_feasible = n;
    return 0;
}

/* The feasible node with the best total (the first on ties), as
 * out->selected. */
static void select_first_best(struct eval_result *out)
{
    int64_t best = 0;
    size_t i;

    for (i = 0; i < out->n_nodes; i++) {
        int fi = out->nodes[i].feasible_index;

        if (fi < 0)
            continue;
        if (out->selected < 0 || out->prio.totals[fi] > best) {
            out->selected = (int)i;
            best = out->prio.totals[fi];
        }
    }
}

int evaluate_pod(const struct eval_plans *plans, const struct kube_pod *pod,
                 const struct cluster *c, const struct node_info *const *nodes,
                 size_t n, unsigned what, struct arena *a,
                 struct eval_result *out, struct err *e)
{
    int rc;

    if (what & EVAL_FILTER)
        rc = eval_filter(&plans->pred, pod, c, nodes, n, 0, n, a, out, NULL, e);
    else
        rc = pass_all(nodes, n, a, out, e);
    if (rc < 0)
        return -1;
    if (!(what & EVAL_SCORE))
        return 0;
    if (prio_eval(&plans->prio, pod, c, out->feasible, out->n_feasible, a,
                  &out->prio, e) < 0)
        return -1;
    out->scored = true;
    select_first_best(out);
    return 0;
}
