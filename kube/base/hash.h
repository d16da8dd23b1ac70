/*
 * hash.h: 64-bit FNV-1a, the hash of every open-addressing table here
 * (node names, image names, cache keys, affinity terms, topology pairs).
 * Start from KUBE_FNV_OFFSET and feed bytes or strings in order.
 */
#ifndef KUBE_BASE_HASH_H
#define KUBE_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define KUBE_FNV_OFFSET 1469598103934665603ull
#define KUBE_FNV_PRIME  1099511628211ull

/* h extended by n bytes at p. */
static inline uint64_t kube_fnv_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;

    while (n--)
        h = (h ^ *b++) * KUBE_FNV_PRIME;
    return h;
}

/* h extended by the bytes of s (without its NUL); NULL adds nothing. */
static inline uint64_t kube_fnv_str(uint64_t h, const char *s)
{
    while (s && *s)
        h = (h ^ (unsigned char)*s++) * KUBE_FNV_PRIME;
    return h;
}

#endif
