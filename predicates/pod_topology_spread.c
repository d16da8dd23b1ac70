/*
 * pod_topology_spread.c: EvenPodsSpread, the filter half of v1.22's
 * PodTopologySpread plugin (plugins/podtopologyspread filtering.go,
 * common.go): a pod's DoNotSchedule constraints bound the skew of matching
 * pods between topology domains.
 */
#include "predicates/pod_topology_spread.h"

#include <string.h>

#include "kube/model/labels.h"
#include "predicates/plugins.h"
#include "kube/cluster/topology_counts.h"
#include "predicates/predicates.h"

#define PRED_NAME_EVEN_PODS_SPREAD "EvenPodsSpread"

#define NO_STATE                                                               \
    "reading \"PreFilterPodTopologySpread\" from cycleState: not found"

struct constraint {
    int32_t max_skew;
    const char *key;
    const struct kube_label_selector *selector; /* NULL: matches nothing */
    size_t key_index;                           /* into state.keys/min */
};

struct spread_state {
    size_t n;
    struct constraint *c;
    size_t n_keys;
    const char **keys; /* distinct topology keys, constraint order */
    int64_t *min;      /* minMatch per key */
    struct topo_counts counts;
};

/* The pod's hard constraints (filterTopologySpreadConstraints). */
static enum pred_code collect(struct pred_cycle *cy, struct spread_state *s,
                              struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;
    size_t i, k;

    s->c =
        arena_calloc(cy->arena, pod->n_spread_constraints + 1, sizeof(*s->c));
    s->keys = arena_calloc(cy->arena, pod->n_spread_constraints + 1,
                           sizeof(*s->keys));
    if (!s->c || !s->keys)
        return pred_fail(r, PRED_ERROR, "out of memory");
    for (i = 0; i < pod->n_spread_constraints; i++) {
        const struct kube_topology_spread_constraint *in =
            &pod->spread_constraints[i];
        struct constraint *c = &s->c[s->n];

        if (!in->when_unsatisfiable ||
            strcmp(in->when_unsatisfiable, "DoNotSchedule"))
            continue;
        if (in->selector && in->selector->invalid)
            return pred_failf(r, PRED_ERROR,
                              "obtaining pod's hard topology spread "
                              "constraints: %s",
                              in->selector->invalid);
        c->max_skew = in->max_skew;
        c->key = in->topology_key ? in->topology_key : "";
        c->selector = in->selector;
        for (k = 0; k < s->n_keys && strcmp(s->keys[k], c->key); k++)
            ;
        if (k == s->n_keys)
            s->keys[s->n_keys++] = c->key;
        c->key_index = k;
        s->n++;
    }
    return PRED_FIT;
}

/* nodeSelector and required node affinity (parse errors: no match). */
static bool node_matches_pod(const struct kube_pod *pod,
                             const struct kube_node *node)
{
    if (!kube_labels_contain(&node->labels, &pod->node_selector))
        return false;
    return !pod->affinity.node_required ||
           kube_node_selector_matches(pod->affinity.node_required,
                                      &node->labels, node->name);
}

/* Pods on ni in ns, not terminating, that sel matches. */
static int64_t count_matching(const struct node_info *ni, const char *ns,
                              const struct kube_label_selector *sel)
{
    int64_t n = 0;
    size_t i;

    for (i = 0; i < ni->n_pods; i++) {
        const struct kube_pod *p = ni->pods[i];

        if (!p->deleting && !strcmp(p->namespace, ns) &&
            kube_label_selector_matches(sel, &p->labels))
            n++;
    }
    return n;
}

/* Step 1: register (key, value) of every eligible node with count 0. */
static int register_domains(const struct cluster *c, const struct kube_pod *pod,
                            struct spread_state *s)
{
    size_t i, j;

    for (i = 0; i < c->n_nodes; i++) {
        const struct kube_node *node = c->nodes[i].node;

        if (!node_matches_pod(pod, node))
            continue;
        for (j = 0; j < s->n; j++)
            if (!kube_labels_get(&node->labels, s->c[j].key))
                break;
        if (j < s->n)
            continue;
        for (j = 0; j < s->n; j++) {
            const char *v = kube_labels_get(&node->labels, s->c[j].key);

            if (!topo_counts_add(&s->counts, s->c[j].key, v, NULL))
                return -1;
        }
    }
    return 0;
}

/*
 * Step 2: count over every node, eligible or not, whose value for the
 * constraint's key is registered (a missing label reads as ""), as v1.22
 * does. Step 3: each key's minimum over its registered pairs.
 */
static void count_domains(const struct cluster *c, const struct kube_pod *pod,
                          struct spread_state *s)
{
    size_t i, j;

