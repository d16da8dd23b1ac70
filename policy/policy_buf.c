/*
 * policy_buf.c: growable text buffer and format quoting (policy_buf.h).
 */
#include "policy/policy_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pbuf_init(struct pbuf *b)
{
    b->s = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = false;
}

void pbuf_free(struct pbuf *b)
{
    free(b->s);
    pbuf_init(b);
}

static bool reserve(struct pbuf *b, size_t more)
{
    size_t need, cap;
    char *s;

    if (b->failed)
        return false;
    if (more > PBUF_MAX || b->len + more + 1 > PBUF_MAX) {
        b->failed = true;
        return false;
    }
    need = b->len + more + 1;
    if (need <= b->cap)
        return true;
    cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void pbuf_addn(struct pbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void pbuf_add(struct pbuf *b, const char *s)
{
    pbuf_addn(b, s, strlen(s));
}

void pbuf_printf(struct pbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void pbuf_json_str(struct pbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");

    pbuf_add(b, "\"");
    for (; *p; p++) {
        switch (*p) {
        case '"':
            pbuf_add(b, "\\\"");
            break;
        case '\\':
            pbuf_add(b, "\\\\");
            break;
        case '\n':
            pbuf_add(b, "\\n");
            break;
        case '\r':
            pbuf_add(b, "\\r");
            break;
        case '\t':
            pbuf_add(b, "\\t");
            break;
        default:
            if (*p < 0x20)
                pbuf_printf(b, "\\u%04x", *p);
            else
                pbuf_addn(b, (const char *)p, 1);
        }
    }
    pbuf_add(b, "\"");
}

void pbuf_go_quote(struct pbuf *b, const char *s)
{
    /* For printable text Go's %q and a JSON literal agree. */
    pbuf_json_str(b, s);
}

/* Words YAML 1.1 would read as something other than a string. */
static bool yaml_reserved(const char *s)
{
    static const char *const words[] = {
        "y",  "Y",    "yes",  "Yes",  "YES",   "n",     "N",     "no", "No",
        "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On",
        "ON", "off",  "Off",  "OFF",  "null",  "Null",  "NULL",  "~",
    };
    size_t i;

    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (!strcmp(s, words[i]))
            return true;
    }
    return false;
}

static bool yaml_plain_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    bool numeric = true;

    if (!*s || yaml_reserved(s))
        return false;
    if (strchr("-?:,[]{}#&*!|>'\"%@` ", s[0]))
        return false;
    for (; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f)
            return false;
        if (strchr("#,[]{}\"'", *p))
            return false;
        if (*p == ':' && (p[1] == ' ' || p[1] == '\0'))
            return false;
        if (!strchr("0123456789.+-eE_xXoO", *p))
            numeric = false;
    }
    if (s[strlen(s) - 1] == ' ')
        return false;
    return !numeric;
}

void pbuf_yaml_str(struct pbuf *b, const char *s)
{
    if (!s)
        s = "";
    if (yaml_plain_ok(s))
        pbuf_add(b, s);
    else
        pbuf_json_str(b, s); /* a JSON string is a YAML double-quoted one */
}
