/*
 * http_conns.c: open connections, their cap and the accept back-off (see
 * http_conns.h).
 *
 * evhttp (libevent 2.1) tells nothing when it accepts or frees a
 * connection, so: the bevcb (srv_conns_accepted) counts each accepted
 * connection and keeps a reference on its bufferevent; an event that runs
 * right after the accept callback reads the evhttp connection back from
 * the bufferevent's callback argument and sets the close callback, which
 * evhttp calls exactly once when the connection is reset or freed. Input
 * on a connection moves it to the newest end of a list, so the connection
 * silent for longest is at the oldest end.
 */
#include "server/http_conns.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "server/log.h"
#include "server/server.h"

struct srv_conn {
    struct srv_conn *older, *newer;
    struct srv_conns *owner;
    struct evhttp_connection *evcon;
    struct bufferevent *bev;
    struct evbuffer_cb_entry *input_cb;
    double last_active; /* ms, monotonic */
};

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

long srv_raise_nofile(void)
{
    struct rlimit rl;
    rlim_t was;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        LOG_WARN("open files: cannot read the limit: %s", strerror(errno));
        return -1;
    }
    was = rl.rlim_cur;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            LOG_WARN("open files: cannot raise the soft limit %llu to the "
                     "hard limit %llu: %s",
                     (unsigned long long)was, (unsigned long long)rl.rlim_max,
                     strerror(errno));
            rl.rlim_cur = was;
        }
    }
    LOG_INFO("open files: soft limit %llu (was %llu), hard limit %llu",
             (unsigned long long)rl.rlim_cur, (unsigned long long)was,
             (unsigned long long)rl.rlim_max);
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)1 << 30)
        return 1L << 30;
    return (long)rl.rlim_cur;
}

int srv_default_max_connections(long nofile)
{
    long n = nofile - SRV_FD_RESERVE;

    if (nofile <= 0)
        return 1024 - SRV_FD_RESERVE;
    if (n > 1000000)
        n = 1000000;
    return n < 16 ? 16 : (int)n;
}

/* ---- the list, by last activity ---------------------------------- */

static void unlink_conn(struct srv_conns *c, struct srv_conn *k)
{
    if (k->older)
        k->older->newer = k->newer;
    else
        c->oldest = k->newer;
    if (k->newer)
        k->newer->older = k->older;
    else
        c->newest = k->older;
    k->older = k->newer = NULL;
}

static void push_newest(struct srv_conns *c, struct srv_conn *k)
{
    k->older = c->newest;
    k->newer = NULL;
    if (c->newest)
        c->newest->newer = k;
    else
        c->oldest = k;
    c->newest = k;
}

static void on_conn_input(struct evbuffer *buf,
                          const struct evbuffer_cb_info *info, void *arg)
{
    struct srv_conn *k = arg;

    (void)buf;
    if (!info->n_added)
        return;
    k->last_active = now_ms();
    if (k->owner->newest != k) {
        unlink_conn(k->owner, k);
        push_newest(k->owner, k);
    }
}

/* evhttp's close callback: the connection is gone (reset or freed). */
static void on_conn_close(struct evhttp_connection *evcon, void *arg)
{
    struct srv_conn *k = arg;
    struct server *s = k->owner->srv;

    (void)evcon;
    /* An answer still unwritten gets no on_complete (see http.c). */
    if (evbuffer_get_length(bufferevent_get_output(k->bev)) != 0)
        (*k->owner->busy)--;
    evbuffer_remove_cb_entry(bufferevent_get_input(k->bev), k->input_cb);
    unlink_conn(k->owner, k);
    atomic_fetch_sub(&s->conns_open, 1);
    free(k);
}

/* ---- pausing ------------------------------------------------------ */

/* Log the pauses at most once a second, with how many since the last. */
static void log_pause(struct server *s, const char *why)
{
    long long now = (long long)now_ms(), last = atomic_load(&s->pause_logged);
    long long n;

    atomic_fetch_add(&s->pauses_unlogged, 1);
    if (now - last < 1000 ||
        !atomic_compare_exchange_strong(&s->pause_logged, &last, now))
        return;
    n = atomic_exchange(&s->pauses_unlogged, 0);
    LOG_WARN("not accepting connections for a moment: %s (%d open, cap "
             "%d; %lld pauses since the last message)",
             why, atomic_load(&s->conns_open), s->max_conns, n);
}

/*
 * Close this worker's connection silent for longest, if it has been silent
 * for SRV_SHED_MIN_IDLE_MS and has no answer waiting to be written.
 * Returns 1 when one was closed. evhttp sees the end of the stream on its
 * next read and frees the connection, which closes the descriptor.
 */
static int shed_idle(struct srv_conns *c)
{
    double limit = now_ms() - SRV_SHED_MIN_IDLE_MS;
    struct srv_conn *k;
    int looked = 0;

    for (k = c->oldest; k && looked < 8; k = k->newer, looked++) {
        if (k->last_active > limit)
            return 0;
        if (evbuffer_get_length(bufferevent_get_output(k->bev)) != 0)
            continue;
        shutdown(bufferevent_getfd(k->bev), SHUT_RDWR);
        /* Not a candidate again while evhttp gets round to it. */
        k->last_active = now_ms();
        unlink_conn(c, k);
        push_newest(c, k);
        metrics_counter_add(c->srv->conns_shed, 1);
        return 1;
    }
    return 0;
}

