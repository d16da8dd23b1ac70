/*
 * http_framing_watch.c: follow a connection's request framing as evhttp
 * 2.1 parses it (see http_framing_watch.h). Each rule below mirrors one
 * step of libevent 2.1.12's http.c: lines end at LF with an optional CR
 * before it (EVBUFFER_EOL_CRLF); the method decides whether a body is
 * read at all; the first Transfer-Encoding equal to "chunked" (any case)
 * makes the body chunked, else the first Content-Length gives its length;
 * a chunk size is strtoll(line, 16) followed by nothing or a space, and
 * empty lines between chunks are skipped; trailer lines need a colon.
 * On top of evhttp, the rules of RFC 9112 it does not apply (see
 * http_framing_watch.h), judged byte by byte as a line arrives (names,
 * control characters) or when it ends (Host, Transfer-Encoding, sizes).
 */
#include "server/http/http_framing_watch.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/util.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *srv_fw_why_text(enum srv_fw_why why)
{
    switch (why) {
    case SRV_FW_OK:
        break;
    case SRV_FW_BAD_CHUNK:
        return "malformed chunk size or trailer line";
    case SRV_FW_BAD_NAME:
        return "header field name empty or not a token (whitespace before "
               "the colon?)";
    case SRV_FW_BAD_VALUE:
        return "control character in a header field value";
    case SRV_FW_BAD_HOST:
        return "HTTP/1.1 request without exactly one Host header";
    case SRV_FW_BAD_TE:
        return "Transfer-Encoding other than exactly \"chunked\"";
    case SRV_FW_BAD_NO_COLON:
        return "header line without a colon";
    case SRV_FW_BAD_FOLD:
        return "folded header line (obs-fold)";
    case SRV_FW_BAD_LENGTH:
        return "Content-Length value too long";
    case SRV_FW_BAD_BODY:
        return "HEAD or TRACE request with a body";
    }
    return "ok";
}

static void refuse(struct srv_framing_watch *f, enum srv_fw_why why)
{
    f->state = SRV_FW_CORRUPT;
    f->why = (unsigned char)why;
}

/* RFC 9110 section 5.6.2: tchar. */
static int is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

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

/* Does the request line, whose last bytes are in f->tail, name HTTP/1.1
 * or newer (1), an older version (0), or none evhttp reads (-1)
 * (evhttp_parse_http_version: "HTTP/<major>.<minor>")? */
static int version_needs_host(const struct srv_framing_watch *f)
{
    char t[sizeof(f->tail) + 1], *v;
    size_t n = sizeof(f->tail);
    unsigned major, minor;
    char end;

    memcpy(t, f->tail, n);
    while (n && t[n - 1] == '\r')
        n--;
    t[n] = '\0';
    for (v = t + n; v > t && v[-1] != ' ' && v[-1] != '\0'; v--)
        ;
    if (strncmp(v, "HTTP/", 5) != 0 ||
        sscanf(v + 5, "%u.%u%c", &major, &minor, &end) != 2)
        return -1;
    return major > 1 || (major == 1 && minor >= 1);
}

