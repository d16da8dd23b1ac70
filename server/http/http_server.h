/*
 * http_server.h: struct server, the state every part of the HTTP server
 * shares: options, readiness, the reload hook, metrics and the HTTP
 * machinery (server/http*.c). Passed as the handlers' context.
 */
#ifndef SERVER_HTTP_HTTP_SERVER_H
#define SERVER_HTTP_HTTP_SERVER_H

#include <pthread.h>
#include <stdatomic.h>

#include "kube/base/arena.h"
#include "server/common/metrics.h"
#include "server/common/options.h"

#define SRV_MAX_ROUTES 32
#define SRV_CODE_SLOTS 12

struct server;
struct srv_request;
struct srv_response;
struct srv_worker;
struct ssl_ctx_st;
struct srv_offload;

/*
 * A route handler. Runs on a worker thread; many run at once, so it must
 * only read shared state or synchronise. It answers through srv_reply*()
 * exactly once; answering nothing gives a 500.
 */
typedef void srv_handler_fn(struct server *s, const struct srv_request *req,
                            struct srv_response *resp, void *arg);

/* SIGHUP hook, run on the main thread. Returns 0, or -1 (logged). */
typedef int srv_reload_fn(struct server *s, void *arg);

/* Methods a route accepts (GET routes also answer HEAD). */
#define SRV_GET  0x1u
#define SRV_POST 0x2u
/* With the methods: answer on the worker's own thread, never on the
 * evaluation pool (probes, /metrics: cheap, and answered even while every
 * pool thread is stuck). Other routes always run on the pool, under
 * --eval-timeout. */
#define SRV_INLINE 0x4u

/*
 * What the pool's watchdog may ask the application about a pool thread
 * (http_offload.c): thread_begin runs on each pool thread as it starts and
 * returns its record; seq(rec) is odd while the thread is inside a call
 * that can hang (a plugin call) and changes with every call; describe
 * names that call. All may be NULL (no naming, no --plugin-timeout).
 */
struct srv_thread_probe {
    void *(*thread_begin)(void);
    void (*thread_end)(void *rec);
    unsigned long (*seq)(const void *rec);
    int (*describe)(const void *rec, char *buf, size_t n);
};

struct srv_route {
    const char *path; /* exact match, owned by server.arena */
    unsigned methods; /* SRV_GET | SRV_POST */
    srv_handler_fn *fn;
    void *arg;
    /* Metrics, per status code (lazily registered) and per outcome. */
    _Atomic(struct metrics_counter *) by_code[SRV_CODE_SLOTS];
    _Atomic(struct metrics_histogram *) by_outcome[3]; /* ok, 4xx, 5xx */
};

struct server {
    struct srv_options opts; /* strings owned by the caller's arena */
    struct arena arena;      /* route paths and other server-owned text */
    struct metrics *metrics; /* register more series here at any time */

    /* Readiness: /readyz answers 200 only when ready is nonzero. */
    atomic_int ready;
    pthread_mutex_t lock; /* guards not_ready_reason, unhealthy_reason */
    char not_ready_reason[256];
    /* Liveness: /healthz answers 500 with the reason once set (a call
     * stuck past --plugin-timeout, stuck threads past the bound). */
    atomic_int unhealthy;
    char unhealthy_reason[512];
    const struct srv_thread_probe *probe; /* set before srv_start */

    /* SIGHUP calls reload(s, reload_arg); the default logs the request. */
    srv_reload_fn *reload;
    void *reload_arg;

    /* The application's state (policy, cluster), for its handlers. */
    void *app;

    /* Below: owned by server/http*.c. */
    struct srv_route routes[SRV_MAX_ROUTES];
    size_t n_routes;
    struct srv_route unmatched; /* metrics for 404s */
    int listen_fd;
    int port; /* bound port, after srv_start() */
    struct ssl_ctx_st *ssl_ctx;
    struct srv_worker *workers;
    int n_workers;
    struct srv_offload *offload; /* big requests' handlers (http_offload.c) */
    int started;
    atomic_int stopping;
    double start_time; /* Unix seconds */
    /* Connections (server/http/http_conns.c). */
    atomic_int conns_open;
    int max_conns; /* --max-connections, or derived at srv_start() */
    atomic_llong pause_logged;    /* ms of the last "not accepting" line */
    atomic_llong pauses_unlogged; /* pauses since that line */
    struct metrics_counter *accept_paused_cap;
    struct metrics_counter *accept_paused_error;
    struct metrics_counter *conns_shed;
    struct metrics_counter *chunk_refused;    /* corrupt chunked bodies: 400 */
    struct metrics_counter *header_refused;   /* bad header sections: 400 */
    struct metrics_counter *deadline_headers; /* --header-timeout missed */
    struct metrics_counter *deadline_body;    /* --body-timeout missed */
    struct metrics_counter *eval_late;        /* --eval-timeout missed */
    /* Memory of requests in flight: bytes received and not yet answered,
     * request arenas and answers being built or written, against
     * --max-inflight-bytes (server/http/http_body.c, server/http/http_conns.c).
     */
    struct arena_budget mem;
    atomic_llong mem_receiving; /* the part of mem.used still being read:
                                 * at most half of the cap (the rest is
                                 * for answering) */
    atomic_llong last_big_ms;   /* ms, monotonic: a big request finished
                                 * (http_worker.c: malloc_trim once quiet) */
    struct metrics_counter *mem_refused_request;
    struct metrics_counter *mem_refused_inflight;
};

#endif
