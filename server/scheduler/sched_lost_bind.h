/*
 * sched_lost_bind.h: Bindings whose answer was lost. A POST that got no
 * answer at all (the API server went down mid-request; libcurl's resend on
 * a fresh connection, when a reused one died, could not connect) leaves
 * the pod perhaps bound to the node we asked for. kube-scheduler v1.22
 * treats it as a failed bind (recordSchedulingFailure) and never posts the
 * Scheduled Event of a bind that did land; we keep that failure path, and
 * when the watch shows the pod on exactly our node we log it and post the
 * Scheduled Event, so that every pod we bound says so once.
 *
 * A 409 is not one of these: the pod was bound already, by whoever, and we
 * cannot tell a resend of ours from another binder that chose the same
 * node; it stays "bound by someone else" (sched_bind.c).
 *
 * A record lives from the failed bind until the watch shows the pod bound
 * (or deleted), or the pod is popped for another attempt (which reports
 * for itself). Every function but sched_lost_bind_report is called with
 * s->lock held.
 */
#ifndef SERVER_SCHEDULER_SCHED_LOST_BIND_H
#define SERVER_SCHEDULER_SCHED_LOST_BIND_H

#include <stdbool.h>
#include <stddef.h>

struct scheduler;

/* At most this many records; the oldest goes first beyond it. */
#define SCHED_LOST_BIND_MAX 1024

/* One Binding of ours whose outcome we do not know (owned by s). */
struct sched_lost_bind {
    char *key;  /* namespace/name */
    char *uid;  /* the pod's UID, "" when unknown */
    char *node; /* the node our Binding named */
};

/* Remember that key's Binding to node got no usable answer. Returns 0,
 * -1 when out of memory (then the record is simply not kept). */
int sched_lost_bind_note(struct scheduler *s, const char *key, const char *uid,
                         const char *node);

/*
 * The watch shows key bound to node (node NULL: deleted, or popped for
 * another attempt). Forgets key's record; returns true when it named
 * node, with *uid set to the recorded UID (the caller frees it).
 */
bool sched_lost_bind_take(struct scheduler *s, const char *key,
                          const char *node, char **uid);

/* The Binding landed after all: log it and post the Scheduled Event
 * (without s->lock: it takes the event queue's). */
void sched_lost_bind_report(struct scheduler *s, const char *key,
                            const char *uid, const char *node);

/* How many records are kept. */
size_t sched_lost_bind_count(const struct scheduler *s);

void sched_lost_bind_free(struct scheduler *s);

#endif
