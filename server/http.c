/*
 * http.c: the extender's HTTP server (see http.h).
 *
 * Listener sharing: srv_start() binds and listens once; every worker wraps
 * the same fd in its own evconnlistener (without LEV_OPT_CLOSE_ON_FREE) and
 * hands it to its evhttp with evhttp_bind_listener(). The kernel gives each
 * connection to whichever worker's accept() wins. We prefer this to
 * SO_REUSEPORT because port 0 (tests) binds once and reads one port back,
 * one bind can fail and be reported, a stopping worker never strands the
 * connections the kernel hashed to its own socket, and no other process can
 * join the port. The cost is a wake-up of idle workers per connection.
 */
#include "server/http.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "server/http_conns.h"
#include "server/log.h"
#include "server/version.h"

#define ALL_METHODS                                                            \
    (EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT |     \
     EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |               \
     EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH)

/* A request whose memory passed this has it trimmed back afterwards. */
#define SRV_TRIM_AFTER (16u << 20)

/* Prometheus buckets for request latency, in seconds. */
static const double latency_bounds[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                         0.025,  0.05,  0.1,    0.25,  0.5,
                                         1,      2.5,   5,      10 };
/* Status codes with a cached counter per route; others are looked up. */
static const int code_slots[SRV_CODE_SLOTS] = { 200, 204, 400, 403, 404, 405,
                                                408, 413, 429, 500, 503, 0 };
static const char *const outcomes[3] = { "success", "client_error",
                                         "server_error" };

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
    struct timeval read_tv, idle_tv;
    struct timespec drain_deadline;
    int busy; /* requests dispatched and not yet fully written */
    struct srv_conns conns;
};

/* The worker running on this thread (its input callbacks need it). */
static _Thread_local struct srv_worker *this_worker;

