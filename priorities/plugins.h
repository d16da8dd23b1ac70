/*
 * plugins.h: the code of a score plugin. A v1.22 score plugin
 * ("NodeResourcesLeastAllocated") or the code behind one of our priority
 * names that has no v1.22 plugin ("CustomPriorityPolicy", the names v1.22
 * dropped) is one struct prio_plugin, defined in its own file next to its
 * functions and reached through the descriptors (priorities.h).
 */
#ifndef PRIORITIES_PLUGINS_H
#define PRIORITIES_PLUGINS_H

#include <stddef.h>

#include "framework/plugin.h"
#include "priorities/framework.h"

struct prio_plugin {
    struct kpe_plugin_ref ref;  /* name; v1.22 extension points */
    prio_prescore_fn *prescore; /* NULL: none */
    prio_score_fn *score;
    prio_normalize_fn *normalize; /* NULL: raw scores are already 0..100 */
};

/* Named by two descriptors (EvenPodsSpread and SelectorSpread). */
extern const struct prio_plugin prio_plugin_pod_topology_spread;

/* The code behind a plugin name (as pred_plugin_find). NULL: none. */
const struct prio_plugin *prio_plugin_find(const char *name);

/* Functions shared between plugin files or called by tests. */
/*
 * PreScore of Least/Most/RequestedToCapacityRatio (the args' list,
 * NonZeroRequested) and of BalancedAllocation (cpu and memory, Requested):
 * *state becomes a struct prio_res_pod (resource_allocation.h).
 */
prio_prescore_fn prio_res_prescore_args_non_zero;
prio_prescore_fn prio_res_prescore_balanced;
prio_score_fn prio_least_allocated_score;
prio_score_fn prio_most_allocated_score;
prio_score_fn prio_balanced_allocation_score;
prio_score_fn prio_requested_to_capacity_ratio_score;
prio_prescore_fn prio_pod_topology_spread_prescore;
prio_score_fn prio_pod_topology_spread_score;
prio_normalize_fn prio_pod_topology_spread_normalize;
prio_prescore_fn prio_selector_spread_prescore;
prio_score_fn prio_selector_spread_score;
prio_normalize_fn prio_selector_spread_normalize;
prio_prescore_fn prio_inter_pod_affinity_prescore;
prio_score_fn prio_inter_pod_affinity_score;
prio_normalize_fn prio_inter_pod_affinity_normalize;
prio_score_fn prio_node_prefer_avoid_pods_score;
prio_prescore_fn prio_node_affinity_prescore;
prio_score_fn prio_node_affinity_score;
prio_normalize_fn prio_node_affinity_normalize;
prio_prescore_fn prio_taint_toleration_prescore;
prio_score_fn prio_taint_toleration_score;
prio_normalize_fn prio_taint_toleration_normalize;
prio_prescore_fn prio_image_locality_prescore;
prio_score_fn prio_image_locality_score;
prio_score_fn prio_node_label_score;
prio_prescore_fn prio_service_affinity_prescore;
prio_score_fn prio_service_affinity_score;
prio_normalize_fn prio_service_affinity_normalize;
prio_score_fn prio_resource_limits_score;
prio_normalize_fn prio_resource_limits_normalize;

#endif
