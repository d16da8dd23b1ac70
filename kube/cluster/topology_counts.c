/*
 * topology_counts.c: (topology key, value) -> count; see topology_counts.h.
 */
#include "kube/cluster/topology_counts.h"

#include <string.h>

#include "kube/base/hash.h"

#define MIN_SLOTS 16

static uint64_t pair_hash(const char *key, const char *value)
{
    /* A 0xff separator: no label has that byte. */
    uint64_t h = (kube_fnv_str(KUBE_FNV_OFFSET, key) ^ 0xffu) * KUBE_FNV_PRIME;

    return kube_fnv_str(h, value);
}

void topo_counts_init(struct topo_counts *m, struct arena *a)
{
    memset(m, 0, sizeof(*m));
    m->arena = a;
}

int topo_counts_init_hint(struct topo_counts *m, struct arena *a, size_t hint)
{
    size_t cap = MIN_SLOTS;

    topo_counts_init(m, a);
    while (cap < hint + hint / 3 + 1)
        cap *= 2;
    m->slots = arena_calloc(a, cap, sizeof(*m->slots));
    if (!m->slots)
        return -1;
    m->cap = cap;
    return 0;
}

/* The slot holding (key, value), or the empty slot where it would go. */
static struct topo_counts_slot *probe(struct topo_counts_slot *slots,
                                      size_t cap, uint64_t h, const char *key,
                                      const char *value)
{
    size_t i = (size_t)h & (cap - 1);

    for (;;) {
        struct topo_counts_slot *s = &slots[i];

        /* Keys and values are mostly the same strings again (a topology
         * key, a node's label): their addresses settle most compares. */
        if (!s->key ||
            (s->hash == h && (s->key == key || !strcmp(s->key, key)) &&
             (s->value == value || !strcmp(s->value, value))))
            return s;
        i = (i + 1) & (cap - 1);
    }
}

/* Double the slot array (the old one stays in the arena). */
static int grow(struct topo_counts *m)
{
    size_t cap = m->cap ? m->cap * 2 : MIN_SLOTS;
    struct topo_counts_slot *slots =
        arena_calloc(m->arena, cap, sizeof(*slots));
    size_t i;

    if (!slots)
        return -1;
    for (i = 0; i < m->cap; i++) {
        const struct topo_counts_slot *old = &m->slots[i];

        if (old->key)
            *probe(slots, cap, old->hash, old->key, old->value) = *old;
    }
    m->slots = slots;
    m->cap = cap;
    return 0;
}

int64_t *topo_counts_add(struct topo_counts *m, const char *key,
                         const char *value, bool *created)
{
    uint64_t h = pair_hash(key, value);
    struct topo_counts_slot *s;

    /* Keep the load factor at or below 3/4. */
    if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
        return NULL;
    s = probe(m->slots, m->cap, h, key, value);
    if (created)
        *created = !s->key;
    if (!s->key) {
        s->key = key;
        s->value = value;
        s->hash = h;
        s->count = 0;
        m->n++;
    }
    return &s->count;
}

int64_t *topo_counts_find(const struct topo_counts *m, const char *key,
                          const char *value)
{
    struct topo_counts_slot *s;

    if (!m->n)
        return NULL;
    s = probe(m->slots, m->cap, pair_hash(key, value), key, value);
    return s->key ? &s->count : NULL;
}

int topo_keys_add(struct topo_keys *k, struct arena *a, const char *key)
{
    size_t i;

    for (i = 0; i < k->n; i++)
        if (!strcmp(k->keys[i], key))
            return 0;
    if ((k->n & (k->n - 1)) == 0) { /* 0, 1, 2, 4, ...: grow */
        const char **nk = arena_alloc(a, (k->n ? k->n * 2 : 1) * sizeof(*nk));

        if (!nk)
            return -1;
        if (k->n)
            memcpy(nk, k->keys, k->n * sizeof(*nk));
        k->keys = nk;
    }
    k->keys[k->n++] = key;
    return 0;
}

int64_t topo_counts_get(const struct topo_counts *m, const char *key,
                        const char *value)
{
    const int64_t *c = topo_counts_find(m, key, value);

    return c ? *c : 0;
}
