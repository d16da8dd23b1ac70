/*
 * http_conns.c: open connections, their cap and the accept back-off, the
 * bytes they hold in the memory in flight, and the lingering close (see
 * http_conns.h).
 *
 * evhttp (libevent 2.1) tells nothing when it accepts or frees a
 * connection, so: the bevcb (srv_conns_accepted) counts each accepted
 * connection and keeps a reference on its bufferevent; an event that runs
 * right after the accept callback reads the evhttp connection back from
 * the bufferevent's callback argument and sets the close callback, which
 * evhttp calls exactly once when the connection is reset or freed. Input
 * on a connection moves it to the newest end of a list, so the connection
 * silent for longest is at the oldest end. Callbacks on the bufferevent's
 * input and output buffers count the bytes received and not yet answered
 * and the answers not yet written in the server's memory in flight; the
 * input callback also feeds the framing watch (http_framing_watch.h),
 * which turns a corrupt chunked body or a header section RFC 9112 refuses
 * into a 400.
 */
#include "server/http/http_conns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kube/base/clock.h"
#include "server/common/log.h"
#include "server/http/http_framing_watch.h"
#include "server/http/http_server.h"
#include "server/http/http_tls.h"

struct srv_conn {
    struct srv_conn *older, *newer;
    struct srv_conns *owner;
    struct evhttp_connection *evcon;
    struct bufferevent *bev;
    struct evbuffer_cb_entry *input_cb, *output_cb;
    double last_active;  /* ms, monotonic */
    size_t in_held;      /* bytes received and not yet answered */
    double throttled_at; /* ms; 0 while reading freely */
    struct srv_framing_watch fw;
    uint64_t consumed;   /* input bytes evhttp has taken */
    int corrupt_pending; /* a refused request waits its turn */
    /* TLS: evhttp's callbacks and their argument, wrapped (on_tls_*). */
    bufferevent_data_cb evhttp_read, evhttp_write;
    bufferevent_event_cb evhttp_event;
    void *evhttp_arg;
    /* Receiving a request (http_conns.h: SRV_DEADLINE_TICK_MS). */
    struct srv_conn *recv_older, *recv_newer;
    double req_began; /* ms of its first byte; 0 when not receiving */
    int headers_done; /* its header section has all arrived */
};

