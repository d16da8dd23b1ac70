/*
 * node_tree.c: kube-scheduler's node walking order (see node_tree.h).
 * Zones are few, so they are found by a linear scan.
 */
#include "kube/cluster/node_tree.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kube/model/labels.h"

bool kube_node_zone_key(const struct kube_node *n, const char **region,
                        const char **zone)
{
    *zone =
        kube_labels_get(&n->labels, "failure-domain.beta.kubernetes.io/zone");
    if (!*zone)
        *zone = kube_labels_get(&n->labels, "topology.kubernetes.io/zone");
    *region =
        kube_labels_get(&n->labels, "failure-domain.beta.kubernetes.io/region");
    if (!*region)
        *region = kube_labels_get(&n->labels, "topology.kubernetes.io/region");
    if (!*zone)
        *zone = "";
    if (!*region)
        *region = "";
    return **zone || **region;
}

static struct node_tree_zone *find_zone(struct node_tree *t, const char *region,
                                        const char *zone)
{
    size_t i;

    for (i = 0; i < t->n_zones; i++) {
        if (!strcmp(t->zones[i].region, region) &&
            !strcmp(t->zones[i].zone, zone))
            return &t->zones[i];
    }
    return NULL;
}

/* The zone (region, zone), appended when new; NULL when out of memory. */
static struct node_tree_zone *get_zone(struct node_tree *t, const char *region,
                                       const char *zone)
{
    struct node_tree_zone *z = find_zone(t, region, zone);

    if (z)
        return z;
    if (t->n_zones == t->cap_zones) {
        size_t cap = t->cap_zones ? t->cap_zones * 2 : 8;
        struct node_tree_zone *nz = realloc(t->zones, cap * sizeof(*nz));

        if (!nz)
            return NULL;
        t->zones = nz;
        t->cap_zones = cap;
    }
    z = &t->zones[t->n_zones];
    memset(z, 0, sizeof(*z));
    z->region = strdup(region);
    z->zone = strdup(zone);
    if (!z->region || !z->zone) {
        free(z->region);
        free(z->zone);
        return NULL;
    }
    t->n_zones++;
    return z;
}

static void drop_zone(struct node_tree *t, size_t i)
{
    free(t->zones[i].region);
    free(t->zones[i].zone);
    free(t->zones[i].nodes);
    memmove(&t->zones[i], &t->zones[i + 1],
            (t->n_zones - i - 1) * sizeof(*t->zones));
    t->n_zones--;
}

static int zone_append(struct node_tree_zone *z, size_t idx)
{
    if (z->n == z->cap) {
        size_t cap = z->cap ? z->cap * 2 : 16;
        size_t *nn = realloc(z->nodes, cap * sizeof(*nn));

        if (!nn)
            return -1;
        z->nodes = nn;
        z->cap = cap;
    }
    z->nodes[z->n++] = idx;
    return 0;
}

int node_tree_add(struct node_tree *t, const struct kube_node *n, size_t idx)
{
    const char *region, *zone;
    struct node_tree_zone *z;

    kube_node_zone_key(n, &region, &zone);
    z = get_zone(t, region, zone);
    if (!z || zone_append(z, idx) < 0)
        return -1;
    t->n_nodes++;
    return 0;
}

/* Where idx is: its zone and place there; false when in none. */
static bool locate(const struct node_tree *t, size_t idx, size_t *zi,
                   size_t *pos)
{
    size_t i, j;

    for (i = 0; i < t->n_zones; i++) {
        for (j = 0; j < t->zones[i].n; j++) {
            if (t->zones[i].nodes[j] == idx) {
                *zi = i;
                *pos = j;
                return true;
            }
        }
    }
    return false;
}

/* Take the node at (zi, pos) out, dropping its zone when it empties. */
static void detach(struct node_tree *t, size_t zi, size_t pos)
{
    struct node_tree_zone *z = &t->zones[zi];

    memmove(&z->nodes[pos], &z->nodes[pos + 1],
            (z->n - pos - 1) * sizeof(*z->nodes));
    z->n--;
    t->n_nodes--;
    if (!z->n)
        drop_zone(t, zi);
}

void node_tree_remove(struct node_tree *t, size_t idx)
{
    size_t i, j;

    if (locate(t, idx, &i, &j))
        detach(t, i, j);
    for (i = 0; i < t->n_zones; i++) {
        for (j = 0; j < t->zones[i].n; j++) {
            if (t->zones[i].nodes[j] > idx)
                t->zones[i].nodes[j]--;
        }
    }
}

int node_tree_update(struct node_tree *t, const struct kube_node *n, size_t idx)
{
    const char *region, *zone;
    size_t zi, pos;

    kube_node_zone_key(n, &region, &zone);
    if (locate(t, idx, &zi, &pos)) {
        if (!strcmp(t->zones[zi].region, region) &&
            !strcmp(t->zones[zi].zone, zone))
            return 0; /* same zone: it keeps its place */
        detach(t, zi, pos);
    }
    return node_tree_add(t, n, idx);
}

size_t node_tree_list(const struct node_tree *t, size_t *out)
{
    size_t n = 0, round, i;
    bool more = true;

    for (round = 0; more; round++) {
        more = false;
        for (i = 0; i < t->n_zones; i++) {
            if (round < t->zones[i].n) {
                out[n++] = t->zones[i].nodes[round];
                more = more || round + 1 < t->zones[i].n;
            }
        }
    }
    return n;
}

void node_tree_free(struct node_tree *t)
{
    while (t->n_zones)
        drop_zone(t, t->n_zones - 1);
    free(t->zones);
    memset(t, 0, sizeof(*t));
}
