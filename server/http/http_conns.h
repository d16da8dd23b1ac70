/*
 * http_conns.h: open connections of the HTTP server's workers (issue 19):
 * the open-file limit raised at start, a cap on connections, accepting
 * paused for a short back-off at the cap or on EMFILE (never a spinning
 * accept loop), and the least recently active connections closed when the
 * cap is reached so that new clients are still answered; the bytes each
 * connection holds (received and not yet answered, answers not yet
 * written) counted in the server's memory in flight, and reading paused
 * while that is over --max-inflight-bytes.
 *
 * Used by the server/http_*.c files only. Each worker owns one struct srv_conns
 * and calls everything from its own thread; the totals are atomics in struct
 * server, shared by the workers.
 */
#ifndef SERVER_HTTP_HTTP_CONNS_H
#define SERVER_HTTP_HTTP_CONNS_H

#include <stddef.h>

struct bufferevent;
struct event;
struct event_base;
struct evconnlistener;
struct server;
struct srv_conn;
struct srv_linger;

/* Accepting resumes this long after a pause (cap reached, EMFILE)... */
#define SRV_ACCEPT_BACKOFF_MS 100
/* ...or this long when idle connections were closed to make room. */
#define SRV_ACCEPT_RETRY_MS 5
/* Idle connections closed at once when accept() runs out of descriptors. */
#define SRV_SHED_BATCH 16
/* A connection silent this long may be closed to make room for a new one. */
#define SRV_SHED_MIN_IDLE_MS 250
/* Descriptors kept free below the open-file limit for the rest of the
 * process (policy and cluster files, the API client, logs). */
#define SRV_FD_RESERVE 64

/*
 * While a reply is being written, evhttp does not parse the connection's
 * input but the bufferevent keeps reading it: a client that never reads
 * its answers and keeps pipelining would grow that buffer without bound.
 * Reading stops once this much is buffered and resumes when the reply has
 * been written (http_response.c: srv_send_response; http_keepalive.c:
 * srv_on_complete).
 */
#define SRV_PIPELINE_READ_LIMIT (64 << 10)
/*
 * A connection closed by the server while its client is still sending (a
 * 413 from the headers, a 400) is read and discarded for up to this long
 * and this much, so the client reads the answer instead of a reset; at
 * most SRV_LINGER_MAX such connections per worker at once.
 */
#define SRV_LINGER_MS    2000
#define SRV_LINGER_BYTES (64 << 20)
#define SRV_LINGER_MAX   64
/* How often throttled connections are looked at (memory in flight). */
#define SRV_THROTTLE_TICK_MS 20
/*
 * Requests being received, oldest first, are looked at this often against
 * --header-timeout and --body-timeout (absolute deadlines from a request's
 * first byte). At the connection cap, one whose headers have been
 * arriving for SRV_SHED_SLOW_HEADERS_MS (a client sends them in one go)
 * may be closed to make room, as a silent one is.
 */
#define SRV_DEADLINE_TICK_MS     250
#define SRV_SHED_SLOW_HEADERS_MS 1000

struct srv_conns {
    struct server *srv;
    struct event_base *base;
    struct evconnlistener *listener; /* NULL once draining */
    struct event *resume_ev;         /* re-enables the listener */
    struct event *adopt_ev;          /* takes in the connections accepted */
    struct bufferevent **fresh;      /* accepted, not yet adopted */
    size_t n_fresh, cap_fresh;
    struct srv_conn *oldest, *newest; /* by last activity */
    /* Connections receiving a request, by the request's first byte. */
    struct srv_conn *recv_oldest, *recv_newest;
    struct event *deadline_ev; /* SRV_DEADLINE_TICK_MS while any */
    int header_timeout_ms, body_timeout_ms;
    int paused;
    struct event *throttle_ev; /* resumes reading when memory frees */
    int n_throttled;
    int read_timeout_ms; /* a throttled connection is closed after it */
    int n_lingering;
    struct srv_linger *lingering; /* sockets drained before closing */
    int *busy; /* the worker's replies in flight: one closing with its
                * reply unwritten is no longer in flight */
};

/*
 * Raise the soft RLIMIT_NOFILE to the hard limit and log both. Returns the
 * soft limit now in force (-1 when it cannot be read).
 */
long srv_raise_nofile(void);

/* The default --max-connections for a soft open-file limit. */
int srv_default_max_connections(long nofile);

/*
 * Set up c for a worker; l is its listener, busy its count of replies in
 * flight. Returns 0 or -1.
 */
int srv_conns_init(struct srv_conns *c, struct server *s,
                   struct event_base *base, struct evconnlistener *l, int *busy,
                   int read_timeout_s);

/* Stop pausing and resuming the listener (it is being freed). */
void srv_conns_forget_listener(struct srv_conns *c);

/* Free what srv_conns_init made; open connections untouched. */
void srv_conns_free(struct srv_conns *c);

/*
 * A connection was just accepted and bev made for it (the evhttp bevcb):
 * count it, pause accepting at the cap (after closing an idle connection
 * if one can go), and adopt it once evhttp has set it up.
 */
void srv_conns_accepted(struct srv_conns *c, struct bufferevent *bev);

/* The listener's accept() failed (EMFILE, ENFILE, ENOBUFS...): pause. */
void srv_conns_accept_failed(struct srv_conns *c, int err);

#endif
