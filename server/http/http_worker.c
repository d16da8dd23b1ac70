/*
 * http_worker.c: one worker of the HTTP server: its own event_base and
 * evhttp over the shared listening socket, accept errors turned into
 * pauses, and the graceful drain (stop accepting, answer what is in
 * flight, exit by the grace period).
 */
#include "server/http/http_worker.h"

#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "kube/base/clock.h"
#include "server/http/http_offload.h"
#include "server/http/http_router.h"
#include "server/http/http_tls.h"
#include "server/common/log.h"

#define ALL_METHODS                                                            \
    (EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT |     \
     EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |               \
     EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH)

_Thread_local struct srv_worker *srv_this_worker;

/* accept() failed with something other than EAGAIN or EINTR: instead of
 * libevent's warning on every retry (a busy loop on EMFILE), pause. */
static void on_accept_error(struct evconnlistener *l, void *arg)
{
    (void)l;
    (void)arg;
    if (srv_this_worker)
        srv_conns_accept_failed(&srv_this_worker->conns, EVUTIL_SOCKET_ERROR());
}

static void on_trim(evutil_socket_t fd, short what, void *arg)
{
    struct srv_worker *w = arg;
    long long quiet =
        (long long)(kube_now() * 1e3) - atomic_load(&w->srv->last_big_ms);

    (void)fd;
    (void)what;
    if (quiet < SRV_TRIM_QUIET_MS) {
        struct timeval tv = { 0, (SRV_TRIM_QUIET_MS - quiet) * 1000 };

        event_add(w->trim_ev, &tv);
        return;
    }
#ifdef __GLIBC__
    /* Give the big requests' memory back to the system rather than keep
     * it resident in malloc's free lists. */
    malloc_trim(0);
#endif
}

void srv_worker_big_done(struct srv_worker *w)
{
    struct timeval tv = { SRV_TRIM_QUIET_MS / 1000,
                          SRV_TRIM_QUIET_MS % 1000 * 1000 };

    atomic_store(&w->srv->last_big_ms, (long long)(kube_now() * 1e3));
#ifdef __GLIBC__
    /* Free memory kept past half of --max-inflight-bytes: at once, so
     * that a stream of big requests stays within the memory limit. */
    if ((long long)mallinfo2().fordblks > w->srv->mem.cap / 2) {
        malloc_trim(0);
        return;
    }
#endif
    if (!evtimer_pending(w->trim_ev, NULL))
        evtimer_add(w->trim_ev, &tv);
}

static void drain_check(evutil_socket_t fd, short what, void *arg)
{
    struct srv_worker *w = arg;
    struct timespec now;

    (void)fd;
    (void)what;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (w->busy <= 0 || now.tv_sec > w->drain_deadline.tv_sec ||
        (now.tv_sec == w->drain_deadline.tv_sec &&
         now.tv_nsec >= w->drain_deadline.tv_nsec)) {
        if (w->busy > 0)
            LOG_WARN("worker %d: %d requests still in flight after the "
                     "shutdown grace period",
                     w->index, w->busy);
        event_base_loopexit(w->base, NULL);
    }
}

static void on_drain(evutil_socket_t fd, short what, void *arg)
{
    struct srv_worker *w = arg;
    struct timeval tick = { 0, 10000 };

    (void)fd;
    (void)what;
    if (w->bound) {
        srv_conns_forget_listener(&w->conns);
        evhttp_del_accept_socket(w->http, w->bound);
        w->bound = NULL;
    }
    clock_gettime(CLOCK_MONOTONIC, &w->drain_deadline);
    w->drain_deadline.tv_sec += w->srv->opts.shutdown_grace;
    event_add(w->check_ev, &tick);
    drain_check(-1, 0, w);
}

void *srv_worker_main(void *arg)
{
    struct srv_worker *w = arg;

    srv_this_worker = w;
    event_base_dispatch(w->base);
    /* Handlers still running for this worker's requests read them. */
    srv_offload_quiesce(w->srv, w);
    /* Closes the connections left (idle keep-alives, stragglers). */
    evhttp_free(w->http);
    w->http = NULL;
    srv_this_worker = NULL;
    return NULL;
}

int srv_worker_init(struct server *s, struct srv_worker *w, struct err *e)
{
    const struct srv_options *o = &s->opts;
    struct evconnlistener *l;

    w->srv = s;
    w->read_tv.tv_sec = o->read_timeout;
    w->idle_tv.tv_sec = o->idle_timeout;
    w->base = event_base_new();
    if (!w->base)
        return err_set(e, "worker %d: cannot create an event base", w->index);
    w->http = evhttp_new(w->base);
    w->drain_ev = event_new(w->base, -1, 0, on_drain, w);
    w->check_ev = event_new(w->base, -1, EV_PERSIST, drain_check, w);
    w->trim_ev = evtimer_new(w->base, on_trim, w);
    if (!w->http || !w->drain_ev || !w->check_ev || !w->trim_ev)
        return err_set(e, "worker %d: out of memory", w->index);
    evhttp_set_timeout_tv(w->http, &w->read_tv);
    evhttp_set_max_body_size(w->http, o->max_body_bytes);
    evhttp_set_max_headers_size(w->http, o->max_header_bytes);
    evhttp_set_allowed_methods(w->http, ALL_METHODS);
    evhttp_set_bevcb(w->http, srv_make_bev, w);
    evhttp_set_gencb(w->http, srv_route_request, w);
    /* Shared fd: this listener must not close it (no CLOSE_ON_FREE). */
    l = evconnlistener_new(w->base, NULL, NULL, LEV_OPT_CLOSE_ON_EXEC, 0,
                           s->listen_fd);
    if (!l)
        return err_set(e, "worker %d: cannot listen", w->index);
    w->bound = evhttp_bind_listener(w->http, l);
    if (!w->bound) {
        evconnlistener_free(l);
        return err_set(e, "worker %d: cannot listen", w->index);
    }
    evconnlistener_set_error_cb(l, on_accept_error);
    if (srv_conns_init(&w->conns, s, w->base, l, &w->busy, o->read_timeout) !=
        0)
        return err_set(e, "worker %d: out of memory", w->index);
    return 0;
}

void srv_worker_free(struct srv_worker *w)
{
    if (w->http)
        evhttp_free(w->http);
    srv_conns_free(&w->conns);
    if (w->drain_ev)
        event_free(w->drain_ev);
    if (w->check_ev)
        event_free(w->check_ev);
    if (w->trim_ev)
        event_free(w->trim_ev);
    if (w->base)
        event_base_free(w->base);
    memset(w, 0, sizeof(*w));
}