static void request_line(struct srv_framing_watch *f, const char *l, size_t n)
{
    const char *sp = memchr(l, ' ', n);
    int body = sp ? method_has_body(l, (size_t)(sp - l)) : -1, version;

    if (body < 0) {
        f->state = SRV_FW_OFF;
        return;
    }
    f->has_body = (unsigned char)body;
    f->chunked = f->have_len = f->seen_te = 0;
    f->n_host = 0;
    version = version_needs_host(f);
    f->need_host = version == 1;
    f->http10 = version == 0;
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
    if (f->n_host > 1 || (f->need_host && f->n_host != 1)) {
        refuse(f, SRV_FW_BAD_HOST);
        return;
    }
    if (!f->has_body) {
        if (f->chunked || f->content_length > 0)
            refuse(f, SRV_FW_BAD_BODY);
        else
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

/* A header line (not empty): l its start (SRV_FW_LINE bytes at most),
 * whole when that is all of it, colon when it has one (maybe past l). */
static void header_line(struct srv_framing_watch *f, char *l, int whole,
                        int has_colon)
{
    char *colon = strchr(l, ':'), *v, *end;
    long long n;

    /* A folded line continues the last header. */
    if (*l == ' ' || *l == '\t') {
        refuse(f, SRV_FW_BAD_FOLD);
        return;
    }
    if (!has_colon) {
        refuse(f, SRV_FW_BAD_NO_COLON);
        return;
    }
    if (!colon)
        return; /* a name longer than SRV_FW_LINE: none of ours */
    *colon = '\0';
    if (!evutil_ascii_strcasecmp(l, "Host")) {
        f->n_host += f->n_host < 2;
    } else if (!evutil_ascii_strcasecmp(l, "Transfer-Encoding")) {
        /* One, exactly "chunked" (Go: transferReader.parseTransferEncoding;
         * evhttp would take the first and ignore the rest), and never in
         * HTTP/1.0, where RFC 9112 section 6.1 calls the framing faulty
         * (Go ignores it there, evhttp reads chunks: they would differ). */
        if (f->seen_te || !whole || f->http10) {
            refuse(f, SRV_FW_BAD_TE);
            return;
        }
        header_value(colon, &v);
        if (evutil_ascii_strcasecmp(v, "chunked")) {
            refuse(f, SRV_FW_BAD_TE);
            return;
        }
        f->seen_te = 1;
        f->chunked = 1;
    } else if (!evutil_ascii_strcasecmp(l, "Content-Length") && !f->have_len) {
        if (!whole) {
            refuse(f, SRV_FW_BAD_LENGTH);
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

/*
 * A chunk size line (not empty): 1 to 16 hex digits (RFC 9112 chunk-size;
 * Go's parseHexUint takes no more), then the end or a space and anything
 * (evhttp_handle_chunked_read stops at the space; it takes no extension).
 */
static void chunk_size_line(struct srv_framing_watch *f, const char *l)
{
    size_t digits = strspn(l, "0123456789abcdefABCDEF");
    unsigned long long n;

    if (digits == 0 || digits > 16 || (l[digits] && l[digits] != ' ')) {
        refuse(f, SRV_FW_BAD_CHUNK);
        return;
    }
    n = strtoull(l, NULL, 16);
    if (n > f->max_body - f->body || f->body > f->max_body) {
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

static void trailer_line(struct srv_framing_watch *f, const char *l, int colon)
{
    if (*l == ' ' || *l == '\t')
        refuse(f, SRV_FW_BAD_FOLD);
    else if (!colon)
        refuse(f, SRV_FW_BAD_CHUNK);
}

/* A whole line has arrived: line[] holds its start, NUL-terminated. */
static void end_line(struct srv_framing_watch *f)
{
    uint64_t len = f->line_len;
    int whole, empty, why = f->why, colon = f->colon;

    if (len && f->last == '\r')
        len--;
    whole = len <= SRV_FW_LINE;
    f->line[whole ? len : SRV_FW_LINE] = '\0';
    empty = len == 0;
    f->line_len = 0;
    f->colon = f->cr = 0;
    f->why = SRV_FW_OK;
    if (why && !empty && f->state != SRV_FW_REQUEST) {
        /* A bad byte in a name, a value or a size (scan_line). */
        refuse(f, f->state == SRV_FW_HEADERS ? (enum srv_fw_why)why
                                             : SRV_FW_BAD_CHUNK);
        return;
    }
    switch (f->state) {
    case SRV_FW_REQUEST:
        request_line(f, f->line, whole ? (size_t)len : SRV_FW_LINE);
        memset(f->tail, 0, sizeof(f->tail));
        break;
    case SRV_FW_HEADERS:
        if (empty)
            headers_end(f);
        else
            header_line(f, f->line, whole, colon);
        break;
    case SRV_FW_CHUNK_SIZE:
        if (!empty)
            chunk_size_line(f, f->line);
        break;
    case SRV_FW_TRAILER:
        if (empty)
            start_request(f);
        else
            trailer_line(f, f->line, colon);
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

/*
 * Judge the k bytes p[0..k) that extend the current line (before its LF):
 * in a header or trailer line, the name must be a token up to the colon
 * and the value free of control characters but HTAB; in a chunk size
 * line, no control character. A CR is allowed only right before the LF.
 * The first fault is kept in f->why, acted on when the line ends. The
 * request line is evhttp's; only its last bytes are kept (the version).
 */
static void scan_line(struct srv_framing_watch *f, const char *p, size_t k)
{
    size_t i, t = sizeof(f->tail);

    if (f->state == SRV_FW_REQUEST) {
        if (k >= t) {
            memcpy(f->tail, p + k - t, t);
        } else {
            memmove(f->tail, f->tail + k, t - k);
            memcpy(f->tail + t - k, p, k);
        }
        return;
    }
    for (i = 0; i < k && !f->why; i++) {
        unsigned char c = (unsigned char)p[i];

        if (f->cr) {
            f->why = SRV_FW_BAD_VALUE;
        } else if (c == '\r') {
            f->cr = 1;
        } else if (!f->colon && f->state != SRV_FW_CHUNK_SIZE) {
            if (f->line_len + i == 0 && (c == ' ' || c == '\t'))
                f->colon = 1; /* folded: judged as a value */
            else if (c == ':')
                f->colon = 1, f->why = f->line_len + i ? 0 : SRV_FW_BAD_NAME;
            else if (!is_tchar(c))
                f->why = SRV_FW_BAD_NAME;
        } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
            f->why = SRV_FW_BAD_VALUE;
        }
    }
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
        scan_line(f, p, k);
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
