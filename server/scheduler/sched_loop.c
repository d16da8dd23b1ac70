/*
 * sched_loop.c: the standalone scheduler's scheduling thread: pop the next
 * pod from the queue while leading, flush backoff, clean up expired
 * assumed pods once a second, run one scheduling cycle at a time.
 */
#include "server/scheduler/sched_loop.h"

#include <math.h>
#include <time.h>

#include "server/scheduler/sched_cycle.h"
#include "server/scheduler/sched_lost_bind.h"
#include "server/scheduler/sched_pod.h"

void *sched_loop_main(void *arg)
{
    struct scheduler *s = arg;
    double last_cleanup = 0;

    for (;;) {
        struct sched_qitem *it = NULL;
        struct sched_pod *sp;
        double now = kube_now();

        if (now - last_cleanup >= 1) {
            kube_cache_cleanup_assumed(s->cache, now);
            last_cleanup = now;
        }
        pthread_mutex_lock(&s->lock);
        while (!s->stopping) {
            double due = sched_queue_flush(&s->q, kube_now());
            struct timespec ts;

            if (atomic_load(&s->active) && (it = sched_queue_pop(&s->q)))
                break;
            due = fmin(due - kube_now(), 1.0);
            clock_gettime(CLOCK_REALTIME, &ts);
            due += (double)ts.tv_sec + ts.tv_nsec / 1e9;
            ts.tv_sec = (time_t)due;
            ts.tv_nsec = (long)((due - (double)ts.tv_sec) * 1e9);
            if (pthread_cond_timedwait(&s->cond, &s->lock, &ts) != 0)
                break; /* time for the assumed-pod cleanup */
        }
        if (s->stopping) {
            pthread_mutex_unlock(&s->lock);
            return NULL;
        }
        if (!it) {
            pthread_mutex_unlock(&s->lock);
            continue;
        }
        /* This attempt reports for itself (sched_lost_bind.h). */
        sched_lost_bind_take(s, it->key, NULL, NULL);
        sp = it->payload;
        atomic_fetch_add(&sp->refs, 1);
        pthread_mutex_unlock(&s->lock);
        sched_schedule_one(s, it, sp);
        sched_pod_release(sp);
    }
}
