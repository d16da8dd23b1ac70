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
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kube/base/arena.h"
#include "tests/support/echo_server.h"

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
static char *exchange(const struct harness *h, const char *raw, int wait_ms,
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
    echo_server_start(&h, NULL);
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
    print_message("pipelined %zu bytes behind an unread 8 MiB answer\n", sent);
    assert_true(sent < (16u << 20));
    close(fd);
    free(many);
    free(body);
    harness_free(&h);
}

/* The status code of the first response in raw, or -1. */
static int status_of(const char *raw)
{
    int code = -1;

    if (sscanf(raw, "HTTP/1.%*d %d", &code) != 1)
        return -1;
    return code;
}

/* The value of a metric line "name{labels} value" in /metrics, or -1. */
static double metric(const struct harness *h, const char *series)
{
    struct http_result r;
    char url[256];
    char line[160];
    const char *p;
    double v = -1;

    snprintf(url, sizeof(url), "%s/metrics", h->url);
    snprintf(line, sizeof(line), "\n%s ", series);
    if (http_once("GET", url, NULL, 0, &r) == CURLE_OK &&
        (p = strstr(r.body, line)) != NULL)
        sscanf(p + strlen(line), "%lf", &v);
    http_result_free(&r);
    return v;
}

/* HEAD: the GET answer's headers with its Content-Length, and no body;
 * a request pipelined behind it gets its own, intact answer. */
static void head_should_send_headers_without_a_body(void **state)
{
    struct harness h;
    char *out, *second;
    int closed;

    (void)state;
    echo_server_start(&h, NULL);
    out = exchange(&h,
                   "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                   "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                   300, &closed);
    assert_int_equal(status_of(out), 200);
    assert_non_null(strstr(out, "Content-Length: 3\r\n"));
    second = strstr(out, "\r\n\r\n");
    assert_non_null(second);
    second += 4;
    /* Nothing between the HEAD's headers and the next status line. */
    assert_int_equal(strncmp(second, "HTTP/1.1 200", 12), 0);
    assert_non_null(strstr(second, "\r\n\r\nok\n"));
    assert_false(closed);
    free(out);
    harness_free(&h);
}

/* CONNECT: a framed answer, then the connection is closed. */
static void connect_should_be_answered_and_closed(void **state)
{
    struct harness h;
    double t0;
    char *out;
    int closed;

    (void)state;
    echo_server_start(&h, NULL);
    t0 = now_ms();
    out = exchange(&h,
                   "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n"
                   "Connection: close\r\n\r\n",
                   3000, &closed);
    assert_true(status_of(out) >= 400);
    assert_non_null(strstr(out, "Content-Length: "));
    assert_true(closed);
    assert_true(now_ms() - t0 < 2000);
    free(out);
    harness_free(&h);
}

/* Ambiguous lengths (RFC 9112 section 6.3): 400 and the connection is
 * closed, so nothing smuggled behind the body is answered. */
static void ambiguous_content_length_should_get_400_and_close(void **state)
{
    static const struct {
        const char *name, *raw, *want;
    } cases[] = {
        { "duplicate",
          "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
          "Content-Length: 40\r\n\r\n{}"
          "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
          "more than one Content-Length" },
        { "plus sign",
          "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n{}"
          "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
          "not a decimal number" },
        { "with chunked",
          "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n"
          "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
          /* evhttp itself refuses this one, with its own page */
          "400 Bad Request" },
    };
    struct harness h;
    size_t i;

    (void)state;
    echo_server_start(&h, NULL);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int closed;
        char *out = exchange(&h, cases[i].raw, 2000, &closed);

        if (status_of(out) != 400 || !strstr(out, cases[i].want) || !closed ||
            strstr(out + 12, "HTTP/1.1"))
            fail_msg("%s: want one 400 naming \"%s\" and a close, got "
                     "(closed %d):\n%s",
                     cases[i].name, cases[i].want, closed, out);
        free(out);
    }
    harness_free(&h);
}

#define CHUNKED_HEAD                                                           \
    "POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"

/*
 * Chunked bodies (RFC 9112 section 7.1): a malformed chunk size or trailer
 * line is 400 and the connection is closed (evhttp alone says 413, as if
 * the body were too long; the framing watch sees the line first), whether
 * it comes with the headers or in a later packet. A body really over
 * --max-body-bytes stays 413, a valid one 200.
 */
