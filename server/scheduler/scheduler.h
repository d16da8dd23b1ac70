/*
 * scheduler.h: the standalone scheduler behind `schedule`: it learns of
 * pending pods (its schedulerName, no nodeName) from the watch, queues
 * them (sched_queue.h), decides one at a time against the live cache with
 * the Policy (evaluate.h), assumes the decision in the cache and binds on
 * a pool of binder threads, as kube-scheduler v1.22's scheduleOne and
 * binding cycle do.
 *
 * Threads: the informer thread feeds the queue through the sink; one
 * scheduling thread decides; binder threads POST Bindings (and pod status
 * on failure); as many threads send Events from one bounded queue
 * (client-go's events broadcaster posts each event on a goroutine of its
 * own, so events keep pace with binds). Only the
 * leader schedules (sched_set_active); standbys keep their cache and queue
 * warm.
 *
 * The parts, one concept each: sched_sink.c (watch events to queue moves),
 * sched_pod.c, sched_signature.c, sched_queue.c, sched_loop.c (the
 * scheduling thread), sched_cycle.c (scheduleOne, deciding through
 * engine/engine_place.c), sched_bind.c (binders), sched_fail.c
 * (recordSchedulingFailure), sched_preempt.c (DefaultPreemption's side
 * effects), sched_nominate.c (the nominator), sched_events.c,
 * sched_metrics.c; scheduler.c ties
 * their life cycles.
 */
#ifndef SERVER_SCHEDULER_SCHEDULER_H
#define SERVER_SCHEDULER_SCHEDULER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/client/cache.h"
#include "kube/client/client.h"
#include "kube/client/informer.h"
#include "engine/engine_place.h"
#include "engine/evaluate.h"
#include "server/common/metrics.h"
#include "server/scheduler/sched_queue.h"
#include "engine/engine_state.h"

#define SCHED_DEFAULT_NAME         "default-scheduler"
#define SCHED_DEFAULT_BIND_WORKERS 16
#define SCHED_EVENT_QUEUE          1000  /* client-go's maxQueuedEvents */
#define SCHED_ASSUMED_TTL          900.0 /* durationToExpireAssumedPod */

/* The message of a node-less cluster (core.ErrNoNodesAvailable). */
#define SCHED_NO_NODES ENGINE_NO_NODES

struct sched_options {
    const char *scheduler_name; /* pods with this spec.schedulerName */
    uint64_t seed;              /* tie-break randomness; 0: from the clock */
    int bind_workers;           /* 0: SCHED_DEFAULT_BIND_WORKERS */
    double initial_backoff;     /* 0: 1 s */
    double max_backoff;         /* 0: 10 s */
    int percentage_of_nodes_to_score; /* 0: adaptive; >= 100: every node */
    double event_retry; /* seconds between tries of an unanswered Event;
                           0: SCHED_EVENT_RETRY_SECONDS */
};

/* client-go's event sink: an Event the API server did not answer is tried
 * again, up to 12 times, 10 s apart (one the server refused is not). */
#define SCHED_EVENT_TRIES         12
#define SCHED_EVENT_RETRY_SECONDS 10.0

struct sched_bind_job;
struct sched_event;
struct sched_node_sig;
struct scheduler;

/* How a scheduling attempt ended (the attempts metrics' result label). */
enum sched_result {
    SCHED_RESULT_SCHEDULED,
    SCHED_RESULT_UNSCHEDULABLE,
    SCHED_RESULT_ERROR
};

/* The argument of a queue-depth gauge. */
struct sched_depth {
    struct scheduler *s;
    int state; /* enum sched_qstate */
};

struct scheduler {
    struct sched_options opts;
    struct app *app;             /* the policy (borrowed) */
    struct kube_cache *cache;    /* borrowed */
    struct kube_client *client;  /* Bindings and pod status */
    struct kube_client *eclient; /* Events */

    /* The queue and the scheduling thread; lock guards both. */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct sched_queue q;
    unsigned pod_list_gen; /* marks queued pods seen by the current list */
    bool stopping;
    atomic_bool active; /* leading (or no leader election) */
    pthread_t thread;
    struct engine_placer placer; /* scheduling thread only */

    /* Binder pool. */
    pthread_mutex_t bind_lock;
    pthread_cond_t bind_cond;
    struct sched_bind_job *jobs, *jobs_tail;
    bool bind_stopping;
    pthread_t *binders;
    int n_binders;

    /* Event sender. */
    pthread_mutex_t ev_lock;
    pthread_cond_t ev_cond;
    struct sched_event *events; /* ring of SCHED_EVENT_QUEUE */
    size_t ev_head, ev_n;
    bool ev_stopping;
    pthread_t *ev_threads; /* as many as binders */
    int n_ev_threads;

    /* Pods nominated to nodes (sched_nominate.h); lock guards them. */
    struct sched_nominee *noms;
    size_t n_noms, cap_noms;

    /* Bindings whose answer was lost (sched_lost_bind.h); lock guards. */
    struct sched_lost_bind *lost;
    size_t n_lost, cap_lost;

    /* Scheduling-relevant node fields seen last, by node name. */
    struct sched_node_sig *sigs;
    size_t n_sigs, sig_slots;

    bool started;

    /* Metrics. */
    struct metrics_counter *attempts[3]; /* scheduled, unschedulable, error */
    struct metrics_histogram *attempt_duration[3];
    struct metrics_histogram *algorithm_duration;
    struct metrics_histogram *binding_duration;
    struct metrics_counter *preemption_attempts;
    struct metrics_histogram *preemption_victims;
    struct metrics_counter *events_dropped;
    struct metrics_counter *events_posted[2]; /* sent, failed */
    struct metrics_gauge *leader;
    struct sched_depth depth[4];
};

/*
 * Set up s (zeroed by the caller) over a loaded app, a cache (not
 * started) and two API clients (which may be the same). Registers the
 * metrics on m. Returns 0, or -1 with e set.
 */
int sched_init(struct scheduler *s, const struct sched_options *o,
               struct app *app, struct kube_cache *cache,
               struct kube_client *client, struct kube_client *eclient,
               struct metrics *m, struct err *e);

/*
 * The informer sink to start the informers with: it feeds the cache (as
 * kube_cache_sink does), then the queue and the cluster-event moves.
 */
void sched_sink(struct scheduler *s, struct kube_informer_sink *out);

/* Start the threads; nothing is scheduled before sched_set_active. */
int sched_start(struct scheduler *s, struct err *e);

/* Leader or not: only an active scheduler pops pods. */
void sched_set_active(struct scheduler *s, bool active);

/* Stop the threads: decisions in flight finish, queued binds are
 * forgotten, queued events are sent. Idempotent. */
void sched_stop(struct scheduler *s);

/* Free everything (after sched_stop). */
void sched_destroy(struct scheduler *s);

/* Pods waiting in a queue state (locks the queue). */
size_t sched_pending(struct scheduler *s, enum sched_qstate st);

#endif
