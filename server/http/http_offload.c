/*
 * http_offload.c: the pool that evaluates requests off their connection's
 * thread, and its watchdog (see http_offload.h). A job is queued by its
 * worker, run by a pool thread, and handed back to the worker through an
 * event on the worker's base (libevent's locks make event_active safe
 * from any thread); the worker writes the answer and frees the job.
 *
 * A job past its deadline: still queued, it leaves the queue and its
 * worker answers 503 and frees it (SRV_JOB_EXPIRED). Running, it is LATE:
 * its worker answers 503 but leaves it alone (the handler still reads
 * it); whichever of the worker and the pool thread comes second frees it
 * (`answered` and SRV_JOB_RETURNED tell, under the lock). The late thread
 * is replaced at once, and leaves the pool when its handler returns if
 * the pool is full again.
 */
#include "server/http/http_offload.h"

#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/base/clock.h"
#include "server/common/log.h"
#include "server/http/http_worker.h"

enum {
    SRV_JOB_QUEUED,
    SRV_JOB_RUNNING,
    SRV_JOB_DONE,
    SRV_JOB_CANCELLED,
    SRV_JOB_EXPIRED,  /* past its deadline before it ran */
    SRV_JOB_LATE,     /* past its deadline while running */
    SRV_JOB_RETURNED, /* late, and its handler has returned since */
};

enum { SLOT_FREE, SLOT_LIVE, SLOT_LATE };

struct srv_pool_thread {
    struct srv_offload *o;
    pthread_t tid;
    int state;           /* SLOT_* */
    struct srv_job *job; /* running */
    void *rec;           /* the probe's record of this thread */
    unsigned long seen_seq;
    double seen_at; /* when seen_seq was first seen */
    int reported;   /* this call was logged past --plugin-timeout */
};

struct srv_offload {
    struct server *srv;
    pthread_mutex_t lock;
    pthread_cond_t work;    /* a job queued, or stopping */
    pthread_cond_t settled; /* a job's handler returned */
    pthread_cond_t tick;    /* the watchdog's sleep (stopping) */
    struct srv_job *all;    /* jobs not yet finished or dropped */
    struct srv_job *head, *tail;
    struct srv_pool_thread *slots; /* n_target live + n_target late */
    int n_slots;
    int n_target;  /* live threads wanted */
    int n_big_max; /* big jobs running at once, at most */
    int n_big;     /* big jobs running */
    int n_live;
    int n_late; /* threads still inside a late job */
    pthread_t watchdog;
    int watchdog_started;
    int stopping;
};

static void unlink_job(struct srv_offload *o, struct srv_job *j)
{
    if (j->prev)
        j->prev->next = j->next;
    else if (o->all == j)
        o->all = j->next;
    if (j->next)
        j->next->prev = j->prev;
    j->prev = j->next = NULL;
}

/* Worker thread: the handler has returned, or the job is past its
 * deadline. A late job is answered while its handler may still read it:
 * only then does the worker say so (answered), or free it if the handler
 * has returned meanwhile. */
static void on_done(evutil_socket_t fd, short what, void *arg)
{
    struct srv_job *j = arg;
    struct srv_offload *o = j->w->srv->offload;
    int state, mine = 1;

    (void)fd;
    (void)what;
    pthread_mutex_lock(&o->lock);
    unlink_job(o, j);
    state = j->state;
    pthread_mutex_unlock(&o->lock);
    event_free(j->done);
    j->done = NULL;
    if (state == SRV_JOB_DONE) {
        j->finish(j);
        return;
    }
    j->late(j);
    if (state == SRV_JOB_LATE) {
        pthread_mutex_lock(&o->lock);
        if (j->state == SRV_JOB_LATE) {
            j->answered = 1; /* the pool thread frees it */
            mine = 0;
        }
        pthread_mutex_unlock(&o->lock);
    }
    if (mine)
        j->drop(j);
}

/*
 * A pool thread back from a late job (lock held): free it if its worker
 * has answered, else leave that to the worker (*free_it). Returns 1 when
 * the thread should leave the pool (it has been replaced); it is then
 * still counted late until late_leave.
 */