static double now_mono(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_unix(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- responses ---------------------------------------------------- */

static void free_owned(const void *data, size_t len, void *arg)
{
    (void)len;
    (void)arg;
    free((void *)data);
}

void srv_reply_owned(struct srv_response *r, int status,
                     const char *content_type, char *body, size_t len)
{
    if (r->owned)
        free((void *)r->body);
    if (!body) {
        srv_reply_text(r, 500, "500 out of memory\n");
        return;
    }
    srv_reply(r, status, content_type, body, len);
    r->owned = 1;
}

void srv_reply(struct srv_response *r, int status, const char *content_type,
               const char *body, size_t len)
{
    if (r->owned) {
        free((void *)r->body);
        r->owned = 0;
    }
    r->status = status;
    r->content_type = content_type;
    r->body = body;
    r->len = len;
    r->replied = 1;
}

void srv_reply_json(struct srv_response *r, int status, const char *json)
{
    srv_reply(r, status, "application/json", json, strlen(json));
}

void srv_reply_text(struct srv_response *r, int status, const char *text)
{
    srv_reply(r, status, "text/plain; charset=utf-8", text, strlen(text));
}

int srv_response_header(struct srv_response *r, const char *name,
                        const char *value)
{
    return evhttp_add_header(evhttp_request_get_output_headers(r->ev), name,
                             value);
}

const char *srv_request_header(const struct srv_request *req, const char *name)
{
    return evhttp_find_header(evhttp_request_get_input_headers(req->ev), name);
}

/* ---- metrics per route ---------------------------------------------- */

static struct metrics_counter *route_counter(struct server *s,
                                             struct srv_route *rt, int code)
{
    char labels[512], path[256];
    struct metrics_counter *c;
    int slot;

    for (slot = 0; slot < SRV_CODE_SLOTS - 1; slot++) {
        if (code_slots[slot] == code)
            break;
    }
    if (slot < SRV_CODE_SLOTS - 1) {
        c = atomic_load(&rt->by_code[slot]);
        if (c)
            return c;
    }
    metrics_escape_label(path, sizeof(path), rt->path);
    snprintf(labels, sizeof(labels), "route=\"%s\",code=\"%d\"", path, code);
    c = metrics_counter(s->metrics, "kpe_http_requests_total",
                        "HTTP requests answered, by route and status code.",
                        labels);
    if (slot < SRV_CODE_SLOTS - 1)
        atomic_store(&rt->by_code[slot], c);
    return c;
}

static struct metrics_histogram *route_histogram(struct server *s,
                                                 struct srv_route *rt, int oc)
{
    char labels[512], path[256];
    struct metrics_histogram *h = atomic_load(&rt->by_outcome[oc]);

    if (h)
        return h;
    metrics_escape_label(path, sizeof(path), rt->path);
    snprintf(labels, sizeof(labels), "route=\"%s\",outcome=\"%s\"", path,
             outcomes[oc]);
    h = metrics_histogram(
        s->metrics, "kpe_http_request_duration_seconds",
        "Time from the request's dispatch to its reply, by route and "
        "outcome.",
        labels, latency_bounds,
        sizeof(latency_bounds) / sizeof(latency_bounds[0]));
    atomic_store(&rt->by_outcome[oc], h);
    return h;
}

/* ---- routing ---------------------------------------------------------- */

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

static void on_complete(struct evhttp_request *req, void *arg);

/* Send r on req once; returns the body length sent. */
static size_t send_response(struct srv_worker *w, struct evhttp_request *req,
                            struct srv_response *r)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    struct evbuffer *b = evbuffer_new();
    struct evhttp_connection *evcon;
    enum evhttp_cmd_type cmd;
    size_t len = r->len;

    if (r->content_type)
        evhttp_add_header(h, "Content-Type", r->content_type);
    if (atomic_load(&w->srv->stopping))
        evhttp_add_header(h, "Connection", "close");
    if (b && r->owned) {
        /* Zero copy: the buffer frees the body once it is written. */
        if (evbuffer_add_reference(b, r->body, len, free_owned, NULL) != 0)
            free((void *)r->body);
        else
            len = r->len;
        r->owned = 0;
    } else if (!b || (len && evbuffer_add(b, r->body, len) != 0)) {
        evhttp_clear_headers(h);
        r->status = 500;
        len = 0;
    }
    cmd = evhttp_request_get_command(req);
    if (cmd == EVHTTP_REQ_HEAD || cmd == EVHTTP_REQ_CONNECT) {
        /* evhttp writes no Content-Length for these but would write the
         * body: HEAD gets the GET answer's length and no body (RFC 9110
         * section 9.3.2); CONNECT, which we never tunnel, gets its short
         * answer framed, then the connection is closed (on_complete). */
        char n[24];

        snprintf(n, sizeof(n), "%zu", len);
        evhttp_add_header(h, "Content-Length", n);
        if (cmd == EVHTTP_REQ_HEAD && b)
            evbuffer_drain(b, evbuffer_get_length(b));
    }
    w->busy++;
    evhttp_request_set_on_complete_cb(req, on_complete, w);
    /* A reply that is never completely written (the client reset the
     * connection, or stopped reading until the timeout) gets no
     * on_complete; the connection's close callback (http_conns.c)
     * settles it instead. */
    evcon = evhttp_request_get_connection(req);
    evhttp_send_reply(req, r->status, NULL, b);
    /* After evhttp_send_reply, which re-enables reading to see a close. */
    if (evcon)
        bufferevent_setwatermark(evhttp_connection_get_bufferevent(evcon),
                                 EV_READ, 0, SRV_PIPELINE_READ_LIMIT);
    if (b)
        evbuffer_free(b);
    return len;
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

/*
 * Copy the request body into the arena, NUL-terminated, and free evhttp's
 * copy at once (it would otherwise live until the answer is written).
 */
static char *copy_body(struct evhttp_request *req, struct arena *a, size_t *len)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    char *buf;

    *len = evbuffer_get_length(in);
    buf = arena_alloc(a, *len + 1);
    if (!buf)
        return NULL;
    if (*len && evbuffer_copyout(in, buf, *len) != (ev_ssize_t)*len)
        return NULL;
    buf[*len] = '\0';
    evbuffer_drain(in, *len);
    return buf;
}

/*
 * The memory a request with a body of len bytes may use (arena, answer):
 * SRV_REQ_MEM_FACTOR x len + SRV_REQ_MEM_BASE, and no more than what
 * --max-inflight-bytes leaves beside its received body, so that a request
 * too big for the server gets 413 (never fits) rather than 503 (retry).
 */
static size_t request_memory_limit(const struct server *s, size_t len)
{
    size_t cap = (size_t)s->opts.max_inflight_bytes, room = 1 << 20;

    if (cap > len + (2u << 20))
        room = cap - len - (1u << 20);
    if (room < SRV_REQ_MEM_BASE ||
        len > (room - SRV_REQ_MEM_BASE) / SRV_REQ_MEM_FACTOR)
        return room;
    return len * SRV_REQ_MEM_FACTOR + SRV_REQ_MEM_BASE;
}

/*
 * Answer a request refused for memory: 413 when it alone needs more than
 * request_memory_limit() (it will never fit), 503 when the requests in
 * flight hold the budget (retry later). msg is the caller's buffer.
 */
static void refuse_memory(struct server *s, const struct arena *a,
                          size_t body_len, struct srv_response *r, char *msg,
                          size_t msg_size)
{
    long long mib = 1 << 20;

    if (a->over == ARENA_OVER_LIMIT) {
        metrics_counter_add(s->mem_refused_request, 1);
        snprintf(msg, msg_size,
                 "413 request needs more than %zu MiB to answer (at most %d "
                 "x its body of %zu bytes + %d MiB, within "
                 "--max-inflight-bytes): send fewer nodes\n",
                 request_memory_limit(s, body_len) >> 20, SRV_REQ_MEM_FACTOR,
                 body_len, SRV_REQ_MEM_BASE >> 20);
        srv_reply_text(r, 413, msg);
        return;
    }
    metrics_counter_add(s->mem_refused_inflight, 1);
    snprintf(msg, msg_size,
             "503 busy: requests in flight hold %lld MiB of "
             "--max-inflight-bytes %lld MiB; retry\n",
             atomic_load(&s->mem.used) / mib, s->mem.cap / mib);
    srv_response_header(r, "Retry-After", "1");
    srv_reply_text(r, 503, msg);
}

static void log_request(const struct srv_request *q, int status, size_t bytes,
                        double secs)
{
    LOG_VS(2, "HTTP", LOG_S("method", q->method), LOG_S("path", q->path),
           LOG_I("status", status), LOG_I("bytes", bytes),
           LOG_F("duration_ms", secs * 1000.0));
}

/*
 * RFC 9112 section 6.3: a request whose length is ambiguous (more than one
 * Content-Length, a value that is not plain digits such as "+10", or
 * Content-Length beside Transfer-Encoding) is refused with 400 and the
 * connection is closed, since a proxy in front of us may have framed it
 * differently. evhttp has already read a body by the first value; nothing
 * after it on this connection is trusted. Returns the message, or NULL.
 */
static const char *framing_error(struct evhttp_request *req)
{
    const struct evkeyvalq *h = evhttp_request_get_input_headers(req);
    const struct evkeyval *kv;
    int n_len = 0, n_te = 0;

    for (kv = h->tqh_first; kv; kv = kv->next.tqe_next) {
        if (!evutil_ascii_strcasecmp(kv->key, "Transfer-Encoding")) {
            n_te++;
            continue;
        }
        if (evutil_ascii_strcasecmp(kv->key, "Content-Length"))
            continue;
        if (++n_len > 1)
            return "400 bad request: more than one Content-Length header\n";
        if (!*kv->value || strspn(kv->value, "0123456789") != strlen(kv->value))
            return "400 bad request: Content-Length is not a decimal number "
                   "of bytes\n";
    }
    if (n_len && n_te)
        return "400 bad request: both Content-Length and Transfer-Encoding\n";
    return NULL;
}

/* The evhttp generic callback: every request of a worker comes here. */
static void route_request(struct evhttp_request *req, void *arg)
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
    size_t sent;
    int oc;

    arena_init(&a, 0);
    /* Bounded by the body's size (set once it is known) and in total. */
    a.budget = &s->mem;
    a.limit = request_memory_limit(
        s, evbuffer_get_length(evhttp_request_get_input_buffer(req)));
    q.method = method_name(evhttp_request_get_command(req));
    q.path = path && *path ? path : "/";
    q.arena = &a;
    q.ev = req;
    rt = find_route(s, q.path);
    if ((framing = framing_error(req))) {
        rt = &s->unmatched;
        srv_response_header(&r, "Connection", "close");
        srv_reply_text(&r, 400, framing);
    } else if (!rt) {
        rt = &s->unmatched;
        srv_reply_text(&r, 404, "404 page not found\n");
    } else if (!method_allowed(rt->methods, evhttp_request_get_command(req))) {
        reply_method_not_allowed(rt, &r);
    } else if (s->mem.cap && atomic_load(&s->mem.used) > s->mem.cap) {
        a.over = ARENA_OVER_BUDGET;
        refuse_memory(s, &a, 0, &r, msg, sizeof(msg));
    } else if (!(q.body = copy_body(req, &a, &q.body_len))) {
        if (a.over)
            refuse_memory(s, &a, q.body_len, &r, msg, sizeof(msg));
        else
            srv_reply_text(&r, 500, "out of memory\n");
    } else {
        rt->fn(s, &q, &r, rt->arg);
        if (a.over)
            refuse_memory(s, &a, q.body_len, &r, msg, sizeof(msg));
        else if (!r.replied) {
            LOG_ERROR("handler for %s sent no response", rt->path);
            srv_reply_text(&r, 500, "handler sent no response\n");
        }
    }
    sent = send_response(w, req, &r);
    dt = now_mono() - t0;
    oc = r.status >= 500 ? 2 : r.status >= 400 ? 1 : 0;
    metrics_counter_add(route_counter(s, rt, r.status), 1);
    metrics_histogram_observe(route_histogram(s, rt, oc), dt);
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

/* ---- connections: TLS and the two timeouts --------------------------- */

/*
 * libevent 2.1 has one inactivity timeout per connection. New connections
 * start with the read timeout; after each reply the idle timeout applies,
 * and the first bytes of the next request switch back to the read timeout.
 */
static void on_input(struct evbuffer *buf, const struct evbuffer_cb_info *info,
                     void *arg)
{
    struct bufferevent *bev = arg;
    struct srv_worker *w = this_worker;

    if (!info->n_added || !w)
        return;
    bufferevent_set_timeouts(bev, &w->read_tv, &w->read_tv);
    evbuffer_remove_cb(buf, on_input, bev);
}

static void on_complete(struct evhttp_request *req, void *arg)
{
    struct srv_worker *w = arg;
    struct evhttp_connection *evcon = evhttp_request_get_connection(req);
    struct bufferevent *bev;
    struct evbuffer *in;

    w->busy--;
    if (!evcon)
        return;
    bev = evhttp_connection_get_bufferevent(evcon);
    evhttp_connection_set_timeout_tv(evcon, &w->idle_tv);
    /* The reply is out: read the next request (see SRV_PIPELINE_READ_LIMIT). */
    bufferevent_setwatermark(bev, EV_READ, 0, 0);
    /* evhttp keeps a CONNECT's connection open whatever its headers say;
     * a CONNECT is never tunnelled here, so end it: the next read sees
     * the end of the stream and evhttp frees the connection. */
    if (evhttp_request_get_command(req) == EVHTTP_REQ_CONNECT)
        shutdown(bufferevent_getfd(bev), SHUT_RDWR);
    in = bufferevent_get_input(bev);
    evbuffer_remove_cb(in, on_input, bev);
    evbuffer_add_cb(in, on_input, bev);
}

/* evhttp's bufferevent factory: one per accepted connection. */
static struct bufferevent *make_bev(struct event_base *base, void *arg)
{
    struct srv_worker *w = arg;
    struct bufferevent *bev;
    SSL *ssl;

    if (!w->srv->ssl_ctx) {
        bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
    } else {
        ssl = SSL_new(w->srv->ssl_ctx);
        if (!ssl)
            return NULL;
        bev = bufferevent_openssl_socket_new(
            base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
        if (!bev) {
            SSL_free(ssl);
            return NULL;
        }
        /* Clients that close without close_notify are not an error. */
        bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    }
    if (bev)
        srv_conns_accepted(&w->conns, bev);
    return bev;
}

/* accept() failed with something other than EAGAIN or EINTR: instead of
 * libevent's warning on every retry (a busy loop on EMFILE), pause. */
static void on_accept_error(struct evconnlistener *l, void *arg)
{
    (void)l;
    (void)arg;
    if (this_worker)
        srv_conns_accept_failed(&this_worker->conns, EVUTIL_SOCKET_ERROR());
}

static int ssl_error(struct err *e, const char *what, const char *path)
{
    char buf[256] = "unknown error";
    char q[160];
    unsigned long code = ERR_get_error();

    if (code)
        ERR_error_string_n(code, buf, sizeof(buf));
    ERR_clear_error();
    return err_set(e, "%s: cannot load %s: %s", what,
                   err_quote(q, sizeof(q), path, 120), buf);
}

/* TLS 1.2 or newer, ECDHE with AEAD ciphers (TLS 1.3 suites as default). */
static int tls_setup(struct server *s, struct err *e)
{
    const struct srv_options *o = &s->opts;
    SSL_CTX *ctx;

    if (!o->tls_cert_file)
        return 0;
    ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx)
        return err_set(e, "TLS: cannot create a context");
    s->ssl_ctx = ctx;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE);
    if (!SSL_CTX_set_cipher_list(ctx, "ECDHE+AESGCM:ECDHE+CHACHA20:"
                                      "!aNULL:!eNULL:!MD5:!SHA1"))
        return err_set(e, "TLS: cannot set the cipher list");
    if (SSL_CTX_use_certificate_chain_file(ctx, o->tls_cert_file) != 1)
        return ssl_error(e, "--tls-cert-file", o->tls_cert_file);
    if (SSL_CTX_use_PrivateKey_file(ctx, o->tls_key_file, SSL_FILETYPE_PEM) !=
        1)
        return ssl_error(e, "--tls-key-file", o->tls_key_file);
    if (SSL_CTX_check_private_key(ctx) != 1)
        return ssl_error(e, "--tls-key-file (does not match the certificate)",
                         o->tls_key_file);
    if (o->tls_client_ca_file) {
        STACK_OF(X509_NAME) * names;

        if (SSL_CTX_load_verify_locations(ctx, o->tls_client_ca_file, NULL) !=
            1)
            return ssl_error(e, "--tls-client-ca-file", o->tls_client_ca_file);
        names = SSL_load_client_CA_file(o->tls_client_ca_file);
        if (!names)
            return ssl_error(e, "--tls-client-ca-file", o->tls_client_ca_file);
        SSL_CTX_set_client_CA_list(ctx, names);
        SSL_CTX_set_verify(
            ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }
    return 0;
}

/* ---- the shared listening socket ----------------------------------- */

static int listen_socket(struct server *s, struct err *e)
{
    const struct srv_options *o = &s->opts;
    struct addrinfo hints, *res = NULL;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    char port[16];
    int fd = -1, one = 1, rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    snprintf(port, sizeof(port), "%d", o->listen_port);
    rc = getaddrinfo(*o->listen_host ? o->listen_host : NULL, port, &hints,
                     &res);
    if (rc != 0)
        return err_set(e, "--listen \"%s\": %s", o->listen, gai_strerror(rc));
    fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto fail;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    /* Linux copies TCP_NODELAY to every accepted socket. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    /* An explicit IPv6 address means only IPv6; ":PORT" means both. */
    if (res->ai_family == AF_INET6 && *o->listen_host)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 1024) != 0)
        goto fail;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
        goto fail;
    s->port =
        ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                       : ((struct sockaddr_in *)&ss)->sin_port);
    s->listen_fd = fd;
    freeaddrinfo(res);
    return 0;
