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
#include "policy/policy.h"

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

/*
 * PreferNominatedNode (beta, on in v1.22, #102201; alpha, off in v1.21,
 * absent in v1.20: docs/VERSION-SEMANTICS.md D12): findNodesThatFitPod
 * first runs the pod's nominated node alone through the filters
 * (evaluateNominatedNode); when it fits it is the only feasible node. An
 * error or a missing node is only logged upstream, so the search goes
 * on. findNodesThatPassFilters over a one-node list leaves
 * nextStartNodeIndex at (i + processed) % 1 = 0. Returns the node, or
 * NULL to search as usual.
 */
static const struct node_info *
nominated(struct engine_placer *pl, const struct eval_plans *plans,
          const struct kube_pod *pod, const struct cluster *cl, struct arena *a,
          struct eval_result *filtered)
{
    const struct policy *p = plans->pred.policy;
    const struct node_info *nn;
    struct eval_result one;
    struct err e = { "" };

    if (!p || p->semantics < KPE_SEM_1_22 || !pod->nominated_node_name ||
        !*pod->nominated_node_name)
        return NULL;
    nn = cluster_node(cl, pod->nominated_node_name);
    if (!nn)
        return NULL;
    pl->next_start = 0;
    if (eval_filter(&plans->pred, pod, cl, &nn, 1, 0, 1, a, &one, NULL, &e) <
            0 ||
        engine_recheck_nominated(&plans->pred, pod, cl, pl->nominees, a, &one,
                                 &e) < 0 ||
        one.n_feasible != 1)
        return NULL;
    *filtered = one;
    return nn;
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
    *node = nominated(pl, plans, pod, cl, a, filtered);
    if (*node)
        return 0;
    if (engine_find_feasible(&plans->pred, pod, cl, pl->node_buf, cl->n_nodes,
                             pl->percentage, &pl->next_start, pl->cache, a,
                             filtered, &e) < 0 ||
        engine_recheck_nominated(&plans->pred, pod, cl, pl->nominees, a,
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