static int late_returned(struct srv_offload *o, struct srv_job *j,
                         struct srv_job **free_it)
{
    if (j->answered)
        *free_it = j;
    else
        j->state = SRV_JOB_RETURNED;
    return o->n_live >= o->n_target || o->stopping;
}

/* Lock held: t is no longer late; it stays in the pool (leave 0) or
 * gives its slot back. The last thing t does under the lock: once
 * n_late is 0, srv_offload_stop may free the pool. */
static void late_leave(struct srv_offload *o, struct srv_pool_thread *t,
                       int leave)
{
    o->n_late--;
    t->rec = leave ? NULL : t->rec;
    if (leave) {
        t->state = SLOT_FREE;
        pthread_detach(pthread_self());
    } else {
        t->state = SLOT_LIVE;
        o->n_live++;
    }
    pthread_cond_broadcast(&o->settled);
}

/*
 * Lock held: the oldest queued job this thread may run: any small one,
 * a big one while fewer than n_big_max run (the other threads stay for
 * small requests, as when these ran on the workers' own threads).
 */
static struct srv_job *take(struct srv_offload *o)
{
    struct srv_job **pp, *prev = NULL;

    for (pp = &o->head; *pp; prev = *pp, pp = &(*pp)->queued) {
        struct srv_job *j = *pp;

        if (j->big && o->n_big >= o->n_big_max)
            continue;
        *pp = j->queued;
        if (o->tail == j)
            o->tail = prev;
        o->n_big += j->big;
        return j;
    }
    return NULL;
}

static void *pool_main(void *arg)
{
    struct srv_pool_thread *t = arg;
    struct srv_offload *o = t->o;
    const struct srv_thread_probe *pr = o->srv->probe;
    void *rec = pr && pr->thread_begin ? pr->thread_begin() : NULL;

    pthread_mutex_lock(&o->lock);
    t->rec = rec;
    for (;;) {
        struct srv_job *j, *free_it = NULL;
        int leave;

        while (!(j = take(o)) && !o->stopping)
            pthread_cond_wait(&o->work, &o->lock);
        if (!j)
            break;
        j->state = SRV_JOB_RUNNING;
        j->thread = t;
        t->job = j;
        pthread_mutex_unlock(&o->lock);
        j->run(j);
        pthread_mutex_lock(&o->lock);
        t->job = NULL;
        if (j->big && o->n_big-- == o->n_big_max)
            pthread_cond_broadcast(&o->work); /* big ones may run again */
        if (j->state != SRV_JOB_LATE) {
            j->state = SRV_JOB_DONE;
            event_active(j->done, 0, 0);
            pthread_cond_broadcast(&o->settled);
            continue;
        }
        leave = late_returned(o, j, &free_it);
        if (free_it) {
            pthread_mutex_unlock(&o->lock);
            free_it->drop(free_it);
            pthread_mutex_lock(&o->lock);
        }
        late_leave(o, t, leave);
        if (leave) {
            pthread_mutex_unlock(&o->lock);
            if (pr && pr->thread_end)
                pr->thread_end(rec);
            return NULL;
        }
    }
    t->rec = NULL;
    pthread_mutex_unlock(&o->lock);
    if (pr && pr->thread_end)
        pr->thread_end(rec);
    return NULL;
}

/* Lock held: a new live thread in a free slot. Returns 0 or -1. */
static int start_thread(struct srv_offload *o)
{
    int i;

    for (i = 0; i < o->n_slots; i++) {
        struct srv_pool_thread *t = &o->slots[i];

        if (t->state != SLOT_FREE)
            continue;
        memset(t, 0, sizeof(*t));
        t->o = o;
        t->state = SLOT_LIVE;
        if (pthread_create(&t->tid, NULL, pool_main, t) != 0) {
            t->state = SLOT_FREE;
            return -1;
        }
        o->n_live++;
        return 0;
    }
    return -1;
}

/* ---- the watchdog ------------------------------------------------- */

static void set_unhealthy(struct server *s, const char *why)
{
    pthread_mutex_lock(&s->lock);
    if (!atomic_load(&s->unhealthy))
        snprintf(s->unhealthy_reason, sizeof(s->unhealthy_reason), "%s", why);
    atomic_store(&s->unhealthy, 1);
    pthread_mutex_unlock(&s->lock);
}

