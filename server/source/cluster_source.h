/*
 * cluster_source.h: where `serve` and `schedule` get the cluster from, set
 * up once for both: --cluster snapshot files, or an API server
 * (--kubeconfig, --master, in-cluster) listed and watched into a live
 * cache, with a watcher thread that holds /readyz at 503 (with the
 * connection's last error) until every watched kind has listed once.
 */
#ifndef SERVER_SOURCE_CLUSTER_SOURCE_H
#define SERVER_SOURCE_CLUSTER_SOURCE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "kube/client/cache.h"
#include "kube/client/client.h"
#include "kube/base/err.h"
#include "kube/client/informer.h"
#include "server/http/http_server.h"
#include "server/common/options.h"

enum cluster_source_kind {
    CLUSTER_SOURCE_NONE,  /* neither: full Node objects in requests only */
    CLUSTER_SOURCE_FILES, /* --cluster snapshot files */
    CLUSTER_SOURCE_API    /* --kubeconfig, --master or in-cluster */
};

/*
 * Which source the options name. --cluster wins; *conflict (may be NULL)
 * is set when --kubeconfig or --master is given beside it.
 */
enum cluster_source_kind cluster_source_pick(const struct srv_options *o,
                                             bool *conflict);

/*
 * A client of the options' API server (--kubeconfig, --context, --master
 * or in-cluster) with client options co (NULL: defaults). NULL with e set.
 */
struct kube_client *cluster_source_client(const struct srv_options *o,
                                          const struct kube_client_opts *co,
                                          struct err *e);

/* Informer messages to the log (a kube_log_fn). */
void cluster_source_log(void *arg, int level, const char *msg);

/* A live source: the informers feeding a cache and the sync watcher. */
struct cluster_source {
    struct server *srv;           /* readiness is reported here */
    struct kube_cache *cache;     /* the cache the informers feed */
    struct kube_informers *infs;  /* NULL: the cache's own informers */
    int poll_ms;                  /* how often the watcher looks */
    void (*on_synced)(void *arg); /* run once ready (may be NULL) */
    unsigned kinds; /* what a sink is fed: KUBE_KIND_BIT()s; 0: ALL */
    void *arg;
    /* Private. */
    pthread_t thread;
    bool running;
    atomic_bool stop;
};

/*
 * List and watch into cs->cache: through sink (a feed such as the
 * scheduler's, which passes events on to the cache) for every kind, or,
 * sink NULL, through the cache's own informers for the kinds it needs.
 * cs->srv, cs->cache set. Returns 0, or -1 with e set.
 */
int cluster_source_start_informers(struct cluster_source *cs,
                                   struct kube_client *client,
                                   const struct kube_informer_sink *sink,
                                   struct err *e);

/*
 * Start the sync watcher: every cs->poll_ms, /readyz shows the
 * informers' last error (or that the first lists are awaited) until the
 * cache is synced; then the server is marked ready and cs->on_synced runs
 * on the watcher thread. Returns 0, or -1 with e set.
 */
int cluster_source_watch_sync(struct cluster_source *cs, struct err *e);

/* Stop and join the sync watcher (the informers stay). Idempotent. */
void cluster_source_stop(struct cluster_source *cs);

#endif