static void chunked_framing_errors_should_get_400_and_close(void **state)
{
    static const char *const args[] = { "--max-body-bytes", "1Mi", NULL };
    static const struct {
        const char *name, *parts[3];
        int status, closed;
    } cases[] = {
        { "size not hex, with the headers",
          { CHUNKED_HEAD "zz\r\n{}\r\n0\r\n\r\n" },
          400,
          1 },
        { "size not hex, in a later packet",
          { CHUNKED_HEAD, "zz\r\n{}\r\n0\r\n\r\n" },
          400,
          1 },
        { "bad size after a good chunk",
          { CHUNKED_HEAD "1\r\n{\r\n", "1x\r\n}\r\n0\r\n\r\n" },
          400,
          1 },
        { "negative size", { CHUNKED_HEAD, "-2\r\n{}\r\n0\r\n\r\n" }, 400, 1 },
        { "chunk extension (evhttp 2.1 does not take them)",
          { CHUNKED_HEAD, "2;name=value\r\n{}\r\n0\r\n\r\n" },
          400,
          1 },
        { "trailer line without a colon",
          { CHUNKED_HEAD "2\r\n{}\r\n0\r\n", "no colon here\r\n\r\n" },
          400,
          1 },
        { "size line cut over three packets",
          { CHUNKED_HEAD "2\r\n{}\r\n", "0", "q\r\n\r\n" },
          400,
          1 },
        { "valid, a size with a space after it",
          { CHUNKED_HEAD "2 \r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n" },
          200,
          0 },
        { "valid, over three packets",
          { CHUNKED_HEAD "1\r\n{\r\n", "1\r\n}\r", "\n0\r\n\r\n" },
          200,
          0 },
        { "over --max-body-bytes", { CHUNKED_HEAD, "200000\r\n" }, 413, 1 },
    };
    struct harness h;
    size_t i, j;

    (void)state;
    echo_server_start(&h, args);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int fd = dial(&h), closed;
        size_t len;
        char *out;

        for (j = 0; j < 3 && cases[i].parts[j]; j++) {
            if (j)
                usleep(30 * 1000);
            send_all(fd, cases[i].parts[j], strlen(cases[i].parts[j]));
        }
        out = read_for(fd, cases[i].closed ? 2000 : 300, &len, &closed);
        close(fd);
        if (status_of(out) != cases[i].status || closed != cases[i].closed ||
            strstr(out + 12, "HTTP/1.1"))
            fail_msg("%s: want one %d answer and closed %d, got (closed "
                     "%d):\n%s",
                     cases[i].name, cases[i].status, cases[i].closed, closed,
                     out);
        if (cases[i].status == 200 && !strstr(out, "\r\n\r\n{}"))
            fail_msg("%s: want the body {} echoed, got:\n%s", cases[i].name,
                     out);
        free(out);
    }
    assert_int_equal(metric(&h, "kpe_http_corrupt_chunked_total"), 7);
    harness_free(&h);
}

/*
 * Header sections RFC 9112 refuses and evhttp 2.1 takes (issue 29): each
 * is answered 400 and closed, so nothing smuggled behind it (a second
 * request in what a front proxy would read as the body) is answered. As
 * Go's net/http (readRequest, textproto) and llhttp refuse them.
 */
static void smuggling_header_sections_should_get_400_and_close(void **state)
{
    static const char *const cases[] = {
        /* evhttp would ignore the length: the body ran as a request */
        "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length : 37\r\n\r\n"
        "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
        /* evhttp would read Content-Length, not the chunks */
        "POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n"
        "Content-Length: 2\r\n\r\n{}",
        "GET /healthz HTTP/1.1\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: x\r\n: empty\r\n\r\n",
        "POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        "\r\n0x2\r\n{}\r\n0\r\n\r\n",
        "POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity, "
        "chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n",
        "HEAD /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 37\r\n\r\n"
        "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    };
    struct harness h;
    size_t i;
    int closed;
    char *out;

    (void)state;
    echo_server_start(&h, NULL);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        out = exchange(&h, cases[i], 2000, &closed);
        if (status_of(out) != 400 || !closed || strstr(out + 12, "HTTP/1.1"))
            fail_msg("case %zu: want one 400 and a close, got (closed %d):\n%s",
                     i, closed, out);
        free(out);
    }
    /* A NUL byte, which strlen would cut. */
    {
        static const char raw[] =
            "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n";
        int fd = dial(&h);
        size_t len;

        send_all(fd, raw, sizeof(raw) - 1);
        out = read_for(fd, 2000, &len, &closed);
        close(fd);
        if (status_of(out) != 400 || !closed)
            fail_msg("NUL in a value: want 400 and a close, got:\n%s", out);
        free(out);
    }
    /* HTTP/1.0 needs no Host; a valid request is still answered. */
    out = exchange(&h, "GET /healthz HTTP/1.0\r\n\r\n", 300, &closed);
    assert_int_equal(status_of(out), 200);
    free(out);
    out = exchange(&h,
                   "POST /filter HTTP/1.1\r\nHost: x\r\nX-A: \t\xe9\r\n"
                   "Content-Length: 2\r\n\r\n{}",
                   300, &closed);
    assert_int_equal(status_of(out), 200);
    free(out);
    assert_int_equal(metric(&h, "kpe_http_bad_headers_total"), 10);
    assert_int_equal(metric(&h, "kpe_http_corrupt_chunked_total"), 1);
    harness_free(&h);
}

