/*
 * test_server_lifecycle.c: timeouts against slow and idle clients, the
 * graceful drain, and the signal handling of srv_run().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/server_harness.h"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int connect_loopback(int port)
{
    struct sockaddr_in a;
    struct timeval tv = { 5, 0 };
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_true(fd >= 0);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Read until EOF or error; returns seconds waited, -1 on the 5 s guard. */
static double wait_for_close(int fd, char *buf, size_t cap, size_t *got)
{
    double t0 = now();
    ssize_t n;

    *got = 0;
    for (;;) {
        n = recv(fd, buf + *got, cap - 1 - *got, 0);
        if (n > 0) {
            *got += (size_t)n;
            buf[*got] = '\0';
            continue;
        }
        if (n == 0 || errno == ECONNRESET)
            return now() - t0;
        return -1;
    }
}

static void slow_client_should_be_cut_by_the_read_timeout(void **state)
{
    static const char *const args[] = { "--read-timeout", "1", NULL };
    static const char partial[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
    struct harness h;
    char buf[512];
    size_t got;
    double waited;
    int fd;

    (void)state;
    harness_new(&h, args);
    harness_start(&h);
    fd = connect_loopback(h.srv->port);
    assert_true(fd >= 0);
    assert_int_equal(send(fd, partial, sizeof(partial) - 1, 0),
                     (ssize_t)sizeof(partial) - 1);
    waited = wait_for_close(fd, buf, sizeof(buf), &got);
    close(fd);
    if (waited < 0.8 || waited > 3.0)
        fail_msg("connection closed after %.2f s, want about 1 s", waited);
    assert_null(strstr(buf, "200 OK"));
    harness_free(&h);
}

static void idle_connection_should_close_after_the_idle_timeout(void **state)
{
    /* Idle (2 s) longer than read (1 s): the idle one must apply. */
    static const char *const args[] = { "--read-timeout", "1", "--idle-timeout",
                                        "2", NULL };
    static const char req[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    struct harness h;
    char buf[1024];
    size_t got;
    double waited;
    int fd;

    (void)state;
    harness_new(&h, args);
    harness_start(&h);
    fd = connect_loopback(h.srv->port);
    assert_true(fd >= 0);
    send(fd, req, sizeof(req) - 1, 0);
    waited = wait_for_close(fd, buf, sizeof(buf), &got);
    close(fd);
    assert_non_null(strstr(buf, "HTTP/1.1 200 OK"));
    if (waited < 1.7 || waited > 3.5)
        fail_msg("idle connection closed after %.2f s, want about 2 s", waited);
    harness_free(&h);
}

/* A verb that takes a while, so a stop arrives while it runs. */
static void slow_verb(struct server *s, const struct srv_request *req,
                      struct srv_response *r, void *arg)
{
    atomic_int *entered = arg;

    (void)s;
    (void)req;
    atomic_store(entered, 1);
    usleep(300 * 1000);
    srv_reply_text(r, 200, "done\n");
}

struct call {
    char url[256];
    struct http_result r;
};

static void *call_main(void *arg)
{
    struct call *c = arg;

    http_once("POST", c->url, "{}", 2, &c->r);
    return NULL;
}

static void stop_should_finish_the_request_in_flight(void **state)
{
    struct harness h;
    struct err e = { "" };
    struct call c;
    pthread_t t;
    atomic_int entered = 0;
    int port, fd;

    (void)state;
    harness_new(&h, NULL);
    assert_int_equal(srv_register_verb(h.srv, "slow", slow_verb, &entered, &e),
                     0);
    harness_start(&h);
    port = h.srv->port;
    snprintf(c.url, sizeof(c.url), "%s/slow", h.url);
    pthread_create(&t, NULL, call_main, &c);
    while (!atomic_load(&entered))
        usleep(1000);
    srv_stop(h.srv);
    srv_wait(h.srv);
    pthread_join(t, NULL);
    assert_int_equal(c.r.code, CURLE_OK);
    assert_int_equal(c.r.status, 200);
    assert_string_equal(c.r.body, "done\n");
    assert_non_null(strstr(c.r.headers, "Connection: close"));
    http_result_free(&c.r);
    harness_free(&h);
    fd = connect_loopback(port);
    assert_int_equal(fd, -1);
}

static atomic_int reloads;

static int count_reload(struct server *s, void *arg)
{
    (void)s;
    (void)arg;
    atomic_fetch_add(&reloads, 1);
    return 0;
}

struct runner {
    struct server *srv;
    int rc;
};

static void *run_main(void *arg)
{
    struct runner *rn = arg;
    struct err e = { "" };

    rn->rc = srv_run(rn->srv, &e);
    return NULL;
}

static void handler_installed(int sig)
{
    struct sigaction sa;
    int i;

    for (i = 0; i < 2000; i++) {
        sigaction(sig, NULL, &sa);
        if (sa.sa_handler != SIG_DFL)
            return;
        usleep(1000);
    }
    fail_msg("no handler for signal %d", sig);
}

static void signals_should_reload_then_drain(void **state)
{
    struct harness h;
    struct runner rn;
    struct http_result r;
    pthread_t t;
    char url[256];
    int i;

    (void)state;
    harness_new(&h, NULL);
    h.srv->reload = count_reload;
    harness_start(&h);
    rn = (struct runner){ h.srv, -1 };
    pthread_create(&t, NULL, run_main, &rn);
    handler_installed(SIGHUP);
    handler_installed(SIGTERM);
    kill(getpid(), SIGHUP);
    for (i = 0; i < 2000 && atomic_load(&reloads) == 0; i++)
        usleep(1000);
    assert_int_equal(atomic_load(&reloads), 1);
    snprintf(url, sizeof(url), "%s/healthz", h.url);
    http_once("GET", url, NULL, 0, &r);
    assert_int_equal(r.status, 200);
    http_result_free(&r);
    kill(getpid(), SIGTERM);
    pthread_join(t, NULL);
    assert_int_equal(rn.rc, 0);
    assert_int_equal(atomic_load(&h.srv->stopping), 1);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slow_client_should_be_cut_by_the_read_timeout),
        cmocka_unit_test(idle_connection_should_close_after_the_idle_timeout),
        cmocka_unit_test(stop_should_finish_the_request_in_flight),
        cmocka_unit_test(signals_should_reload_then_drain),
    };
    int rc;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