fail:
    err_set(e, "--listen \"%s\": %s", o->listen, strerror(errno));
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
    return -1;
}

/* ---- workers and draining ------------------------------------------- */

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

static void *worker_main(void *arg)
{
    struct srv_worker *w = arg;

    this_worker = w;
    event_base_dispatch(w->base);
    /* Closes the connections left (idle keep-alives, stragglers). */
    evhttp_free(w->http);
    w->http = NULL;
    this_worker = NULL;
    return NULL;
}

static int worker_init(struct server *s, struct srv_worker *w, struct err *e)
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
    if (!w->http || !w->drain_ev || !w->check_ev)
        return err_set(e, "worker %d: out of memory", w->index);
    evhttp_set_timeout_tv(w->http, &w->read_tv);
    evhttp_set_max_body_size(w->http, o->max_body_bytes);
    evhttp_set_max_headers_size(w->http, o->max_header_bytes);
    evhttp_set_allowed_methods(w->http, ALL_METHODS);
    evhttp_set_bevcb(w->http, make_bev, w);
    evhttp_set_gencb(w->http, route_request, w);
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

static void worker_free(struct srv_worker *w)
{
    if (w->http)
        evhttp_free(w->http);
    srv_conns_free(&w->conns);
    if (w->drain_ev)
        event_free(w->drain_ev);
    if (w->check_ev)
        event_free(w->check_ev);
    if (w->base)
        event_base_free(w->base);
    memset(w, 0, sizeof(*w));
}

