/*
 * strbuf.c: the growable text buffer (strbuf.h).
 */
#include "kube/base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"

void strbuf_init(struct strbuf *b, size_t max)
{
    memset(b, 0, sizeof(*b));
    b->max = max;
}

void strbuf_init_on(struct strbuf *b, char *storage, size_t size)
{
    strbuf_init(b, 0);
    b->s = storage;
    b->cap = size;
    b->on_storage = true;
    if (size)
        storage[0] = '\0';
}

void strbuf_free(struct strbuf *b)
{
    if (!b->on_storage)
        free(b->s);
    strbuf_init(b, b->max);
}

/* Move to a heap block of cap bytes, charged when asked. */
static bool regrow(struct strbuf *b, size_t cap)
{
    char *s;

    if (b->charge && arena_charge(b->charge, cap - b->cap) < 0)
        return false;
    s = b->on_storage ? malloc(cap) : realloc(b->s, cap);
    if (!s)
        return false;
    if (b->on_storage && b->len)
        memcpy(s, b->s, b->len);
    b->s = s;
    b->cap = cap;
    b->on_storage = false;
    return true;
}

bool strbuf_reserve(struct strbuf *b, size_t more)
{
    size_t need, cap;

    if (b->failed)
        return false;
    if (b->max && (more > b->max || b->len + more + 1 > b->max)) {
        b->failed = true;
        return false;
    }
    need = b->len + more + 1;
    if (need <= b->cap)
        return true;
    cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    if (!regrow(b, cap)) {
        b->failed = true;
        return false;
    }
    return true;
}

void strbuf_addn(struct strbuf *b, const char *s, size_t n)
{
    if (!strbuf_reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void strbuf_add(struct strbuf *b, const char *s)
{
    strbuf_addn(b, s, strlen(s));
}

/* One pass when the text fits the room there is, a second when not. */
void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
    size_t room = b->s && !b->failed ? b->cap - b->len : 0;
    va_list cp;
    int n;

    va_copy(cp, ap);
    n = vsnprintf(room ? b->s + b->len : NULL, room, fmt, cp);
    va_end(cp);
    if (n < 0 || b->failed)
        return;
    if ((size_t)n >= room || (b->max && b->len + (size_t)n + 1 > b->max)) {
        if (room)
            b->s[b->len] = '\0';
        if (!strbuf_reserve(b, (size_t)n))
            return;
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    }
    b->len += (size_t)n;
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *strbuf_take(struct strbuf *b, size_t *len)
{
    char *s = NULL;

    if (!b->failed && strbuf_reserve(b, 0)) {
        if (!b->on_storage) {
            s = b->s;
            b->s = NULL;
        } else if ((s = malloc(b->len + 1)) != NULL) {
            memcpy(s, b->s, b->len);
        }
        if (s)
            s[b->len] = '\0';
    }
    if (len)
        *len = s ? b->len : 0;
    strbuf_free(b);
    return s;
}
