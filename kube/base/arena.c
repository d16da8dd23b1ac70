/*
 * arena.c: region allocator (see arena.h). Chunks are malloc'd on demand;
 * a request larger than a chunk gets a chunk of its own.
 */
#include "kube/base/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_DEFAULT_CHUNK (64 * 1024)
#define ARENA_ALIGN         _Alignof(max_align_t)

struct arena_chunk {
    struct arena_chunk *next;
    size_t size; /* usable bytes in data[] */
    size_t used;
    _Alignas(max_align_t) unsigned char data[];
};

void arena_init(struct arena *a, size_t chunk_size)
{
    a->head = NULL;
    a->chunk_size = chunk_size ? chunk_size : ARENA_DEFAULT_CHUNK;
    a->total = 0;
    a->limit = 0;
    a->budget = NULL;
    a->reserve = 0;
    a->charged = 0;
    a->over = 0;
}

void arena_destroy(struct arena *a)
{
    struct arena_chunk *c = a->head;

    while (c) {
        struct arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    if (a->budget)
        atomic_fetch_sub(&a->budget->used, (long long)(a->total + a->charged));
    a->head = NULL;
    a->total = 0;
    a->charged = 0;
}

/* May a's owner hold n more bytes? Counts them in the budget if so. */
static int admit(struct arena *a, size_t n)
{
    struct arena_budget *b = a->budget;

    if (a->limit && (n > a->limit || a->total + a->charged > a->limit - n)) {
        a->over = ARENA_OVER_LIMIT;
        return -1;
    }
    if (!b)
        return 0;
    if (b->cap && atomic_fetch_add(&b->used, (long long)n) + (long long)n >
                      b->cap - a->reserve) {
        atomic_fetch_sub(&b->used, (long long)n);
        a->over = ARENA_OVER_BUDGET;
        return -1;
    }
    if (!b->cap)
        atomic_fetch_add(&b->used, (long long)n);
    return 0;
}

int arena_charge(struct arena *a, size_t n)
{
    if (admit(a, n) < 0)
        return -1;
    a->charged += n;
    return 0;
}

static struct arena_chunk *chunk_new(struct arena *a, size_t need)
{
    size_t size = need > a->chunk_size ? need : a->chunk_size;
    struct arena_chunk *c;

    if (size > SIZE_MAX - sizeof(*c))
        return NULL;
    if ((a->limit || a->budget) && admit(a, sizeof(*c) + size) < 0)
        return NULL;
    c = malloc(sizeof(*c) + size);
    if (!c) {
        if (a->budget)
            atomic_fetch_sub(&a->budget->used, (long long)(sizeof(*c) + size));
        return NULL;
    }
    c->size = size;
    c->used = 0;
    a->total += sizeof(*c) + size;
    return c;
}

void *arena_alloc(struct arena *a, size_t n)
{
    struct arena_chunk *c = a->head;
    size_t off;

    if (n > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (n == 0)
        n = ARENA_ALIGN;
    if (!c || c->size - c->used < n) {
        struct arena_chunk *fresh = chunk_new(a, n);

        if (!fresh)
            return NULL;
        if (c && n > a->chunk_size / 4) {
            /* A big block: keep filling the current chunk afterwards. */
            fresh->next = c->next;
            c->next = fresh;
            fresh->used = n;
            return fresh->data;
        }
        fresh->next = c;
        a->head = c = fresh;
    }
    off = c->used;
    c->used += n;
    return c->data + off;
}

void *arena_calloc(struct arena *a, size_t n, size_t size)
{
    void *p;

    if (size && n > SIZE_MAX / size)
        return NULL;
    p = arena_alloc(a, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
    char *d;

    if (!s)
        return NULL;
    d = arena_alloc(a, len + 1);
    if (!d)
        return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

char *arena_strdup(struct arena *a, const char *s)
{
    return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_sprintf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *d;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    d = arena_alloc(a, (size_t)n + 1);
    if (!d)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(d, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return d;
}
