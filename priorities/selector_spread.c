/*
 * selector_spread.c: the SelectorSpread score plugin of kube-scheduler
 * v1.22 (plugins/selectorspread/selector_spread.go), which serves
 * SelectorSpreadPriority only with the DefaultPodTopologySpread gate off:
 * fewer pods of the same services/controllers on a node and in its zone
 * score higher; the zone counts for 2/3 when nodes have zones.
 */
#include <string.h>

#include "kube/model/labels.h"
#include "priorities/default_spread_selector.h"
#include "priorities/plugins.h"
#include "kube/cluster/topology_counts.h"
#include "priorities/priorities.h"
#include "priorities/pod_topology_spread.h"

#define PRIO_NAME_SELECTOR_SPREAD   "SelectorSpreadPriority"
#define PRIO_NAME_SERVICE_SPREADING "ServiceSpreadingPriority"

struct selector_spread_state {
    bool skip; /* the pod has topologySpreadConstraints */
    struct kube_label_selector selector;
};

int prio_selector_spread_prescore(struct prio_cycle *cy, const void *args,
                                  void **state, struct err *e)
{
    struct selector_spread_state *s = arena_calloc(cy->arena, 1, sizeof(*s));

    (void)args;
    if (!s)
        return err_set(e, "SelectorSpread: out of memory");
    *state = s;
    s->skip = cy->pod->n_spread_constraints > 0;
    if (!s->skip && prio_default_spread_selector(cy->cluster, cy->pod,
                                                 cy->arena, &s->selector) < 0)
        return err_set(e, "SelectorSpread: out of memory");
    return 0;
}

int prio_selector_spread_score(const struct prio_cycle *cy, const void *args,
                               const void *state, const struct node_info *ni,
                               int64_t *score, struct err *e)
{
    const struct selector_spread_state *s = state;

    (void)args;
    (void)e;
    *score = 0;
    /* countMatchingPods: an empty selector matches nothing here. */
    if (s->skip || !s->selector.n_reqs)
        return 0;
    *score = prio_count_matching_pods(ni, cy->pod->namespace, &s->selector);
    return 0;
}

int prio_selector_spread_normalize(const struct prio_cycle *cy,
                                   const void *args, const void *state,
                                   int64_t *scores, struct err *e)
{
    const struct selector_spread_state *s = state;
    const double zone_weighting = 2.0 / 3.0;
    const double max_node_score = (double)PRIO_MAX_NODE_SCORE;
    struct topo_counts zones;
    int64_t max_node = 0, max_zone = 0;
    const char *region, *zone;
    size_t i;

    (void)args;
    if (s->skip)
        return 0;
    if (topo_counts_init_hint(&zones, cy->arena, 16) < 0)
        return err_set(e, "SelectorSpread: out of memory");
    for (i = 0; i < cy->n_nodes; i++) {
        int64_t *cnt;

        if (scores[i] > max_node)
            max_node = scores[i];
        if (!kube_node_zone_key(cy->nodes[i]->node, &region, &zone))
            continue;
        cnt = topo_counts_add(&zones, region, zone, NULL);
        if (!cnt)
            return err_set(e, "SelectorSpread: out of memory");
        *cnt += scores[i];
        if (*cnt > max_zone)
            max_zone = *cnt;
    }
    for (i = 0; i < cy->n_nodes; i++) {
        double f = max_node_score;

        if (max_node > 0)
            f = max_node_score *
                ((double)(max_node - scores[i]) / (double)max_node);
        if (zones.n && kube_node_zone_key(cy->nodes[i]->node, &region, &zone)) {
            double zs = max_node_score;

            if (max_zone > 0)
                zs = max_node_score *
                     ((double)(max_zone -
                               *topo_counts_find(&zones, region, zone)) /
                      (double)max_zone);
            f = (f * (1.0 - zone_weighting)) + (zone_weighting * zs);
        }
        scores[i] = (int64_t)f;
    }
    return 0;
}

const struct prio_plugin prio_plugin_selector_spread = {
    { "SelectorSpread", KPE_EP_PRESCORE | KPE_EP_SCORE },
    prio_selector_spread_prescore,
    prio_selector_spread_score,
    prio_selector_spread_normalize,
};

const struct prio_def prio_selector_spread_priority = {
    .name = PRIO_NAME_SELECTOR_SPREAD,
    .aliases = (const char *const[]){ PRIO_NAME_SERVICE_SPREADING, NULL },
    .flags = PRIO_DEFAULT,
    .default_weight = 1,
    .needs = PRIO_NEED_SPREAD,
    .values = &prio_spread_defaulting_values,
    .resolved = &prio_spread_resolved,
    .parse_args = NULL,
    .finish = prio_spread_finish,
    .plugins = { &prio_plugin_pod_topology_spread },
    .own = NULL,
    .gate_off = &prio_plugin_selector_spread,
    .doc = "spreads the pods of a service or controller over nodes and zones",
};
