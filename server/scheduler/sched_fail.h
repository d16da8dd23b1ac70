/*
 * sched_fail.h: recordSchedulingFailure and truncateMessage of
 * kube-scheduler v1.22 for the standalone scheduler.
 */
#ifndef SERVER_SCHEDULER_SCHED_FAIL_H
#define SERVER_SCHEDULER_SCHED_FAIL_H

#include "kube/base/arena.h"
#include "server/scheduler/sched_pod.h"
#include "server/scheduler/scheduler.h"

#define SCHED_MESSAGE_LIMIT 1024 /* validation.NoteLengthLimit */

/* truncateMessage: at most SCHED_MESSAGE_LIMIT bytes, ending " ..." when
 * cut. Returns msg or a copy in a. */
const char *sched_truncate_message(struct arena *a, const char *msg);

/*
 * Count the attempt (result: enum sched_result, begun at start), requeue
 * the in-flight item it, and unless the pod is gone post a Warning
 * FailedScheduling Event and set PodScheduled=False with reason.
 */
void sched_fail(struct scheduler *s, struct sched_qitem *it,
                struct sched_pod *sp, int result, const char *reason,
                const char *msg, double start);

/*
 * sched_fail after a preemption nominated node (NULL: none): the status
 * patch also sets status.nominatedNodeName (v1.22 updatePod).
 */
void sched_fail_nominated(struct scheduler *s, struct sched_qitem *it,
                          struct sched_pod *sp, int result, const char *reason,
                          const char *msg, double start, const char *node);

#endif