/*
 * A corrupt chunked request pipelined in one packet behind a request
 * still to be answered waits for its turn: the first is answered 200,
 * then the corrupt one 400 and the connection is closed.
 */
static void corrupt_chunk_behind_a_pipelined_request_gets_400(void **state)
{
    struct harness h;
    char *out, *second;
    int closed;

    (void)state;
    echo_server_start(&h, NULL);
    out = exchange(&h,
                   "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: "
                   "2\r\n\r\n{}" CHUNKED_HEAD "zz\r\n{}\r\n0\r\n\r\n",
                   2000, &closed);
    assert_int_equal(status_of(out), 200);
    second = strstr(out + 12, "HTTP/1.1 ");
    assert_non_null(second);
    assert_int_equal(status_of(second), 400);
    assert_null(strstr(second + 12, "HTTP/1.1 "));
    assert_true(closed);
    free(out);
    harness_free(&h);
}

/* A declared length above --max-body-bytes is refused from the headers,
 * before any of the body is sent. */
static void declared_length_above_the_cap_should_get_413_at_once(void **state)
{
    static const char *const args[] = { "--max-body-bytes", "1Mi", NULL };
    struct harness h;
    char *out;
    int closed;

    (void)state;
    echo_server_start(&h, args);
    out = exchange(&h,
                   "POST /filter HTTP/1.1\r\nHost: x\r\n"
                   "Content-Length: 1073741824\r\n\r\n",
                   3000, &closed);
    assert_int_equal(status_of(out), 413);
    assert_true(closed);
    free(out);
    /* A client that sends the body anyway still reads the 413: the server
     * drains what it sends for a while instead of resetting. */
    {
        static const char head[] = "POST /filter HTTP/1.1\r\nHost: x\r\n"
                                   "Content-Length: 8388608\r\n\r\n";
        size_t n = 8u << 20, sent = 0, len;
        char *body = calloc(1, n);
        int fd = dial(&h);
        double t0 = now_ms();

        send_all(fd, head, sizeof(head) - 1);
        while (sent < n && now_ms() - t0 < 3000) {
            ssize_t k = send(fd, body + sent, n - sent, MSG_NOSIGNAL);

            if (k <= 0)
                break;
            sent += (size_t)k;
        }
        out = read_for(fd, 3000, &len, &closed);
        print_message("sent %zu bytes of the body, then read: %.40s\n", sent,
                      out);
        assert_int_equal(sent, n); /* no reset while sending */
        assert_int_equal(status_of(out), 413);
        free(out);
        free(body);
        close(fd);
    }
    harness_free(&h);
}

/*
 * Idle connections up to and past --max-connections: accepting pauses
 * instead of spinning, the ones silent for longest are closed to make
 * room, and a valid request queued behind them is still answered within
 * a few seconds.
 */
static void idle_connections_should_not_lock_out_valid_requests(void **state)
{
    static const char *const args[] = { "--max-connections", "20", NULL };
    enum { N_IDLE = 60 };
    struct harness h;
    struct http_result r;
    int fds[N_IDLE], i;
    double t0;
    char url[256];

    (void)state;
    echo_server_start(&h, args);
    for (i = 0; i < N_IDLE; i++) {
        fds[i] = dial(&h); /* beyond the cap they wait in the backlog */
        if (i == 20)
            usleep(400 * 1000); /* the first 20 are now idle */
    }
    snprintf(url, sizeof(url), "%s/healthz", h.url);
    t0 = now_ms();
    assert_int_equal(http_once("GET", url, NULL, 0, &r), CURLE_OK);
    assert_int_equal(r.status, 200);
    http_result_free(&r);
    print_message("valid request answered after %.0f ms with %d idle "
                  "connections\n",
                  now_ms() - t0, N_IDLE);
    assert_true(now_ms() - t0 < 5000);
    assert_true(metric(&h, "kpe_http_max_connections") == 20);
    assert_true(metric(&h, "kpe_http_connections_shed_total") >= 1);
    assert_true(metric(&h, "kpe_http_accept_paused_total{reason=\"cap\"}") >=
                1);
    assert_true(metric(&h, "kpe_http_connections") <= 20 + 2);
    for (i = 0; i < N_IDLE; i++)
        close(fds[i]);
    harness_free(&h);
}

