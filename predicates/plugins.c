/*
 * plugins.c: the filter plugin table (see plugins.h). Implementations are
 * referenced weakly, so a build that lacks one still links; the table
 * reports it as NULL and tests/test_plugins.c insists there is none.
 */
#include "predicates/plugins.h"

#include <string.h>

#include "predicates/predicates.h"

#pragma weak pred_node_unschedulable_filter
#pragma weak pred_node_resources_fit_prefilter
#pragma weak pred_node_resources_fit_filter
#pragma weak pred_node_name_filter
#pragma weak pred_node_ports_prefilter
#pragma weak pred_node_ports_filter
#pragma weak pred_node_affinity_filter
#pragma weak pred_volume_restrictions_filter
#pragma weak pred_taint_toleration_filter
#pragma weak pred_node_label_filter
#pragma weak pred_service_affinity_prefilter
#pragma weak pred_service_affinity_filter
#pragma weak pred_ebs_limits_filter
#pragma weak pred_gce_pd_limits_filter
#pragma weak pred_azure_disk_limits_filter
#pragma weak pred_cinder_limits_filter
#pragma weak pred_node_volume_limits_filter
#pragma weak pred_volume_binding_prefilter
#pragma weak pred_volume_binding_filter
#pragma weak pred_volume_zone_filter
#pragma weak pred_pod_topology_spread_prefilter
#pragma weak pred_pod_topology_spread_filter
#pragma weak pred_inter_pod_affinity_prefilter
#pragma weak pred_inter_pod_affinity_filter
#pragma weak pred_pod_fits_host_new_filter
#pragma weak pred_high_comm_filter
#pragma weak pred_check_node_condition_filter
#pragma weak pred_no_execute_taints_filter
#pragma weak pred_memory_pressure_filter
#pragma weak pred_disk_pressure_filter
#pragma weak pred_pid_pressure_filter
#pragma weak pred_no_volume_node_conflict_filter

/* Rows that need no prefilter leave it NULL even where v1.22 has one that
 * only precomputes (NodeAffinity): the filter computes the same. */
static const struct pred_plugin plugins[] = {
    { "NodeUnschedulable", NULL, pred_node_unschedulable_filter },
    { "NodeResourcesFit", pred_node_resources_fit_prefilter,
      pred_node_resources_fit_filter },
    { "NodeName", NULL, pred_node_name_filter },
    { "NodePorts", pred_node_ports_prefilter, pred_node_ports_filter },
    { "NodeAffinity", NULL, pred_node_affinity_filter },
    { "VolumeRestrictions", NULL, pred_volume_restrictions_filter },
    { "TaintToleration", NULL, pred_taint_toleration_filter },
    { "NodeLabel", NULL, pred_node_label_filter },
    { "ServiceAffinity", pred_service_affinity_prefilter,
      pred_service_affinity_filter },
    { "EBSLimits", NULL, pred_ebs_limits_filter },
    { "GCEPDLimits", NULL, pred_gce_pd_limits_filter },
    { "AzureDiskLimits", NULL, pred_azure_disk_limits_filter },
    { "CinderLimits", NULL, pred_cinder_limits_filter },
    { "NodeVolumeLimits", NULL, pred_node_volume_limits_filter },
    { "VolumeBinding", pred_volume_binding_prefilter,
      pred_volume_binding_filter },
    { "VolumeZone", NULL, pred_volume_zone_filter },
    { "PodTopologySpread", pred_pod_topology_spread_prefilter,
      pred_pod_topology_spread_filter },
    { "InterPodAffinity", pred_inter_pod_affinity_prefilter,
      pred_inter_pod_affinity_filter },
    /* Ours: no v1.22 plugin, dispatched by predicate name. */
    { PRED_NAME_POD_FITS_HOST_NEW, NULL, pred_pod_fits_host_new_filter },
    { PRED_NAME_HIGH_COMM, NULL, pred_high_comm_filter },
    /* Dropped before v1.22 (compat legacy), by predicate name. */
    { PRED_NAME_CHECK_NODE_CONDITION, NULL, pred_check_node_condition_filter },
    { PRED_NAME_NO_EXECUTE_TAINTS, NULL, pred_no_execute_taints_filter },
    { PRED_NAME_CHECK_NODE_MEMORY_PRESSURE, NULL, pred_memory_pressure_filter },
    { PRED_NAME_CHECK_NODE_DISK_PRESSURE, NULL, pred_disk_pressure_filter },
    { PRED_NAME_CHECK_NODE_PID_PRESSURE, NULL, pred_pid_pressure_filter },
    { PRED_NAME_NO_VOLUME_NODE_CONFLICT, NULL,
      pred_no_volume_node_conflict_filter },
};

const struct pred_plugin *pred_plugin_find(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++) {
        if (!strcmp(plugins[i].name, name))
            return &plugins[i];
    }
    return NULL;
}

const struct pred_plugin *pred_plugins(size_t *n)
{
    *n = sizeof(plugins) / sizeof(plugins[0]);
    return plugins;
}
