/*
 * policy_buf.h: a growable text buffer for the policy writers (JSON, INI,
 * check output, KubeSchedulerConfiguration YAML), with a hard cap, and the
 * quoting rules each format needs.
 */
#ifndef POLICY_POLICY_BUF_H
#define POLICY_POLICY_BUF_H

#include <stdbool.h>
#include <stddef.h>

#define PBUF_MAX (16u * 1024u * 1024u)

struct pbuf {
    char *s; /* NUL-terminated; malloc'd */
    size_t len;
    size_t cap;
    bool failed; /* out of memory or over PBUF_MAX: stop writing */
};

void pbuf_init(struct pbuf *b);
void pbuf_free(struct pbuf *b);
void pbuf_add(struct pbuf *b, const char *s);
void pbuf_addn(struct pbuf *b, const char *s, size_t n);
void pbuf_printf(struct pbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* s as a JSON string literal (with quotes). */
void pbuf_json_str(struct pbuf *b, const char *s);

/* s as a YAML scalar: plain when that is unambiguous, else double-quoted. */
void pbuf_yaml_str(struct pbuf *b, const char *s);

/* Go's %q for plain text (strconv.Quote on valid UTF-8 printable text). */
void pbuf_go_quote(struct pbuf *b, const char *s);

#endif