/* Send one byte of s at a time every step_ms until the server closes;
 * returns the ms it took (or -1 when all of s went out first). */
static double trickle_until_closed(int fd, const char *s, int step_ms)
{
    double t0 = now_ms();
    size_t i, n = strlen(s);
    char c;

    for (i = 0; i < n; i++) {
        struct pollfd p = { fd, POLLIN, 0 };

        if (send(fd, s + i, 1, MSG_NOSIGNAL) != 1)
            return now_ms() - t0;
        if (poll(&p, 1, step_ms) == 1 && recv(fd, &c, 1, 0) <= 0)
            return now_ms() - t0;
    }
    return -1;
}

/*
 * Absolute deadlines (issue 29, as Go's ReadHeaderTimeout and
 * ReadTimeout): a request whose headers, or whose body, trickle in a byte
 * every 200 ms, never silent long enough for --read-timeout, is cut off
 * --header-timeout or --body-timeout after its first byte.
 */
static void trickled_requests_should_meet_absolute_deadlines(void **state)
{
    static const char *const args[] = { "--header-timeout",
                                        "1",
                                        "--body-timeout",
                                        "2",
                                        "--read-timeout",
                                        "30",
                                        NULL };
    static const char slow_head[] =
        "POST /filter HTTP/1.1\r\nHost: x\r\nX-Slow: "
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    static const char head[] =
        "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n";
    char body[101];
    struct harness h;
    double dt;
    int fd;

    (void)state;
    echo_server_start(&h, args);
    fd = dial(&h);
    dt = trickle_until_closed(fd, slow_head, 200);
    close(fd);
    print_message("trickled headers cut off after %.0f ms\n", dt);
    assert_true(dt >= 900 && dt < 2500);
    memset(body, 'x', 100);
    body[100] = '\0';
    fd = dial(&h);
    send_all(fd, head, strlen(head));
    dt = trickle_until_closed(fd, body, 200);
    close(fd);
    print_message("trickled body cut off after %.0f ms\n", dt);
    assert_true(dt >= 1900 && dt < 3500);
    assert_int_equal(
        metric(&h, "kpe_http_request_deadline_total{missed=\"headers\"}"), 1);
    assert_int_equal(
        metric(&h, "kpe_http_request_deadline_total{missed=\"body\"}"), 1);
    harness_free(&h);
}

/* The slowloris of issue 29: N_SLOW connections that each send a byte of
 * an endless header every 200 ms, reconnecting when closed. */
enum { N_SLOW = 40 };
struct slowloris {
    const struct harness *h;
    atomic_int stop;
    int fds[N_SLOW];
};

static int dial_quiet(const struct harness *h)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)h->srv->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
        send(fd, "GET /healthz HTTP/1.1\r\nX-A: ", 28, MSG_NOSIGNAL) == 28)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

static void *slowloris_main(void *arg)
{
    struct slowloris *sl = arg;
    int i;
    char c;

    for (i = 0; i < N_SLOW; i++)
        sl->fds[i] = dial_quiet(sl->h);
    while (!atomic_load(&sl->stop)) {
        usleep(200 * 1000);
        for (i = 0; i < N_SLOW; i++) {
            if (sl->fds[i] >= 0 &&
                (send(sl->fds[i], "a", 1, MSG_NOSIGNAL) != 1 ||
                 recv(sl->fds[i], &c, 1, MSG_DONTWAIT) == 0)) {
                close(sl->fds[i]);
                sl->fds[i] = -1;
            }
            if (sl->fds[i] < 0)
                sl->fds[i] = dial_quiet(sl->h);
        }
    }
    for (i = 0; i < N_SLOW; i++)
        if (sl->fds[i] >= 0)
            close(sl->fds[i]);
    return NULL;
}

/*
 * 40 slowloris connections at --max-connections 20: they are never
 * silent, so only their trickling headers make them room to close; a
 * valid filter request and /metrics are still answered, each within a
 * few seconds (before: 1 answer and 6 timeouts in 27 s).
 */
