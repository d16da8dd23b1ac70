/*
 * plugins.h: filter plugin implementations by name. A v1.22 filter plugin
 * ("NodeResourcesFit") or one of our predicates that has no v1.22 plugin
 * ("HighCommPodFilter", the names v1.22 dropped) is one row: an optional
 * prefilter and a filter. Each implementation lives in its own file under
 * predicates/ and is declared here.
 */
#ifndef PREDICATES_PLUGINS_H
#define PREDICATES_PLUGINS_H

#include <stddef.h>

#include "predicates/framework.h"

struct pred_plugin {
    const char *name;             /* plugin name (or predicate name) */
    pred_prefilter_fn *prefilter; /* NULL: none */
    pred_filter_fn *filter;       /* NULL: not implemented in this build */
};

/* The row for a plugin name, or NULL when there is no such row. */
const struct pred_plugin *pred_plugin_find(const char *name);

/* Every row; *n gets the count. */
const struct pred_plugin *pred_plugins(size_t *n);

/* ---- implementations (one file each, named after the plugin) ---- */
pred_filter_fn pred_node_unschedulable_filter;
pred_prefilter_fn pred_node_resources_fit_prefilter;
pred_filter_fn pred_node_resources_fit_filter;
pred_filter_fn pred_node_name_filter;
pred_prefilter_fn pred_node_ports_prefilter;
pred_filter_fn pred_node_ports_filter;
pred_filter_fn pred_node_affinity_filter;
pred_filter_fn pred_volume_restrictions_filter;
pred_filter_fn pred_taint_toleration_filter;
pred_filter_fn pred_node_label_filter;
pred_prefilter_fn pred_service_affinity_prefilter;
pred_filter_fn pred_service_affinity_filter;
pred_filter_fn pred_ebs_limits_filter;
pred_filter_fn pred_gce_pd_limits_filter;
pred_filter_fn pred_azure_disk_limits_filter;
pred_filter_fn pred_cinder_limits_filter;
pred_filter_fn pred_node_volume_limits_filter;
pred_prefilter_fn pred_volume_binding_prefilter;
pred_filter_fn pred_volume_binding_filter;
pred_filter_fn pred_volume_zone_filter;
pred_prefilter_fn pred_pod_topology_spread_prefilter;
pred_filter_fn pred_pod_topology_spread_filter;
pred_prefilter_fn pred_inter_pod_affinity_prefilter;
pred_filter_fn pred_inter_pod_affinity_filter;
pred_filter_fn pred_pod_fits_host_new_filter;
pred_filter_fn pred_high_comm_filter;
pred_filter_fn pred_check_node_condition_filter;
pred_filter_fn pred_no_execute_taints_filter;
pred_filter_fn pred_memory_pressure_filter;
pred_filter_fn pred_disk_pressure_filter;
pred_filter_fn pred_pid_pressure_filter;
pred_filter_fn pred_no_volume_node_conflict_filter;

#endif
