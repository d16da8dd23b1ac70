/*
 * serve_holds.h: the extender accounting for its own decisions. When the
 * served Policy reads the pods on nodes (resources, ports, affinity,
 * spread, volume limits) and its answer leaves kube-scheduler one choice
 * (a filter that passes one node, a ranked prioritize with a single top
 * node), the pod is assumed on that node in the live cache at once, as
 * kube-scheduler assumes the pods it places, so the next pod of a burst
 * is evaluated with it. A hold ends when the watch delivers the pod bound
 * (wherever it was bound: the real object replaces it), when the pod is
 * deleted, when a bind through this server fails, or after the timeout.
 */
#ifndef SERVER_EXTENDER_SERVE_HOLDS_H
#define SERVER_EXTENDER_SERVE_HOLDS_H

#include <stdatomic.h>
#include <stdbool.h>

#include "server/extender/extender.h"

struct kube_cache;
struct metrics_counter;
struct metrics_gauge;
struct metrics;

struct serve_holds {
    struct kube_cache *cache; /* NULL: no live cache, no holds */
    double timeout;           /* seconds; 0: holds off */
    _Atomic double next_cleanup;
    struct metrics_counter *taken;
    struct metrics_counter *expired;
    struct metrics_counter *released;
};

/* Set up (cache may be NULL); registers the metrics on m when non-NULL. */
void serve_holds_init(struct serve_holds *h, struct kube_cache *cache,
                      double timeout, struct metrics *m);

/* Whether holds are taken at all (a live cache and a timeout). */
bool serve_holds_enabled(const struct serve_holds *h);

/* Before a verb evaluates: expire the holds whose time is up (at most
 * once a second). */
void serve_holds_sweep(struct serve_holds *h);

/*
 * After a verb answered for d->pod (cache lock released): hold it on
 * d->node, or, when the answer singled out no node, drop the pod's earlier
 * hold (its retry is evaluated again from scratch).
 */
void serve_holds_settle(struct serve_holds *h, const struct ext_decision *d);

/* A bind through this server failed: the pod is not on that node. */
void serve_holds_release(struct serve_holds *h, const char *ns,
                         const char *name);

#endif