static void slowloris_at_the_cap_should_not_starve_valid_requests(void **state)
{
    static const char *const args[] = { "--max-connections", "20", "--workers",
                                        "1", NULL };
    struct slowloris sl = { 0 };
    struct http_result r;
    struct harness h;
    pthread_t tid;
    char filter[256], metrics[256];
    int round;

    (void)state;
    echo_server_start(&h, args);
    sl.h = &h;
    snprintf(filter, sizeof(filter), "%s/filter", h.url);
    snprintf(metrics, sizeof(metrics), "%s/metrics", h.url);
    assert_int_equal(pthread_create(&tid, NULL, slowloris_main, &sl), 0);
    usleep(1500 * 1000);
    for (round = 0; round < 4; round++) {
        double t0 = now_ms();

        assert_int_equal(http_once("POST", filter, "{}", 2, &r), CURLE_OK);
        assert_int_equal(r.status, 200);
        http_result_free(&r);
        assert_int_equal(http_once("GET", metrics, NULL, 0, &r), CURLE_OK);
        assert_int_equal(r.status, 200);
        http_result_free(&r);
        print_message("round %d: filter and /metrics answered in %.0f ms\n",
                      round, now_ms() - t0);
        assert_true(now_ms() - t0 < 5000);
    }
    atomic_store(&sl.stop, 1);
    pthread_join(tid, NULL);
    assert_true(metric(&h, "kpe_http_connections_shed_total") >= 1);
    harness_free(&h);
}

/*
 * Clients that send half a body and stall: what they hold is counted and
 * reading stops at half of --max-inflight-bytes, so the server neither
 * buffers without bound nor refuses a small request meanwhile; what they
 * hold is given back after --read-timeout.
 */
static void stalled_bodies_should_stay_within_the_memory_cap(void **state)
{
    static const char *const args[] = { "--max-inflight-bytes",
                                        "4Mi",
                                        "--max-body-bytes",
                                        "4Mi",
                                        "--read-timeout",
                                        "1",
                                        NULL };
    enum { N = 6, PART = 1 << 20 };
    struct harness h;
    struct http_result r;
    char head[128], url[256], *part = malloc(PART);
    int fds[N], i;
    double recv_bytes, t0;

    (void)state;
    memset(part, 'x', PART);
    echo_server_start(&h, args);
    for (i = 0; i < N; i++) {
        int n = snprintf(head, sizeof(head),
                         "POST /filter HTTP/1.1\r\nHost: x\r\n"
                         "Content-Length: %d\r\n\r\n",
                         3 * PART);

        fds[i] = dial(&h);
        send_all(fds[i], head, (size_t)n);
        fcntl(fds[i], F_SETFL, O_NONBLOCK);
        /* As much of 1 MiB as the socket takes now. */
        if (send(fds[i], part, PART, MSG_NOSIGNAL) < 0)
            assert_int_equal(errno, EAGAIN);
    }
    usleep(300 * 1000);
    recv_bytes = metric(&h, "kpe_http_receiving_bytes");
    print_message("held by %d stalled bodies: %.0f bytes (cap 4 MiB)\n", N,
                  recv_bytes);
    assert_true(recv_bytes > 0);
    assert_true(recv_bytes <= (2 << 20) + N * (256 << 10));
    snprintf(url, sizeof(url), "%s/filter", h.url);
    assert_int_equal(http_once("POST", url, "{}", 2, &r), CURLE_OK);
    assert_int_equal(r.status, 200);
    http_result_free(&r);
    /* Everything they held is given back after --read-timeout (1 s), once
     * per round: freeing one resumes the others, which read and stall. */
    t0 = now_ms();
    while (metric(&h, "kpe_http_receiving_bytes") > 4096 &&
           now_ms() - t0 < 10000)
        usleep(50 * 1000);
    print_message("given back after %.0f ms\n", now_ms() - t0);
    assert_true(metric(&h, "kpe_http_receiving_bytes") <= 4096);
    for (i = 0; i < N; i++)
        close(fds[i]);
    free(part);
    harness_free(&h);
}

/* ---- memory in flight: 503, and the small requests' reserve ------- */

static atomic_int hold_state; /* 0 idle, 1 holding, 2 released */

/*
 * POST /hold: a request in flight that holds memory, as a big evaluation
 * does: as much of its arena as the server lets it take (so counted in
 * --max-inflight-bytes), kept until the test releases it (10 s at most).
 * The refusal that ends the probe is expected, so it is cleared: the
 * answer says how much it got.
 */
static void hold_handler(struct server *s, const struct srv_request *req,
                         struct srv_response *r, void *arg)
{
    static char msg[64];
    size_t got = 0, step = 64u << 10;
    int waited = 0;

