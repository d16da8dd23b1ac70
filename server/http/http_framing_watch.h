/*
 * http_framing_watch.h: follow the framing of a connection's requests as
 * its bytes arrive, the way evhttp (libevent 2.1) will parse them, to find
 * what RFC 9112 says to refuse with 400 and evhttp does not: a chunked
 * body whose chunk size or trailer line is malformed (evhttp says 413, as
 * if it were too long), and header sections evhttp takes too laxly
 * (issue 29, request smuggling):
 * - a field name that is empty or holds anything but token characters,
 *   whitespace before the colon included ("Content-Length : 5", which
 *   evhttp keeps as an unknown header; section 5.1);
 * - a control character other than HTAB in a field value (NUL, a bare
 *   CR; section 5.5 and 2.2);
 * - no Host, or more than one, in an HTTP/1.1 request (section 3.2);
 * - a Transfer-Encoding other than exactly "chunked" (section 6.1: we
 *   know no other coding), or any in HTTP/1.0;
 * - a chunk size that is not 1 to 16 hex digits ("0x1a3", "+2", "";
 *   section 7.1), or holds a control character;
 * - obs-fold (section 5.2 allows refusing it), a Content-Length longer
 *   than the watch keeps, and a HEAD or TRACE request with a body (evhttp
 *   would read that body as the next request).
 * As Go's net/http (textproto, transfer.go) and llhttp do. The watch sees
 * the bytes first (an input-buffer callback), so the connection can fail
 * with 400 before evhttp reads the bad line.
 *
 * What it does not follow (an unknown method, a Content-Length that is
 * not a number, a body over the cap: evhttp or the router answers each
 * and closes the connection) turns it off for the connection, leaving
 * that answer.
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
    SRV_FW_CORRUPT     /* refused: `why` says what (400) */
};

/* What a refused stream broke (struct srv_framing_watch.why). */
enum srv_fw_why {
    SRV_FW_OK,
    SRV_FW_BAD_CHUNK,    /* chunk size or trailer line */
    SRV_FW_BAD_NAME,     /* field name empty or not a token */
    SRV_FW_BAD_VALUE,    /* control character in a field value */
    SRV_FW_BAD_HOST,     /* HTTP/1.1 without exactly one Host */
    SRV_FW_BAD_TE,       /* Transfer-Encoding other than "chunked" */
    SRV_FW_BAD_NO_COLON, /* header line without a colon */
    SRV_FW_BAD_FOLD,     /* obs-fold (a line starting with SP or HTAB) */
    SRV_FW_BAD_LENGTH,   /* Content-Length longer than a line kept */
    SRV_FW_BAD_BODY,     /* HEAD or TRACE with a body evhttp ignores */
};

/* A short text for why (for the log). */
const char *srv_fw_why_text(enum srv_fw_why why);

struct srv_framing_watch {
    enum srv_fw_state state;
    unsigned char has_body;  /* the method may have a body (evhttp's list) */
    unsigned char chunked;   /* Transfer-Encoding: chunked seen */
    unsigned char have_len;  /* a Content-Length seen (the first counts) */
    unsigned char seen_te;   /* the first Transfer-Encoding seen */
    unsigned char need_host; /* HTTP/1.1 or newer: exactly one Host */
    unsigned char http10;    /* HTTP/1.0 or older: no Transfer-Encoding */
    unsigned char n_host;    /* Host headers of this request (saturates) */
    unsigned char colon;     /* this header line's colon seen */
    unsigned char cr;        /* a CR was the last byte of this line so far */
    unsigned char why;       /* enum srv_fw_why, once CORRUPT; while in a
                              * line, what is wrong with it so far */
    char last;               /* the last byte of the current line so far */
    char tail[12];           /* the line's last bytes (the HTTP version) */
    uint64_t line_len;       /* bytes of the current line so far */
    uint64_t fed;            /* bytes of the stream followed so far */
    uint64_t req_start;      /* stream offset of the current request */
    uint64_t left;           /* bytes of body or chunk data still to come */
    uint64_t body;           /* chunk data of this body so far */
    uint64_t content_length;
    uint64_t max_body;          /* --max-body-bytes */
    char line[SRV_FW_LINE + 2]; /* its first bytes (line_len of them, at most
                                   SRV_FW_LINE + 1) */
};

/* Start watching a connection from its first byte. */
void srv_fw_init(struct srv_framing_watch *f, uint64_t max_body);

/*
 * Follow n more bytes of the stream. Returns 1 once the stream is refused
 * (state SRV_FW_CORRUPT, and stays so; why says what; req_start is where
 * its request begins in the stream), else 0.
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
