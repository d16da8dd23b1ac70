/*
 * sched_queue.h: the scheduling queue of the standalone scheduler, after
 * kube-scheduler v1.22's PriorityQueue (internal/queue/scheduling_queue.go):
 * an active heap ordered by pod priority (higher first) then queue time
 * (earlier first), a backoff heap ordered by backoff expiry, and the
 * unschedulable set that waits for a cluster event (or 60 s).
 *
 * Not thread-safe: the scheduler wraps it in a mutex. Time is passed in
 * (seconds on any monotonic clock), so tests drive it deterministically.
 */
#ifndef SERVER_SCHEDULER_SCHED_QUEUE_H
#define SERVER_SCHEDULER_SCHED_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* kube-scheduler v1.22 defaults. */
#define SCHED_QUEUE_INITIAL_BACKOFF 1.0  /* podInitialBackoffSeconds */
#define SCHED_QUEUE_MAX_BACKOFF     10.0 /* podMaxBackoffSeconds */
#define SCHED_QUEUE_UNSCHED_MAX     60.0 /* unschedulableQTimeInterval */

enum sched_qstate {
    SCHED_Q_ACTIVE,
    SCHED_Q_BACKOFF,
    SCHED_Q_UNSCHEDULABLE,
    SCHED_Q_IN_FLIGHT, /* popped, being scheduled or bound */
};

/* The payload's release function (called when the queue lets it go). */
typedef void sched_payload_free_fn(void *payload);

/* A queued pod. Members are read-only outside sched_queue.c. */
struct sched_qitem {
    char *key;     /* "namespace/name" */
    void *payload; /* the pod, owned by the item */
    int32_t priority;
    int64_t created;    /* creationTimestamp, a tie-break after timestamp */
    uint64_t spec_hash; /* what an update must change to count */
    double timestamp;   /* added to the queue / last failure */
    double initial_attempt;
    int attempts;  /* scheduling attempts so far */
    int64_t cycle; /* the scheduling cycle that popped it */
    enum sched_qstate state;
    bool deleted;       /* deleted or bound elsewhere while in flight */
    char *last_message; /* the last failure message reported (or NULL) */
    char *bound_node;   /* in flight: the node the watch showed it bound to */
    unsigned mark;      /* the owner's: e.g. the list that last saw it */

    /* private */
    uint64_t seq;
    size_t heap_idx;
    struct sched_qitem *next;            /* hash chain */
    struct sched_qitem *u_prev, *u_next; /* unschedulable list */
};

struct sched_heap {
    struct sched_qitem **items;
    size_t n, cap;
};

struct sched_queue {
    double initial_backoff, max_backoff, unsched_max;
    sched_payload_free_fn *free_payload;
    struct sched_qitem **slots; /* by key */
    size_t n_slots, n_items;
    struct sched_heap active, backoff;
    struct sched_qitem *unsched; /* list head */
    size_t n_unsched, n_in_flight;
    int64_t scheduling_cycle;
    int64_t move_request_cycle;
    double unsched_due; /* the earliest unschedulable leftover expiry */
    uint64_t seq;
};

/* An empty queue with kube-scheduler's timings; free_payload may be NULL. */
void sched_queue_init(struct sched_queue *q, sched_payload_free_fn *fp);

/* Free every item (in flight ones too) and their payloads. */
void sched_queue_destroy(struct sched_queue *q);

/* How sched_queue_add changed the queue. */
enum sched_qadd {
    SCHED_QADD_NEW,     /* a new pod, now active */
    SCHED_QADD_UPDATED, /* known pod, payload replaced, not moved */
    SCHED_QADD_MOVED,   /* an unschedulable pod whose spec changed: moved */
    SCHED_QADD_ERROR,   /* out of memory: payload released */
};

/*
 * Add a pending pod or update a known one (PriorityQueue Add / Update).
 * Takes over payload (the previous one is released). A pod in flight
 * keeps its place; its next attempt uses the new payload. An
 * unschedulable pod whose spec_hash changed moves to the backoff or the
 * active queue (isPodUpdated).
 */
enum sched_qadd sched_queue_add(struct sched_queue *q, const char *key,
                                void *payload, int32_t priority,
                                int64_t created, uint64_t spec_hash,
                                double now);

/* Forget a pod (deleted, or bound). In flight: marked deleted. */
void sched_queue_delete(struct sched_queue *q, const char *key);

/* The item for key, or NULL. */
struct sched_qitem *sched_queue_find(struct sched_queue *q, const char *key);

/*
 * Take the head of the active queue (NULL when empty): it goes in
 * flight, its attempts go up and it gets the next scheduling cycle.
 */
struct sched_qitem *sched_queue_pop(struct sched_queue *q);

/* An in-flight item is finished with (bound, or given up): freed. */
void sched_queue_done(struct sched_queue *q, struct sched_qitem *it);

/*
 * An in-flight item failed (AddUnschedulableIfNotPresent): to the
 * backoff queue when a move request came during its cycle, else to the
 * unschedulable set. A deleted item is freed instead.
 */
void sched_queue_requeue(struct sched_queue *q, struct sched_qitem *it,
                         double now);

/*
 * A cluster event (MoveAllToActiveOrBackoffQueue): every unschedulable
 * pod moves to the backoff queue while its backoff lasts, else to the
 * active queue. Pods in flight will go to backoff when they fail.
 */
void sched_queue_move_all(struct sched_queue *q, double now);

/* Whether an unschedulable item is one an event may have made fit. */
typedef bool sched_qitem_match_fn(const struct sched_qitem *it, void *arg);

/*
 * move_all restricted to the unschedulable items match accepts (all when
 * match is NULL): AssignedPodAdded / AssignedPodUpdated move only pods
 * with a required affinity term matching the assigned pod. Pods in flight
 * go to backoff when they fail, whatever moved. Returns how many moved.
 */
size_t sched_queue_move_if(struct sched_queue *q, double now,
                           sched_qitem_match_fn *match, void *arg);

/*
 * Move what is due: backoffs that ended go active, unschedulable pods
 * older than unsched_max move as in move_all. Returns when the next thing
 * falls due (a time; HUGE_VAL when nothing waits).
 */
double sched_queue_flush(struct sched_queue *q, double now);

/* The backoff after `attempts` attempts: initial * 2^(attempts-1), capped. */
double sched_queue_backoff(const struct sched_queue *q, int attempts);

/*
 * Delete (as sched_queue_delete) every item whose mark differs from
 * mark: a relist did not mention them. Returns how many.
 */
size_t sched_queue_drop_unmarked(struct sched_queue *q, unsigned mark);

/* Items by state. */
size_t sched_queue_len(const struct sched_queue *q, enum sched_qstate s);

/* Record the failure message last reported for an item (copied). */
void sched_queue_set_message(struct sched_qitem *it, const char *msg);

#endif
