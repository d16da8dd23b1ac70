/*
 * fake_http.h: a tiny scripted HTTP/1.1 responder on 127.0.0.1:0 for the
 * client, informer and cache tests. Each connection carries one request;
 * the first unused script row whose `match` occurs in "METHOD TARGET"
 * answers it. Bodies can be cut into pieces with pauses (to split watch
 * events across reads), sent chunked, held open, or dropped mid-stream.
 * Requests are recorded for the test to inspect.
 */
#ifndef TESTS_SUPPORT_FAKE_HTTP_H
#define TESTS_SUPPORT_FAKE_HTTP_H

#include <stdbool.h>
#include <stddef.h>

struct fh_response {
    const char *match; /* substring of "GET /api/v1/pods?limit=5"; NULL any */
    int status;
    const char *body; /* NULL: empty */
    size_t piece;     /* send the body in pieces of this size (0: whole) */
    int pause_ms;     /* between pieces */
    bool chunked;     /* Transfer-Encoding: chunked (else Content-Length) */
    int hold_ms;      /* after the body, keep the connection open this
                         long; -1: until fh_stop */
    bool drop;        /* then close without finishing the chunked body */
};

struct fh_request {
    char method[16];
    char target[2048]; /* path and query */
    char headers[4096];
    char body[8192]; /* first bytes of the request body */
    size_t body_len;
    double at;       /* monotonic seconds when it arrived */
    int answered_by; /* script row index, -1 when none matched */
};

struct fake_http;

/*
 * Start serving script (copied; strings must outlive the server). A
 * request no row matches gets 200 with a chunked body held open until
 * fh_stop (an idle watch). Fails the test when it cannot listen.
 */
struct fake_http *fh_start(const struct fh_response *script, size_t n);

/* "http://127.0.0.1:PORT" */
const char *fh_url(const struct fake_http *fh);

/* Wait until at least n requests arrived (or timeout_ms); their count. */
size_t fh_wait(struct fake_http *fh, size_t n, int timeout_ms);

/* A copy of request i (0-based); false when there is no such request. */
bool fh_request(struct fake_http *fh, size_t i, struct fh_request *out);

/* Requests so far. */
size_t fh_count(struct fake_http *fh);

/* Close everything, join the threads, free. */
void fh_stop(struct fake_http *fh);

#endif
