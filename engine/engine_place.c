/*
 * engine_place.c: one placement decision (engine_place.h), after
 * kube-scheduler v1.22's pkg/scheduler/scheduler.go scheduleOne and
 * core/generic_scheduler.go Schedule: nodes in NodeTree order, filter
 * from the rotating start, score unless one node fits, select the host.
 */
#include "engine/engine_place.h"

#include <stdlib.h>
#include <string.h>

#include "engine/engine_fit_error.h"
#include "engine/engine_nodes_to_score.h"
#include "engine/engine_select.h"

void engine_placer_init(struct engine_placer *pl, int percentage, uint64_t seed)
{
    memset(pl, 0, sizeof(*pl));
    pl->percentage = percentage;
    pl->rng = seed ? seed : 1;
}

void engine_placer_free(struct engine_placer *pl)
{
    free(pl->node_buf);
    free(pl->node_idx);
    pl->node_buf = NULL;
    pl->node_idx = NULL;
    pl->node_cap = 0;
}

/*
 * pl->node_buf with every node of cl in kube-scheduler's walking order
 * (NodeTree.list: round robin over zones), as its snapshot lists them.
 * 0, -1 when out of memory, -2 when the tree and the nodes disagree.
 */
static int node_list(struct engine_placer *pl, const struct cluster *cl)
{
    size_t i, n;

    if (cl->n_nodes > pl->node_cap) {
        const struct node_info **nb =
            realloc(pl->node_buf, cl->n_nodes * sizeof(*nb));
        size_t *ib = realloc(pl->node_idx, cl->n_nodes * sizeof(*ib));

        if (nb)
            pl->node_buf = nb;
        if (ib)
            pl->node_idx = ib;
        if (!nb || !ib)
            return -1;
        pl->node_cap = cl->n_nodes;
    }
    n = node_tree_list(&cl->tree, pl->node_idx);
    if (n != cl->n_nodes)
        return -2; /* the tree lost step with the nodes: a bug */
    for (i = 0; i < n; i++)
        pl->node_buf[i] = &cl->nodes[pl->node_idx[i]];
    return 0;
}

int engine_place(struct engine_placer *pl, const struct eval_plans *plans,
                 const struct kube_pod *pod, const struct cluster *cl,
                 struct arena *a, struct eval_result *filtered,
                 const struct node_info **node, const char **msg)
{
    struct prio_result scored;
    struct err e = { "" };
    size_t best = 0;

    *node = NULL;
    memset(filtered, 0, sizeof(*filtered));
    filtered->selected = -1;
    if (!cl->n_nodes) {
        *msg = ENGINE_NO_NODES;
        return 1;
    }
    switch (node_list(pl, cl)) {
    case 0:
        break;
    case -1:
        *msg = "out of memory listing nodes";
        return -1;
    default:
        *msg = "internal error: the node order is out of step with the "
               "cluster";
        return -1;
    }
    if (engine_find_feasible(&plans->pred, pod, cl, pl->node_buf, cl->n_nodes,
                             pl->percentage, &pl->next_start, pl->cache, a,
                             filtered, &e) < 0) {
        *msg = arena_strdup(a, e.msg);
        return -1;
    }
    if (!filtered->n_feasible) {
        *msg = engine_fit_error(a, filtered);
        return *msg ? 1 : -1;
    }
    if (filtered->n_feasible > 1) {
        if (prio_eval_cached(&plans->prio, pod, cl, filtered->feasible,
                             filtered->n_feasible, pl->prescore, a, &scored,
                             &e) < 0) {
            *msg = arena_strdup(a, e.msg);
            return -1;
        }
        best =
            engine_select_host(scored.totals, filtered->n_feasible, &pl->rng);
    }
    *node = filtered->feasible[best];
    return 0;
}
