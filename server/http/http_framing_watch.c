/*
 * http_framing_watch.c: follow a connection's request framing as evhttp
 * 2.1 parses it (see http_framing_watch.h). Each rule below mirrors one
 * step of libevent 2.1.12's http.c: lines end at LF with an optional CR
 * before it (EVBUFFER_EOL_CRLF); the method decides whether a body is
 * read at all; the first Transfer-Encoding equal to "chunked" (any case)
 * makes the body chunked, else the first Content-Length gives its length;
 * a chunk size is strtoll(line, 16) followed by nothing or a space, and
 * empty lines between chunks are skipped; trailer lines need a colon.
 */
#include "server/http/http_framing_watch.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/util.h>
#include <stdlib.h>
#include <string.h>

void srv_fw_init(struct srv_framing_watch *f, uint64_t max_body)
{
    memset(f, 0, sizeof(*f));
    f->state = SRV_FW_REQUEST;
    f->max_body = max_body;
}

/* evhttp_method_may_have_body, by the method's name; -1 for a method
 * evhttp does not know (it refuses the request itself). */
static int method_has_body(const char *m, size_t len)
{
    static const char *const with[] = { "GET",    "PUT",     "POST",   "PATCH",
                                        "DELETE", "OPTIONS", "CONNECT" };
    size_t i;

    for (i = 0; i < sizeof(with) / sizeof(with[0]); i++) {
        if (strlen(with[i]) == len && !memcmp(m, with[i], len))
            return 1;
    }
    if ((len == 4 && !memcmp(m, "HEAD", 4)) ||
        (len == 5 && !memcmp(m, "TRACE", 5)))
        return 0;
    return -1;
}

static void start_request(struct srv_framing_watch *f)
{
    f->state = SRV_FW_REQUEST;
    f->req_start = f->fed;
}

/* The body or a chunk's data has all arrived. */
static void data_done(struct srv_framing_watch *f)
{
    if (f->state == SRV_FW_BODY)
        start_request(f);
    else
        f->state = SRV_FW_CHUNK_SIZE;
}

static void request_line(struct srv_framing_watch *f, const char *l, size_t n)
{
    const char *sp = memchr(l, ' ', n);
    int body = sp ? method_has_body(l, (size_t)(sp - l)) : -1;

    if (body < 0) {
        f->state = SRV_FW_OFF;
        return;
    }
    f->has_body = (unsigned char)body;
    f->chunked = f->have_len = f->seen_te = 0;
    f->content_length = 0;
    f->state = SRV_FW_HEADERS;
}

/* The value of a header line: after the colon, leading spaces skipped,
 * trailing spaces and tabs trimmed (evhttp_parse_headers_). */
static void header_value(char *colon, char **v)
{
    char *end;

    *v = colon + 1;
    *v += strspn(*v, " ");
    end = *v + strlen(*v);
    while (end > *v && (end[-1] == ' ' || end[-1] == '\t'))
        *--end = '\0';
}

static void headers_end(struct srv_framing_watch *f)
{
    if (!f->has_body) {
        start_request(f);
    } else if (f->chunked) {
        f->body = 0;
        f->state = SRV_FW_CHUNK_SIZE;
    } else if (f->have_len && f->content_length > 0) {
        /* Over the cap: evhttp answers 413 from the headers, rightly. */
        f->state = f->content_length > f->max_body ? SRV_FW_OFF : SRV_FW_BODY;
        f->left = f->content_length;
    } else {
        start_request(f);
    }
}

static void header_line(struct srv_framing_watch *f, char *l, int whole)
{
    char *colon = strchr(l, ':'), *v, *end;
    long long n;

    /* A folded line continues the last header: not followed. */
    if (*l == ' ' || *l == '\t' || !colon) {
        f->state = SRV_FW_OFF;
        return;
    }
    *colon = '\0';
    if (!evutil_ascii_strcasecmp(l, "Transfer-Encoding") && !f->seen_te) {
        if (!whole) {
            f->state = SRV_FW_OFF;
            return;
        }
        header_value(colon, &v);
        f->seen_te = 1;
        f->chunked = !evutil_ascii_strcasecmp(v, "chunked");
    } else if (!evutil_ascii_strcasecmp(l, "Content-Length") && !f->have_len) {
        if (!whole) {
            f->state = SRV_FW_OFF;
            return;
        }
        header_value(colon, &v);
        errno = 0;
        n = strtoll(v, &end, 10);
        if (!*v || *end || n < 0 || errno) {
            /* evhttp refuses it itself (400). */
            f->state = SRV_FW_OFF;
            return;
        }
        f->have_len = 1;
        f->content_length = (uint64_t)n;
    }
}

