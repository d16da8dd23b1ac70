/*
 * pod_topology_spread.c: PodTopologySpread scoring as kube-scheduler v1.22
 * runs it (plugins/podtopologyspread/scoring.go), serving
 * EvenPodsSpreadPriority and, with the DefaultPodTopologySpread gate on,
 * SelectorSpreadPriority / ServiceSpreadingPriority (system defaults).
 */
#include "priorities/pod_topology_spread.h"

#include <math.h>
#include <string.h>

#include "kube/model/labels.h"
#include "priorities/default_spread_selector.h"
#include "priorities/plugins.h"
#include "priorities/priorities.h"

#define PRIO_NAME_EVEN_PODS_SPREAD "EvenPodsSpreadPriority"

/* v1.22 systemDefaultConstraints, all ScheduleAnyway. */
static const struct {
    const char *key;
    int32_t max_skew;
} system_defaults[] = {
    { PRIO_LABEL_HOSTNAME, 3 },
    { PRIO_LABEL_ZONE, 5 },
};

static bool system_defaulted(const void *args)
{
    const struct prio_args *pa = args;

    const struct prio_spread_arg *v = pa ? pa->value : NULL;

    /* No args: the v1.22 plugin default, defaultingType System. */
    return !v || v->defaulting == PRIO_SPREAD_SYSTEM;
}

/* The pod's ScheduleAnyway constraints, or the defaults when it has none. */
static int build_constraints(struct prio_cycle *cy, bool system,
                             struct prio_spread_state *s, struct err *e)
{
    const struct kube_pod *pod = cy->pod;
    struct kube_label_selector *dflt;
    size_t i;

    s->c =
        arena_calloc(cy->arena, pod->n_spread_constraints + 2, sizeof(*s->c));
    if (!s->c)
        return err_set(e, "PodTopologySpread: out of memory");
    for (i = 0; i < pod->n_spread_constraints; i++) {
        const struct kube_topology_spread_constraint *t =
            &pod->spread_constraints[i];

        if (strcmp(t->when_unsatisfiable ? t->when_unsatisfiable : "",
                   "ScheduleAnyway"))
            continue;
        if (t->selector && t->selector->invalid)
            return err_set(e,
                           "PodTopologySpread: obtaining pod's soft topology "
                           "spread constraints: %s",
                           t->selector->invalid);
        s->c[s->n].max_skew = t->max_skew;
        s->c[s->n].key = t->topology_key ? t->topology_key : "";
        s->c[s->n++].selector = t->selector;
    }
    if (pod->n_spread_constraints || !system)
        return 0;
    dflt = arena_calloc(cy->arena, 1, sizeof(*dflt));
    if (!dflt ||
        prio_default_spread_selector(cy->cluster, pod, cy->arena, dflt) < 0)
        return err_set(e, "PodTopologySpread: out of memory");
    if (!dflt->n_reqs)
        return 0; /* no service or controller selects the pod: neutral */
    for (i = 0; i < 2; i++) {
        s->c[s->n].max_skew = system_defaults[i].max_skew;
        s->c[s->n].key = system_defaults[i].key;
        s->c[s->n++].selector = dflt;
    }
    return 0;
}

static bool has_all_keys(const struct prio_spread_state *s,
                         const struct kube_labels *l)
{
    size_t i;

    for (i = 0; i < s->n; i++) {
        if (!kube_labels_get(l, s->c[i].key))
            return false;
    }
    return true;
}

static const char *label_or_empty(const struct kube_labels *l, const char *k)
{
    const char *v = kube_labels_get(l, k);

    return v ? v : "";
}

/*
 * initPreScoreState over F: ignored nodes, the (key, value) pairs of the
 * scored domains (shared between constraints with the same key, as the
 * v1.22 pair map is) and the topology weights.
 */
static int init_domains(struct prio_cycle *cy, struct prio_spread_state *s,
                        struct err *e)
{
    size_t i, j;

    s->ignored = arena_calloc(cy->arena, cy->cluster->n_nodes + 1, 1);
    if (!s->ignored || topo_counts_init_hint(&s->pairs, cy->arena, 64) < 0)
        return err_set(e, "PodTopologySpread: out of memory");
    for (i = 0; i < cy->n_nodes; i++) {
        const struct kube_labels *l = &cy->nodes[i]->node->labels;

        if (s->require_all && !has_all_keys(s, l)) {
            if (!s->ignored[cy->nodes[i]->index])
                s->n_ignored++;
            s->ignored[cy->nodes[i]->index] = 1;
            continue;
        }
        for (j = 0; j < s->n; j++) {
            bool created;

            if (s->c[j].hostname)
                continue;
            if (!topo_counts_add(&s->pairs, s->c[j].key,
                                 label_or_empty(l, s->c[j].key), &created))
                return err_set(e, "PodTopologySpread: out of memory");
            s->c[j].size += created;
        }
    }
    for (j = 0; j < s->n; j++) {
        if (s->c[j].hostname)
            s->c[j].size = cy->n_nodes - s->n_ignored;
        s->c[j].weight = log((double)(s->c[j].size + 2));
    }
    return 0;
}

/* Add every cluster node's matching pods to the registered pairs. */
static void count_pods(struct prio_cycle *cy, struct prio_spread_state *s)
{
    const struct cluster *c = cy->cluster;
    size_t i, j;

    for (i = 0; i < c->n_nodes; i++) {
        const struct node_info *ni = &c->nodes[i];
        const struct kube_labels *l = &ni->node->labels;

        if (!prio_pod_fits_node_affinity(cy->pod, ni->node) ||
            (s->require_all && !has_all_keys(s, l)))
            continue;
        for (j = 0; j < s->n; j++) {
            int64_t *cnt = topo_counts_find(&s->pairs, s->c[j].key,
                                            label_or_empty(l, s->c[j].key));

            if (cnt)
                *cnt += prio_count_matching_pods(ni, cy->pod->namespace,
                                                 s->c[j].selector);
        }
    }
}