    (void)s;
    (void)arg;
    while (got < (64u << 20) && arena_alloc(req->arena, step))
        got += step;
    req->arena->over = 0;
    atomic_store(&hold_state, 1);
    while (atomic_load(&hold_state) != 2 && waited++ < 1000)
        usleep(10 * 1000);
    /* The answer must outlive the handler, and the arena is full: one
     * holder at a time, so a static buffer. */
    snprintf(msg, sizeof(msg), "held %zu\n", got);
    srv_reply_text(r, 200, msg);
}

struct hold_client {
    char url[256];
    size_t len;
    char *body;
    struct http_result r;
};

static void *hold_client_main(void *arg)
{
    struct hold_client *c = arg;

    http_once("POST", c->url, c->body, c->len, &c->r);
    return NULL;
}

/*
 * A big request (1.1 MiB body) in flight takes all the memory the server
 * lets it: it stays out of the last eighth of --max-inflight-bytes (16
 * MiB), kept for small requests. A second big one then gets 503 with
 * Retry-After (the budget is held: retry; not 413, which says it would
 * never fit), while a small one is still answered; once the first is
 * answered a big request gets 200 again.
 */
static void inflight_memory_should_refuse_big_requests_with_503(void **state)
{
    static const char *const args[] = { "--max-inflight-bytes", "16Mi",
                                        "--workers", "2", NULL };
    size_t big_len = (1u << 20) + (100u << 10), got = 0;
    char *big = malloc(big_len), url[256], hold_url[256];
    struct hold_client hc = { .len = big_len };
    struct http_result r;
    struct harness h;
    struct err e = { "" };
    double t0, held;
    pthread_t t;

    (void)state;
    memset(big, 'x', big_len);
    hc.body = big;
    atomic_store(&hold_state, 0);
    harness_new(&h, args);
    if (srv_register_verb(h.srv, "filter", echo_server_handler, NULL, &e) ||
        srv_register_verb(h.srv, "hold", hold_handler, NULL, &e))
        fail_msg("%s", e.msg);
    harness_start(&h);
    snprintf(hold_url, sizeof(hold_url), "%s/hold", h.url);
    snprintf(hc.url, sizeof(hc.url), "%s", hold_url);
    snprintf(url, sizeof(url), "%s/filter", h.url);
    assert_int_equal(pthread_create(&t, NULL, hold_client_main, &hc), 0);
    t0 = now_ms();
    while (atomic_load(&hold_state) != 1 && now_ms() - t0 < 5000)
        usleep(5 * 1000);
    assert_int_equal(atomic_load(&hold_state), 1);
    held = metric(&h, "kpe_http_inflight_bytes");
    print_message("in flight while one big request holds: %.0f bytes of "
                  "16 MiB\n",
                  held);
    assert_true(held > (8 << 20));
    assert_true(held <= (14 << 20));

    /* A second holder would take the reserve: refused at once. */
    atomic_store(&hold_state, 0);
    assert_int_equal(http_once("POST", hold_url, big, big_len, &r), CURLE_OK);
    print_message("second big request: %ld %s", r.status, r.body);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(r.headers, "Retry-After: 1"));
    assert_non_null(strstr(r.body, "--max-inflight-bytes"));
    http_result_free(&r);
    assert_true(
        metric(&h, "kpe_http_memory_refusals_total{reason=\"inflight\"}") >= 1);
    assert_int_equal(http_once("POST", url, "{}", 2, &r), CURLE_OK);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{}");
    http_result_free(&r);

    atomic_store(&hold_state, 2);
    pthread_join(t, NULL);
    assert_int_equal(hc.r.status, 200);
    assert_int_equal(sscanf(hc.r.body, "held %zu", &got), 1);
    assert_true(got > (6u << 20));
    http_result_free(&hc.r);
    assert_int_equal(http_once("POST", url, big, big_len, &r), CURLE_OK);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, big_len);
    http_result_free(&r);
    free(big);
    harness_free(&h);
}

/* ---- big requests off the connection's thread -------------------- */

/* POST /wait: a handler that runs until the test releases it (10 s at
 * most), as a long evaluation does. */
static void wait_handler(struct server *s, const struct srv_request *req,
                         struct srv_response *r, void *arg)
{
    int waited = 0;

    (void)s;
    (void)req;
    (void)arg;
    atomic_store(&hold_state, 1);
    while (atomic_load(&hold_state) != 2 && waited++ < 1000)
        usleep(10 * 1000);
    srv_reply_text(r, 200, "waited\n");
}

