/*
 * http_router.c: the route table of the HTTP server: exact paths
 * registered before the start, the one evhttp generic callback that
 * dispatches every request (framing, 404, 405, memory, the handler),
 * then the reply, the metrics and the access log line.
 */
#include "server/http/http_router.h"

#include <event2/buffer.h>
#include <event2/http.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <time.h>

#include "server/http/http.h"
#include "server/http/http_body.h"
#include "server/http/http_response.h"
#include "server/http/http_route_metrics.h"
#include "server/common/log.h"

/* A request whose memory passed this has it trimmed back afterwards. */
#define SRV_TRIM_AFTER (16u << 20)

static double now_mono(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

/* The evhttp generic callback: every request of a worker comes here. */
void srv_route_request(struct evhttp_request *req, void *arg)
{
    struct srv_worker *w = arg;
    struct server *s = w->srv;
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    struct srv_response r = { .ev = req };
    struct srv_request q = { 0 };
    struct srv_route *rt;
    struct arena a;
    const char *framing;
    char msg[256];
    int big;
    double t0 = now_mono(), dt;
    size_t sent, len;
    int oc;

    arena_init(&a, 0);
    /* Bounded by the body's size (set once it is known) and in total. */
    a.budget = &s->mem;
    len = evbuffer_get_length(evhttp_request_get_input_buffer(req));
    a.limit = srv_request_memory_limit(s, len);
    a.reserve = srv_request_reserve(s, len);
    q.method = method_name(evhttp_request_get_command(req));
    q.path = path && *path ? path : "/";
    q.arena = &a;
    q.ev = req;
    rt = find_route(s, q.path);
    if ((framing = srv_framing_error(req))) {
        rt = &s->unmatched;
        srv_response_header(&r, "Connection", "close");
        srv_reply_text(&r, 400, framing);
    } else if (!rt) {
        rt = &s->unmatched;
        srv_reply_text(&r, 404, "404 page not found\n");
    } else if (!method_allowed(rt->methods, evhttp_request_get_command(req))) {
        reply_method_not_allowed(rt, &r);
    } else if (s->mem.cap &&
               atomic_load(&s->mem.used) > s->mem.cap - a.reserve) {
        a.over = ARENA_OVER_BUDGET;
        srv_refuse_memory(s, &a, 0, &r, msg, sizeof(msg));
    } else if (!(q.body = srv_body_copy(req, &a, &q.body_len))) {
        if (a.over)
            srv_refuse_memory(s, &a, q.body_len, &r, msg, sizeof(msg));
        else
            srv_reply_text(&r, 500, "out of memory\n");
    } else {
        rt->fn(s, &q, &r, rt->arg);
        if (a.over)
            srv_refuse_memory(s, &a, q.body_len, &r, msg, sizeof(msg));
        else if (!r.replied) {
            LOG_ERROR("handler for %s sent no response", rt->path);
            srv_reply_text(&r, 500, "handler sent no response\n");
        }
    }
    sent = srv_send_response(w, req, &r);
    dt = now_mono() - t0;
    oc = r.status >= 500 ? 2 : r.status >= 400 ? 1 : 0;
    metrics_counter_add(srv_route_counter(s, rt, r.status), 1);
    metrics_histogram_observe(srv_route_histogram(s, rt, oc), dt);
    log_request(&q, r.status, sent, dt);
    big = a.total + a.charged > SRV_TRIM_AFTER;
    arena_destroy(&a);
#ifdef __GLIBC__
    /* Give a big request's memory back to the system rather than keep
     * it resident in malloc's free lists. */
    if (big)
        malloc_trim(0);
#endif
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
