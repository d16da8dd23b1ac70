/*
 * http.h: the HTTP server: N worker threads, each with its own event_base
 * and evhttp, accepting from one shared listening socket; a route table
 * with exact paths; /healthz, /readyz, /metrics and /version built in;
 * TLS through bufferevent_openssl; graceful drain.
 *
 * Life cycle: srv_new() -> srv_register_*() -> srv_start() -> (srv_run()
 * on the main thread, or srv_stop() + srv_wait()) -> srv_free().
 */
#ifndef SERVER_HTTP_HTTP_H
#define SERVER_HTTP_HTTP_H

#include <stddef.h>

#include "kube/base/err.h"
#include "server/http/http_server.h"

/*
 * Memory per request: its arena (the body's copy, the parse, evaluation)
 * and its answer may hold SRV_REQ_MEM_FACTOR times the body plus
 * SRV_REQ_MEM_BASE, else the request gets 413; all requests in flight
 * share --max-inflight-bytes, else 503 (see SECURITY.md for the figures).
 */
#define SRV_REQ_MEM_FACTOR 8
#define SRV_REQ_MEM_BASE   (8 << 20)

/*
 * Requests with a body above SRV_SMALL_BODY may not take the last
 * 1/SRV_SMALL_RESERVE_DIV of --max-inflight-bytes, at most
 * SRV_SMALL_RESERVE_MAX: while big requests hold the rest, small ones
 * (kube-scheduler's names-mode calls) are still answered rather than
 * refused with 503. Kept small so that the largest body the defaults
 * allow (16 MiB of full nodes, about 6 x its size to answer) still fits.
 */
#define SRV_SMALL_BODY        (1 << 20)
#define SRV_SMALL_RESERVE_DIV 8
#define SRV_SMALL_RESERVE_MAX (8 << 20)

/* What a handler sees; every pointer is valid until the handler returns. */
struct srv_request {
    const char *method;  /* "GET", "POST", ... */
    const char *path;    /* without the query string */
    const char *body;    /* the whole body, NUL-terminated ("" if none) */
    size_t body_len;     /* bytes before the NUL (the body may hold NULs) */
    struct arena *arena; /* per request, destroyed after the reply */
    void *ev;            /* private: the evhttp_request */
};

/* Filled by the handler through srv_reply*(). */
struct srv_response {
    int status;
    const char *content_type;
    const char *body; /* borrowed until the handler returns */
    size_t len;
    int replied;
    int owned; /* body is malloc'd and handed over (srv_reply_owned) */
    void *ev;  /* private */
    /* Headers added, "name\0value\0" each (srv_response_header): kept
     * here, not in evhttp's request, which a handler on the pool must not
     * touch. */
    size_t hdr_len;
    char hdrs[192];
};

/*
 * A server for options o (copied; its strings must outlive the server).
 * Registers the built-in routes and metrics. NULL with e set on failure.
 */
struct server *srv_new(const struct srv_options *o, struct err *e);

/*
 * Add a route for an exact path (copied). methods is SRV_GET, SRV_POST or
 * both. Only before srv_start(). Returns 0, or -1 with e set (duplicate
 * path, table full, bad path).
 */
int srv_register_route(struct server *s, const char *path, unsigned methods,
                       srv_handler_fn *fn, void *arg, struct err *e);

/*
 * Register an extender verb: POST <url-prefix>/<verb>, e.g. "filter" under
 * --url-prefix /scheduler serves POST /scheduler/filter.
 */
int srv_register_verb(struct server *s, const char *verb, srv_handler_fn *fn,
                      void *arg, struct err *e);

/* Set readiness. reason (copied) is shown by /readyz while not ready. */
void srv_set_ready(struct server *s, int ready, const char *reason);

/*
 * Bind the listening socket, set up TLS, start the workers. Returns 0, or
 * -1 with e set (the address and the cause). s->port holds the bound port.
 */
int srv_start(struct server *s, struct err *e);

/*
 * Begin a graceful stop: workers stop accepting, answer what is in
 * flight (with Connection: close), then exit. Thread-safe, idempotent.
 */
void srv_stop(struct server *s);

/* Wait for every worker to exit (after srv_stop()). */
void srv_wait(struct server *s);

/*
 * Serve until SIGTERM or SIGINT (then drain and return 0); SIGHUP calls
 * s->reload. Call after srv_start() on the thread that owns signals.
 * Returns -1 with e set if the signal handlers cannot be installed.
 */
int srv_run(struct server *s, struct err *e);

/*
 * Block SIGTERM, SIGINT and SIGHUP in the calling thread (call first thing
 * in main, before loading anything), so one that arrives before srv_run
 * has installed its handlers waits instead of killing the process;
 * srv_run unblocks them once it handles them.
 */
void srv_block_signals(void);
void srv_unblock_signals(void);

/* Stop (if running), wait, and free everything. NULL is fine. */
void srv_free(struct server *s);

/* Answer with status and a body (copied when the handler returns). */
void srv_reply(struct srv_response *r, int status, const char *content_type,
               const char *body, size_t len);
/* srv_reply() with a NUL-terminated body: JSON, or plain text. */
void srv_reply_json(struct srv_response *r, int status, const char *json);
/*
 * Reply with a malloc'd body whose ownership passes to the server: it is
 * sent without a copy and freed after the write. body NULL gives a 500.
 */
void srv_reply_owned(struct srv_response *r, int status,
                     const char *content_type, char *body, size_t len);
void srv_reply_text(struct srv_response *r, int status, const char *text);

/* Add a response header (both copied, 190 bytes in all at most). Returns
 * 0 or -1. */
int srv_response_header(struct srv_response *r, const char *name,
                        const char *value);

#endif