static void start_wait_server(struct harness *h, const char *const *args)
{
    struct err e = { "" };

    atomic_store(&hold_state, 0);
    harness_new(h, args);
    if (srv_register_verb(h->srv, "filter", echo_server_handler, NULL, &e) ||
        srv_register_verb(h->srv, "wait", wait_handler, NULL, &e))
        fail_msg("%s", e.msg);
    harness_start(h);
}

static void wait_for_hold(void)
{
    double t0 = now_ms();

    while (atomic_load(&hold_state) != 1 && now_ms() - t0 < 5000)
        usleep(5 * 1000);
    assert_int_equal(atomic_load(&hold_state), 1);
}

/*
 * One worker: while the handler of a big request (1.1 MiB body) runs, the
 * same worker still answers small requests, on a kept-alive connection
 * too, since the big one is evaluated on the pool (http_offload.c).
 */
static void big_requests_should_not_hold_up_their_worker(void **state)
{
    static const char *const args[] = { "--workers", "1", NULL };
    size_t big_len = (1u << 20) + (100u << 10);
    char *big = malloc(big_len), url[256];
    struct hold_client hc = { .len = big_len };
    struct http_result r;
    struct harness h;
    CURL *keep = curl_easy_init();
    pthread_t t;
    int i;

    (void)state;
    memset(big, ' ', big_len);
    hc.body = big;
    start_wait_server(&h, args);
    snprintf(hc.url, sizeof(hc.url), "%s/wait", h.url);
    snprintf(url, sizeof(url), "%s/filter", h.url);
    assert_int_equal(pthread_create(&t, NULL, hold_client_main, &hc), 0);
    wait_for_hold();
    for (i = 0; i < 3; i++) {
        double t0 = now_ms();

        assert_int_equal(http_do(keep, "POST", url, "{}", 2, &r), CURLE_OK);
        assert_int_equal(r.status, 200);
        assert_string_equal(r.body, "{}");
        print_message("small request %d beside the big one: %.1f ms\n", i,
                      now_ms() - t0);
        assert_true(now_ms() - t0 < 2000);
        http_result_free(&r);
    }
    /* Still running: the small ones did not wait for it. */
    assert_int_equal(atomic_load(&hold_state), 1);
    atomic_store(&hold_state, 2);
    pthread_join(t, NULL);
    assert_int_equal(hc.r.status, 200);
    assert_string_equal(hc.r.body, "waited\n");
    http_result_free(&hc.r);
    curl_easy_cleanup(keep);
    free(big);
    harness_free(&h);
}

/* GET url: the status, and the time it took in *ms. */
static long get_status(const char *base, const char *path, double *ms)
{
    struct http_result r;
    char url[256];
    double t0 = now_ms();
    long status = -1;

    snprintf(url, sizeof(url), "%s%s", base, path);
    if (http_once("GET", url, NULL, 0, &r) == CURLE_OK)
        status = r.status;
    http_result_free(&r);
    *ms = now_ms() - t0;
    return status;
}

/*
 * Evaluations that never end (issue 29): each is answered 503 after
 * --eval-timeout and its pool thread replaced, so the next request is
 * still evaluated; the probes and /metrics never wait for the pool (two
 * stuck evaluations on a one-worker server used to make them time out).
 * Past as many stuck threads as the pool has, /healthz fails.
 */
