/*
 * sched_cycle.h: one scheduling cycle (scheduleOne) of the standalone
 * scheduler.
 */
#ifndef SERVER_SCHEDULER_SCHED_CYCLE_H
#define SERVER_SCHEDULER_SCHED_CYCLE_H

#include "server/scheduler/sched_pod.h"
#include "server/scheduler/scheduler.h"

/*
 * Decide the popped item it (pod sp) against the live cache; on success
 * assume it and queue its Binding, else record the failure. Runs on the
 * scheduling thread only.
 */
void sched_schedule_one(struct scheduler *s, struct sched_qitem *it,
                        struct sched_pod *sp);

#endif