/* What thread t is in, for the log ("" when the probe cannot tell). */
static void describe(struct srv_offload *o, struct srv_pool_thread *t,
                     char *buf, size_t n)
{
    const struct srv_thread_probe *pr = o->srv->probe;

    buf[0] = '\0';
    if (pr && pr->describe && t->rec)
        pr->describe(t->rec, buf, n);
}

/* Lock held: jobs still queued past their deadline leave the queue. */
static void expire_queued(struct srv_offload *o, double now)
{
    struct srv_job **pp = &o->head;

    o->tail = NULL;
    while (*pp) {
        struct srv_job *j = *pp;

        if (j->deadline <= now) {
            j->state = SRV_JOB_EXPIRED;
            *pp = j->queued;
            event_active(j->done, 0, 0);
            metrics_counter_add(o->srv->eval_late, 1);
        } else {
            o->tail = j;
            pp = &j->queued;
        }
    }
}

/* Lock held: t's job is past its deadline: abandon it to t, replace t. */
static void abandon(struct srv_offload *o, struct srv_pool_thread *t)
{
    struct server *s = o->srv;
    char what[384];

    t->job->state = SRV_JOB_LATE;
    event_active(t->job->done, 0, 0);
    metrics_counter_add(s->eval_late, 1);
    t->state = SLOT_LATE;
    o->n_live--;
    o->n_late++;
    /* srv_offload_quiesce waits for running jobs only. */
    pthread_cond_broadcast(&o->settled);
    describe(o, t, what, sizeof(what));
    LOG_WARN("evaluation past --eval-timeout (%d s): answered 503%s%s; %d "
             "pool thread(s) stuck",
             s->opts.eval_timeout, *what ? ", still in " : "", what, o->n_late);
    if (o->n_late > o->n_target || start_thread(o) != 0) {
        char why[256];

        snprintf(why, sizeof(why),
                 "%d evaluations stuck past --eval-timeout, no pool thread "
                 "left to replace them",
                 o->n_late);
        LOG_ERROR("%s; /healthz fails from now on", why);
        set_unhealthy(s, why);
    }
}

/* Lock held: is t inside the same plugin call for --plugin-timeout? */
static void check_call(struct srv_offload *o, struct srv_pool_thread *t,
                       double now)
{
    const struct srv_thread_probe *pr = o->srv->probe;
    unsigned long seq;
    char what[384], why[512];

    if (!pr || !pr->seq || !t->rec || o->srv->opts.plugin_timeout <= 0)
        return;
    seq = pr->seq(t->rec);
    if (!(seq & 1) || seq != t->seen_seq) {
        t->seen_seq = seq;
        t->seen_at = now;
        t->reported = 0;
        return;
    }
    if (t->reported || now - t->seen_at < o->srv->opts.plugin_timeout)
        return;
    t->reported = 1;
    describe(o, t, what, sizeof(what));
    snprintf(why, sizeof(why),
             "%s has been running for %.0f s (past "
             "--plugin-timeout %d s)",
             *what ? what : "a plugin call", now - t->seen_at,
             o->srv->opts.plugin_timeout);
    LOG_ERROR("%s; /healthz fails from now on", why);
    set_unhealthy(o->srv, why);
}

static void *watchdog_main(void *arg)
{
    struct srv_offload *o = arg;

    pthread_mutex_lock(&o->lock);
    while (!o->stopping) {
        struct timespec until;
        double now = kube_now();
        int i;

        expire_queued(o, now);
        for (i = 0; i < o->n_slots; i++) {
            struct srv_pool_thread *t = &o->slots[i];

            if (t->state == SLOT_FREE)
                continue;
            if (t->state == SLOT_LIVE && t->job &&
                t->job->state == SRV_JOB_RUNNING && t->job->deadline <= now)
                abandon(o, t);
            check_call(o, t, now);
        }
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += SRV_WATCHDOG_TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&o->tick, &o->lock, &until);
    }
    pthread_mutex_unlock(&o->lock);
    return NULL;
}