static void stuck_evaluations_should_get_503_and_spare_the_probes(void **state)
{
    static const char *const args[] = { "--workers", "1", "--eval-timeout", "1",
                                        NULL };
    static const char *const probes[] = { "/healthz", "/readyz", "/metrics",
                                          "/version" };
    struct hold_client hc[3];
    struct http_result r;
    struct harness h;
    pthread_t t[3];
    char url[256];
    double ms;
    size_t i;

    (void)state;
    start_wait_server(&h, args);
    memset(hc, 0, sizeof(hc));
    for (i = 0; i < 2; i++) {
        snprintf(hc[i].url, sizeof(hc[i].url), "%s/wait", h.url);
        hc[i].body = (char *)"{}";
        hc[i].len = 2;
        assert_int_equal(pthread_create(&t[i], NULL, hold_client_main, &hc[i]),
                         0);
    }
    wait_for_hold();
    usleep(200 * 1000); /* both handlers running: every pool thread held */
    for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        long st = get_status(h.url, probes[i], &ms);

        /* /readyz: 503 too, the harness never says ready */
        print_message("%s beside two stuck evaluations: %ld in %.1f ms\n",
                      probes[i], st, ms);
        assert_true(st == 200 || (st == 503 && i == 1));
        assert_true(ms < 500);
    }
    for (i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(hc[i].r.status, 503);
        assert_non_null(strstr(hc[i].r.body, "--eval-timeout"));
        http_result_free(&hc[i].r);
    }
    /* Both threads replaced: evaluation goes on. */
    snprintf(url, sizeof(url), "%s/filter", h.url);
    assert_int_equal(http_once("POST", url, "{}", 2, &r), CURLE_OK);
    assert_int_equal(r.status, 200);
    http_result_free(&r);
    assert_int_equal(metric(&h, "kpe_http_eval_deadline_total"), 2);
    assert_int_equal(get_status(h.url, "/healthz", &ms), 200);
    /* A third stuck thread is past the bound (the pool's 2 threads). */
    snprintf(hc[2].url, sizeof(hc[2].url), "%s/wait", h.url);
    hc[2].body = (char *)"{}";
    hc[2].len = 2;
    assert_int_equal(pthread_create(&t[2], NULL, hold_client_main, &hc[2]), 0);
    pthread_join(t[2], NULL);
    assert_int_equal(hc[2].r.status, 503);
    http_result_free(&hc[2].r);
    assert_int_equal(get_status(h.url, "/healthz", &ms), 500);
    atomic_store(&hold_state, 2); /* the handlers return: nothing leaks */
    harness_free(&h);
}

static void *release_later(void *arg)
{
    (void)arg;
    usleep(1500 * 1000);
    atomic_store(&hold_state, 2);
    return NULL;
}

/*
 * Shutdown past the grace period with one big request running on the
 * pool and another queued behind it: the worker waits for the running
 * handler, drops both (their connections close unanswered, as any
 * request still in flight after the grace period), and nothing leaks or
 * is used after it is freed (ASan, TSan).
 */
static void shutdown_should_drop_offloaded_requests(void **state)
{
    static const char *const args[] = { "--workers", "1", "--shutdown-grace",
                                        "1", NULL };
    size_t big_len = (1u << 20) + (100u << 10);
    char *big = malloc(big_len);
    struct hold_client a = { .len = big_len }, b = { .len = big_len };
    struct harness h;
    pthread_t ta, tb, rel;

    (void)state;
    memset(big, ' ', big_len);
    a.body = b.body = big;
    start_wait_server(&h, args);
    snprintf(a.url, sizeof(a.url), "%s/wait", h.url);
    snprintf(b.url, sizeof(b.url), "%s/filter", h.url);
    assert_int_equal(pthread_create(&ta, NULL, hold_client_main, &a), 0);
    wait_for_hold();
    assert_int_equal(pthread_create(&tb, NULL, hold_client_main, &b), 0);
    usleep(300 * 1000); /* b is read and queued behind a */
    assert_int_equal(pthread_create(&rel, NULL, release_later, NULL), 0);
    harness_free(&h);
    pthread_join(rel, NULL);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    print_message("running: curl %d, HTTP %ld; queued: curl %d, HTTP %ld\n",
                  a.r.code, a.r.status, b.r.code, b.r.status);
    assert_int_not_equal(a.r.status, 200);
    assert_int_not_equal(b.r.status, 200);
    http_result_free(&a.r);
    http_result_free(&b.r);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pipelining_without_reading_should_stop_the_reads),
        cmocka_unit_test(head_should_send_headers_without_a_body),
        cmocka_unit_test(connect_should_be_answered_and_closed),
        cmocka_unit_test(ambiguous_content_length_should_get_400_and_close),
        cmocka_unit_test(chunked_framing_errors_should_get_400_and_close),
        cmocka_unit_test(smuggling_header_sections_should_get_400_and_close),
        cmocka_unit_test(corrupt_chunk_behind_a_pipelined_request_gets_400),
        cmocka_unit_test(declared_length_above_the_cap_should_get_413_at_once),
        cmocka_unit_test(idle_connections_should_not_lock_out_valid_requests),
        cmocka_unit_test(trickled_requests_should_meet_absolute_deadlines),
        cmocka_unit_test(slowloris_at_the_cap_should_not_starve_valid_requests),
        cmocka_unit_test(stalled_bodies_should_stay_within_the_memory_cap),
        cmocka_unit_test(inflight_memory_should_refuse_big_requests_with_503),
        cmocka_unit_test(big_requests_should_not_hold_up_their_worker),
        cmocka_unit_test(shutdown_should_drop_offloaded_requests),
        cmocka_unit_test(stuck_evaluations_should_get_503_and_spare_the_probes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
