/*
 * http_framing_watch.h: follow the framing of a connection's requests as
 * its bytes arrive, the way evhttp (libevent 2.1) will parse them, to find
 * a chunked body whose chunk size or trailer line evhttp will reject.
 *
 * Why: evhttp answers a corrupt chunked body with 413, as if it were too
 * long, and gives the server no hook to say otherwise; RFC 9112 wants
 * 400. The watch sees the bytes first (an input-buffer callback), so the
 * connection can fail with 400 before evhttp reads the bad line.
 *
 * The watch is conservative: anything it does not follow exactly (an
 * unknown method, a folded header, a line longer than it keeps, a body
 * over the cap, which evhttp rightly answers with 413) turns it off for
 * the connection, leaving evhttp's own answer. It never refuses a request
 * evhttp would accept.
 */
#ifndef SERVER_HTTP_HTTP_FRAMING_WATCH_H
#define SERVER_HTTP_HTTP_FRAMING_WATCH_H

#include <stddef.h>
#include <stdint.h>

struct evbuffer;

/* The longest line the watch keeps whole (request line, header, chunk
 * size); longer ones are judged by their start or turn the watch off. */
#define SRV_FW_LINE 64

enum srv_fw_state {
    SRV_FW_OFF,        /* not watching (or no longer) */
    SRV_FW_REQUEST,    /* request line */
    SRV_FW_HEADERS,    /* header lines until the empty line */
    SRV_FW_BODY,       /* `left` bytes of a Content-Length body */
    SRV_FW_CHUNK_SIZE, /* a chunk size line (empty lines skipped) */
    SRV_FW_CHUNK_DATA, /* `left` bytes of chunk data */
    SRV_FW_TRAILER,    /* trailer lines until the empty line */
    SRV_FW_CORRUPT     /* a chunk size or trailer line evhttp rejects */
};

struct srv_framing_watch {
    enum srv_fw_state state;
    unsigned char has_body; /* the method may have a body (evhttp's list) */
    unsigned char chunked;  /* Transfer-Encoding: chunked seen */
    unsigned char have_len; /* a Content-Length seen (the first counts) */
    unsigned char seen_te;  /* the first Transfer-Encoding seen */
    char last;              /* the last byte of the current line so far */
    uint64_t line_len;      /* bytes of the current line so far */
    uint64_t fed;           /* bytes of the stream followed so far */
    uint64_t req_start;     /* stream offset of the current request */
    uint64_t left;          /* bytes of body or chunk data still to come */
    uint64_t body;          /* chunk data of this body so far */
    uint64_t content_length;
    uint64_t max_body;          /* --max-body-bytes */
    char line[SRV_FW_LINE + 2]; /* its first bytes (line_len of them, at most
                                   SRV_FW_LINE + 1) */
};

/* Start watching a connection from its first byte. */
void srv_fw_init(struct srv_framing_watch *f, uint64_t max_body);

/*
 * Follow n more bytes of the stream. Returns 1 once a chunked body is
 * corrupt (state SRV_FW_CORRUPT, and stays so; req_start is where its
 * request begins in the stream), else 0.
 */
int srv_fw_feed(struct srv_framing_watch *f, const char *p, size_t n);

/*
 * Follow the last n_added bytes of buf (just added by a read): skips body
 * bytes without looking at them, peeks at the rest without copying.
 * Returns what srv_fw_feed returns.
 */
int srv_fw_feed_added(struct srv_framing_watch *f, struct evbuffer *buf,
                      size_t n_added);

#endif
