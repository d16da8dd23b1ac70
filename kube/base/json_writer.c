/*
 * json_writer.c: streaming JSON writer (see json_writer.h).
 */
#include "kube/base/json_writer.h"

#include "kube/base/arena.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jsonw_init(struct jsonw *w, int indent)
{
    memset(w, 0, sizeof(*w));
    strbuf_init(&w->out, 0);
    w->indent = indent;
    w->first[0] = true;
}

void jsonw_free(struct jsonw *w)
{
    strbuf_free(&w->out);
    memset(w, 0, sizeof(*w));
}

char *jsonw_take(struct jsonw *w, size_t *len)
{
    char *b = strbuf_take(&w->out, len);

    jsonw_init(w, w->indent);
    return b;
}

static void put(struct jsonw *w, const char *s, size_t n)
{
    strbuf_addn(&w->out, s, n);
}

static void newline(struct jsonw *w)
{
    int i;

    if (!w->indent)
        return;
    put(w, "\n", 1);
    for (i = 0; i < w->depth * w->indent; i++)
        put(w, " ", 1);
}

/* Separator and indentation before a value or a key. */
static void before_value(struct jsonw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0) {
        if (!w->first[w->depth])
            put(w, ",", 1);
        newline(w);
    }
    w->first[w->depth] = false;
}

static void open(struct jsonw *w, char c)
{
    before_value(w);
    put(w, &c, 1);
    if (w->depth + 1 >= JSONW_MAX_DEPTH) {
        w->out.failed = true;
        return;
    }
    w->depth++;
    w->first[w->depth] = true;
}

static void close_(struct jsonw *w, char c)
{
    bool empty;

    if (w->depth == 0) {
        w->out.failed = true;
        return;
    }
    empty = w->first[w->depth];
    w->depth--;
    if (!empty)
        newline(w);
    put(w, &c, 1);
}

void jsonw_begin_object(struct jsonw *w)
{
    open(w, '{');
}

void jsonw_end_object(struct jsonw *w)
{
    close_(w, '}');
}

void jsonw_begin_array(struct jsonw *w)
{
    open(w, '[');
}

void jsonw_end_array(struct jsonw *w)
{
    close_(w, ']');
}

/* Bytes a JSON string must escape: controls, '"', '\\', and '<' '>' '&'
 * as Go's encoder escapes them (HTML-safe). */
#define C8(x) x, x, x, x, x, x, x, x
static const bool must_escape[256] = {
    C8(1), C8(1), C8(1), C8(1),             /* 0x00-0x1f */
    0,     0,     1,     0,     0, 0, 1, 0, /* ' ' '!' '"' '#' '$' '%' '&' */
    C8(0),                                  /* 0x28-0x2f */
    C8(0),                                  /* 0x30-0x37 */
    0,     0,     0,     0,     1, 0, 1, 0, /* '8'-'?': '<' '>' */
    C8(0), C8(0), C8(0),                    /* 0x40-0x57 */
    0,     0,     0,     0,     1, 0, 0, 0, /* 'X'-'_': '\\' */
};
#undef C8

static void put_escaped(struct jsonw *w, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t i, start = 0;

    put(w, "\"", 1);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[7];
        const char *rep = NULL;
        size_t rn = 2;

        if (!must_escape[c])
            continue;
        if (c == '"')
            rep = "\\\"";
        else if (c == '\\')
            rep = "\\\\";
        else if (c == '\n')
            rep = "\\n";
        else if (c == '\r')
            rep = "\\r";
        else if (c == '\t')
            rep = "\\t";
        else {
            esc[0] = '\\';
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            rep = esc;
            rn = 6;
        }
        put(w, s + start, i - start);
        put(w, rep, rn);
        start = i + 1;
    }
    put(w, s + start, n - start);
    put(w, "\"", 1);
}

void jsonw_key(struct jsonw *w, const char *key)
{
    before_value(w);
    put_escaped(w, key, strlen(key));
    put(w, w->indent ? ": " : ":", w->indent ? 2 : 1);
    w->after_key = true;
}

void jsonw_string_n(struct jsonw *w, const char *s, size_t n)
{
    before_value(w);
    put_escaped(w, s, n);
}

void jsonw_string(struct jsonw *w, const char *s)
{
    if (!s) {
        jsonw_null(w);
        return;
    }
    jsonw_string_n(w, s, strlen(s));
}

void jsonw_int(struct jsonw *w, int64_t v)
{
    char b[24];
    int n = snprintf(b, sizeof(b), "%" PRId64, v);

    before_value(w);
    put(w, b, (size_t)n);
}

void jsonw_bool(struct jsonw *w, bool v)
{
    before_value(w);
    put(w, v ? "true" : "false", v ? 4 : 5);
}

void jsonw_null(struct jsonw *w)
{
    before_value(w);
    put(w, "null", 4);
}

void jsonw_raw(struct jsonw *w, const char *json, size_t n)
{
    before_value(w);
    put(w, json, n);
}