/* Stop accepting for ms milliseconds. */
static void pause_accepting(struct srv_conns *c, int ms)
{
    struct timeval tv = { 0, ms * 1000 };

    if (c->paused || !c->listener)
        return;
    evconnlistener_disable(c->listener);
    c->paused = 1;
    event_add(c->resume_ev, &tv);
}

static void on_resume(evutil_socket_t fd, short what, void *arg)
{
    struct srv_conns *c = arg;

    (void)fd;
    (void)what;
    c->paused = 0;
    if (!c->listener)
        return;
    if (atomic_load(&c->srv->conns_open) >= c->srv->max_conns &&
        !shed_idle(c)) {
        /* Still full, nothing idle to close: wait another round. */
        pause_accepting(c, SRV_ACCEPT_BACKOFF_MS);
        return;
    }
    evconnlistener_enable(c->listener);
}

/* ---- accepting ---------------------------------------------------- */

static void on_adopt(evutil_socket_t fd, short what, void *arg)
{
    struct srv_conns *c = arg;
    size_t i;

    (void)fd;
    (void)what;
    for (i = 0; i < c->n_fresh; i++) {
        struct bufferevent *bev = c->fresh[i];
        bufferevent_data_cb rd = NULL;
        void *cbarg = NULL;
        struct srv_conn *k = NULL;

        bufferevent_getcb(bev, &rd, NULL, NULL, &cbarg);
        /* No read callback: evhttp failed to set it up and freed it. */
        if (rd && cbarg)
            k = calloc(1, sizeof(*k));
        if (k) {
            k->owner = c;
            k->evcon = cbarg;
            k->bev = bev;
            k->last_active = now_ms();
            k->input_cb =
                evbuffer_add_cb(bufferevent_get_input(bev), on_conn_input, k);
        }
        if (k && k->input_cb) {
            push_newest(c, k);
            evhttp_connection_set_closecb(k->evcon, on_conn_close, k);
        } else {
            free(k);
            atomic_fetch_sub(&c->srv->conns_open, 1);
        }
        bufferevent_decref(bev);
    }
    c->n_fresh = 0;
}

void srv_conns_accepted(struct srv_conns *c, struct bufferevent *bev)
{
    struct server *s = c->srv;
    int open = atomic_fetch_add(&s->conns_open, 1) + 1;

    if (c->n_fresh == c->cap_fresh) {
        size_t n = c->cap_fresh ? c->cap_fresh * 2 : 64;
        struct bufferevent **f = realloc(c->fresh, n * sizeof(*f));

        if (!f) {
            /* Uncounted rather than lost: it still works. */
            atomic_fetch_sub(&s->conns_open, 1);
            return;
        }
        c->fresh = f;
        c->cap_fresh = n;
    }
    bufferevent_incref(bev);
    c->fresh[c->n_fresh++] = bev;
    event_active(c->adopt_ev, 0, 0);
    if (open < s->max_conns)
        return;
    if (shed_idle(c))
        return;
    metrics_counter_add(s->accept_paused_cap, 1);
    log_pause(s, "connection cap reached");
    pause_accepting(c, SRV_ACCEPT_BACKOFF_MS);
}

void srv_conns_accept_failed(struct srv_conns *c, int err)
{
    struct server *s = c->srv;
    char why[128];

    int shed = 0;

    snprintf(why, sizeof(why), "accept(): %s", strerror(err));
    metrics_counter_add(s->accept_paused_error, 1);
    /* Out of descriptors: idle connections can make room. They close on
     * evhttp's next read, so try again soon after. */
    while ((err == EMFILE || err == ENFILE) && shed < SRV_SHED_BATCH &&
           shed_idle(c))
        shed++;
    log_pause(s, why);
    pause_accepting(c, shed ? SRV_ACCEPT_RETRY_MS : SRV_ACCEPT_BACKOFF_MS);
}

int srv_conns_init(struct srv_conns *c, struct server *s,
                   struct event_base *base, struct evconnlistener *l, int *busy)
{
    memset(c, 0, sizeof(*c));
    c->busy = busy;
    c->srv = s;
    c->base = base;
    c->listener = l;
    c->resume_ev = evtimer_new(base, on_resume, c);
    c->adopt_ev = event_new(base, -1, 0, on_adopt, c);
    return c->resume_ev && c->adopt_ev ? 0 : -1;
}

void srv_conns_forget_listener(struct srv_conns *c)
{
    c->listener = NULL;
}

void srv_conns_free(struct srv_conns *c)
{
    if (c->n_fresh)
        on_adopt(-1, 0, c);
    if (c->resume_ev)
        event_free(c->resume_ev);
    if (c->adopt_ev)
        event_free(c->adopt_ev);
    free(c->fresh);
    c->resume_ev = c->adopt_ev = NULL;
    c->fresh = NULL;
}