static double now_ms(void)
{
    return kube_now() * 1e3;
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

/* ---- requests being received: absolute deadlines ------------------- */

static void recv_unlink(struct srv_conns *c, struct srv_conn *k)
{
    if (!k->req_began)
        return;
    if (k->recv_older)
        k->recv_older->recv_newer = k->recv_newer;
    else
        c->recv_oldest = k->recv_newer;
    if (k->recv_newer)
        k->recv_newer->recv_older = k->recv_older;
    else
        c->recv_newest = k->recv_older;
    k->recv_older = k->recv_newer = NULL;
    k->req_began = 0;
}

static void recv_begin(struct srv_conns *c, struct srv_conn *k, double now)
{
    struct timeval tick = { 0, SRV_DEADLINE_TICK_MS * 1000 };

    k->req_began = now;
    k->headers_done = 0;
    k->recv_older = c->recv_newest;
    k->recv_newer = NULL;
    if (c->recv_newest)
        c->recv_newest->recv_newer = k;
    else
        c->recv_oldest = k;
    c->recv_newest = k;
    if (!evtimer_pending(c->deadline_ev, NULL))
        evtimer_add(c->deadline_ev, &tick);
}

/*
 * After the framing watch has followed new input of k: a request starts
 * with its first byte, its headers are done once the watch is in its
 * body, and it has all arrived once the watch waits for the next request
 * line. A watch that has stopped following (SRV_FW_OFF) leaves the
 * request receiving until its answer starts (on_conn_output).
 */
static void recv_track(struct srv_conns *c, struct srv_conn *k, double now)
{
    const struct srv_framing_watch *f = &k->fw;
    int between = f->state == SRV_FW_REQUEST && f->line_len == 0;

    if (!k->req_began && !between)
        recv_begin(c, k, now);
    if (!k->req_began)
        return;
    if (f->state != SRV_FW_REQUEST && f->state != SRV_FW_HEADERS &&
        f->state != SRV_FW_OFF)
        k->headers_done = 1;
    if (between)
        recv_unlink(c, k);
}

/* Has k's request (receiving since req_began) missed a deadline? */
static const char *missed_deadline(const struct srv_conns *c,
                                   const struct srv_conn *k, double now)
{
    if (!k->headers_done && now - k->req_began >= c->header_timeout_ms)
        return "headers";
    if (now - k->req_began >= c->body_timeout_ms)
        return "body";
    return NULL;
}

/*
 * Every SRV_DEADLINE_TICK_MS while requests are being received: close the
 * connections whose request missed --header-timeout or --body-timeout,
 * however steadily its bytes trickle in (a slowloris is never silent
 * long enough for --read-timeout). Oldest first: the walk ends at the
 * first request younger than both deadlines. Nothing is answered (as Go);
 * evhttp calls on_conn_close.
 */
static void on_deadline_tick(evutil_socket_t fd, short what, void *arg)
{
    struct timeval tick = { 0, SRV_DEADLINE_TICK_MS * 1000 };
    struct srv_conns *c = arg;
    double now = now_ms();
    int first = c->header_timeout_ms < c->body_timeout_ms ? c->header_timeout_ms
                                                          : c->body_timeout_ms;
    struct srv_conn *k, *next;

    (void)fd;
    (void)what;
    for (k = c->recv_oldest; k && now - k->req_began >= first; k = next) {
        const char *phase = missed_deadline(c, k, now);

        next = k->recv_newer;
        if (!phase)
            continue;
        /* Without the watch: its request may be with the handler
         * (evhttp stops reading then), or being answered. */
        if ((!(bufferevent_get_enabled(k->bev) & EV_READ) &&
             !k->throttled_at) ||
            evbuffer_get_length(bufferevent_get_output(k->bev)) != 0) {
            recv_unlink(c, k);
            continue;
        }
        LOG_VS(2, "HTTP request too slow: connection closed",
               LOG_S("missed", phase),
               LOG_F("seconds", (now - k->req_began) / 1e3));
        metrics_counter_add(*phase == 'h' ? c->srv->deadline_headers
                                          : c->srv->deadline_body,
                            1);
        evhttp_connection_free(k->evcon);
    }
    if (c->recv_oldest)
        evtimer_add(c->deadline_ev, &tick);
}

/* ---- memory in flight ----------------------------------------------- */

/*
 * Reading pauses when the memory in flight is over the cap, or when bytes
 * being received hold more than half of it: clients sending bodies slowly
 * cannot take the memory that answering needs.
 */
static int over_budget(struct server *s)
{
    long long cap = s->mem.cap;

    return cap && (atomic_load(&s->mem.used) > cap ||
                   atomic_load(&s->mem_receiving) > cap / 2);
}

/* Stop reading k until the memory in flight is under the cap again. */
static void throttle(struct srv_conns *c, struct srv_conn *k)
{
    struct timeval tick = { 0, SRV_THROTTLE_TICK_MS * 1000 };

    k->throttled_at = now_ms();
    c->n_throttled++;
    /* Not a read watermark: with evhttp waiting for a whole body, libevent
     * 2.1 re-runs the read callback of a bufferevent at its high mark on
     * every loop (bufferevent_inbuf_wm_check), a busy loop. evhttp keeps
     * reading enabled in every state between callbacks, so enabling it
     * again later restores what it wants. */
    bufferevent_disable(k->bev, EV_READ);
    if (!evtimer_pending(c->throttle_ev, NULL))
        evtimer_add(c->throttle_ev, &tick);
}

static void unthrottle(struct srv_conns *c, struct srv_conn *k)
{
    k->throttled_at = 0;
    c->n_throttled--;
    bufferevent_enable(k->bev, EV_READ);
}

/* Has the peer of fd closed its side (FIN or reset), data pending or not? */
static int peer_closed(evutil_socket_t fd)
{
    struct pollfd p = { fd, POLLRDHUP, 0 };

    return poll(&p, 1, 0) == 1 &&
           (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

/*
 * Every SRV_THROTTLE_TICK_MS while connections are throttled: resume them
 * once the memory in flight is under the cap. One whose peer has closed
 * (a throttled connection reads nothing, so evhttp would not see it), or
 * held longer than --read-timeout (no read timeout runs while reading is
 * off), is freed: else connections holding half bodies could keep the
 * memory for ever.
 */
static void on_throttle_tick(evutil_socket_t fd, short what, void *arg)
{
    struct timeval tick = { 0, SRV_THROTTLE_TICK_MS * 1000 };
    struct srv_conns *c = arg;
    double stale = now_ms() - c->read_timeout_ms;
    int room = !over_budget(c->srv);
    struct srv_conn *k, *next;

    (void)fd;
    (void)what;
    for (k = c->oldest; k && c->n_throttled > 0; k = next) {
        next = k->newer;
        if (!k->throttled_at)
            continue;
        if (room) {
            unthrottle(c, k);
        } else if (k->throttled_at < stale ||
                   peer_closed(bufferevent_getfd(k->bev))) {
            /* Gone, or held too long: its request cannot complete
             * before memory frees. evhttp calls on_conn_close. */
            evhttp_connection_free(k->evcon);
        }
    }
    if (c->n_throttled > 0)
        evtimer_add(c->throttle_ev, &tick);
}

/*
 * The framing watch refused the stream: a chunk size or trailer line that
 * evhttp will reject, and answer 413 as if the body were too long, or a
 * header section evhttp would take. Fail the connection as a read error,
 * which evhttp answers with 400 and
 * closes: stop reading, take what is unread away before evhttp looks at
 * it (it parses right after the input callback, reading disabled or not;
 * the request fails anyway), and raise the error from the event loop.
 * Only while evhttp is reading that very request: everything before it
 * taken and no answer being written. Until then (a request pipelined
 * behind one being answered) it waits, and on_conn_output tries again
 * once an answer is out.
 */
static int evhttp_reads_corrupt_request(const struct srv_conn *k)
{
    return k->consumed >= k->fw.req_start && !k->throttled_at &&
           evbuffer_get_length(bufferevent_get_output(k->bev)) == 0;
}

static void refuse_corrupt_chunk(struct srv_conn *k)
{
    struct evbuffer *in = bufferevent_get_input(k->bev);

    if (!evhttp_reads_corrupt_request(k)) {
        k->corrupt_pending = 1;
        return;
    }
    k->corrupt_pending = 0;
    k->fw.state = SRV_FW_OFF;
    bufferevent_disable(k->bev, EV_READ);
    /* Calls on_conn_input again, with n_deleted only. */
    evbuffer_drain(in, evbuffer_get_length(in));
    bufferevent_trigger_event(k->bev, BEV_EVENT_READING,
                              BEV_TRIG_DEFER_CALLBACKS);
    LOG_VS(2, "HTTP request refused (400)",
           LOG_S("reason", srv_fw_why_text(k->fw.why)));
    metrics_counter_add(k->fw.why == SRV_FW_BAD_CHUNK
                            ? k->owner->srv->chunk_refused
                            : k->owner->srv->header_refused,
                        1);
}

static void on_conn_input(struct evbuffer *buf,
                          const struct evbuffer_cb_info *info, void *arg)
{
    struct srv_conn *k = arg;
    struct server *s = k->owner->srv;

    /* Bytes evhttp takes out stay held (in its request) until answered. */
    if (!info->n_added) {
        k->consumed += info->n_deleted;
        return;
    }
    k->in_held += info->n_added;
    atomic_fetch_add(&s->mem.used, (long long)info->n_added);
    atomic_fetch_add(&s->mem_receiving, (long long)info->n_added);
    if (srv_fw_feed_added(&k->fw, buf, info->n_added))
        refuse_corrupt_chunk(k);
    if (!k->throttled_at && !k->corrupt_pending && over_budget(s))
        throttle(k->owner, k);
    k->last_active = now_ms();
    recv_track(k->owner, k, k->last_active);
    if (k->owner->newest != k) {
        unlink_conn(k->owner, k);
        push_newest(k->owner, k);
    }
}

/*
 * Output: the answer's bytes are held until written. An answer starting
 * means the request it answers is no longer held as input: what is left
 * in the input (pipelined) stays counted.
 */
static void on_conn_output(struct evbuffer *buf,
                           const struct evbuffer_cb_info *info, void *arg)
{
    struct srv_conn *k = arg;
    struct server *s = k->owner->srv;
    long long d = (long long)info->n_added - (long long)info->n_deleted;

    if (info->n_added) {
        size_t left = evbuffer_get_length(bufferevent_get_input(k->bev));
        long long in = (long long)left - (long long)k->in_held;

        atomic_fetch_add(&s->mem_receiving, in);
        d += in;
        k->in_held = left;
        /* Without the watch, an answer is the end of the request. */
        if (k->fw.state == SRV_FW_OFF)
            recv_unlink(k->owner, k);
    }
    atomic_fetch_add(&s->mem.used, d);
    /* An answer is out: the corrupt request may be evhttp's turn now. */
    if (k->corrupt_pending && info->n_deleted && !evbuffer_get_length(buf))
        refuse_corrupt_chunk(k);
}

/* ---- lingering close ---------------------------------------------- */

struct srv_linger {
    struct srv_linger *prev, *next;
    struct srv_conns *owner;
    struct event *ev;
    evutil_socket_t fd;
    double deadline; /* ms */
    size_t drained;
};

static void linger_end(struct srv_linger *l)
{
    if (l->prev)
        l->prev->next = l->next;
    else
        l->owner->lingering = l->next;
    if (l->next)
        l->next->prev = l->prev;
    event_free(l->ev);
    close(l->fd);
    l->owner->n_lingering--;
    free(l);
}

/* Read and discard until the client closes, or the time or bytes run out. */
static void on_linger(evutil_socket_t fd, short what, void *arg)
{
    struct srv_linger *l = arg;
    char buf[16384];
    ssize_t n = 1;

    if (what & EV_READ) {
        while (l->drained < SRV_LINGER_BYTES &&
               (n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
            l->drained += (size_t)n;
        if (n < 0 && (errno == EAGAIN || errno == EINTR) &&
            now_ms() < l->deadline)
            return;
    }
    linger_end(l);
}

/*
 * k is being closed while its client has not closed its side (it may
 * still be sending a body we refused): keep the socket (a duplicate
 * descriptor; evhttp closes its own after shutting down our side, so the
 * answer ends with a FIN) and drain it until the client closes, for a
 * while, rather than have the kernel reset it under the answer.
 */
static void maybe_linger(struct srv_conns *c, struct srv_conn *k)
{
    struct timeval tv = { SRV_LINGER_MS / 1000, SRV_LINGER_MS % 1000 * 1000 };
    evutil_socket_t fd = bufferevent_getfd(k->bev);
    struct srv_linger *l;

    if (fd < 0 || c->n_lingering >= SRV_LINGER_MAX ||
        atomic_load(&c->srv->stopping) || c->srv->ssl_ctx || peer_closed(fd))
        return;
    l = calloc(1, sizeof(*l));
    if (!l)
        return;
    l->owner = c;
    l->deadline = now_ms() + SRV_LINGER_MS;
    l->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (l->fd >= 0)
        l->ev = event_new(c->base, l->fd, EV_READ | EV_PERSIST, on_linger, l);
    if (!l->ev || event_add(l->ev, &tv) != 0) {
        if (l->ev)
            event_free(l->ev);
        if (l->fd >= 0)
            close(l->fd);
        free(l);
        return;
    }
    l->next = c->lingering;
    if (l->next)
        l->next->prev = l;
    c->lingering = l;
    c->n_lingering++;
}

/* evhttp's close callback: the connection is gone (reset or freed). */
static void on_conn_close(struct evhttp_connection *evcon, void *arg)
{
    struct srv_conn *k = arg;
    struct server *s = k->owner->srv;
    size_t out = evbuffer_get_length(bufferevent_get_output(k->bev));

    (void)evcon;
    /* An answer still unwritten gets no on_complete (see http_response.c). */
    if (out != 0)
        (*k->owner->busy)--;
    atomic_fetch_sub(&s->mem.used, (long long)(out + k->in_held));
    atomic_fetch_sub(&s->mem_receiving, (long long)k->in_held);
    if (k->throttled_at)
        k->owner->n_throttled--;
    maybe_linger(k->owner, k);
    recv_unlink(k->owner, k);
    evbuffer_remove_cb_entry(bufferevent_get_input(k->bev), k->input_cb);
    evbuffer_remove_cb_entry(bufferevent_get_output(k->bev), k->output_cb);
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

/* Close k to make room: evhttp sees the end of the stream on its next
 * read and frees the connection, which closes the descriptor. */
static void shed(struct srv_conns *c, struct srv_conn *k)
{
    shutdown(bufferevent_getfd(k->bev), SHUT_RDWR);
    /* Not a candidate again while evhttp gets round to it. */
    k->last_active = now_ms();
    unlink_conn(c, k);
    push_newest(c, k);
    recv_unlink(c, k);
    metrics_counter_add(c->srv->conns_shed, 1);
}

/*
 * The oldest request whose headers have been arriving for more than
 * SRV_SHED_SLOW_HEADERS_MS: a client trickling them (slowloris) is never
 * silent, but a real client sends its headers at once.
 */
static int shed_slow(struct srv_conns *c)
{
    double limit = now_ms() - SRV_SHED_SLOW_HEADERS_MS;
    struct srv_conn *k;
    int looked = 0;

    for (k = c->recv_oldest; k && looked < 8; k = k->recv_newer, looked++) {
        if (k->req_began > limit)
            return 0;
        if (!k->headers_done && !k->throttled_at) {
            shed(c, k);
            return 1;
        }
    }
    return 0;
}

/*
 * Close this worker's connection silent for longest, if it has been silent
 * for SRV_SHED_MIN_IDLE_MS and has no answer waiting to be written, or
 * else one trickling its headers (shed_slow). Returns 1 when one was
 * closed.
 */
static int shed_idle(struct srv_conns *c)
{
    double limit = now_ms() - SRV_SHED_MIN_IDLE_MS;
    struct srv_conn *k;
    int looked = 0;

    for (k = c->oldest; k && looked < 8; k = k->newer, looked++) {
        if (k->last_active > limit)
            break;
        /* An answer being written, or being computed (evhttp stops
         * reading while its request is with the handler). */
        if (evbuffer_get_length(bufferevent_get_output(k->bev)) != 0 ||
            !(bufferevent_get_enabled(k->bev) & EV_READ))
            continue;
        shed(c, k);
        return 1;
    }
    return shed_slow(c);
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

/*
 * A TLS connection's event, before evhttp's: a plaintext HTTP request
 * where the handshake should be gets a plaintext 400 (srv_tls_answer_
 * plaintext) rather than a bare close. evhttp sets its callbacks again for
 * the next request, which ends the wrapping once the handshake is over.
 */
static void on_tls_event(struct bufferevent *bev, short what, void *arg)
{
    struct srv_conn *k = arg;

    if (what & BEV_EVENT_ERROR)
        srv_tls_answer_plaintext(bev);
    /* May free k. */
    k->evhttp_event(bev, what, k->evhttp_arg);
}

/* The bufferevent has one argument for its callbacks: evhttp's read and
 * write callbacks are wrapped too, to get theirs back. */
static void on_tls_read(struct bufferevent *bev, void *arg)
{
    struct srv_conn *k = arg;

    if (k->evhttp_read)
        k->evhttp_read(bev, k->evhttp_arg);
}

static void on_tls_write(struct bufferevent *bev, void *arg)
{
    struct srv_conn *k = arg;

    if (k->evhttp_write)
        k->evhttp_write(bev, k->evhttp_arg);
}

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
            srv_fw_init(&k->fw, (uint64_t)c->srv->opts.max_body_bytes);
            k->input_cb =
                evbuffer_add_cb(bufferevent_get_input(bev), on_conn_input, k);
            k->output_cb =
                evbuffer_add_cb(bufferevent_get_output(bev), on_conn_output, k);
        }
        if (k && k->input_cb && k->output_cb) {
            if (c->srv->ssl_ctx) {
                bufferevent_getcb(bev, &k->evhttp_read, &k->evhttp_write,
                                  &k->evhttp_event, &k->evhttp_arg);
                if (k->evhttp_event)
                    bufferevent_setcb(bev, on_tls_read, on_tls_write,
                                      on_tls_event, k);
            }
            /* What arrived before adoption. evhttp may have taken some
             * already: the framing watch cannot follow from the middle. */
            k->in_held = evbuffer_get_length(bufferevent_get_input(bev));
            if (k->in_held)
                k->fw.state = SRV_FW_OFF;
            atomic_fetch_add(&c->srv->mem.used, (long long)k->in_held);
            atomic_fetch_add(&c->srv->mem_receiving, (long long)k->in_held);
            push_newest(c, k);
            evhttp_connection_set_closecb(k->evcon, on_conn_close, k);
        } else {
            if (k && k->input_cb)
                evbuffer_remove_cb_entry(bufferevent_get_input(bev),
                                         k->input_cb);
            if (k && k->output_cb)
                evbuffer_remove_cb_entry(bufferevent_get_output(bev),
                                         k->output_cb);
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
                   struct event_base *base, struct evconnlistener *l, int *busy,
                   int read_timeout_s)
{
    memset(c, 0, sizeof(*c));
    c->busy = busy;
    c->read_timeout_ms = read_timeout_s * 1000;
    /* 0 (a server built without opts_defaults): no deadline. */
    c->header_timeout_ms =
        s->opts.header_timeout > 0 ? s->opts.header_timeout * 1000 : INT_MAX;
    c->body_timeout_ms =
        s->opts.body_timeout > 0 ? s->opts.body_timeout * 1000 : INT_MAX;
    c->throttle_ev = evtimer_new(base, on_throttle_tick, c);
    c->deadline_ev = evtimer_new(base, on_deadline_tick, c);
    if (!c->throttle_ev || !c->deadline_ev)
        return -1;
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
    while (c->lingering)
        linger_end(c->lingering);
    if (c->resume_ev)
        event_free(c->resume_ev);
    if (c->throttle_ev)
        event_free(c->throttle_ev);
    if (c->deadline_ev)
        event_free(c->deadline_ev);
    if (c->adopt_ev)
        event_free(c->adopt_ev);
    free(c->fresh);
    c->resume_ev = c->adopt_ev = c->throttle_ev = c->deadline_ev = NULL;
    c->fresh = NULL;
}
