/*
 * general_predicates.c: GeneralPredicates, the v1.22 name for four filter
 * plugins run together (legacy_registry.go: NodeResourcesFit, NodeName,
 * NodePorts, NodeAffinity). It has no code of its own.
 */
#include "predicates/predicates.h"

#define PRED_NAME_GENERAL_PREDICATES "GeneralPredicates"

const struct pred_def pred_general_predicates = {
    .name = PRED_NAME_GENERAL_PREDICATES,
    .aliases = NULL,
    .flags = PRED_DEFAULT,
    .needs = KPE_NEED_PODS_ON_NODE,
    .parse_args = NULL,
    .plugins = { &pred_plugin_node_resources_fit, &pred_plugin_node_name,
                 &pred_plugin_node_ports, &pred_plugin_node_affinity },
    .own = NULL,
    .doc =
        "resources, node name, host ports and node selector/affinity together",
};
