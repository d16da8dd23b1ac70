/*
 * http_offload.c: the pool that evaluates big requests off their
 * connection's thread (see http_offload.h). A job is queued by its
 * worker, run by a pool thread, and handed back to the worker through an
 * event on the worker's base (libevent's locks make event_active safe
 * from any thread); the worker writes the answer and frees the job.
 */
#include "server/http/http_offload.h"

#include <event2/event.h>
#include <pthread.h>
#include <stdlib.h>

#include "server/common/log.h"
#include "server/http/http_worker.h"

enum { SRV_JOB_QUEUED, SRV_JOB_RUNNING, SRV_JOB_DONE, SRV_JOB_CANCELLED };

struct srv_offload {
    pthread_mutex_t lock;
    pthread_cond_t work;    /* a job queued, or stopping */
    pthread_cond_t settled; /* a job's handler returned */
    struct srv_job *all;    /* jobs not yet finished or dropped */
    struct srv_job *head, *tail;
    pthread_t *threads;
    int n_threads;
    int stopping;
};

static void unlink_job(struct srv_offload *o, struct srv_job *j)
{
    if (j->prev)
        j->prev->next = j->next;
    else
        o->all = j->next;
    if (j->next)
        j->next->prev = j->prev;
    j->prev = j->next = NULL;
}

/* Worker thread: the handler has returned. */
static void on_done(evutil_socket_t fd, short what, void *arg)
{
    struct srv_job *j = arg;
    struct srv_offload *o = j->w->srv->offload;

    (void)fd;
    (void)what;
    pthread_mutex_lock(&o->lock);
    unlink_job(o, j);
    pthread_mutex_unlock(&o->lock);
    event_free(j->done);
    j->done = NULL;
    j->finish(j);
}

static void *pool_main(void *arg)
{
    struct srv_offload *o = arg;

    pthread_mutex_lock(&o->lock);
    for (;;) {
        struct srv_job *j;

        while (!o->head && !o->stopping)
            pthread_cond_wait(&o->work, &o->lock);
        if (!o->head)
            break;
        j = o->head;
        o->head = j->queued;
        if (!o->head)
            o->tail = NULL;
        j->state = SRV_JOB_RUNNING;
        pthread_mutex_unlock(&o->lock);
        j->run(j);
        pthread_mutex_lock(&o->lock);
        j->state = SRV_JOB_DONE;
        event_active(j->done, 0, 0);
        pthread_cond_broadcast(&o->settled);
    }
    pthread_mutex_unlock(&o->lock);
    return NULL;
}

int srv_offload_start(struct server *s, int n, struct err *e)
{
    struct srv_offload *o = calloc(1, sizeof(*o));
    int i;

    if (!o || !(o->threads = calloc((size_t)n, sizeof(*o->threads)))) {
        free(o);
        return err_set(e, "offload pool: out of memory");
    }
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->work, NULL);
    pthread_cond_init(&o->settled, NULL);
    s->offload = o;
    for (i = 0; i < n; i++) {
        if (pthread_create(&o->threads[i], NULL, pool_main, o) != 0)
            return err_set(e, "offload pool: cannot start a thread");
        o->n_threads++;
    }
    return 0;
}

void srv_offload_stop(struct server *s)
{
    struct srv_offload *o = s->offload;
    int i;

    if (!o)
        return;
    pthread_mutex_lock(&o->lock);
    o->stopping = 1;
    pthread_cond_broadcast(&o->work);
    pthread_mutex_unlock(&o->lock);
    for (i = 0; i < o->n_threads; i++)
        pthread_join(o->threads[i], NULL);
    /* srv_offload_quiesce has dropped every worker's jobs. */
    if (o->all)
        LOG_ERROR("offload pool: jobs left at stop");
    pthread_cond_destroy(&o->settled);
    pthread_cond_destroy(&o->work);
    pthread_mutex_destroy(&o->lock);
    free(o->threads);
    free(o);
    s->offload = NULL;
}

int srv_offload_submit(struct server *s, struct srv_job *j)
{
    struct srv_offload *o = s->offload;

    if (!o || !o->n_threads)
        return -1;
    j->done = event_new(j->w->base, -1, 0, on_done, j);
    if (!j->done)
        return -1;
    j->state = SRV_JOB_QUEUED;
    j->queued = NULL;
    pthread_mutex_lock(&o->lock);
    j->prev = NULL;
    j->next = o->all;
    if (o->all)
        o->all->prev = j;
    o->all = j;
    if (o->tail)
        o->tail->queued = j;
    else
        o->head = j;
    o->tail = j;
    pthread_cond_signal(&o->work);
    pthread_mutex_unlock(&o->lock);
    return 0;
}

/* Take w's jobs out of the queue (they will not run). */
static void cancel_queued(struct srv_offload *o, struct srv_worker *w)
{
    struct srv_job **pp = &o->head;

    o->tail = NULL;
    while (*pp) {
        struct srv_job *j = *pp;

        if (j->w == w) {
            j->state = SRV_JOB_CANCELLED;
            *pp = j->queued;
        } else {
            o->tail = j;
            pp = &j->queued;
        }
    }
}

void srv_offload_quiesce(struct server *s, struct srv_worker *w)
{
    struct srv_offload *o = s->offload;
    struct srv_job *j, *next, *mine = NULL;
    int running;

    if (!o)
        return;
    pthread_mutex_lock(&o->lock);
    cancel_queued(o, w);
    do {
        running = 0;
        for (j = o->all; j; j = j->next)
            running += j->w == w && j->state == SRV_JOB_RUNNING;
        if (running)
            pthread_cond_wait(&o->settled, &o->lock);
    } while (running);
    for (j = o->all; j; j = next) {
        next = j->next;
        if (j->w != w)
            continue;
        unlink_job(o, j);
        j->next = mine;
        mine = j;
    }
    pthread_mutex_unlock(&o->lock);
    for (j = mine; j; j = next) {
        next = j->next;
        event_free(j->done);
        j->done = NULL;
        j->drop(j);
    }
}
