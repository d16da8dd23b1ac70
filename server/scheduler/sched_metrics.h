/*
 * sched_metrics.h: the standalone scheduler's Prometheus series.
 */
#ifndef SERVER_SCHEDULER_SCHED_METRICS_H
#define SERVER_SCHEDULER_SCHED_METRICS_H

#include "server/common/metrics.h"
#include "server/scheduler/scheduler.h"

/* Register s's series on m (queue depths, attempts, latencies, Events,
 * leader status); s->opts must be set. */
void sched_register_metrics(struct scheduler *s, struct metrics *m);

#endif