static pthread_once_t evthread_once = PTHREAD_ONCE_INIT;

static void evthread_init(void)
{
    evthread_use_pthreads();
    signal(SIGPIPE, SIG_IGN);
}

static int start_threads(struct server *s, struct err *e)
{
    sigset_t block, old;
    int i, rc = 0;

    /* Workers never take the signals srv_run() handles. */
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (i = 0; i < s->n_workers && rc == 0; i++) {
        struct srv_worker *w = &s->workers[i];

        if (pthread_create(&w->tid, NULL, worker_main, w) != 0)
            rc = err_set(e, "worker %d: cannot start a thread", i);
        else
            w->thread_started = 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int srv_start(struct server *s, struct err *e)
{
    int i, n = s->opts.workers;
    long nofile;

    if (s->started)
        return err_set(e, "server already started");
    pthread_once(&evthread_once, evthread_init);
    if (n <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);

        n = cpus > 0 ? (int)cpus : 1;
    }
    nofile = srv_raise_nofile();
    s->max_conns = s->opts.max_connections > 0
                       ? s->opts.max_connections
                       : srv_default_max_connections(nofile);
    if (tls_setup(s, e) != 0 || listen_socket(s, e) != 0)
        return -1;
    s->workers = calloc((size_t)n, sizeof(*s->workers));
    if (!s->workers)
        return err_set(e, "out of memory");
    s->n_workers = n;
    s->started = 1;
    for (i = 0; i < n; i++) {
        s->workers[i].index = i;
        if (worker_init(s, &s->workers[i], e) != 0)
            return -1;
    }
    if (start_threads(s, e) != 0)
        return -1;
    LOG_INFO("serving on %s://%s (port %d) with %d workers, at most %d "
             "connections",
             s->ssl_ctx ? "https" : "http", s->opts.listen, s->port, n,
             s->max_conns);
    return 0;
}

void srv_stop(struct server *s)
{
    int i;

    if (!s || !s->started || atomic_exchange(&s->stopping, 1))
        return;
    for (i = 0; i < s->n_workers; i++) {
        if (s->workers[i].drain_ev)
            event_active(s->workers[i].drain_ev, 0, 0);
    }
}

void srv_wait(struct server *s)
{
    int i;

    for (i = 0; s && i < s->n_workers; i++) {
        if (s->workers[i].thread_started) {
            pthread_join(s->workers[i].tid, NULL);
            s->workers[i].thread_started = 0;
        }
    }
}

/* ---- the main thread: signals ---------------------------------------- */

struct run_state {
    struct server *s;
    struct event_base *base;
    int signo;
};

static void on_stop_signal(evutil_socket_t sig, short what, void *arg)
{
    struct run_state *rs = arg;

    (void)what;
    rs->signo = (int)sig;
    event_base_loopbreak(rs->base);
}

static void on_hup(evutil_socket_t sig, short what, void *arg)
{
    struct run_state *rs = arg;

    (void)sig;
    (void)what;
    if (rs->s->reload(rs->s, rs->s->reload_arg) != 0)
        LOG_ERROR("reload failed; keeping the current configuration");
}

/* SIGTERM, SIGINT and SIGHUP, the signals srv_run handles. */
static void run_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
}

