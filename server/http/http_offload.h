/*
 * http_offload.h: requests with a big body are evaluated off the thread
 * that owns their connection. The worker copies the body and queues the
 * call; a pool thread runs the handler; the worker's event loop, woken by
 * an event, writes the answer. A big evaluation (16 MiB of full nodes
 * takes about 0.25 s) then no longer holds up the other connections of its
 * worker, kept-alive ones included. Used by the http_*.c files only.
 */
#ifndef SERVER_HTTP_HTTP_OFFLOAD_H
#define SERVER_HTTP_HTTP_OFFLOAD_H

#include "kube/base/err.h"
#include "server/http/http_server.h"

struct srv_worker;
struct event;

/* Bodies above this go to the pool (the small requests' reserve uses the
 * same line: SRV_SMALL_BODY). */
#define SRV_OFFLOAD_BODY SRV_SMALL_BODY

struct srv_job {
    struct srv_job *prev, *next; /* every job not yet finished */
    struct srv_job *queued;      /* the queue, oldest first */
    struct srv_worker *w;
    struct event *done;               /* on w's base: the handler returned */
    int state;                        /* http_offload.c: SRV_JOB_* */
    void (*run)(struct srv_job *);    /* pool thread: the handler */
    void (*finish)(struct srv_job *); /* worker thread: answer, free */
    void (*drop)(struct srv_job *);   /* worker thread, at exit: free */
};

/* Start n pool threads for s (s->offload). Returns 0, or -1 with e set. */
int srv_offload_start(struct server *s, int n, struct err *e);

/* Stop and join the pool threads (after the workers have exited). */
void srv_offload_stop(struct server *s);

/*
 * Queue j (run, finish and drop set; j->w its worker, on that worker's
 * thread). Returns 0, or -1 when there is no pool or no memory: the
 * caller runs the handler itself.
 */
int srv_offload_submit(struct server *s, struct srv_job *j);

/*
 * On w's thread, once its event loop has ended: jobs of w still queued
 * are dropped, running ones waited for, then dropped too (their answer
 * has no loop left to be written from).
 */
void srv_offload_quiesce(struct server *s, struct srv_worker *w);

#endif
