/*
 * sched_cycle.c: the scheduling cycle of kube-scheduler v1.22
 * (pkg/scheduler/scheduler.go, scheduleOne): list the nodes in NodeTree
 * order, filter from the rotating start until enough fit, score, select
 * the host, assume the pod in the cache and hand it to the binders.
 */
#include "server/scheduler/sched_cycle.h"

#include <stdlib.h>
#include <string.h>

#include "engine/engine_fit_error.h"
#include "engine/engine_select.h"
#include "server/common/log.h"
#include "server/scheduler/sched_bind.h"
#include "server/scheduler/sched_fail.h"
#include "server/scheduler/sched_nodes_to_score.h"

/*
 * s->node_buf with every node of cl in kube-scheduler's walking order
 * (NodeTree.list: round robin over zones), as its snapshot lists them.
 * 0, -1 when out of memory, -2 when the tree and the nodes disagree.
 */
static int node_list(struct scheduler *s, const struct cluster *cl)
{
    size_t i, n;

    if (cl->n_nodes > s->node_cap) {
        const struct node_info **nb =
            realloc(s->node_buf, cl->n_nodes * sizeof(*nb));
        size_t *ib = realloc(s->node_idx, cl->n_nodes * sizeof(*ib));

        if (nb)
            s->node_buf = nb;
        if (ib)
            s->node_idx = ib;
        if (!nb || !ib)
            return -1;
        s->node_cap = cl->n_nodes;
    }
    n = node_tree_list(&cl->tree, s->node_idx);
    if (n != cl->n_nodes)
        return -2; /* the tree lost step with the nodes: a bug */
    for (i = 0; i < n; i++)
        s->node_buf[i] = &cl->nodes[s->node_idx[i]];
    return 0;
}

/*
 * Filter nodes from the rotating start until enough fit
 * (sched_find_feasible), score the feasible ones (unless only one), pick
 * the best. Returns 0 with *node (malloc'd), 1 with *msg (from a) when the
 * pod fits nowhere, -1 with *msg on an internal error.
 */
static int decide(struct scheduler *s, const struct app_state *st,
                  const struct kube_pod *pod, struct arena *a, char **node,
                  const char **msg)
{
    const struct cluster *cl = kube_cache_read_lock(s->cache);
    struct eval_result res, scored;
    struct err e = { "" };
    size_t best;
    int rc = 1;

    *node = NULL;
    if (!cl->n_nodes) {
        *msg = SCHED_NO_NODES;
        goto out;
    }
    rc = -1;
    switch (node_list(s, cl)) {
    case 0:
        break;
    case -1:
        *msg = "out of memory listing nodes";
        goto out;
    default:
        *msg = "internal error: the node order is out of step with the cache";
        goto out;
    }
    if (sched_find_feasible(&st->plans.pred, pod, cl, s->node_buf, cl->n_nodes,
                            s->opts.percentage_of_nodes_to_score,
                            &s->next_start, a, &res, &e) < 0) {
        *msg = arena_strdup(a, e.msg);
        goto out;
    }
    if (!res.n_feasible) {
        *msg = engine_fit_error(a, &res);
        rc = *msg ? 1 : -1;
        goto out;
    }
    best = 0;
    if (res.n_feasible > 1) {
        if (evaluate_pod(&st->plans, pod, cl, res.feasible, res.n_feasible,
                         EVAL_SCORE, a, &scored, &e) < 0) {
            *msg = arena_strdup(a, e.msg);
            goto out;
        }
        best = engine_select_host(scored.prio.totals, res.n_feasible, &s->rng);
    }
    *node = strdup(res.feasible[best]->node->name);
    rc = *node ? 0 : -1;
    if (rc)
        *msg = "out of memory";
out:
    kube_cache_read_unlock(s->cache);
    return rc;
}

/* scheduleOne for an item the scheduling thread popped. */
void sched_schedule_one(struct scheduler *s, struct sched_qitem *it,
                        struct sched_pod *sp)
{
    double start = kube_now();
    struct app_state *st = app_acquire(s->app);
    struct sched_bind_job *j;
    const char *msg = "policy not loaded";
    struct arena a;
    char *node = NULL;
    int rc = -1;

    arena_init(&a, 0);
    if (st)
        rc = decide(s, st, &sp->pod, &a, &node, &msg);
    app_release(st);
    metrics_histogram_observe(s->algorithm_duration, kube_now() - start);
    if (rc == 0) {
        rc = kube_cache_assume_pod(s->cache, &sp->pod, node);
        if (rc == KUBE_CACHE_POD_BOUND) {
            pthread_mutex_lock(&s->lock);
            sched_queue_done(&s->q, it);
            pthread_mutex_unlock(&s->lock);
            LOG_INFO("pod %s/%s is bound already; dropped from the queue",
                     sp->pod.namespace, sp->pod.name);
            goto out;
        }
        if (rc != 1)
            msg = arena_sprintf(&a, "cannot assume pod on node %s: %s", node,
                                rc ? "out of memory" : "the node is gone");
        rc = rc == 1 ? 0 : -1;
    }
    if (rc != 0) {
        sched_fail(s, it, sp,
                   rc > 0 ? SCHED_RESULT_UNSCHEDULABLE : SCHED_RESULT_ERROR,
                   "Unschedulable", msg ? msg : "out of memory", start);
        goto out;
    }
    j = calloc(1, sizeof(*j));
    if (!j) {
        kube_cache_forget_pod(s->cache, sp->pod.namespace, sp->pod.name);
        sched_fail(s, it, sp, SCHED_RESULT_ERROR, "Unschedulable",
                   "out of memory", start);
        goto out;
    }
    atomic_fetch_add(&sp->refs, 1);
    j->it = it;
    j->sp = sp;
    j->node = node;
    j->start = start;
    node = NULL;
    sched_bind_async(s, j);
out:
    free(node);
    arena_destroy(&a);
}
