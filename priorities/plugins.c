/*
 * plugins.c: the score plugin table (see plugins.h). Implementations are
 * referenced weakly, so a build that lacks one still links; the table
 * reports it as NULL and tests/test_plugins.c insists there is none.
 */
#include "priorities/plugins.h"

#include <string.h>

#include "priorities/priorities.h"

#pragma weak prio_balanced_allocation_score
#pragma weak prio_image_locality_prescore
#pragma weak prio_image_locality_score
#pragma weak prio_inter_pod_affinity_normalize
#pragma weak prio_inter_pod_affinity_prescore
#pragma weak prio_inter_pod_affinity_score
#pragma weak prio_least_allocated_score
#pragma weak prio_most_allocated_score
#pragma weak prio_node_affinity_normalize
#pragma weak prio_node_affinity_prescore
#pragma weak prio_node_affinity_score
#pragma weak prio_node_label_score
#pragma weak prio_node_prefer_avoid_pods_score
#pragma weak prio_pod_topology_spread_normalize
#pragma weak prio_pod_topology_spread_prescore
#pragma weak prio_pod_topology_spread_score
#pragma weak prio_rdma_aware_score
#pragma weak prio_requested_to_capacity_ratio_score
#pragma weak prio_res_prescore_args_non_zero
#pragma weak prio_res_prescore_balanced
#pragma weak prio_resource_limits_normalize
#pragma weak prio_resource_limits_score
#pragma weak prio_selector_spread_normalize
#pragma weak prio_selector_spread_prescore
#pragma weak prio_selector_spread_score
#pragma weak prio_service_affinity_normalize
#pragma weak prio_service_affinity_prescore
#pragma weak prio_service_affinity_score
#pragma weak prio_taint_toleration_normalize
#pragma weak prio_taint_toleration_prescore
#pragma weak prio_taint_toleration_score

/* The gate-off SelectorSpread row serves the DefaultPodTopologySpread=false
 * option; our and dropped priorities are dispatched by priority name. */
static const struct prio_plugin plugins[] = {
    { "NodeResourcesLeastAllocated", prio_res_prescore_args_non_zero,
      prio_least_allocated_score, NULL },
    { "NodeResourcesMostAllocated", prio_res_prescore_args_non_zero,
      prio_most_allocated_score, NULL },
    { "NodeResourcesBalancedAllocation", prio_res_prescore_balanced,
      prio_balanced_allocation_score, NULL },
    { "RequestedToCapacityRatio", prio_res_prescore_args_non_zero,
      prio_requested_to_capacity_ratio_score, NULL },
    { "PodTopologySpread", prio_pod_topology_spread_prescore,
      prio_pod_topology_spread_score, prio_pod_topology_spread_normalize },
    { "SelectorSpread", prio_selector_spread_prescore,
      prio_selector_spread_score, prio_selector_spread_normalize },
    { "InterPodAffinity", prio_inter_pod_affinity_prescore,
      prio_inter_pod_affinity_score, prio_inter_pod_affinity_normalize },
    { "NodePreferAvoidPods", NULL, prio_node_prefer_avoid_pods_score, NULL },
    { "NodeAffinity", prio_node_affinity_prescore, prio_node_affinity_score,
      prio_node_affinity_normalize },
    { "TaintToleration", prio_taint_toleration_prescore,
      prio_taint_toleration_score, prio_taint_toleration_normalize },
    { "ImageLocality", prio_image_locality_prescore, prio_image_locality_score,
      NULL },
    { "NodeLabel", NULL, prio_node_label_score, NULL },
    { "ServiceAffinity", prio_service_affinity_prescore,
      prio_service_affinity_score, prio_service_affinity_normalize },
    { PRIO_NAME_CUSTOM_PRIORITY_POLICY, NULL, prio_rdma_aware_score, NULL },
    { PRIO_NAME_RESOURCE_LIMITS, NULL, prio_resource_limits_score,
      prio_resource_limits_normalize },
};

const struct prio_plugin *prio_plugin_find(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++) {
        if (!strcmp(plugins[i].name, name))
            return &plugins[i];
    }
    return NULL;
}

const struct prio_plugin *prio_plugins(size_t *n)
{
    *n = sizeof(plugins) / sizeof(plugins[0]);
    return plugins;
}