/* A chunk size line (not empty): evhttp_handle_chunked_read's test. */
static void chunk_size_line(struct srv_framing_watch *f, const char *l,
                            int whole)
{
    char *end;
    long long n = strtoll(l, &end, 16);

    if (!whole && *end == '\0') {
        /* Cut inside what may be the number: not judged. */
        f->state = SRV_FW_OFF;
        return;
    }
    if ((*end != '\0' && *end != ' ') || n < 0) {
        f->state = SRV_FW_CORRUPT;
        return;
    }
    if ((uint64_t)n > f->max_body - f->body || f->body > f->max_body) {
        /* Too long: evhttp's 413 is right. */
        f->state = SRV_FW_OFF;
        return;
    }
    f->body += (uint64_t)n;
    if (n == 0) {
        f->state = SRV_FW_TRAILER;
    } else {
        f->left = (uint64_t)n;
        f->state = SRV_FW_CHUNK_DATA;
    }
}

static void trailer_line(struct srv_framing_watch *f, const char *l, int whole)
{
    if (*l == ' ' || *l == '\t')
        f->state = SRV_FW_OFF;
    else if (!strchr(l, ':'))
        f->state = whole ? SRV_FW_CORRUPT : SRV_FW_OFF;
}

/* A whole line has arrived: line[] holds its start, NUL-terminated. */
static void end_line(struct srv_framing_watch *f)
{
    uint64_t len = f->line_len;
    int whole, empty;

    if (len && f->last == '\r')
        len--;
    whole = len <= SRV_FW_LINE;
    f->line[whole ? len : SRV_FW_LINE] = '\0';
    /* evhttp reads lines as C strings: one starting with a NUL byte is
     * empty to it. */
    empty = f->line[0] == '\0';
    f->line_len = 0;
    switch (f->state) {
    case SRV_FW_REQUEST:
        request_line(f, f->line, whole ? (size_t)len : SRV_FW_LINE);
        break;
    case SRV_FW_HEADERS:
        if (empty)
            headers_end(f);
        else
            header_line(f, f->line, whole);
        break;
    case SRV_FW_CHUNK_SIZE:
        if (!empty)
            chunk_size_line(f, f->line, whole);
        break;
    case SRV_FW_TRAILER:
        if (empty)
            start_request(f);
        else
            trailer_line(f, f->line, whole);
        break;
    default:
        break;
    }
}

static int in_data(const struct srv_framing_watch *f)
{
    return f->state == SRV_FW_BODY || f->state == SRV_FW_CHUNK_DATA;
}

/* Pass over up to n bytes of body or chunk data; returns how many. */
static size_t skip_data(struct srv_framing_watch *f, size_t n)
{
    size_t k = f->left < n ? (size_t)f->left : n;

    f->left -= k;
    f->fed += k;
    if (f->left == 0)
        data_done(f);
    return k;
}

int srv_fw_feed(struct srv_framing_watch *f, const char *p, size_t n)
{
    while (n > 0 && f->state != SRV_FW_OFF && f->state != SRV_FW_CORRUPT) {
        const char *nl;
        size_t k, kept, keep;

        if (in_data(f)) {
            k = skip_data(f, n);
            p += k;
            n -= k;
            continue;
        }
        nl = memchr(p, '\n', n);
        k = nl ? (size_t)(nl - p) : n;
        kept = f->line_len < sizeof(f->line) - 1 ? (size_t)f->line_len
                                                 : sizeof(f->line) - 1;
        keep = sizeof(f->line) - 1 - kept;
        if (keep > k)
            keep = k;
        memcpy(f->line + kept, p, keep);
        if (k)
            f->last = p[k - 1];
        f->line_len += k;
        f->fed += nl ? k + 1 : k;
        p += nl ? k + 1 : k;
        n -= nl ? k + 1 : k;
        if (nl)
            end_line(f);
    }
    return f->state == SRV_FW_CORRUPT;
}

int srv_fw_feed_added(struct srv_framing_watch *f, struct evbuffer *buf,
                      size_t n_added)
{
    struct evbuffer_iovec v[8];
    struct evbuffer_ptr at;
    size_t len = evbuffer_get_length(buf);
    int i, got;

    if (f->state == SRV_FW_OFF || f->state == SRV_FW_CORRUPT)
        return f->state == SRV_FW_CORRUPT;
    /* Body bytes need no look. */
    if (in_data(f) && f->left >= n_added) {
        skip_data(f, n_added);
        return 0;
    }
    if (n_added > len ||
        evbuffer_ptr_set(buf, &at, len - n_added, EVBUFFER_PTR_SET) != 0) {
        f->state = SRV_FW_OFF;
        return 0;
    }
    while (n_added > 0 && f->state != SRV_FW_OFF &&
           f->state != SRV_FW_CORRUPT) {
        size_t took = 0;

        got = evbuffer_peek(buf, (ev_ssize_t)n_added, &at, v, 8);
        if (got <= 0) {
            f->state = SRV_FW_OFF;
            return 0;
        }
        for (i = 0; i < got && i < 8 && took < n_added; i++) {
            size_t k = v[i].iov_len;

            if (k > n_added - took)
                k = n_added - took;
            srv_fw_feed(f, v[i].iov_base, k);
            took += k;
        }
        n_added -= took;
        if (n_added && evbuffer_ptr_set(buf, &at, took, EVBUFFER_PTR_ADD))
            f->state = SRV_FW_OFF;
    }
    return f->state == SRV_FW_CORRUPT;
}
