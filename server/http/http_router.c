/*
 * http_router.c: the route table of the HTTP server: exact paths
 * registered before the start, the one evhttp generic callback that
 * dispatches every request (framing, 404, 405, memory, the handler),
 * then the reply, the metrics and the access log line.
 */
#include "server/http/http_router.h"

#include <event2/buffer.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/clock.h"
#include "server/http/http.h"
#include "server/http/http_body.h"
#include "server/http/http_offload.h"
#include "server/http/http_response.h"
#include "server/http/http_route_metrics.h"
#include "server/common/log.h"

static const char *method_name(enum evhttp_cmd_type cmd)
{
    switch (cmd) {
    case EVHTTP_REQ_GET:
        return "GET";
    case EVHTTP_REQ_POST:
        return "POST";
    case EVHTTP_REQ_HEAD:
        return "HEAD";
    case EVHTTP_REQ_PUT:
        return "PUT";
    case EVHTTP_REQ_DELETE:
        return "DELETE";
    case EVHTTP_REQ_OPTIONS:
        return "OPTIONS";
    case EVHTTP_REQ_TRACE:
        return "TRACE";
    case EVHTTP_REQ_CONNECT:
        return "CONNECT";
    case EVHTTP_REQ_PATCH:
        return "PATCH";
    }
    return "UNKNOWN";
}

static int method_allowed(unsigned methods, enum evhttp_cmd_type cmd)
{
    if (cmd == EVHTTP_REQ_GET || cmd == EVHTTP_REQ_HEAD)
        return (methods & SRV_GET) != 0;
    if (cmd == EVHTTP_REQ_POST)
        return (methods & SRV_POST) != 0;
    return 0;
}

static struct srv_route *find_route(struct server *s, const char *path)
{
    size_t i;

    for (i = 0; i < s->n_routes; i++) {
        if (!strcmp(s->routes[i].path, path))
            return &s->routes[i];
    }
    return NULL;
}

static void reply_method_not_allowed(struct srv_route *rt,
                                     struct srv_response *r)
{
    char allow[32] = "";

    if (rt->methods & SRV_GET)
        strcat(allow, "GET, HEAD");
    if (rt->methods & SRV_POST)
        strcat(allow, *allow ? ", POST" : "POST");
    srv_response_header(r, "Allow", allow);
    srv_reply_text(r, 405, "405 method not allowed\n");
}

static void log_request(const struct srv_request *q, int status, size_t bytes,
                        double secs)
{
    LOG_VS(2, "HTTP", LOG_S("method", q->method), LOG_S("path", q->path),
           LOG_I("status", status), LOG_I("bytes", bytes),
           LOG_F("duration_ms", secs * 1000.0));
}

/*
 * One request between evhttp's callback and the answer written. On the
 * worker's stack for most; a copy on the heap, queued as a job, when its
 * body is big (http_offload.h).
 */
struct srv_call {
    struct srv_job job; /* first: a queued job is its call */
    struct srv_worker *w;
    struct evhttp_request *req;
    struct srv_route *rt;
    struct srv_request q;
    struct srv_response r;
    struct arena a;
    double t0;
    char msg[256];
};

/* Run the route's handler and settle what it left (memory, no answer).
 * On the worker's thread, or a pool thread for a big body. */
static void call_handle(struct srv_call *c)
{
    struct server *s = c->w->srv;

    c->rt->fn(s, &c->q, &c->r, c->rt->arg);
    if (c->a.over)
        srv_refuse_memory(s, &c->a, c->q.body_len, &c->r, c->msg,
                          sizeof(c->msg));
    else if (!c->r.replied) {
        LOG_ERROR("handler for %s sent no response", c->rt->path);
        srv_reply_text(&c->r, 500, "handler sent no response\n");
    }
}

/* On the worker's thread: write the answer, count it, log it, free the
 * request's memory. */
static void call_finish(struct srv_call *c)
{
    struct server *s = c->w->srv;
    size_t sent = srv_send_response(c->w, c->req, &c->r);
    double dt = kube_now() - c->t0;
    int oc = c->r.status >= 500 ? 2 : c->r.status >= 400 ? 1 : 0;
    int big;

    metrics_counter_add(srv_route_counter(s, c->rt, c->r.status), 1);
    metrics_histogram_observe(srv_route_histogram(s, c->rt, oc), dt);
    log_request(&c->q, c->r.status, sent, dt);
    big = c->a.total + c->a.charged > SRV_TRIM_AFTER;
    arena_destroy(&c->a);
    if (big)
        srv_worker_big_done(c->w);
}

static void job_run(struct srv_job *j)
{
    call_handle((struct srv_call *)j);
}

/*
 * On the worker's thread: the job is past --eval-timeout. Answer 503 with
 * a response of its own (the handler, maybe still running, owns c->r and
 * the arena), count it and log it; the job is freed by whoever is last.
 */
static void job_late(struct srv_job *j)
{
    struct srv_call *c = (struct srv_call *)j;
    struct server *s = c->w->srv;
    struct srv_response r;
    double dt = kube_now() - c->t0;
    size_t sent;

    memset(&r, 0, sizeof(r));
    r.ev = c->req;
    srv_response_header(&r, "Retry-After", "1");
    srv_reply_text(&r, 503,
                   "503 evaluation deadline exceeded (--eval-timeout)\n");
    c->w->busy--; /* srv_send_response counts it again until written */
    sent = srv_send_response(c->w, c->req, &r);
    metrics_counter_add(srv_route_counter(s, c->rt, 503), 1);
    metrics_histogram_observe(srv_route_histogram(s, c->rt, 2), dt);
    log_request(&c->q, 503, sent, dt);
}

