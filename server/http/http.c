/*
 * http.c: the HTTP server's life cycle (see http.h): construction, start
 * (TLS, the listening socket, the workers), stop, wait and free. The
 * parts live in http_*.c, one concept each.
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
#include "server/http/http.h"

#include <event2/event.h>
#include <event2/thread.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/http/http_builtin_routes.h"
#include "server/http/http_conns.h"
#include "server/http/http_listen.h"
#include "server/http/http_offload.h"
#include "server/http/http_server_metrics.h"
#include "server/http/http_tls.h"
#include "server/http/http_worker.h"
#include "server/common/log.h"

static int default_reload(struct server *s, void *arg)
{
    (void)s;
    (void)arg;
    LOG_INFO("reload requested");
    return 0;
}

static double now_unix(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

    /* Workers and the offload pool never take the signals srv_run()
     * handles. */
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    rc = srv_offload_start(s, s->n_workers, e);
    for (i = 0; i < s->n_workers && rc == 0; i++) {
        struct srv_worker *w = &s->workers[i];

        if (pthread_create(&w->tid, NULL, srv_worker_main, w) != 0)
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
    if (srv_tls_setup(s, e) != 0 || srv_listen_socket(s, e) != 0)
        return -1;
    s->workers = calloc((size_t)n, sizeof(*s->workers));
    if (!s->workers)
        return err_set(e, "out of memory");
    s->n_workers = n;
    s->started = 1;
    for (i = 0; i < n; i++) {
        s->workers[i].index = i;
        if (srv_worker_init(s, &s->workers[i], e) != 0)
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
    if (!s->metrics || srv_register_server_metrics(s) != 0) {
        err_set(e, "out of memory");
        goto fail;
    }
    if (srv_register_builtin_routes(s, e) != 0)
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
    srv_offload_stop(s);
    for (i = 0; i < s->n_workers; i++)
        srv_worker_free(&s->workers[i]);
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
