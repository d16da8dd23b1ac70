/*
 * topology_counts.c: (topology key, value) -> count, open addressing with
 * linear probing; see topology_counts.h.
 */
#include "predicates/topology_counts.h"

#include <string.h>

#define MIN_SLOTS 16

/* FNV-1a over key, a NUL separator, then value. */
static uint32_t pair_hash(const char *key, const char *value)
{
    uint32_t h = 2166136261u;
    const unsigned char *p;

    for (p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    h *= 16777619u;
    for (p = (const unsigned char *)value; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

void pred_topo_counts_init(struct pred_topo_counts *m, struct arena *a)
{
    memset(m, 0, sizeof(*m));
    m->arena = a;
}

/* The slot holding (key, value), or the empty slot where it would go. */
static struct pred_topo_slot *probe(struct pred_topo_slot *slots, size_t cap,
                                    uint32_t h, const char *key,
                                    const char *value)
{
    size_t i = h & (cap - 1);

    for (;;) {
        struct pred_topo_slot *s = &slots[i];

        if (!s->key ||
            (s->hash == h && !strcmp(s->key, key) && !strcmp(s->value, value)))
            return s;
        i = (i + 1) & (cap - 1);
    }
}

/* Double the slot array (the old one stays in the arena). */
static int grow(struct pred_topo_counts *m)
{
    size_t cap = m->cap ? m->cap * 2 : MIN_SLOTS;
    struct pred_topo_slot *slots = arena_calloc(m->arena, cap, sizeof(*slots));
    size_t i;

    if (!slots)
        return -1;
    for (i = 0; i < m->cap; i++) {
        const struct pred_topo_slot *old = &m->slots[i];

        if (old->key)
            *probe(slots, cap, old->hash, old->key, old->value) = *old;
    }
    m->slots = slots;
    m->cap = cap;
    return 0;
}

int64_t *pred_topo_counts_slot(struct pred_topo_counts *m, const char *key,
                               const char *value)
{
    uint32_t h = pair_hash(key, value);
    struct pred_topo_slot *s;

    /* Keep the load factor at or below 1/2. */
    if ((m->n + 1) * 2 > m->cap && grow(m) < 0)
        return NULL;
    s = probe(m->slots, m->cap, h, key, value);
    if (!s->key) {
        s->key = key;
        s->value = value;
        s->hash = h;
        s->count = 0;
        m->n++;
    }
    return &s->count;
}

int64_t *pred_topo_counts_find(const struct pred_topo_counts *m,
                               const char *key, const char *value)
{
    struct pred_topo_slot *s;

    if (!m->n)
        return NULL;
    s = probe(m->slots, m->cap, pair_hash(key, value), key, value);
    return s->key ? &s->count : NULL;
}

int64_t pred_topo_counts_get(const struct pred_topo_counts *m, const char *key,
                             const char *value)
{
    const int64_t *c = pred_topo_counts_find(m, key, value);

    return c ? *c : 0;
}