    for (i = 0; i < c->n_nodes; i++) {
        const struct node_info *ni = &c->nodes[i];

        for (j = 0; j < s->n; j++) {
            const char *v = kube_labels_get(&ni->node->labels, s->c[j].key);
            int64_t *count =
                topo_counts_find(&s->counts, s->c[j].key, v ? v : "");

            if (count)
                *count += count_matching(ni, pod->namespace, s->c[j].selector);
        }
    }
    for (j = 0; j < s->n_keys; j++)
        s->min[j] = INT32_MAX;
    for (i = 0; i < s->counts.cap; i++) {
        const struct topo_counts_slot *slot = &s->counts.slots[i];

        for (j = 0; slot->key && j < s->n_keys; j++)
            if (!strcmp(s->keys[j], slot->key) && slot->count < s->min[j])
                s->min[j] = slot->count;
    }
}

enum pred_code pred_pod_topology_spread_prefilter(struct pred_cycle *cy,
                                                  const void *args,
                                                  void **state,
                                                  struct pred_result *r)
{
    struct spread_state *s = arena_calloc(cy->arena, 1, sizeof(*s));
    enum pred_code code;

    (void)args; /* Policy args never carry DoNotSchedule defaults */
    if (!s)
        return pred_fail(r, PRED_ERROR, "out of memory");
    topo_counts_init(&s->counts, cy->arena);
    code = collect(cy, s, r);
    if (code != PRED_FIT)
        return code;
    *state = s;
    if (!s->n)
        return PRED_FIT;
    s->min = arena_calloc(cy->arena, s->n_keys, sizeof(*s->min));
    if (!s->min || register_domains(cy->cluster, cy->pod, s) < 0)
        return pred_fail(r, PRED_ERROR, "out of memory");
    count_domains(cy->cluster, cy->pod, s);
    return PRED_FIT;
}

enum pred_code pred_pod_topology_spread_filter(const struct pred_cycle *cy,
                                               const void *args,
                                               const void *state,
                                               const struct node_info *ni,
                                               struct pred_result *r)
{
    const struct spread_state *s = state;
    size_t i;

    (void)args;
    if (!s)
        return pred_fail(r, PRED_ERROR, NO_STATE);
    for (i = 0; i < s->n; i++) {
        const struct constraint *c = &s->c[i];
        const char *v = kube_labels_get(&ni->node->labels, c->key);
        int64_t self, skew;

        if (!v)
            return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                             PRED_REASON_SPREAD_LABEL);
        self = kube_label_selector_matches(c->selector, &cy->pod->labels);
        skew = topo_counts_get(&s->counts, c->key, v) + self -
               s->min[c->key_index];
        if (skew > c->max_skew)
            return pred_fail(r, PRED_UNFIT, PRED_REASON_SPREAD);
    }
    return PRED_FIT;
}

/* ---- read-only view (pod_topology_spread.h) ---- */

size_t pred_spread_state_constraints(const void *state)
{
    return state ? ((const struct spread_state *)state)->n : 0;
}

size_t pred_spread_state_pairs(const void *state)
{
    return state ? ((const struct spread_state *)state)->counts.n : 0;
}

bool pred_spread_state_count(const void *state, const char *key,
                             const char *value, int64_t *count)
{
    const struct spread_state *s = state;
    const int64_t *c = s ? topo_counts_find(&s->counts, key, value) : NULL;

    if (c)
        *count = *c;
    return c != NULL;
}

int64_t pred_spread_state_min(const void *state, const char *key)
{
    const struct spread_state *s = state;
    size_t i;

    for (i = 0; s && i < s->n_keys; i++)
        if (!strcmp(s->keys[i], key))
            return s->min[i];
    return -1;
}

const struct pred_plugin pred_plugin_pod_topology_spread = {
    { "PodTopologySpread", KPE_EP_PREFILTER | KPE_EP_FILTER },
    pred_pod_topology_spread_prefilter,
    pred_pod_topology_spread_filter,
    (const char *const[]){ PRED_REASON_SPREAD, PRED_REASON_SPREAD_LABEL, NULL },
    PRED_STABLE_NO_SPREAD,
};

const struct pred_def pred_even_pods_spread = {
    .name = PRED_NAME_EVEN_PODS_SPREAD,
    .aliases = NULL,
    .flags = PRED_DEFAULT,
    .needs = KPE_NEED_ALL_PODS,
    .parse_args = NULL,
    .plugins = { &pred_plugin_pod_topology_spread },
    .own = NULL,
    .doc = "the node keeps the pod's hard topology spread constraints within "
           "maxSkew",
};
