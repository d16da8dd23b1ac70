/*
 * sched_loop.h: the standalone scheduler's scheduling thread.
 */
#ifndef SERVER_SCHEDULER_SCHED_LOOP_H
#define SERVER_SCHEDULER_SCHED_LOOP_H

/* The scheduling thread (arg: the scheduler): pops and schedules pods
 * while active, until stopping. */
void *sched_loop_main(void *arg);

#endif
