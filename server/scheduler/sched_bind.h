/*
 * sched_bind.h: the standalone scheduler's binder pool.
 */
#ifndef SERVER_SCHEDULER_SCHED_BIND_H
#define SERVER_SCHEDULER_SCHED_BIND_H

#include "server/scheduler/sched_pod.h"
#include "server/scheduler/scheduler.h"

/* One assumed pod to bind; owns a reference to sp and node. */
struct sched_bind_job {
    struct sched_bind_job *next;
    struct sched_qitem *it;
    struct sched_pod *sp;
    char *node;
    double start; /* when the attempt began */
};

/* Queue j for a binder thread (which frees it). */
void sched_bind_async(struct scheduler *s, struct sched_bind_job *j);

/* A binder thread (arg: the scheduler): binds queued jobs until stopped. */
void *sched_binder_main(void *arg);

/* Free j and drop its pod reference. */
void sched_bind_job_free(struct sched_bind_job *j);

#endif
