/*
 * plugins.h: the code of a filter plugin. A v1.22 filter plugin
 * ("NodeResourcesFit") or the code behind one of our Policy names that has
 * no v1.22 plugin ("HighCommPodFilter", the names v1.22 dropped) is one
 * struct pred_plugin, defined in its own file next to its functions and
 * reached through the descriptors (predicates.h) that name it.
 */
#ifndef PREDICATES_PLUGINS_H
#define PREDICATES_PLUGINS_H

#include <stddef.h>

#include "framework/plugin.h"
#include "predicates/framework.h"

/*
 * When a plugin's verdict on a node stays the same while replicas of the
 * pod land on other nodes (simulate's verdict cache, engine/filter_cache.c).
 * NEVER (the default) is always safe: the verdict is computed again.
 */
enum pred_stable {
    PRED_STABLE_NEVER = 0,
    PRED_STABLE_ALWAYS,       /* reads the pod's spec and that node alone */
    PRED_STABLE_NO_VOLUMES,   /* the same, for a pod without volumes */
    PRED_STABLE_NO_POD_TERMS, /* for a pod without pod (anti-)affinity */
    PRED_STABLE_NO_SPREAD,    /* for a pod without spread constraints */
};

struct pred_plugin {
    struct kpe_plugin_ref ref;    /* name; v1.22 extension points */
    pred_prefilter_fn *prefilter; /* NULL: none */
    pred_filter_fn *filter;
    const char *const *reasons; /* every reason it gives, NULL-ended */
    enum pred_stable stable;    /* across replicas placed elsewhere */
};

/* v1.22 plugins that several descriptors name (GeneralPredicates). */
extern const struct pred_plugin pred_plugin_node_resources_fit;
extern const struct pred_plugin pred_plugin_node_name;
extern const struct pred_plugin pred_plugin_node_ports;
extern const struct pred_plugin pred_plugin_node_affinity;

/*
 * The code behind a plugin name: a v1.22 plugin some descriptor maps to,
 * or a descriptor's own code under its Policy name. NULL: none.
 */
const struct pred_plugin *pred_plugin_find(const char *name);

/*
 * Functions other plugins reuse (PodFitsHostNew decides as NodeName) or
 * tests call directly.
 */
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
pred_filter_fn pred_check_node_condition_filter;
pred_filter_fn pred_no_execute_taints_filter;
pred_filter_fn pred_memory_pressure_filter;
pred_filter_fn pred_disk_pressure_filter;
pred_filter_fn pred_pid_pressure_filter;
pred_filter_fn pred_no_volume_node_conflict_filter;

#endif
