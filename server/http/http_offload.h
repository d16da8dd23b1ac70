/*
 * http_offload.h: requests are evaluated off the thread that owns their
 * connection (every route but the SRV_INLINE ones: probes, /metrics). The
 * worker copies the body and queues the call; a pool thread runs the
 * handler; the worker's event loop, woken by an event, writes the answer.
 * A big evaluation (16 MiB of full nodes takes about 0.25 s) then no
 * longer holds up the other connections of its worker, kept-alive ones
 * included, and a stuck one holds up nothing but its pool thread.
 *
 * Deadlines (issue 29): a watchdog thread answers 503 for a call not done
 * --eval-timeout after it was queued (waiting included). A call still
 * running then is abandoned to its pool thread, which frees it whenever
 * the handler returns, and a new thread takes its place, up to as many
 * replacements at once as the pool has threads; past that /healthz fails.
 * With a probe (struct srv_thread_probe), the watchdog names the plugin
 * call a late thread is in, and one plugin call running past
 * --plugin-timeout is logged and makes /healthz fail (issue 26).
 * Used by the http_*.c files only.
 */
#ifndef SERVER_HTTP_HTTP_OFFLOAD_H
#define SERVER_HTTP_HTTP_OFFLOAD_H

#include "kube/base/err.h"
#include "server/http/http_server.h"

struct srv_worker;
struct srv_pool_thread;
struct event;

/* A job whose body is over this is big (http.h: SRV_SMALL_BODY). */
#define SRV_OFFLOAD_BODY SRV_SMALL_BODY

/* How often the watchdog looks at the deadlines. */
#define SRV_WATCHDOG_TICK_MS 100

struct srv_job {
    struct srv_job *prev, *next; /* every job not yet finished */
    struct srv_job *queued;      /* the queue, oldest first */
    struct srv_worker *w;
    struct event *done;             /* on w's base: the handler returned */
    int state;                      /* http_offload.c: SRV_JOB_* */
    double deadline;                /* kube_now() seconds */
    struct srv_pool_thread *thread; /* running it */
    int answered;                   /* late: the worker has answered */
    int big; /* its body is over SRV_OFFLOAD_BODY (a long evaluation) */
    void (*run)(struct srv_job *);    /* pool thread: the handler */
    void (*finish)(struct srv_job *); /* worker thread: answer, free */
    void (*late)(struct srv_job *);   /* worker thread: answer 503 only */
    void (*drop)(struct srv_job *);   /* any thread: free, no answer */
};

/*
 * Start 2 x n pool threads for s (s->offload) and the watchdog: at most n
 * of them run big jobs at once, so small requests keep n threads. Returns
 * 0, or -1 with e set.
 */
int srv_offload_start(struct server *s, int n, struct err *e);

/* Stop and join the pool threads (after the workers have exited). */
void srv_offload_stop(struct server *s);

/*
 * Queue j (run, finish, late and drop set; j->w its worker, on that
 * worker's thread). Returns 0, or -1 when there is no pool or no memory:
 * the caller runs the handler itself.
 */
int srv_offload_submit(struct server *s, struct srv_job *j);

/*
 * On w's thread, once its event loop has ended: jobs of w still queued
 * are dropped, running ones waited for, then dropped too (their answer
 * has no loop left to be written from); late ones are left to their
 * threads.
 */
void srv_offload_quiesce(struct server *s, struct srv_worker *w);

#endif
