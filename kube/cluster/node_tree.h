/*
 * node_tree.h: kube-scheduler v1.22's NodeTree (internal/cache/
 * node_tree.go), the order in which its scheduler walks nodes: nodes
 * grouped by zone (utilnode.GetZoneKey: region and zone, the beta
 * failure-domain labels first), zones in the order they appeared, nodes
 * within a zone in the order they were added; the list takes one node
 * from each zone in turn. A zone that empties is forgotten, and a node
 * whose zone label changes moves to the end of its new zone.
 *
 * Nodes are named by their index in cluster.nodes; cluster.c keeps the
 * tree in step with that array.
 */
#ifndef KUBE_CLUSTER_NODE_TREE_H
#define KUBE_CLUSTER_NODE_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "kube/model/types.h"

struct node_tree_zone {
    char *region; /* owned; "" when unlabelled */
    char *zone;   /* owned */
    size_t n, cap;
    size_t *nodes; /* indices into cluster.nodes, in order of addition */
};

struct node_tree {
    size_t n_zones, cap_zones;
    struct node_tree_zone *zones;
    size_t n_nodes;
};

/* GetZoneKey as its two parts ("" when absent); false when both are "". */
bool kube_node_zone_key(const struct kube_node *n, const char **region,
                        const char **zone);

/* Add node n, at index idx, to the end of its zone. 0, or -1 (memory). */
int node_tree_add(struct node_tree *t, const struct kube_node *n, size_t idx);

/*
 * Remove the node at idx; indices above it drop by one, as the node
 * array closes the gap.
 */
void node_tree_remove(struct node_tree *t, size_t idx);

/* The node at idx is now n: moved to the end of its new zone when its
 * zone changed. 0, or -1 (memory). */
int node_tree_update(struct node_tree *t, const struct kube_node *n,
                     size_t idx);

/* NodeTree.list(): the indices in walking order into out (room for
 * n_nodes). Returns the count. */
size_t node_tree_list(const struct node_tree *t, size_t *out);

void node_tree_free(struct node_tree *t);

#endif
