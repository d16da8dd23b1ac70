/*
 * http_worker.h: one worker of the HTTP server (its thread, event_base and
 * evhttp, its connections) and the graceful drain. Used by the http_*.c
 * files only.
 */
#ifndef SERVER_HTTP_HTTP_WORKER_H
#define SERVER_HTTP_HTTP_WORKER_H

#include <pthread.h>
#include <sys/time.h>
#include <time.h>

#include "kube/base/err.h"
#include "server/http/http_conns.h"
#include "server/http/http_server.h"

struct srv_worker {
    struct server *srv;
    int index;
    pthread_t tid;
    int thread_started;
    struct event_base *base;
    struct evhttp *http;
    struct evhttp_bound_socket *bound;
    struct event *drain_ev; /* activated by srv_stop() from any thread */
    struct event *check_ev; /* while draining: are we idle yet? */
    struct event *trim_ev;  /* a quiet second after a big request */
    struct timeval read_tv, idle_tv;
    struct timespec drain_deadline;
    int busy; /* requests dispatched and not yet fully written */
    struct srv_conns conns;
};

/* The worker running on this thread (its input callbacks need it). */
extern _Thread_local struct srv_worker *srv_this_worker;

/*
 * Set up w (index set, the rest zeroed) for server s: event base, evhttp
 * with the limits and the router, a listener on s->listen_fd, the drain
 * events and the connection tracking. Returns 0, or -1 with e set (what
 * was made is freed by srv_worker_free).
 */
int srv_worker_init(struct server *s, struct srv_worker *w, struct err *e);

/* The worker thread (arg: the worker): serve until drained. */
void *srv_worker_main(void *arg);

/*
 * A request that used more than SRV_TRIM_AFTER bytes has finished on w:
 * once no such request has finished for SRV_TRIM_QUIET_MS, malloc's free
 * memory goes back to the system. Not at once: during a run of big
 * requests it is reused, rather than faulted in again for each; unless
 * malloc keeps more free memory than half of --max-inflight-bytes, which
 * is given back at once.
 */
#define SRV_TRIM_AFTER    (16u << 20)
#define SRV_TRIM_QUIET_MS 1000
void srv_worker_big_done(struct srv_worker *w);

/* Free what srv_worker_init made and zero w. */
void srv_worker_free(struct srv_worker *w);

#endif