/* ---- life cycle --------------------------------------------------- */

int srv_offload_start(struct server *s, int n, struct err *e)
{
    struct srv_offload *o = calloc(1, sizeof(*o));
    int i;

    if (!o || !(o->slots = calloc((size_t)n * 4, sizeof(*o->slots)))) {
        free(o);
        return err_set(e, "offload pool: out of memory");
    }
    o->srv = s;
    o->n_slots = n * 4;
    o->n_target = n * 2;
    o->n_big_max = n;
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->work, NULL);
    pthread_cond_init(&o->settled, NULL);
    pthread_cond_init(&o->tick, NULL);
    s->offload = o;
    pthread_mutex_lock(&o->lock);
    for (i = 0; i < o->n_target; i++) {
        if (start_thread(o) != 0) {
            pthread_mutex_unlock(&o->lock);
            return err_set(e, "offload pool: cannot start a thread");
        }
    }
    pthread_mutex_unlock(&o->lock);
    if (pthread_create(&o->watchdog, NULL, watchdog_main, o) != 0)
        return err_set(e, "offload pool: cannot start the watchdog");
    o->watchdog_started = 1;
    return 0;
}

/* Give late threads a moment to return (a test releasing its handler);
 * one still stuck keeps the pool's memory (it will lock it). */
static int wait_late(struct srv_offload *o)
{
    struct timespec until;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    while (o->n_late > 0 &&
           pthread_cond_timedwait(&o->settled, &o->lock, &until) != ETIMEDOUT)
        ;
    return o->n_late;
}

void srv_offload_stop(struct server *s)
{
    struct srv_offload *o = s->offload;
    pthread_t *joins;
    int i, n = 0, stuck;

    if (!o)
        return;
    joins = calloc((size_t)o->n_slots, sizeof(*joins));
    pthread_mutex_lock(&o->lock);
    o->stopping = 1;
    pthread_cond_broadcast(&o->work);
    pthread_cond_broadcast(&o->tick);
    pthread_mutex_unlock(&o->lock);
    if (o->watchdog_started)
        pthread_join(o->watchdog, NULL);
    pthread_mutex_lock(&o->lock);
    stuck = wait_late(o);
    for (i = 0; i < o->n_slots; i++) {
        if (o->slots[i].state == SLOT_LIVE && joins)
            joins[n++] = o->slots[i].tid;
        else if (o->slots[i].state != SLOT_FREE)
            pthread_detach(o->slots[i].tid);
    }
    pthread_mutex_unlock(&o->lock);
    for (i = 0; i < n; i++)
        pthread_join(joins[i], NULL);
    free(joins);
    if (!joins && !stuck)
        stuck = -1; /* live threads detached: they may still lock it */
    s->offload = NULL;
    if (stuck) {
        if (stuck > 0)
            LOG_WARN("offload pool: %d thread(s) still stuck at exit", stuck);
        return;
    }
    /* srv_offload_quiesce has dropped every worker's jobs. */
    if (o->all)
        LOG_ERROR("offload pool: jobs left at stop");
    pthread_cond_destroy(&o->tick);
    pthread_cond_destroy(&o->settled);
    pthread_cond_destroy(&o->work);
    pthread_mutex_destroy(&o->lock);
    free(o->slots);
    free(o);
}

int srv_offload_submit(struct server *s, struct srv_job *j)
{
    struct srv_offload *o = s->offload;

    if (!o || !o->n_target)
        return -1;
    j->done = event_new(j->w->base, -1, 0, on_done, j);
    if (!j->done)
        return -1;
    j->state = SRV_JOB_QUEUED;
    j->queued = NULL;
    j->thread = NULL;
    j->answered = 0;
    /* No --eval-timeout (0, a server built without opts_defaults): none. */
    j->deadline =
        s->opts.eval_timeout > 0 ? kube_now() + s->opts.eval_timeout : 1e300;
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
        if (j->state == SRV_JOB_LATE) {
            /* Its thread frees it when the handler returns. */
            j->answered = 1;
            event_free(j->done);
            j->done = NULL;
            continue;
        }
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
