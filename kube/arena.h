/*
 * arena.h: region allocator. Everything parsed from one input (a request
 * body, a policy file, a cluster snapshot) is allocated from one arena and
 * released at once with arena_destroy(), as nginx pools do.
 */
#ifndef KUBE_ARENA_H
#define KUBE_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
    struct arena_chunk *head; /* current chunk, older chunks linked behind */
    size_t chunk_size;        /* default size of a new chunk */
    size_t total;             /* bytes obtained from malloc, for metrics */
};

/* Initialise an empty arena; chunk_size 0 picks a default (64 KiB). */
void arena_init(struct arena *a, size_t chunk_size);

/* Free every chunk; the arena is empty and reusable afterwards. */
void arena_destroy(struct arena *a);

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
