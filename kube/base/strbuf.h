/*
 * strbuf.h: the one growable text buffer. Every writer builds on it: the
 * JSON writer (kube/base/json_writer.h), the Policy writers and check output
 * (policy/policy_buf.h adds their quoting), the log lines (which start in
 * stack storage). Optional limits: a byte cap, and an arena whose memory
 * limit the growth is charged to. A failed buffer stays failed and ignores
 * further writes, so callers check once at the end.
 */
#ifndef KUBE_BASE_STRBUF_H
#define KUBE_BASE_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct arena;

struct strbuf {
    char *s; /* NUL-terminated after every write; NULL before the first */
    size_t len;
    size_t cap;
    size_t max;           /* most bytes it may hold; 0: no cap */
    bool failed;          /* out of memory, over max, or refused: stop */
    bool on_storage;      /* s is the caller's storage, not malloc'd */
    struct arena *charge; /* growth charged to this arena (NULL: none) */
};

/* An empty buffer holding at most max bytes (0: no cap). */
void strbuf_init(struct strbuf *b, size_t max);

/* An empty buffer that starts in the caller's storage[size] and moves to
 * the heap when it outgrows it. */
void strbuf_init_on(struct strbuf *b, char *storage, size_t size);

void strbuf_free(struct strbuf *b);

/* Room for more bytes (plus the NUL); false (and failed) when refused. */
bool strbuf_reserve(struct strbuf *b, size_t more);

void strbuf_addn(struct strbuf *b, const char *s, size_t n);
void strbuf_add(struct strbuf *b, const char *s);
void strbuf_printf(struct strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/*
 * The text as a malloc'd string the caller frees (*len its length; len
 * may be NULL), or NULL when the buffer failed. The buffer is left empty.
 */
char *strbuf_take(struct strbuf *b, size_t *len);

#endif
