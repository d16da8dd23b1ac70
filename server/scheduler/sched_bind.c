/*
 * sched_bind.c: the binding cycle of kube-scheduler v1.22
 * (pkg/scheduler/scheduler.go, bind): a pool of binder threads POSTs the
 * Binding of each assumed pod, then confirms or forgets the assumption.
 */
#include "server/scheduler/sched_bind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/common/log.h"
#include "server/scheduler/sched_events.h"
#include "server/scheduler/sched_fail.h"
#include "server/scheduler/sched_lost_bind.h"

/*
 * No answer (sched_lost_bind.h): when the watch has shown the pod on our
 * node while the POST was out, the bind landed (true: done, reported);
 * otherwise remember it for the watch to confirm, and go on as for a
 * failure.
 */
static bool bind_outcome_unknown(struct scheduler *s, struct sched_bind_job *j)
{
    const struct kube_pod *pod = &j->sp->pod;
    char key[512];
    bool landed;

    snprintf(key, sizeof(key), "%s/%s", pod->namespace, pod->name);
    pthread_mutex_lock(&s->lock);
    landed = j->it->bound_node && !strcmp(j->it->bound_node, j->node);
    if (landed)
        sched_queue_done(&s->q, j->it);
    else if (!j->it->deleted &&
             sched_lost_bind_note(s, key, pod->uid, j->node) < 0)
        LOG_ERROR("pod %s/%s: out of memory remembering its Binding",
                  pod->namespace, pod->name);
    pthread_mutex_unlock(&s->lock);
    if (!landed)
        return false;
    sched_lost_bind_report(s, key, pod->uid, j->node);
    return true;
}

static void bind_one(struct scheduler *s, struct sched_bind_job *j)
{
    const struct kube_pod *pod = &j->sp->pod;
    struct err e = { "" };
    struct arena a;
    double t0 = kube_now();
    int rc;

    if (!atomic_load(&s->active)) {
        kube_cache_forget_pod(s->cache, pod->namespace, pod->name);
        pthread_mutex_lock(&s->lock);
        sched_queue_requeue(&s->q, j->it, t0);
        pthread_mutex_unlock(&s->lock);
        return;
    }
    rc = kube_client_bind(s->client, pod->namespace, pod->name, pod->uid,
                          j->node, &e);
    metrics_histogram_observe(s->binding_duration, kube_now() - t0);
    if (rc == 0) {
        kube_cache_finish_binding(s->cache, pod->namespace, pod->name,
                                  kube_now() + SCHED_ASSUMED_TTL);
        pthread_mutex_lock(&s->lock);
        sched_queue_done(&s->q, j->it);
        pthread_mutex_unlock(&s->lock);
        metrics_counter_add(s->attempts[SCHED_RESULT_SCHEDULED], 1);
        metrics_histogram_observe(s->attempt_duration[SCHED_RESULT_SCHEDULED],
                                  kube_now() - j->start);
        arena_init(&a, 0);
        sched_event_post(s, pod, "Normal", "Scheduled",
                         arena_sprintf(&a, "Successfully assigned %s/%s to %s",
                                       pod->namespace, pod->name, j->node));
        arena_destroy(&a);
        LOG_V(2, "Successfully bound pod %s/%s to node %s", pod->namespace,
              pod->name, j->node);
        return;
    }
    kube_cache_forget_pod(s->cache, pod->namespace, pod->name);
    if (rc == KUBE_CLIENT_UNREACHABLE && bind_outcome_unknown(s, j))
        return;
    if (rc == KUBE_CLIENT_ALREADY_BOUND) {
        /* Someone else bound it: nothing to retry (the watch will show). */
        pthread_mutex_lock(&s->lock);
        sched_queue_done(&s->q, j->it);
        pthread_mutex_unlock(&s->lock);
        metrics_counter_add(s->attempts[SCHED_RESULT_ERROR], 1);
        LOG_INFO("pod %s/%s was bound by someone else; dropped from the "
                 "queue: %s",
                 pod->namespace, pod->name, e.msg);
        return;
    }
    arena_init(&a, 0);
    sched_fail(s, j->it, j->sp, SCHED_RESULT_ERROR, "SchedulerError",
               arena_sprintf(&a, "binding rejected: %s", e.msg), j->start);
    arena_destroy(&a);
}

void sched_bind_job_free(struct sched_bind_job *j)
{
    sched_pod_release(j->sp);
    free(j->node);
    free(j);
}

void *sched_binder_main(void *arg)
{
    struct scheduler *s = arg;

    pthread_mutex_lock(&s->bind_lock);
    for (;;) {
        struct sched_bind_job *j;

        while (!s->jobs && !s->bind_stopping)
            pthread_cond_wait(&s->bind_cond, &s->bind_lock);
        if (!s->jobs)
            break;
        j = s->jobs;
        s->jobs = j->next;
        if (!s->jobs)
            s->jobs_tail = NULL;
        pthread_mutex_unlock(&s->bind_lock);
        bind_one(s, j);
        sched_bind_job_free(j);
        pthread_mutex_lock(&s->bind_lock);
    }
    pthread_mutex_unlock(&s->bind_lock);
    return NULL;
}

void sched_bind_async(struct scheduler *s, struct sched_bind_job *j)
{
    pthread_mutex_lock(&s->bind_lock);
    if (s->jobs_tail)
        s->jobs_tail->next = j;
    else
        s->jobs = j;
    s->jobs_tail = j;
    pthread_cond_signal(&s->bind_cond);
    pthread_mutex_unlock(&s->bind_lock);
}
