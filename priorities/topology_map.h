/*
 * topology_map.h: a (key, value) -> int64 counter map for the topology
 * scoring plugins (PodTopologySpread's pair counts, InterPodAffinity's
 * topology scores, the zone and label tallies of SelectorSpread and
 * ServiceAffinity). Open addressing over an arena: no per-entry
 * allocation, nothing to free; strings are borrowed, not copied.
 */
#ifndef PRIORITIES_TOPOLOGY_MAP_H
#define PRIORITIES_TOPOLOGY_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/arena.h"

struct prio_topo_entry {
    const char *key; /* NULL: empty slot */
    const char *value;
    uint64_t hash;
    int64_t count;
};

struct prio_topo_map {
    struct arena *arena;
    size_t cap; /* power of two */
    size_t len;
    struct prio_topo_entry *slots;
};

/*
 * An empty map whose table comes from a and starts with room for about
 * hint entries. Returns 0, or -1 when the arena is out of memory.
 */
int prio_topo_map_init(struct prio_topo_map *m, struct arena *a, size_t hint);

/* The counter of (key, value), or NULL when the pair was never added. */
int64_t *prio_topo_map_get(const struct prio_topo_map *m, const char *key,
                           const char *value);

/*
 * The counter of (key, value), created at 0 when absent (*created tells
 * which, created may be NULL). key and value must outlive the map.
 * Returns NULL only when the arena is out of memory.
 */
int64_t *prio_topo_map_add(struct prio_topo_map *m, const char *key,
                           const char *value, bool *created);

#endif
