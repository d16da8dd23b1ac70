/*
 * topology_map.c: the arena-backed (key, value) -> int64 map of
 * topology_map.h. Linear probing, FNV-1a hashes, doubling at 3/4 load.
 */
#include "priorities/topology_map.h"

#include <string.h>

#include "kube/hash.h"

static uint64_t pair_hash(const char *key, const char *value)
{
    /* A 0xff separator: no label has that byte. */
    uint64_t h = (kube_fnv_str(KUBE_FNV_OFFSET, key) ^ 0xffu) * KUBE_FNV_PRIME;

    return kube_fnv_str(h, value);
}

int prio_topo_map_init(struct prio_topo_map *m, struct arena *a, size_t hint)
{
    size_t cap = 16;

    while (cap < hint + hint / 3 + 1)
        cap *= 2;
    m->arena = a;
    m->cap = cap;
    m->len = 0;
    m->slots = arena_calloc(a, cap, sizeof(*m->slots));
    return m->slots ? 0 : -1;
}

static struct prio_topo_entry *find(const struct prio_topo_map *m,
                                    const char *key, const char *value,
                                    uint64_t h)
{
    size_t i = (size_t)h & (m->cap - 1);

    for (;;) {
        struct prio_topo_entry *s = &m->slots[i];

        if (!s->key)
            return s;
        if (s->hash == h && !strcmp(s->key, key) && !strcmp(s->value, value))
            return s;
        i = (i + 1) & (m->cap - 1);
    }
}

int64_t *prio_topo_map_get(const struct prio_topo_map *m, const char *key,
                           const char *value)
{
    struct prio_topo_entry *s;

    if (!m->len)
        return NULL;
    s = find(m, key, value, pair_hash(key, value));
    return s->key ? &s->count : NULL;
}

static int grow(struct prio_topo_map *m)
{
    struct prio_topo_entry *old = m->slots;
    size_t i, old_cap = m->cap;

    m->slots = arena_calloc(m->arena, old_cap * 2, sizeof(*m->slots));
    if (!m->slots) {
        m->slots = old;
        return -1;
    }
    m->cap = old_cap * 2;
    for (i = 0; i < old_cap; i++) {
        if (old[i].key)
            *find(m, old[i].key, old[i].value, old[i].hash) = old[i];
    }
    return 0;
}

int64_t *prio_topo_map_add(struct prio_topo_map *m, const char *key,
                           const char *value, bool *created)
{
    uint64_t h = pair_hash(key, value);
    struct prio_topo_entry *s = find(m, key, value, h);

    if (created)
        *created = !s->key;
    if (s->key)
        return &s->count;
    if ((m->len + 1) * 4 > m->cap * 3) {
        if (grow(m) < 0)
            return NULL;
        s = find(m, key, value, h);
    }
    s->key = key;
    s->value = value;
    s->hash = h;
    s->count = 0;
    m->len++;
    return &s->count;
}
