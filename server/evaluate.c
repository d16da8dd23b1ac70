/*
 * evaluate.c: filter then score one pod over a node list (see header).
 */
#include "server/evaluate.h"

#include <string.h>

int eval_plans_build(const struct policy *p, struct eval_plans *plans,
                     struct err *e)
{
    if (pred_plan_build(p, &plans->pred, e) < 0)
        return -1;
    return prio_plan_build(p, &plans->prio, e);
}

static int filter_nodes(const struct eval_plans *plans,
                        const struct kube_pod *pod, const struct cluster *c,
                        struct arena *a, struct eval_result *out, struct err *e)
{
    struct pred_eval ev;
    size_t i;

    if (pred_eval_begin(&ev, &plans->pred, pod, c, a, e) < 0)
        return -1;
    for (i = 0; i < out->n_nodes; i++) {
        struct eval_node *en = &out->nodes[i];

        if (pred_eval_node(&ev, en->ni, &en->verdict, e) < 0)
            return err_prefix(e, "node %s: ", en->ni->node->name);
        en->feasible = en->verdict.code == PRED_FIT;
    }
    return 0;
}

int evaluate_pod(const struct eval_plans *plans, const struct kube_pod *pod,
                 const struct cluster *c, const struct node_info *const *nodes,
                 size_t n, unsigned what, struct arena *a,
                 struct eval_result *out, struct err *e)
{
    size_t i;
    int64_t best = 0;

    memset(out, 0, sizeof(*out));
    out->selected = -1;
    out->n_nodes = n;
    out->nodes = arena_calloc(a, n ? n : 1, sizeof(*out->nodes));
    out->feasible = arena_calloc(a, n ? n : 1, sizeof(*out->feasible));
    if (!out->nodes || !out->feasible)
        return err_set(e, "out of memory evaluating %zu nodes", n);
    for (i = 0; i < n; i++) {
        out->nodes[i].ni = nodes[i];
        out->nodes[i].feasible = true;
        out->nodes[i].feasible_index = -1;
    }
    if ((what & EVAL_FILTER) && filter_nodes(plans, pod, c, a, out, e) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        if (!out->nodes[i].feasible)
            continue;
        out->nodes[i].feasible_index = (int)out->n_feasible;
        out->feasible[out->n_feasible++] = nodes[i];
    }
    if (!(what & EVAL_SCORE))
        return 0;
    if (prio_eval(&plans->prio, pod, c, out->feasible, out->n_feasible, a,
                  &out->prio, e) < 0)
        return -1;
    out->scored = true;
    for (i = 0; i < n; i++) {
        int fi = out->nodes[i].feasible_index;

        if (fi < 0)
            continue;
        if (out->selected < 0 || out->prio.totals[fi] > best) {
            out->selected = (int)i;
            best = out->prio.totals[fi];
        }
    }
    return 0;
}
