/*
 * err.h: one error message, filled where a failure is found and prefixed
 * with context on the way up ("policy.json: predicates[3].name: ...").
 */
#ifndef KUBE_BASE_ERR_H
#define KUBE_BASE_ERR_H

#include <stddef.h>

#define ERR_MSG_MAX 1024

struct err {
    char msg[ERR_MSG_MAX];
};

/* Replace the message. Always returns -1, so `return err_set(e, ...);`. */
int err_set(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prepend text to the current message (e.g. a file name and ": "). */
int err_prefix(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Clear the message. e may be NULL in every function here. */
void err_clear(struct err *e);

/*
 * Quote s for an error message as Go's %q would for plain text: in double
 * quotes, with quotes, backslashes and control bytes escaped, cut to at
 * most max bytes of input (with "..." appended when cut). Writes into buf.
 */
const char *err_quote(char *buf, size_t bufsz, const char *s, size_t max);

#endif
