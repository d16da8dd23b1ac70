/*
 * topology_counts.h: counts keyed by a topology pair (label key, label
 * value), the topologyPair maps of v1.22's PodTopologySpread and
 * InterPodAffinity plugins. Open addressing over an arena-allocated slot
 * array; the key and value strings are borrowed (they belong to the
 * cluster's objects and must outlive the map).
 */
#ifndef PREDICATES_TOPOLOGY_COUNTS_H
#define PREDICATES_TOPOLOGY_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "kube/arena.h"

struct pred_topo_slot {
    const char *key; /* NULL: empty slot */
    const char *value;
    uint32_t hash;
    int64_t count;
};

struct pred_topo_counts {
    struct arena *arena;
    size_t n;   /* pairs present */
    size_t cap; /* slots, a power of two (0 before the first insert) */
    struct pred_topo_slot *slots;
};

/* An empty map whose slots come from a. Allocates nothing yet. */
void pred_topo_counts_init(struct pred_topo_counts *m, struct arena *a);

/*
 * The count of (key, value), inserted with 0 when absent. Returns NULL
 * when the arena runs out of memory.
 */
int64_t *pred_topo_counts_slot(struct pred_topo_counts *m, const char *key,
                               const char *value);

/* The count of (key, value), or NULL when the pair is absent. */
int64_t *pred_topo_counts_find(const struct pred_topo_counts *m,
                               const char *key, const char *value);

/* count(key, value) when present, else 0. */
int64_t pred_topo_counts_get(const struct pred_topo_counts *m, const char *key,
                             const char *value);

#endif
