/*
 * http_signals.c: the HTTP server's main thread: SIGTERM and SIGINT drain
 * and stop, SIGHUP reloads; the signals stay blocked until srv_run handles
 * them.
 */
#include "server/http/http.h"

#include <event2/event.h>
#include <pthread.h>
#include <signal.h>

#include "server/common/log.h"

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
