/*
 * sched_events.h: the standalone scheduler's Event queue and senders.
 */
#ifndef SERVER_SCHEDULER_SCHED_EVENTS_H
#define SERVER_SCHEDULER_SCHED_EVENTS_H

#include "kube/model/types.h"
#include "server/scheduler/scheduler.h"

/* A queued Event: its strings live in one malloc'd block. */
struct sched_event {
    char *buf; /* ns, name, uid, type, reason, message: one block */
    const char *ns, *name, *uid, *type, *reason, *message;
};

/* Queue an Event about pod (copied); dropped (and counted) when the ring
 * is full or the senders are stopping. */
void sched_event_post(struct scheduler *s, const struct kube_pod *pod,
                      const char *type, const char *reason, const char *msg);

/* An Event sender thread (arg: the scheduler): posts queued Events until
 * stopped and the ring is empty. */
void *sched_event_main(void *arg);

#endif
