/*
 * sched_nominate.h: the standalone scheduler's PodNominator (kube-scheduler
 * v1.22 internal/queue/scheduling_queue.go nominator): which pending pods
 * are nominated to which node, after our preemptions or as their
 * status.nominatedNodeName says. The scheduling thread hands a snapshot
 * to engine_place (engine_nominated.h) so that pods of lower or equal
 * priority do not take the room a preemption freed.
 *
 * Every function is called with s->lock held.
 */
#ifndef SERVER_SCHEDULER_SCHED_NOMINATE_H
#define SERVER_SCHEDULER_SCHED_NOMINATE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine_nominated.h"
#include "server/scheduler/sched_pod.h"

struct scheduler;

/* One nominated pod (owned by the scheduler). */
struct sched_nominee {
    char *key;  /* namespace/name */
    char *node; /* the nominated node */
    struct sched_pod *sp;
    bool from_api; /* read from status.nominatedNodeName, not set by us */
};

/*
 * Nominate key's pod sp to node (AddNominatedPod): replaces an earlier
 * nomination; takes its own reference to sp. from_api: the nomination
 * comes from the pod's status. Returns 0, -1 when out of memory.
 */
int sched_nominate_set(struct scheduler *s, const char *key,
                       struct sched_pod *sp, const char *node, bool from_api);

/* Forget key's nomination (deleted, bound or cleared); none is fine. */
void sched_nominate_drop(struct scheduler *s, const char *key);

/*
 * A pending pod came from the watch (UpdateNominatedPod): its status'
 * nominatedNodeName is the nomination; without one, a nomination we made
 * ourselves is kept (the watch has not caught up) and one the status gave
 * is dropped (someone cleared it).
 */
void sched_nominate_on_pod(struct scheduler *s, const char *key,
                           struct sched_pod *sp);

/*
 * The nominations as engine_place reads them: *out (malloc'd, n entries)
 * and *refs (the pods, each with a reference taken). Give both back with
 * sched_nominate_release. Returns n (0: nothing allocated).
 */
size_t sched_nominate_snapshot(struct scheduler *s, struct engine_nominee **out,
                               struct sched_pod ***refs);

/* Release a snapshot (no lock needed). */
void sched_nominate_release(struct engine_nominee *out, struct sched_pod **refs,
                            size_t n);

/* Free every nomination (at sched_destroy). */
void sched_nominate_free(struct scheduler *s);

#endif
