/*
 * arena.h: region allocator. Everything parsed from one input (a request
 * body, a policy file, a cluster snapshot) is allocated from one arena and
 * released at once with arena_destroy(), as nginx pools do.
 */
#ifndef KUBE_BASE_ARENA_H
#define KUBE_BASE_ARENA_H

#include <stdatomic.h>
#include <stddef.h>

struct arena_chunk;

/*
 * Bytes held by many arenas (and whatever else adds to used), against one
 * cap, across threads: the HTTP server's requests in flight.
 */
struct arena_budget {
    atomic_llong used;
    long long cap; /* 0: no cap */
};

/* Why an arena refused memory (arena.over). */
#define ARENA_OVER_LIMIT  1 /* its own limit */
#define ARENA_OVER_BUDGET 2 /* the shared budget */

struct arena {
    struct arena_chunk *head; /* current chunk, older chunks linked behind */
    size_t chunk_size;        /* default size of a new chunk */
    size_t total;             /* bytes obtained from malloc, for metrics */
    /* Optional bounds, 0/NULL after arena_init: chunks and arena_charge()
     * fail (and set over) beyond limit bytes, or when budget is full. */
    size_t limit;
    struct arena_budget *budget;
    /* The last reserve bytes of budget->cap are not for this arena (the
     * HTTP server keeps them for small requests while big ones hold the
     * rest). 0 after arena_init. */
    long long reserve;
    size_t charged; /* arena_charge()d bytes, counted against both */
    int over;       /* 0, ARENA_OVER_LIMIT or ARENA_OVER_BUDGET */
};

/* Initialise an empty arena; chunk_size 0 picks a default (64 KiB). */
void arena_init(struct arena *a, size_t chunk_size);

/*
 * Free every chunk and give the bytes back to the budget; the arena is
 * empty and reusable afterwards (limit and budget are kept).
 */
void arena_destroy(struct arena *a);

/*
 * Count n more bytes held on behalf of a's owner outside the arena (an
 * answer being built) against a's limit and budget, until
 * arena_destroy(). Returns 0, or -1 (and sets a->over) when over either.
 */
int arena_charge(struct arena *a, size_t n);

/*
 * Return n bytes aligned for any type, or NULL when malloc fails. The
 * memory lives until arena_destroy(). n == 0 returns a valid pointer.
 */
void *arena_alloc(struct arena *a, size_t n);

/* arena_alloc() of n * size zeroed bytes; NULL on overflow or failure. */
void *arena_calloc(struct arena *a, size_t n, size_t size);

/* Copy a NUL-terminated string into the arena; NULL in gives NULL out. */
char *arena_strdup(struct arena *a, const char *s);

/* Copy len bytes and add a NUL terminator. */
char *arena_strndup(struct arena *a, const char *s, size_t len);

/* printf into the arena; NULL on failure. */
char *arena_sprintf(struct arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