static void job_finish(struct srv_job *j)
{
    struct srv_call *c = (struct srv_call *)j;

    c->w->busy--; /* srv_send_response counts it again until written */
    call_finish(c);
    free(c);
}

/* The worker is gone: evhttp has freed the request with its connection. */
static void job_drop(struct srv_job *j)
{
    struct srv_call *c = (struct srv_call *)j;

    arena_destroy(&c->a);
    free(c);
}

/*
 * Hand the call to the pool and return to the event loop. Returns 0 when
 * queued; -1 (no pool, no memory) and the caller runs it. The handler
 * gets its own copy of the path: a late call's request is answered, and
 * freed by evhttp, while its handler may still run.
 */
static int call_offload(struct srv_call *c)
{
    struct srv_call *h = malloc(sizeof(*h));

    if (!h)
        return -1;
    *h = *c;
    h->q.arena = &h->a;
    h->q.ev = NULL;
    h->q.path = arena_strdup(&h->a, c->q.path);
    if (!h->q.path) {
        free(h);
        return -1;
    }
    h->job.w = c->w;
    h->job.big = c->q.body_len > SRV_OFFLOAD_BODY;
    h->job.run = job_run;
    h->job.finish = job_finish;
    h->job.late = job_late;
    h->job.drop = job_drop;
    if (srv_offload_submit(c->w->srv, &h->job) != 0) {
        free(h);
        return -1;
    }
    c->w->busy++;
    return 0;
}

/* The evhttp generic callback: every request of a worker comes here. */
void srv_route_request(struct evhttp_request *req, void *arg)
{
    struct srv_worker *w = arg;
    struct server *s = w->srv;
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    struct srv_call c = { .w = w, .req = req, .t0 = kube_now() };
    const char *framing;
    size_t len;

    c.r.ev = req;
    arena_init(&c.a, 0);
    /* Bounded by the body's size (set once it is known) and in total. */
    c.a.budget = &s->mem;
    len = evbuffer_get_length(evhttp_request_get_input_buffer(req));
    c.a.limit = srv_request_memory_limit(s, len);
    c.a.reserve = srv_request_reserve(s, len);
    c.q.method = method_name(evhttp_request_get_command(req));
    c.q.path = path && *path ? path : "/";
    c.q.arena = &c.a;
    c.q.ev = req;
    c.rt = find_route(s, c.q.path);
    if ((framing = srv_framing_error(req))) {
        c.rt = &s->unmatched;
        srv_response_header(&c.r, "Connection", "close");
        srv_reply_text(&c.r, 400, framing);
    } else if (!c.rt) {
        c.rt = &s->unmatched;
        srv_reply_text(&c.r, 404, "404 page not found\n");
    } else if (!method_allowed(c.rt->methods,
                               evhttp_request_get_command(req))) {
        reply_method_not_allowed(c.rt, &c.r);
    } else if (s->mem.cap &&
               atomic_load(&s->mem.used) > s->mem.cap - c.a.reserve) {
        c.a.over = ARENA_OVER_BUDGET;
        srv_refuse_memory(s, &c.a, 0, &c.r, c.msg, sizeof(c.msg));
    } else if (!(c.q.body = srv_body_copy(req, &c.a, &c.q.body_len))) {
        if (c.a.over)
            srv_refuse_memory(s, &c.a, c.q.body_len, &c.r, c.msg,
                              sizeof(c.msg));
        else
            srv_reply_text(&c.r, 500, "out of memory\n");
    } else if (!(c.rt->methods & SRV_INLINE) && call_offload(&c) == 0) {
        /* Evaluation never runs on the event loop's thread. */
        return;
    } else {
        call_handle(&c);
    }
    call_finish(&c);
}

int srv_register_route(struct server *s, const char *path, unsigned methods,
                       srv_handler_fn *fn, void *arg, struct err *e)
{
    char q[160];
    struct srv_route *rt;

    if (s->started)
        return err_set(e, "route %s: server already started",
                       err_quote(q, sizeof(q), path, 120));
    if (!path || path[0] != '/' || !fn || !(methods & (SRV_GET | SRV_POST)))
        return err_set(e,
                       "route %s: want a path starting with '/', a "
                       "handler and a method",
                       err_quote(q, sizeof(q), path, 120));
    if (find_route(s, path))
        return err_set(e, "route %s: already registered",
                       err_quote(q, sizeof(q), path, 120));
    if (s->n_routes == SRV_MAX_ROUTES)
        return err_set(e, "route %s: more than %d routes",
                       err_quote(q, sizeof(q), path, 120), SRV_MAX_ROUTES);
    rt = &s->routes[s->n_routes];
    memset(rt, 0, sizeof(*rt));
    rt->path = arena_strdup(&s->arena, path);
    if (!rt->path)
        return err_set(e, "route %s: out of memory", path);
    rt->methods = methods;
    rt->fn = fn;
    rt->arg = arg;
    s->n_routes++;
    return 0;
}

int srv_register_verb(struct server *s, const char *verb, srv_handler_fn *fn,
                      void *arg, struct err *e)
{
    char q[160];
    const char *path;

    if (!verb || !*verb || strchr(verb, '/'))
        return err_set(e, "verb %s: want a name without '/'",
                       err_quote(q, sizeof(q), verb, 120));
    path = arena_sprintf(&s->arena, "%s/%s", s->opts.url_prefix, verb);
    if (!path)
        return err_set(e, "verb %s: out of memory", verb);
    return srv_register_route(s, path, SRV_POST, fn, arg, e);
}
