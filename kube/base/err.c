/*
 * err.c: error message helpers (see err.h).
 */
#include "kube/base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *e, const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return -1;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
    char old[ERR_MSG_MAX];
    va_list ap;
    int n;
    size_t used;

    if (!e)
        return -1;
    memcpy(old, e->msg, sizeof(old));
    va_start(ap, fmt);
    n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    used = (size_t)n < sizeof(e->msg) ? (size_t)n : sizeof(e->msg) - 1;
    memcpy(e->msg + used, old, sizeof(e->msg) - used - 1);
    e->msg[sizeof(e->msg) - 1] = '\0';
    return -1;
}

void err_clear(struct err *e)
{
    if (e)
        e->msg[0] = '\0';
}

const char *err_quote(char *buf, size_t bufsz, const char *s, size_t max)
{
    size_t o = 0, i;

    if (bufsz < 8)
        return "";
    if (!s)
        s = "";
    buf[o++] = '"';
    for (i = 0; s[i] && i < max && o + 8 < bufsz; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == '"' || c == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)c;
        } else if (c == '\n') {
            buf[o++] = '\\';
            buf[o++] = 'n';
        } else if (c == '\t') {
            buf[o++] = '\\';
            buf[o++] = 't';
        } else if (c < 0x20 || c == 0x7f) {
            o += (size_t)snprintf(buf + o, bufsz - o, "\\x%02x", c);
        } else {
            buf[o++] = (char)c;
        }
    }
    if (s[i] && o + 5 < bufsz) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}
