/*
 * test_http_framing_watch.c: the framing watch (server/http/
 * http_framing_watch.c) follows request streams as libevent 2.1.12's
 * evhttp parses them (http.c: evhttp_parse_request_line, evhttp_get_body,
 * evhttp_handle_chunked_read, evhttp_parse_headers_ for trailers). Each
 * stream is fed whole, byte by byte, and cut in two at every offset: the
 * verdict must not depend on how the bytes arrive.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <event2/buffer.h>
#include <string.h>

#include "server/http/http_framing_watch.h"

#define TE       "Transfer-Encoding: chunked\r\n"
#define POST_TE  "POST /filter HTTP/1.1\r\nHost: x\r\n" TE "\r\n"
#define MAX_BODY 4096

/* A stream and its length (some hold NUL bytes). */
#define S(literal) literal, sizeof(literal) - 1

static const struct {
    const char *name, *stream;
    size_t len;
    enum srv_fw_state want;
    enum srv_fw_why why; /* for SRV_FW_CORRUPT; SRV_FW_OK: BAD_CHUNK */
} cases[] = {
    /* Followed to the end: back at a request line. */
    { "Content-Length body, then a GET",
      S("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET / "
        "HTTP/1.1\r\nHost: y\r\n\r\n"),
      SRV_FW_REQUEST, SRV_FW_OK },
    { "chunked with a trailer", S(POST_TE "2\r\n{}\r\n0\r\nX-T: 1\r\n\r\n"),
      SRV_FW_REQUEST, SRV_FW_OK },
    { "bare LF line ends", S("POST / HTTP/1.1\nHost: x\n" TE "\n2\n{}\n0\n\n"),
      SRV_FW_REQUEST, SRV_FW_OK },
    { "empty lines between chunks skipped",
      S(POST_TE "2\r\n{}\r\n\r\n\r\n0\r\n\r\n"), SRV_FW_REQUEST, SRV_FW_OK },
    { "no CRLF after the data: the next line is the size",
      S(POST_TE "2\r\n{}0\r\n\r\n"), SRV_FW_REQUEST, SRV_FW_OK },
    { "size followed by a space and anything",
      S(POST_TE "2 ;x\r\n{}\r\n0\r\n\r\n"), SRV_FW_REQUEST, SRV_FW_OK },
    { "HTTP/1.0 needs no Host",
      S("POST / HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}"), SRV_FW_REQUEST,
      SRV_FW_OK },
    { "request line longer than the line kept",
      S("GET /"
        "................................................................"
        " HTTP/1.1\r\nHost: x\r\n\r\n"),
      SRV_FW_REQUEST, SRV_FW_OK },
    { "a header name longer than the line kept",
      S("GET / HTTP/1.1\r\nHost: x\r\nX-"
        "0123456789012345678901234567890123456789012345678901234567890123"
        ": v\r\n\r\n"),
      SRV_FW_REQUEST, SRV_FW_OK },
    { "obs-text and HTAB in a value",
      S("GET / HTTP/1.1\r\nHost: x\r\nX-A: \t\xe9t\xe9\t\r\n\r\n"),
      SRV_FW_REQUEST, SRV_FW_OK },
    /* RFC 9112, as Go and llhttp: 400 where evhttp would go on. */
    { "0x prefix (strtoll would take it)", S(POST_TE "0x1a3\r\n"),
      SRV_FW_CORRUPT, SRV_FW_OK },
    { "+ sign (strtoll would take it)", S(POST_TE "+1\r\n}\r\n"),
      SRV_FW_CORRUPT, SRV_FW_OK },
    { "spaces only (strtoll: size 0)", S(POST_TE "   \r\n\r\n"), SRV_FW_CORRUPT,
      SRV_FW_OK },
    { "space before the colon of Content-Length",
      S("POST / HTTP/1.1\r\nHost: x\r\nContent-Length : 33\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_NAME },
    { "space before the colon of Transfer-Encoding",
      S("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n"
        "Content-Length: 3\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_NAME },
    { "tab before the colon", S("GET / HTTP/1.1\r\nHost\t: x\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_NAME },
    { "empty field name", S("GET / HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_NAME },
    { "HTTP/1.1 without Host", S("GET / HTTP/1.1\r\nX-A: 1\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_HOST },
    { "two Host headers", S("GET / HTTP/1.1\r\nHost: x\r\nhost: y\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_HOST },
    { "two Host headers in HTTP/1.0",
      S("GET / HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n"), SRV_FW_CORRUPT,
      SRV_FW_BAD_HOST },
    { "NUL in a value", S("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_VALUE },
    { "bare CR in a value", S("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_VALUE },
    { "DEL in a value", S("GET / HTTP/1.1\r\nHost: x\r\nX-A: \x7f\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_VALUE },
    { "NUL at the start of a header line (evhttp: the end of headers)",
      S("POST / HTTP/1.1\r\nHost: x\r\n\0\r\nContent-Length: 2\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_NAME },
    { "Transfer-Encoding: identity, chunked",
      S("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity, "
        "chunked\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_TE },
    { "Transfer-Encoding in HTTP/1.0",
      S("POST / HTTP/1.0\r\n" TE "Content-Length: 2\r\n\r\n{}"), SRV_FW_CORRUPT,
      SRV_FW_BAD_TE },
    { "two Transfer-Encoding headers",
      S("POST / HTTP/1.1\r\nHost: x\r\n" TE TE "\r\n"), SRV_FW_CORRUPT,
      SRV_FW_BAD_TE },
    { "header line without a colon",
      S("GET / HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n"), SRV_FW_CORRUPT,
      SRV_FW_BAD_NO_COLON },
    { "HEAD with a Content-Length body",
      S("HEAD / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_BODY },
    { "long Content-Length",
      S("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: "
        "0000000000000000000000000000000000000000000000000000000000000002"
        "\r\n\r\n{}"),
      SRV_FW_CORRUPT, SRV_FW_BAD_LENGTH },
    { "TE value in another case, trailing blanks",
      S("POST / HTTP/1.1\r\nHost: x\r\ntransfer-encoding: ChUnKeD "
        "\t\r\n\r\n1\r\nx\r\n0\r\n\r\n"),
      SRV_FW_REQUEST, SRV_FW_OK },
    { "HEAD reads no body", S("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n"),
      SRV_FW_REQUEST, SRV_FW_OK },
    { "Content-Length with + (strtoll takes it)",
      S("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n{}"),
      SRV_FW_REQUEST, SRV_FW_OK },
    { "chunked beside Content-Length: chunked wins",
      S("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n" TE
        "\r\n1\r\nx\r\n0\r\n\r\n"),
      SRV_FW_REQUEST, SRV_FW_OK },
    { "size with a long tail after a space",
      S(POST_TE
        "1 "
        "................................................................"
        "\r\nx\r\n0\r\n\r\n"),
      SRV_FW_REQUEST, SRV_FW_OK },
    /* Corrupt: evhttp would say 413, the answer is 400. */
    { "size not hex", S(POST_TE "zz\r\n{}\r\n0\r\n\r\n"), SRV_FW_CORRUPT,
      SRV_FW_OK },
    { "negative size", S(POST_TE "-2\r\n{}\r\n"), SRV_FW_CORRUPT, SRV_FW_OK },
    { "chunk extension", S(POST_TE "2;a=b\r\n{}\r\n"), SRV_FW_CORRUPT,
      SRV_FW_OK },
    { "bad size after a good chunk", S(POST_TE "1\r\n{\r\n1x\r\n}\r\n"),
      SRV_FW_CORRUPT, SRV_FW_OK },
    { "GET may have a body too",
      S("GET / HTTP/1.1\r\nHost: x\r\n" TE "\r\nzz\r\n"), SRV_FW_CORRUPT,
      SRV_FW_OK },
    { "trailer line without a colon", S(POST_TE "0\r\nno colon\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_OK },
    { "long size line with junk after the number",
      S(POST_TE
        "1x..............................................................."
        "..........\r\n"),
      SRV_FW_CORRUPT, SRV_FW_OK },
    { "second request's chunks",
      S("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}" POST_TE
        "q\r\n"),
      SRV_FW_CORRUPT, SRV_FW_OK },
    /* Not followed: evhttp's own answer stands. */
    { "chunks over the cap", S(POST_TE "1001\r\n"), SRV_FW_OFF, SRV_FW_OK },
    { "Content-Length over the cap",
      S("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4097\r\n\r\n"),
      SRV_FW_OFF, SRV_FW_OK },
    { "number longer than 16 digits", S(POST_TE "00000000000000001\r\n"),
      SRV_FW_CORRUPT, SRV_FW_OK },
    { "number longer than the line kept",
      S(POST_TE
        "0000000000000000000000000000000000000000000000000000000000000000"
        "0001\r\n"),
      SRV_FW_CORRUPT, SRV_FW_OK },
    { "HEAD with chunked: evhttp would read its body as a request line",
      S("HEAD / HTTP/1.1\r\nHost: x\r\n" TE "\r\nzz\r\n"), SRV_FW_CORRUPT,
      SRV_FW_BAD_BODY },
    { "unknown method", S("BREW /pot HTTP/1.1\r\nHost: x\r\n" TE "\r\nzz\r\n"),
      SRV_FW_OFF, SRV_FW_OK },
    { "folded header",
      S("POST / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n b\r\n" TE "\r\nzz\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_FOLD },
    { "Transfer-Encoding gzip",
      S("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n" TE
        "\r\nzz\r\n"),
      SRV_FW_CORRUPT, SRV_FW_BAD_TE },
    { "folded trailer", S(POST_TE "0\r\nX-A: 1\r\n b\r\n\r\n"), SRV_FW_CORRUPT,
      SRV_FW_BAD_FOLD },
    /* A line starting with NUL would be empty to evhttp (a C string). */
    { "NUL line between chunks", S(POST_TE "\0zz\r\n2\r\n{}\r\n0\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_OK },
    { "NUL line in the trailer", S(POST_TE "0\r\n\0x\r\n"), SRV_FW_CORRUPT,
      SRV_FW_OK },
    { "size cut by a NUL byte", S(POST_TE "2\0zz\r\n{}\r\n0\r\n\r\n"),
      SRV_FW_CORRUPT, SRV_FW_OK },
    { "Content-Length not a number",
      S("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2x\r\n\r\nzz\r\n"),
      SRV_FW_OFF, SRV_FW_OK },
};

static void expect(size_t i, const char *how, struct srv_framing_watch *f,
                   int corrupt)
{
    enum srv_fw_why why = cases[i].why ? cases[i].why : SRV_FW_BAD_CHUNK;

    if (f->state != cases[i].want ||
        corrupt != (cases[i].want == SRV_FW_CORRUPT) ||
        (corrupt && f->why != why))
        fail_msg("%s (%s): state %d (%s), want %d (%s); feed said %d",
                 cases[i].name, how, f->state, srv_fw_why_text(f->why),
                 cases[i].want, srv_fw_why_text(why), corrupt);
}

static void streams_should_be_judged_as_evhttp_parses_them(void **state)
{
    size_t i, j, cut;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *s = cases[i].stream;
        size_t n = cases[i].len;
        struct srv_framing_watch f;
        int r = 0;

        srv_fw_init(&f, MAX_BODY);
        expect(i, "whole", &f, srv_fw_feed(&f, s, n));
        srv_fw_init(&f, MAX_BODY);
        for (j = 0; j < n; j++)
            r = srv_fw_feed(&f, s + j, 1);
        expect(i, "byte by byte", &f, r);
        for (cut = 1; cut < n; cut++) {
            srv_fw_init(&f, MAX_BODY);
            srv_fw_feed(&f, s, cut);
            expect(i, "cut in two", &f, srv_fw_feed(&f, s + cut, n - cut));
        }
    }
}

/* req_start is where the request the watch is in began in the stream. */
static void req_start_should_mark_the_current_request(void **state)
{
    static const char first[] =
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}";
    static const char second[] = POST_TE "zz\r\n";
    struct srv_framing_watch f;

    (void)state;
    srv_fw_init(&f, MAX_BODY);
    assert_int_equal(srv_fw_feed(&f, first, strlen(first)), 0);
    assert_int_equal(f.req_start, strlen(first));
    assert_int_equal(srv_fw_feed(&f, second, strlen(second)), 1);
    assert_int_equal(f.req_start, strlen(first));
    assert_int_equal(f.fed, strlen(first) + strlen(POST_TE) + 4);
    /* Corrupt stays corrupt. */
    assert_int_equal(srv_fw_feed(&f, "0\r\n\r\n", 5), 1);
}

/*
 * From an evbuffer: only the bytes just added are read, body bytes are
 * skipped without a look, and data spread over many chains is followed.
 */
static void added_bytes_should_be_read_from_the_buffer_tail(void **state)
{
    struct evbuffer *b = evbuffer_new();
    struct srv_framing_watch f;
    char chunk[600];
    int i;

    (void)state;
    srv_fw_init(&f, 1 << 20);
    /* Already taken by the reader: not the watch's business. */
    evbuffer_add(b, "old bytes", 9);
    evbuffer_add(b, POST_TE, strlen(POST_TE));
    assert_int_equal(srv_fw_feed_added(&f, b, strlen(POST_TE)), 0);
    assert_int_equal(f.state, SRV_FW_CHUNK_SIZE);
    /* Twenty chunks of 500 bytes, each in its own chain. */
    for (i = 0; i < 20; i++) {
        evbuffer_add(b, "1f4\r\n", 5);
        assert_int_equal(srv_fw_feed_added(&f, b, 5), 0);
        memset(chunk, 'a' + i, 500);
        memcpy(chunk + 500, "\r\n", 2);
        evbuffer_add_reference(b, chunk, 502, NULL, NULL);
        /* The reference is gone by the next round: skip it now. */
        assert_int_equal(srv_fw_feed_added(&f, b, 502), 0);
        evbuffer_drain(b, evbuffer_get_length(b));
    }
    assert_int_equal(f.body, 20 * 500);
    /* A size line split across added pieces, then a bad one. */
    evbuffer_add(b, "0", 1);
    evbuffer_add(b, "\r\n\r\n", 4);
    assert_int_equal(srv_fw_feed_added(&f, b, 5), 0);
    assert_int_equal(f.state, SRV_FW_REQUEST);
    evbuffer_add(b, POST_TE "12", strlen(POST_TE) + 2);
    evbuffer_add(b, "g\r\n", 3);
    assert_int_equal(srv_fw_feed_added(&f, b, strlen(POST_TE) + 5), 1);
    evbuffer_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(streams_should_be_judged_as_evhttp_parses_them),
        cmocka_unit_test(req_start_should_mark_the_current_request),
        cmocka_unit_test(added_bytes_should_be_read_from_the_buffer_tail),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
