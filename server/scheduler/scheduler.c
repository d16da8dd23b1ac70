/*
 * scheduler.c: the standalone scheduler's life cycle (see scheduler.h):
 * set-up, the threads' start and stop, leadership, tear-down. The parts
 * live in sched_*.c, one concept each, after kube-scheduler v1.22's
 * pkg/scheduler.
 */
#include "server/scheduler/scheduler.h"
#include "server/scheduler/sched_nominate.h"

#include <stdlib.h>
#include <time.h>

#include "server/scheduler/sched_bind.h"
#include "server/scheduler/sched_events.h"
#include "server/scheduler/sched_loop.h"
#include "server/scheduler/sched_lost_bind.h"
#include "server/scheduler/sched_metrics.h"
#include "server/scheduler/sched_pod.h"
#include "server/scheduler/sched_signature.h"

size_t sched_pending(struct scheduler *s, enum sched_qstate st)
{
    size_t n;

    pthread_mutex_lock(&s->lock);
    n = sched_queue_len(&s->q, st);
    pthread_mutex_unlock(&s->lock);
    return n;
}

int sched_init(struct scheduler *s, const struct sched_options *o,
               struct app *app, struct kube_cache *cache,
               struct kube_client *client, struct kube_client *eclient,
               struct metrics *m, struct err *e)
{
    s->opts = *o;
    if (!s->opts.scheduler_name || !*s->opts.scheduler_name)
        s->opts.scheduler_name = SCHED_DEFAULT_NAME;
    if (s->opts.bind_workers <= 0)
        s->opts.bind_workers = SCHED_DEFAULT_BIND_WORKERS;
    s->app = app;
    s->cache = cache;
    s->client = client;
    s->eclient = eclient ? eclient : client;
    engine_placer_init(&s->placer, o->percentage_of_nodes_to_score,
                       o->seed ? o->seed
                               : (uint64_t)time(NULL) ^ (uint64_t)clock());
    sched_queue_init(&s->q, sched_pod_release);
    if (o->initial_backoff > 0)
        s->q.initial_backoff = o->initial_backoff;
    if (o->max_backoff > 0)
        s->q.max_backoff = o->max_backoff;
    s->events = calloc(SCHED_EVENT_QUEUE, sizeof(*s->events));
    s->binders = calloc((size_t)s->opts.bind_workers, sizeof(*s->binders));
    s->ev_threads =
        calloc((size_t)s->opts.bind_workers, sizeof(*s->ev_threads));
    if (!s->events || !s->binders || !s->ev_threads)
        return err_set(e, "out of memory");
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    pthread_mutex_init(&s->bind_lock, NULL);
    pthread_cond_init(&s->bind_cond, NULL);
    pthread_mutex_init(&s->ev_lock, NULL);
    pthread_cond_init(&s->ev_cond, NULL);
    sched_register_metrics(s, m);
    return 0;
}

int sched_start(struct scheduler *s, struct err *e)
{
    int i;

    /* From here sched_stop joins what was started; the scheduling
     * thread counts as stopped until it exists. */
    s->started = true;
    s->stopping = true;
    for (i = 0; i < s->opts.bind_workers; i++) {
        if (pthread_create(&s->ev_threads[i], NULL, sched_event_main, s) != 0)
            return err_set(e, "cannot start event thread %d", i);
        s->n_ev_threads++;
    }
    for (i = 0; i < s->opts.bind_workers; i++) {
        if (pthread_create(&s->binders[i], NULL, sched_binder_main, s) != 0)
            return err_set(e, "cannot start binder thread %d", i);
        s->n_binders++;
    }
    s->stopping = false;
    if (pthread_create(&s->thread, NULL, sched_loop_main, s) != 0) {
        s->stopping = true;
        return err_set(e, "cannot start the scheduling thread");
    }
    return 0;
}

void sched_set_active(struct scheduler *s, bool active)
{
    pthread_mutex_lock(&s->lock);
    atomic_store(&s->active, active);
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    metrics_gauge_set(s->leader, active ? 1 : 0);
}

void sched_stop(struct scheduler *s)
{
    struct sched_bind_job *j, *next;
    int i;

    if (!s->started)
        return;
    pthread_mutex_lock(&s->lock);
    if (!s->stopping) {
        s->stopping = true;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
    } else {
        pthread_mutex_unlock(&s->lock);
    }
    /* Binds not started: forget the decisions. */
    pthread_mutex_lock(&s->bind_lock);
    j = s->jobs;
    s->jobs = s->jobs_tail = NULL;
    s->bind_stopping = true;
    pthread_cond_broadcast(&s->bind_cond);
    pthread_mutex_unlock(&s->bind_lock);
    for (; j; j = next) {
        next = j->next;
        kube_cache_forget_pod(s->cache, j->sp->pod.namespace, j->sp->pod.name);
        sched_bind_job_free(j);
    }
    for (i = 0; i < s->n_binders; i++)
        pthread_join(s->binders[i], NULL);
    s->n_binders = 0;
    pthread_mutex_lock(&s->ev_lock);
    s->ev_stopping = true;
    pthread_cond_broadcast(&s->ev_cond);
    pthread_mutex_unlock(&s->ev_lock);
    for (i = 0; i < s->n_ev_threads; i++)
        pthread_join(s->ev_threads[i], NULL);
    s->n_ev_threads = 0;
    s->started = false;
}

void sched_destroy(struct scheduler *s)
{
    size_t i;

    sched_stop(s);
    sched_queue_destroy(&s->q);
    sched_nominate_free(s);
    sched_lost_bind_free(s);
    for (i = 0; s->events && i < s->ev_n; i++)
        free(s->events[(s->ev_head + i) % SCHED_EVENT_QUEUE].buf);
    free(s->events);
    free(s->binders);
    free(s->ev_threads);
    for (i = 0; i < s->sig_slots; i++)
        free(s->sigs[i].name);
    free(s->sigs);
    engine_placer_free(&s->placer);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->bind_lock);
    pthread_cond_destroy(&s->bind_cond);
    pthread_mutex_destroy(&s->ev_lock);
    pthread_cond_destroy(&s->ev_cond);
}
