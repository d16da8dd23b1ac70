/*
 * leader.h: leader election on a coordination.k8s.io/v1 Lease, as
 * client-go's leaderelection package does it for kube-scheduler v1.22:
 * acquire by creating or taking over an expired Lease, renew every retry
 * period, and give up (the caller exits) when a renewal has not
 * succeeded within the renew deadline. Writes are optimistic: a PUT
 * carries the resourceVersion it read, so of two candidates one gets 409.
 */
#ifndef SERVER_SCHEDULER_LEADER_H
#define SERVER_SCHEDULER_LEADER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/client/client.h"
#include "kube/base/err.h"

/* kube-scheduler v1.22 defaults (--leader-elect-*). */
#define LEADER_DEFAULT_NAMESPACE      "kube-system"
#define LEADER_DEFAULT_LEASE_DURATION 15.0
#define LEADER_DEFAULT_RENEW_DEADLINE 10.0
#define LEADER_DEFAULT_RETRY_PERIOD   2.0
#define LEADER_JITTER_FACTOR          1.2 /* client-go JitterFactor */

struct leader_config {
    const char *namespace; /* of the Lease */
    const char *name;      /* the Lease */
    const char *identity;  /* holderIdentity: hostname_uuid */
    double lease_duration; /* seconds a non-leader waits before taking over */
    double renew_deadline; /* seconds the leader retries a renewal */
    double retry_period;   /* seconds between attempts */
};

/* The Lease as read or as it will be written. */
struct leader_record {
    bool exists;
    char holder[256];
    int lease_duration_s;
    char acquire_time[40]; /* RFC 3339 with microseconds */
    char renew_time[40];
    int transitions;
    char resource_version[64];
};

/* What a candidate last saw, and when (its own monotonic clock). */
struct leader_observed {
    struct leader_record rec;
    double time;
};

enum leader_action {
    LEADER_CREATE, /* no Lease: create it */
    LEADER_UPDATE, /* ours, or expired: write `out` over it */
    LEADER_WAIT,   /* held by another candidate whose lease runs */
};

/*
 * client-go's checks (NewLeaderElector): lease duration > renew deadline
 * > retry period * 1.2, all positive, a name and an identity. Returns 0
 * or -1 with e set.
 */
int leader_config_check(const struct leader_config *c, struct err *e);

/*
 * The decision in tryAcquireOrRenew: given the Lease now (cur; exists
 * false when there is none) and what was observed before, at monotonic
 * time now and wall time now_str: create, update (out is the record to
 * write, with cur's resourceVersion) or wait. Updates obs when cur
 * differs from it. A candidate counts as leader when the observed holder
 * is its identity; another holder's lease runs for lease_duration from
 * when this candidate observed it (not from its renewTime: clocks differ).
 */
enum leader_action leader_decide(const struct leader_config *c,
                                 const struct leader_record *cur,
                                 struct leader_observed *obs, double now,
                                 const char *now_str,
                                 struct leader_record *out);

/* Decode a Lease object (JSON). Returns 0 or -1 with e set. */
int leader_record_parse(const char *json, size_t len, struct leader_record *out,
                        struct err *e);

/* Encode rec as a Lease named by c (malloc'd JSON, NULL out of memory). */
char *leader_record_json(const struct leader_config *c,
                         const struct leader_record *rec);

/* Parse a Go duration ("15s", "500ms", "1m30s", "1.5s") into seconds. */
int leader_parse_duration(const char *s, double *out);

/* "hostname_<uuid v4>" into buf. */
void leader_identity(char *buf, size_t sz);

/* Wall-clock time as metav1.MicroTime: 2006-01-02T15:04:05.000000Z. */
void leader_micro_time(char *buf, size_t sz);

/* Called on the elector's thread. */
typedef void leader_cb(void *arg);

struct leader_elector {
    struct leader_config cfg;
    struct kube_client *client; /* borrowed; its own rate limiter */
    leader_cb *on_started;      /* became leader */
    leader_cb *on_stopped;      /* lost the lease (not on leader_stop) */
    void *arg;

    /* private */
    struct leader_observed obs;
    atomic_bool leading;
    atomic_bool stop;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t thread;
    bool running;
    unsigned rng;
};

/*
 * Start campaigning on a thread. le->cfg, client and the callbacks must
 * be set; the rest zeroed. Returns 0 or -1 with e set.
 */
int leader_start(struct leader_elector *le, struct err *e);

/*
 * Stop campaigning; a leader releases the Lease (holder "", duration
 * 1 s) so a standby takes over at once. Idempotent.
 */
void leader_stop(struct leader_elector *le);

#endif
