/*
 * topology_counts.h: counts keyed by a topology pair (label key, label
 * value): the topologyPair maps of v1.22's PodTopologySpread and
 * InterPodAffinity plugins, filter and score alike, and the zone and
 * label tallies of SelectorSpread and ServiceAffinity. Open addressing
 * with linear probing over an arena-allocated slot array, FNV-1a hashes
 * (kube/base/hash.h), doubling at 3/4 load: no per-entry allocation, nothing
 * to free. The key and value strings are borrowed and must outlive the map.
 */
#ifndef KUBE_CLUSTER_TOPOLOGY_COUNTS_H
#define KUBE_CLUSTER_TOPOLOGY_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/base/arena.h"

struct topo_counts_slot {
    const char *key; /* NULL: empty slot */
    const char *value;
    uint64_t hash;
    int64_t count;
};

struct topo_counts {
    struct arena *arena;
    size_t n;   /* pairs present */
    size_t cap; /* slots, a power of two (0 before the first insert) */
    struct topo_counts_slot *slots;
};

/* An empty map whose slots come from a. Allocates nothing yet. */
void topo_counts_init(struct topo_counts *m, struct arena *a);

/*
 * The same with room for about hint pairs before the first growth.
 * Returns 0, or -1 when the arena is out of memory.
 */
int topo_counts_init_hint(struct topo_counts *m, struct arena *a, size_t hint);

/*
 * The count of (key, value), inserted at 0 when absent (*created says
 * which; created may be NULL). NULL only when the arena runs out.
 */
int64_t *topo_counts_add(struct topo_counts *m, const char *key,
                         const char *value, bool *created);

/* The count of (key, value), or NULL when the pair is absent. */
int64_t *topo_counts_find(const struct topo_counts *m, const char *key,
                          const char *value);

/* count(key, value) when present, else 0. */
int64_t topo_counts_get(const struct topo_counts *m, const char *key,
                        const char *value);

/*
 * The distinct topology keys a map has been given (a plugin then looks a
 * node up by these few keys rather than by each of its labels). Few
 * enough to list, not hash; the strings are borrowed like the map's.
 */
struct topo_keys {
    size_t n;
    const char **keys;
};

/* Add key unless listed. Returns 0, or -1 when the arena runs out. */
int topo_keys_add(struct topo_keys *k, struct arena *a, const char *key);

#endif
