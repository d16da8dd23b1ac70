/*
 * legacy_pressure.c: CheckNodeMemoryPressure, CheckNodeDiskPressure and
 * CheckNodePIDPressure, predicates v1.22 no longer has (compat legacy),
 * with the semantics of their last release (v1.16 predicates.go): a node
 * whose MemoryPressure / DiskPressure / PIDPressure condition is True
 * rejects the pod; memory pressure rejects BestEffort pods only.
 *
 * Code: PRED_UNFIT_UNRESOLVABLE, as v1.16 classed these reasons
 * unresolvable and the framework wrapper that followed reported them as
 * UnschedulableAndUnresolvable (see legacy_node_condition.c).
 */
#include "predicates/plugins.h"

#include <string.h>

#include "predicates/legacy_pressure.h"
#include "predicates/predicates.h"

#define PRED_NAME_CHECK_NODE_MEMORY_PRESSURE "CheckNodeMemoryPressure"
#define PRED_NAME_CHECK_NODE_PID_PRESSURE    "CheckNodePIDPressure"
#define PRED_NAME_CHECK_NODE_DISK_PRESSURE   "CheckNodeDiskPressure"

/* The node's status for condition `type` (the last one wins, as
 * NodeInfo.SetNode recorded it), or "" when the node does not report it. */
static const char *condition_status(const struct kube_node *node,
                                    const char *type)
{
    const char *status = "";

    for (size_t i = 0; i < node->n_conditions; i++) {
        const struct kube_node_condition *c = &node->conditions[i];

        if (c->type && !strcmp(c->type, type))
            status = c->status ? c->status : "";
    }
    return status;
}

static bool under_pressure(const struct node_info *ni, const char *type)
{
    return ni && ni->node && !strcmp(condition_status(ni->node, type), "True");
}

static bool has_qos_resource(const struct kube_resources *r)
{
    return ((r->has & KUBE_RES_CPU) && r->milli_cpu > 0) ||
           ((r->has & KUBE_RES_MEMORY) && r->memory > 0);
}

static bool containers_qos(const struct kube_container *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (has_qos_resource(&c[i].requests) || has_qos_resource(&c[i].limits))
            return true;
    return false;
}

/* v1.16 qos.GetPodQOS == BestEffort: no container or init container
 * requests or limits a positive amount of cpu or memory. */
static bool pod_is_best_effort(const struct kube_pod *pod)
{
    return !containers_qos(pod->containers, pod->n_containers) &&
           !containers_qos(pod->init_containers, pod->n_init_containers);
}

/* Filter: a BestEffort pod does not fit a node under memory pressure. */
enum pred_code pred_memory_pressure_filter(const struct pred_cycle *cy,
                                           const void *args, const void *state,
                                           const struct node_info *ni,
                                           struct pred_result *r)
{
    (void)args;
    (void)state;
    if (!pod_is_best_effort(cy->pod) || !under_pressure(ni, "MemoryPressure"))
        return PRED_FIT;
    return pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_MEMORY_PRESSURE);
}

/* Filter: no pod fits a node under disk pressure. */
enum pred_code pred_disk_pressure_filter(const struct pred_cycle *cy,
                                         const void *args, const void *state,
                                         const struct node_info *ni,
                                         struct pred_result *r)
{
    (void)cy;
    (void)args;
    (void)state;
    if (!under_pressure(ni, "DiskPressure"))
        return PRED_FIT;
    return pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_DISK_PRESSURE);
}

/* Filter: no pod fits a node under PID pressure. */
enum pred_code pred_pid_pressure_filter(const struct pred_cycle *cy,
                                        const void *args, const void *state,
                                        const struct node_info *ni,
                                        struct pred_result *r)
{
    (void)cy;
    (void)args;
    (void)state;
    if (!under_pressure(ni, "PIDPressure"))
        return PRED_FIT;
    return pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_PID_PRESSURE);
}

const struct pred_plugin pred_plugin_memory_pressure = {
    { PRED_NAME_CHECK_NODE_MEMORY_PRESSURE, 0 },
    NULL,
    pred_memory_pressure_filter,
    (const char *const[]){ PRED_REASON_MEMORY_PRESSURE, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_plugin pred_plugin_disk_pressure = {
    { PRED_NAME_CHECK_NODE_DISK_PRESSURE, 0 },
    NULL,
    pred_disk_pressure_filter,
    (const char *const[]){ PRED_REASON_DISK_PRESSURE, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_plugin pred_plugin_pid_pressure = {
    { PRED_NAME_CHECK_NODE_PID_PRESSURE, 0 },
    NULL,
    pred_pid_pressure_filter,
    (const char *const[]){ PRED_REASON_PID_PRESSURE, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_check_node_memory_pressure = {
    .name = PRED_NAME_CHECK_NODE_MEMORY_PRESSURE,
    .aliases = NULL,
    .flags = PRED_LEGACY,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { NULL },
    .own = &pred_plugin_memory_pressure,
    .doc = "best-effort pods avoid nodes under memory pressure (v1.8-v1.16)",
};

const struct pred_def pred_check_node_pid_pressure = {
    .name = PRED_NAME_CHECK_NODE_PID_PRESSURE,
    .aliases = NULL,
    .flags = PRED_LEGACY,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { NULL },
    .own = &pred_plugin_pid_pressure,
    .doc = "no pod lands on a node under PID pressure (v1.10-v1.16)",
};

const struct pred_def pred_check_node_disk_pressure = {
    .name = PRED_NAME_CHECK_NODE_DISK_PRESSURE,
    .aliases = NULL,
    .flags = PRED_LEGACY,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { NULL },
    .own = &pred_plugin_disk_pressure,
    .doc = "no pod lands on a node under disk pressure (v1.8-v1.16)",
};
