/*
 * node_ports.c: PodFitsHostPorts (alias PodFitsPorts, and part of
 * GeneralPredicates), the v1.22 NodePorts filter plugin (plugins/nodeports).
 * The prefilter collects the host ports the pod's containers want (init
 * containers do not count); the filter checks them against the ports
 * already used on the node (HostPortInfo.CheckConflict).
 */
#include "predicates/plugins.h"

#include "predicates/node_ports.h"
#include "predicates/predicates.h"

#define PRED_NAME_POD_FITS_HOST_PORTS "PodFitsHostPorts"
#define PRED_NAME_POD_FITS_PORTS      "PodFitsPorts"

/* What v1.22 reports when Filter runs without its PreFilter state. */
#define NODE_PORTS_NO_STATE                                                    \
    "reading \"PreFilterNodePorts\" from cycleState: not found"

struct wanted_port {
    const char *ip;       /* "" or NULL means 0.0.0.0 */
    const char *protocol; /* "" or NULL means TCP */
    int32_t port;
};

struct node_ports_state {
    size_t n;
    struct wanted_port *ports;
};

static size_t count_host_ports(const struct kube_pod *pod)
{
    size_t n = 0;

    for (size_t i = 0; i < pod->n_containers; i++)
        for (size_t j = 0; j < pod->containers[i].n_ports; j++)
            if (pod->containers[i].ports[j].host_port > 0)
                n++;
    return n;
}

/*
 * PreFilter: the pod's wanted host ports (hostPort > 0, containers only),
 * once per pod, into an arena-owned state (even when there are none: a
 * missing state means the prefilter did not run). Fails only with
 * PRED_ERROR when the arena is exhausted.
 */
enum pred_code pred_node_ports_prefilter(struct pred_cycle *cy,
                                         const void *args, void **state,
                                         struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;
    struct node_ports_state *st;
    size_t n = count_host_ports(pod);

    (void)args;
    st = arena_calloc(cy->arena, 1, sizeof(*st));
    if (!st ||
        (n && !(st->ports = arena_calloc(cy->arena, n, sizeof(*st->ports)))))
        return pred_fail(r, PRED_ERROR, "out of memory");
    for (size_t i = 0; i < pod->n_containers; i++) {
        const struct kube_container *c = &pod->containers[i];

        for (size_t j = 0; j < c->n_ports; j++) {
            const struct kube_container_port *p = &c->ports[j];

            if (p->host_port <= 0)
                continue;
            st->ports[st->n].ip = p->host_ip;
            st->ports[st->n].protocol = p->protocol;
            st->ports[st->n].port = p->host_port;
            st->n++;
        }
    }
    *state = st;
    return PRED_FIT;
}

/*
 * Filter: Unschedulable when any wanted port conflicts with a port in use
 * on the node; PRED_ERROR when the prefilter state is missing.
 */
enum pred_code pred_node_ports_filter(const struct pred_cycle *cy,
                                      const void *args, const void *state,
                                      const struct node_info *ni,
                                      struct pred_result *r)
{
    const struct node_ports_state *st = state;

    (void)cy;
    (void)args;
    if (!st)
        return pred_fail(r, PRED_ERROR, NODE_PORTS_NO_STATE);
    for (size_t i = 0; i < st->n; i++) {
        const struct wanted_port *w = &st->ports[i];

        if (node_info_port_conflict(ni, w->ip, w->protocol, w->port))
            return pred_fail(r, PRED_UNFIT, PRED_REASON_NODE_PORTS);
    }
    return PRED_FIT;
}

const struct pred_plugin pred_plugin_node_ports = {
    { "NodePorts", KPE_EP_PREFILTER | KPE_EP_FILTER },
    pred_node_ports_prefilter,
    pred_node_ports_filter,
    (const char *const[]){ PRED_REASON_NODE_PORTS, NULL },
    PRED_STABLE_ALWAYS,
};

const struct pred_def pred_pod_fits_host_ports = {
    .name = PRED_NAME_POD_FITS_HOST_PORTS,
    .aliases = (const char *const[]){ PRED_NAME_POD_FITS_PORTS, NULL },
    .flags = 0,
    .needs = KPE_NEED_PODS_ON_NODE,
    .parse_args = NULL,
    .plugins = { &pred_plugin_node_ports },
    .own = NULL,
    .doc = "the pod's host ports are free on the node",
};