int prio_pod_topology_spread_prescore(struct prio_cycle *cy, const void *args,
                                      void **state, struct err *e)
{
    bool system = system_defaulted(args);
    struct prio_spread_state *s = arena_calloc(cy->arena, 1, sizeof(*s));
    size_t j;

    if (!s)
        return err_set(e, "PodTopologySpread: out of memory");
    *state = s;
    /* Only the pod's own or non-system rules need every key on a node. */
    s->require_all = cy->pod->n_spread_constraints > 0 || !system;
    if (build_constraints(cy, system, s, e) < 0)
        return -1;
    for (j = 0; j < s->n; j++)
        s->c[j].hostname = !strcmp(s->c[j].key, PRIO_LABEL_HOSTNAME);
    if (!s->n)
        return 0;
    if (init_domains(cy, s, e) < 0)
        return -1;
    count_pods(cy, s);
    return 0;
}

int prio_pod_topology_spread_score(const struct prio_cycle *cy,
                                   const void *args, const void *state,
                                   const struct node_info *ni, int64_t *score,
                                   struct err *e)
{
    const struct prio_spread_state *s = state;
    const struct kube_labels *l = &ni->node->labels;
    double sum = 0.0;
    size_t j;

    (void)args;
    (void)e;
    *score = 0;
    if (!s->n || s->ignored[ni->index])
        return 0;
    for (j = 0; j < s->n; j++) {
        const char *v = kube_labels_get(l, s->c[j].key);
        int64_t cnt;

        if (!v)
            continue;
        if (s->c[j].hostname) {
            cnt = prio_count_matching_pods(ni, cy->pod->namespace,
                                           s->c[j].selector);
        } else {
            const int64_t *p = topo_counts_find(&s->pairs, s->c[j].key, v);

            cnt = p ? *p : 0;
        }
        /* scoreForCount, in Go's order; truncated as v1.22 does. */
        sum += (double)cnt * s->c[j].weight + (double)(s->c[j].max_skew - 1);
    }
    *score = (int64_t)sum;
    return 0;
}

int prio_pod_topology_spread_normalize(const struct prio_cycle *cy,
                                       const void *args, const void *state,
                                       int64_t *scores, struct err *e)
{
    const struct prio_spread_state *s = state;
    int64_t min = INT64_MAX, max = 0;
    size_t i;

    (void)args;
    (void)e;
    for (i = 0; i < cy->n_nodes; i++) {
        if (s->n && s->ignored[cy->nodes[i]->index])
            continue;
        if (scores[i] < min)
            min = scores[i];
        if (scores[i] > max)
            max = scores[i];
    }
    for (i = 0; i < cy->n_nodes; i++) {
        if (s->n && s->ignored[cy->nodes[i]->index])
            scores[i] = 0;
        else if (max == 0)
            scores[i] = PRIO_MAX_NODE_SCORE;
        else
            scores[i] = PRIO_MAX_NODE_SCORE * (max + min - scores[i]) / max;
    }
    return 0;
}

const struct prio_plugin prio_plugin_pod_topology_spread = {
    { "PodTopologySpread", KPE_EP_PRESCORE | KPE_EP_SCORE },
    prio_pod_topology_spread_prescore,
    prio_pod_topology_spread_score,
    prio_pod_topology_spread_normalize,
};

/* For list: the defaulting both spread priorities get. */
static const struct kpe_arg_field spread_defaulting_fields[] = {
    { .name = "defaultingType",
      .type = KPE_ARG_STRING,
      .type_doc = "System|List",
      .def = "System" },
};

const struct kpe_arg_schema prio_spread_defaulting_values = {
    .key = "spread defaulting",
    .fields = KPE_ARG_FIELDS(spread_defaulting_fields),
    .note = "not configurable in a Policy: System defaulting when "
            "SelectorSpreadPriority is listed, List (no default constraints) "
            "when EvenPodsSpreadPriority is alone",
    .not_in_policy = true,
};

/* The typed arguments both spread priorities get, as check shows them. */
static const struct kpe_arg_field spread_resolved_fields[] = {
    { .name = "defaultingType",
      .type = KPE_ARG_ENUM,
      .offset = offsetof(struct prio_spread_arg, defaulting),
      .enum_names = (const char *const[]){ "System", "List" } },
};

int prio_spread_finish(struct prio_args *out, const struct prio_policy_facts *f,
                       struct arena *a, struct err *e)
{
    static const struct prio_spread_arg system = { PRIO_SPREAD_SYSTEM };
    static const struct prio_spread_arg list = { PRIO_SPREAD_LIST };

    (void)a;
    (void)e;
    out->value = f->spread_system ? &system : &list;
    return 0;
}

const struct kpe_arg_schema prio_spread_resolved = {
    .key = "spread",
    .fields = KPE_ARG_FIELDS(spread_resolved_fields),
};

const struct prio_def prio_even_pods_spread_priority = {
    .name = PRIO_NAME_EVEN_PODS_SPREAD,
    .aliases = NULL,
    .flags = PRIO_DEFAULT,
    .default_weight = 2,
    .needs = KPE_NEED_ALL_PODS,
    .values = &prio_spread_defaulting_values,
    .resolved = &prio_spread_resolved,
    .parse_args = NULL,
    .finish = prio_spread_finish,
    .plugins = { &prio_plugin_pod_topology_spread },
    .own = NULL,
    .gate_off = NULL,
    .doc = "favours nodes that keep the pod's soft topology spread constraints "
           "even",
};
