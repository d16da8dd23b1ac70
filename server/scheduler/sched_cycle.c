/*
 * sched_cycle.c: the scheduling cycle of kube-scheduler v1.22
 * (pkg/scheduler/scheduler.go, scheduleOne): list the nodes in NodeTree
 * order, filter from the rotating start until enough fit, score, select
 * the host, assume the pod in the cache and hand it to the binders.
 */
#include "server/scheduler/sched_cycle.h"

#include <stdlib.h>
#include <string.h>

#include "engine/engine_place.h"
#include "server/common/log.h"
#include "server/scheduler/sched_bind.h"
#include "server/scheduler/sched_fail.h"
#include "server/scheduler/sched_nominate.h"
#include "server/scheduler/sched_preempt.h"

/*
 * Decide on the live cache's cluster (engine_place) with the nominations
 * nom[0..n_nom). Returns 0 with *node (malloc'd), 1 with *msg (from a)
 * when the pod fits nowhere, then with *pre the preemption to carry out
 * (PostFilter, on the same snapshot), -1 with *msg on an internal error.
 */
static int decide(struct scheduler *s, const struct app_state *st,
                  const struct kube_pod *pod, const struct engine_nominee *nom,
                  size_t n_nom, struct arena *a, char **node, const char **msg,
                  struct sched_preemption *pre)
{
    const struct cluster *cl;
    const struct node_info *ni;
    struct engine_nominees noms;
    struct eval_result res;
    struct err e = { "" };
    int rc;

    *node = NULL;
    memset(pre, 0, sizeof(*pre));
    /* Indexed once: the pass and any preemption after it look them up. */
    if (engine_nominees_index(a, nom, n_nom, &noms) < 0) {
        *msg = "out of memory indexing the nominated pods";
        return -1;
    }
    cl = kube_cache_read_lock(s->cache);
    s->placer.nominees = &noms;
    rc = engine_place(&s->placer, &st->plans, pod, cl, a, &res, &ni, msg);
    s->placer.nominees = NULL;
    if (rc == 0) {
        *node = strdup(ni->node->name);
        rc = *node ? 0 : -1;
        if (rc)
            *msg = "out of memory";
    } else if (rc == 1 && sched_preempt_decide(s, &st->plans, pod, cl, &res,
                                               &noms, a, pre, &e) < 0) {
        LOG_ERROR("pod %s/%s: preemption: %s", pod->namespace, pod->name,
                  e.msg);
        memset(pre, 0, sizeof(*pre));
    }
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
    struct sched_preemption pre = { 0 };
    struct engine_nominee *nom;
    struct sched_pod **refs;
    const char *nominated = NULL;
    struct err e = { "" };
    struct arena a;
    char *node = NULL;
    size_t n_nom;
    int rc = -1;

    arena_init(&a, 0);
    pthread_mutex_lock(&s->lock);
    n_nom = sched_nominate_snapshot(s, &nom, &refs);
    pthread_mutex_unlock(&s->lock);
    if (st)
        rc = decide(s, st, &sp->pod, nom, n_nom, &a, &node, &msg, &pre);
    app_release(st);
    sched_nominate_release(nom, refs, n_nom);
    metrics_histogram_observe(s->algorithm_duration, kube_now() - start);
    if (rc == 1)
        nominated = sched_preempt_execute(s, it->key, sp, &pre, &e);
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
        sched_fail_nominated(
            s, it, sp, rc > 0 ? SCHED_RESULT_UNSCHEDULABLE : SCHED_RESULT_ERROR,
            "Unschedulable", msg ? msg : "out of memory", start, nominated);
        goto out;
    }
    /* Assumed: no longer waits nominated (DeleteNominatedPodIfExists);
     * a nomination made since the snapshot goes when the watch sees the
     * pod bound. */
    if (n_nom) {
        pthread_mutex_lock(&s->lock);
        sched_nominate_drop(s, it->key);
        pthread_mutex_unlock(&s->lock);
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