void srv_block_signals(void)
{
    sigset_t set;

    run_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void srv_unblock_signals(void)
{
    sigset_t set;

    run_signals(&set);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int srv_run(struct server *s, struct err *e)
{
    static const int sigs[3] = { SIGTERM, SIGINT, SIGHUP };
    struct run_state rs = { s, NULL, 0 };
    struct event *ev[3] = { NULL, NULL, NULL };
    int i, rc = -1;

    rs.base = event_base_new();
    if (!rs.base) {
        err_set(e, "cannot create the main event base");
        goto out;
    }
    for (i = 0; i < 3; i++) {
        ev[i] = evsignal_new(rs.base, sigs[i],
                             sigs[i] == SIGHUP ? on_hup : on_stop_signal, &rs);
        if (!ev[i] || event_add(ev[i], NULL) != 0) {
            err_set(e, "cannot handle signal %d", sigs[i]);
            goto out;
        }
    }
    srv_unblock_signals();
    event_base_dispatch(rs.base);
    LOG_INFO("signal %d: draining (at most %d s)", rs.signo,
             s->opts.shutdown_grace);
    srv_stop(s);
    srv_wait(s);
    LOG_INFO("stopped");
    rc = 0;
out:
    for (i = 0; i < 3; i++) {
        if (ev[i])
            event_free(ev[i]);
    }
    if (rs.base)
        event_base_free(rs.base);
    return rc;
}

/* ---- built-in routes -------------------------------------------------- */

static void healthz(struct server *s, const struct srv_request *req,
                    struct srv_response *r, void *arg)
{
    (void)s;
    (void)req;
    (void)arg;
    srv_reply_text(r, 200, "ok\n");
}

static void readyz(struct server *s, const struct srv_request *req,
                   struct srv_response *r, void *arg)
{
    char *msg;

    (void)arg;
    if (atomic_load(&s->ready)) {
        srv_reply_text(r, 200, "ok\n");
        return;
    }
    pthread_mutex_lock(&s->lock);
    msg = arena_sprintf(req->arena, "not ready: %s\n", s->not_ready_reason);
    pthread_mutex_unlock(&s->lock);
    srv_reply_text(r, 503, msg ? msg : "not ready\n");
}

static void metrics_route(struct server *s, const struct srv_request *req,
                          struct srv_response *r, void *arg)
{
    size_t len = 0;
    char *text = metrics_render(s->metrics, &len);
    char *copy;

    (void)arg;
    if (!text) {
        srv_reply_text(r, 500, "out of memory\n");
        return;
    }
    copy = arena_strndup(req->arena, text, len);
    free(text);
    if (!copy) {
        srv_reply_text(r, 500, "out of memory\n");
        return;
    }
    srv_reply(r, 200, "text/plain; version=0.0.4; charset=utf-8", copy, len);
}

static void version_route(struct server *s, const struct srv_request *req,
                          struct srv_response *r, void *arg)
{
    char *body;

    (void)s;
    (void)arg;
    body = arena_sprintf(req->arena,
                         "{\"version\":\"%s\",\"gitCommit\":\"%s\","
                         "\"libevent\":\"%s\",\"openssl\":\"%s\"}\n",
                         kpe_version(), kpe_git_revision(), event_get_version(),
                         OpenSSL_version(OPENSSL_VERSION));
    if (body)
        srv_reply_json(r, 200, body);
    else
        srv_reply_text(r, 500, "out of memory\n");
}

static int default_reload(struct server *s, void *arg)
{
    (void)s;
    (void)arg;
    LOG_INFO("reload requested");
    return 0;
}

static double gauge_start_time(void *arg)
{
    return ((struct server *)arg)->start_time;
}

static double gauge_ready(void *arg)
{
    return atomic_load(&((struct server *)arg)->ready) ? 1 : 0;
}

static double gauge_conns(void *arg)
{
    return atomic_load(&((struct server *)arg)->conns_open);
}

static double gauge_max_conns(void *arg)
{
    return ((struct server *)arg)->max_conns;
}

static double gauge_inflight(void *arg)
{
    return (double)atomic_load(&((struct server *)arg)->mem.used);
}

static double gauge_receiving(void *arg)
{
    return (double)atomic_load(&((struct server *)arg)->mem_receiving);
}

static double gauge_max_inflight(void *arg)
{
    return (double)((struct server *)arg)->opts.max_inflight_bytes;
}

static double gauge_max_body(void *arg)
{
    return (double)((struct server *)arg)->opts.max_body_bytes;
}

/* Connections: open, the cap, pauses of accept() and idle ones closed;
 * memory in flight and its refusals. */
static int conn_metrics(struct server *s)
{
    static const char paused[] = "kpe_http_accept_paused_total";
    static const char paused_help[] =
        "Times accepting connections paused for 100 ms, by reason: the "
        "connection cap, or accept() failing (EMFILE...).";

    s->accept_paused_cap =
        metrics_counter(s->metrics, paused, paused_help, "reason=\"cap\"");
    s->accept_paused_error =
        metrics_counter(s->metrics, paused, paused_help, "reason=\"error\"");
    s->conns_shed = metrics_counter(
        s->metrics, "kpe_http_connections_shed_total",
        "Connections silent for 250 ms or more closed to make room at the cap.",
        "");
    s->mem_refused_request = metrics_counter(
        s->metrics, "kpe_http_memory_refusals_total",
        "Requests refused for memory: one needing more than 8 x its body + "
        "8 MiB (413), or the requests in flight holding "
        "--max-inflight-bytes (503).",
        "reason=\"request\"");
    s->mem_refused_inflight = metrics_counter(
        s->metrics, "kpe_http_memory_refusals_total",
        "Requests refused for memory: one needing more than 8 x its body + "
        "8 MiB (413), or the requests in flight holding "
        "--max-inflight-bytes (503).",
        "reason=\"inflight\"");
    if (!s->accept_paused_cap || !s->accept_paused_error || !s->conns_shed ||
        !s->mem_refused_request || !s->mem_refused_inflight ||
        !metrics_gauge_fn(s->metrics, "kpe_http_inflight_bytes",
                          "Memory held by requests in flight.", "",
                          gauge_inflight, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_http_receiving_bytes",
                          "The part of kpe_http_inflight_bytes received "
                          "and not yet answered (at most half the cap).",
                          "", gauge_receiving, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_http_max_inflight_bytes",
                          "--max-inflight-bytes.", "", gauge_max_inflight, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_http_max_body_bytes",
                          "--max-body-bytes.", "", gauge_max_body, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_http_connections",
                          "Open client connections.", "", gauge_conns, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_http_max_connections",
                          "The cap on open client connections "
                          "(--max-connections).",
                          "", gauge_max_conns, s))
        return -1;
    return 0;
}

static int builtin_metrics(struct server *s)
{
    char labels[256], v[64], g[64];
    struct metrics_gauge *build;

    metrics_escape_label(v, sizeof(v), kpe_version());
    metrics_escape_label(g, sizeof(g), kpe_git_revision());
    snprintf(labels, sizeof(labels), "version=\"%s\",revision=\"%s\"", v, g);
    build =
        metrics_gauge(s->metrics, "kpe_build_info",
                      "Build of the running binary; the value is 1.", labels);
    metrics_gauge_set(build, 1);
    if (!build ||
        !metrics_gauge_fn(s->metrics, "process_start_time_seconds",
                          "Start time of the process since the Unix epoch "
                          "in seconds.",
                          "", gauge_start_time, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_ready",
                          "1 when /readyz answers 200.", "", gauge_ready, s) ||
        conn_metrics(s) != 0)
        return -1;
    return 0;
}

/* ---- construction ----------------------------------------------------- */

struct server *srv_new(const struct srv_options *o, struct err *e)
{
    struct server *s = calloc(1, sizeof(*s));

    if (!s) {
        err_set(e, "out of memory");
        return NULL;
    }
    s->opts = *o;
    s->mem.cap = o->max_inflight_bytes;
    arena_init(&s->arena, 0);
    pthread_mutex_init(&s->lock, NULL);
    snprintf(s->not_ready_reason, sizeof(s->not_ready_reason), "starting");
    s->reload = default_reload;
    s->listen_fd = -1;
    s->start_time = now_unix();
    s->unmatched.path = "unmatched";
    s->metrics = metrics_new();
    if (!s->metrics || builtin_metrics(s) != 0) {
        err_set(e, "out of memory");
        goto fail;
    }
    if (srv_register_route(s, "/healthz", SRV_GET, healthz, NULL, e) ||
        srv_register_route(s, "/readyz", SRV_GET, readyz, NULL, e) ||
        srv_register_route(s, "/metrics", SRV_GET, metrics_route, NULL, e) ||
        srv_register_route(s, "/version", SRV_GET, version_route, NULL, e))
        goto fail;
    return s;
fail:
    srv_free(s);
    return NULL;
}

void srv_set_ready(struct server *s, int ready, const char *reason)
{
    pthread_mutex_lock(&s->lock);
    snprintf(s->not_ready_reason, sizeof(s->not_ready_reason), "%s",
             reason ? reason : "");
    pthread_mutex_unlock(&s->lock);
    atomic_store(&s->ready, ready ? 1 : 0);
}

void srv_free(struct server *s)
{
    int i;

    if (!s)
        return;
    srv_stop(s);
    srv_wait(s);
    for (i = 0; i < s->n_workers; i++)
        worker_free(&s->workers[i]);
    free(s->workers);
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    if (s->ssl_ctx)
        SSL_CTX_free(s->ssl_ctx);
    metrics_free(s->metrics);
    pthread_mutex_destroy(&s->lock);
    arena_destroy(&s->arena);
    free(s);
}
