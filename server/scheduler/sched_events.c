/*
 * sched_events.c: the standalone scheduler's Events: a bounded ring
 * (client-go's maxQueuedEvents) drained by a pool of sender threads, each
 * Event tried again while the API server gives no answer, as client-go's
 * events broadcaster and recordToSink do.
 */
#include "server/scheduler/sched_events.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/common/log.h"

void sched_event_post(struct scheduler *s, const struct kube_pod *pod,
                      const char *type, const char *reason, const char *msg)
{
    const char *parts[6] = {
        pod->namespace, pod->name, pod->uid ? pod->uid : "", type, reason, msg
    };
    size_t len = 0, i;
    struct sched_event *ev;
    char *p;

    for (i = 0; i < 6; i++)
        len += strlen(parts[i]) + 1;
    pthread_mutex_lock(&s->ev_lock);
    if (s->ev_n == SCHED_EVENT_QUEUE || s->ev_stopping) {
        pthread_mutex_unlock(&s->ev_lock);
        metrics_counter_add(s->events_dropped, 1);
        return;
    }
    ev = &s->events[(s->ev_head + s->ev_n) % SCHED_EVENT_QUEUE];
    ev->buf = p = malloc(len);
    if (!p) {
        pthread_mutex_unlock(&s->ev_lock);
        return;
    }
    for (i = 0; i < 6; i++) {
        const char **dst[6] = { &ev->ns,   &ev->name,   &ev->uid,
                                &ev->type, &ev->reason, &ev->message };

        *dst[i] = strcpy(p, parts[i]);
        p += strlen(parts[i]) + 1;
    }
    s->ev_n++;
    /* broadcast: a thread waiting to retry must not take the wakeup */
    pthread_cond_broadcast(&s->ev_cond);
    pthread_mutex_unlock(&s->ev_lock);
}

/*
 * Post one Event, trying again while the API server gives no answer (an
 * apiserver restart), as client-go's recordToSink does, or answers 403:
 * unlike recordToSink, which drops an Event the server refused, because a
 * kube-apiserver under RBAC refuses everyone but system:masters from the
 * moment it listens until its authorizer has synced (the e2e suite
 * restarting it mid-run saw Scheduled events lost so). A 403 that lasts
 * uses up the same tries. Sleeps on ev_cond
 * with ev_lock released, so a stop ends the wait. 0, or -1 with e set.
 */
static int post_event(struct scheduler *s, const struct kube_event_ref *ref,
                      const struct sched_event *ev, struct err *e)
{
    double wait = s->opts.event_retry > 0 ? s->opts.event_retry
                                          : SCHED_EVENT_RETRY_SECONDS;
    int try, rc = -1;

    for (try = 1; try <= SCHED_EVENT_TRIES; try++) {
        struct timespec until;
        bool stopping;

        rc = kube_client_create_event(s->eclient, ref, ev->type, ev->reason,
                                      ev->message, s->opts.scheduler_name, e);
        if ((rc != KUBE_CLIENT_UNREACHABLE && rc != KUBE_CLIENT_FORBIDDEN) ||
            try == SCHED_EVENT_TRIES)
            break;
        LOG_V(1,
              "event %s for pod %s/%s: %s (%s); trying again in "
              "%.1f s (%d of %d)",
              ev->reason, ev->ns, ev->name,
              rc == KUBE_CLIENT_FORBIDDEN ? "forbidden" : "no answer", e->msg,
              wait, try, SCHED_EVENT_TRIES);
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += (time_t)wait;
        until.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&s->ev_lock);
        while (!s->ev_stopping &&
               pthread_cond_timedwait(&s->ev_cond, &s->ev_lock, &until) == 0)
            ;
        stopping = s->ev_stopping;
        pthread_mutex_unlock(&s->ev_lock);
        if (stopping)
            break;
    }
    return rc < 0 ? -1 : 0;
}

void *sched_event_main(void *arg)
{
    struct scheduler *s = arg;

    pthread_mutex_lock(&s->ev_lock);
    for (;;) {
        struct sched_event ev;
        struct kube_event_ref ref = { "Pod", NULL, NULL, NULL, "v1" };
        struct err e = { "" };

        while (!s->ev_n && !s->ev_stopping)
            pthread_cond_wait(&s->ev_cond, &s->ev_lock);
        if (!s->ev_n)
            break;
        ev = s->events[s->ev_head];
        s->ev_head = (s->ev_head + 1) % SCHED_EVENT_QUEUE;
        s->ev_n--;
        pthread_mutex_unlock(&s->ev_lock);
        ref.namespace = ev.ns;
        ref.name = ev.name;
        ref.uid = *ev.uid ? ev.uid : NULL;
        if (post_event(s, &ref, &ev, &e) < 0) {
            metrics_counter_add(s->events_posted[1], 1);
            LOG_V(1, "event %s for pod %s/%s not recorded: %s", ev.reason,
                  ev.ns, ev.name, e.msg);
        } else {
            metrics_counter_add(s->events_posted[0], 1);
        }
        free(ev.buf);
        pthread_mutex_lock(&s->ev_lock);
    }
    pthread_mutex_unlock(&s->ev_lock);
    return NULL;
}
