/*
 * inter_pod_affinity.c: InterPodAffinity scoring as kube-scheduler v1.22
 * runs it for InterPodAffinityPriority (plugins/interpodaffinity/
 * scoring.go): the incoming pod's preferred (anti-)affinity and existing
 * pods' required and preferred terms add weights per topology domain; a
 * node scores the sum over its labels, min-max normalised to 0..100.
 */
#include <stdint.h>
#include <string.h>

#include "kube/model/labels.h"
#include "priorities/plugins.h"
#include "priorities/pod_affinity_terms.h"
#include "priorities/priorities.h"
#include "kube/cluster/topology_counts.h"

#define PRIO_NAME_INTER_POD_AFFINITY "InterPodAffinityPriority"

/* One incoming preferred term with its namespaces resolved once. */
struct in_term {
    const struct kube_pod_affinity_term *t;
    int32_t weight;      /* already signed: -w for anti-affinity */
    bool all_namespaces; /* namespaceSelector {} */
    size_t n_ns;
    const char **ns;
};

struct ipa_state {
    size_t n_terms;
    struct in_term *terms;
    bool all_pods;                /* incoming pod has preferred terms */
    int32_t hard_weight;          /* hardPodAffinityWeight */
    struct kube_labels ns_labels; /* incoming pod's namespace labels */
    struct topo_counts scores;    /* (topologyKey, value) -> weight sum */
    struct topo_keys keys;        /* distinct topology keys in scores */
};

static bool same(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

/*
 * Namespaces of an incoming term: its own namespace by default, else the
 * listed ones plus every Namespace its selector matches; {} selects all
 * (mergeAffinityTermNamespacesIfNotEmpty).
 */
static int resolve_term(struct prio_cycle *cy, struct in_term *it)
{
    const struct kube_pod_affinity_term *t = it->t;
    const struct kube_label_selector *nss =
        kpe_term_namespace_selector(t, cy->semantics);
    const struct kube_objects *o = cy->cluster->objs;
    size_t i;

    it->ns = arena_calloc(cy->arena, t->n_namespaces + o->n_namespaces + 1,
                          sizeof(*it->ns));
    if (!it->ns)
        return -1;
    if (!t->n_namespaces && !nss) {
        it->ns[it->n_ns++] = cy->pod->namespace;
        return 0;
    }
    for (i = 0; i < t->n_namespaces; i++)
        it->ns[it->n_ns++] = t->namespaces[i];
    if (!nss)
        return 0;
    if (!nss->n_reqs) {
        it->all_namespaces = true;
        return 0;
    }
    for (i = 0; i < o->n_namespaces; i++) {
        if (kube_label_selector_matches(nss, &o->namespaces[i]->labels))
            it->ns[it->n_ns++] = o->namespaces[i]->name;
    }
    return 0;
}

static bool in_term_matches(const struct in_term *it, const struct kube_pod *p)
{
    size_t i;

    if (!it->all_namespaces) {
        for (i = 0; i < it->n_ns; i++) {
            if (same(it->ns[i], p->namespace))
                break;
        }
        if (i == it->n_ns)
            return false;
    }
    return kube_label_selector_matches(it->t->selector, &p->labels);
}

static int add_at(struct prio_cycle *cy, struct ipa_state *s,
                  const struct kube_node *node, const char *key, int64_t v)
{
    const char *value = kube_labels_get(&node->labels, key);
    int64_t *cnt;

    if (!value)
        return 0;
    cnt = topo_counts_add(&s->scores, key, value, NULL);
    if (!cnt)
        return -1;
    *cnt += v;
    return topo_keys_add(&s->keys, cy->arena, key);
}

/* Incoming preferred terms against existing pod x on node. */
static int process_incoming_terms(struct prio_cycle *cy, struct ipa_state *s,
                                  const struct kube_pod *x,
                                  const struct kube_node *node)
{
    size_t i;

    for (i = 0; i < s->n_terms; i++) {
        if (in_term_matches(&s->terms[i], x) &&
            add_at(cy, s, node, s->terms[i].t->topology_key,
                   s->terms[i].weight) < 0)
            return -1;
    }
    return 0;
}

/*
 * Existing pods' own terms on node (the rest of processExistingPod): each
 * distinct term is matched against the incoming pod once per request,
 * its answer kept in match (0 unknown, 1 yes, 2 no) by term id.
 */
static int process_entries(struct prio_cycle *cy, struct ipa_state *s,
                           const struct node_info *ni, uint8_t *match)
{
    const struct term_index *x = &cy->cluster->terms;
    size_t i;

    for (i = 0; i < ni->n_aff_entries; i++) {
        const struct aff_entry *en = &ni->aff_entries[i];
        const struct term_index_term *t;
        int64_t w;

        switch (en->kind) {
        case AFF_ENTRY_REQUIRED:
            if (s->hard_weight <= 0)
                continue;
            w = s->hard_weight;
            break;
        case AFF_ENTRY_PREFERRED:
            w = en->weight;
            break;
        case AFF_ENTRY_PREFERRED_ANTI:
            w = -(int64_t)en->weight;
            break;
        default:
            continue; /* required anti-affinity: the filter's */
        }
        t = term_index_get(x, en->term);
        if (!match[en->term])
            match[en->term] =
                prio_term_matches_incoming(&s->ns_labels, t->owner_ns, t->term,
                                           cy->pod, cy->semantics)
                    ? 1
                    : 2;
        if (match[en->term] == 1 &&
            add_at(cy, s, ni->node, t->term->topology_key, w) < 0)
            return -1;
    }
    return 0;
}

static int init_terms(struct prio_cycle *cy, struct ipa_state *s)
{
    const struct kube_pod_affinity *lists[2] = {
        &cy->pod->affinity.pod_affinity, &cy->pod->affinity.pod_anti_affinity
    };
    size_t l, i;

    s->terms = arena_calloc(cy->arena,
                            lists[0]->n_preferred + lists[1]->n_preferred + 1,
                            sizeof(*s->terms));
    if (!s->terms)
        return -1;
    for (l = 0; l < 2; l++) {
        for (i = 0; i < lists[l]->n_preferred; i++) {
            struct in_term *it = &s->terms[s->n_terms++];

            it->t = &lists[l]->preferred[i].term;
            it->weight = l ? -lists[l]->preferred[i].weight
                           : lists[l]->preferred[i].weight;
            if (resolve_term(cy, it) < 0)
                return -1;
        }
    }
    s->all_pods = s->n_terms > 0;
    return 0;
}

int prio_inter_pod_affinity_prescore(struct prio_cycle *cy, const void *args,
                                     void **state, struct err *e)
{
    const struct prio_args *pa = args;
    const struct cluster *c = cy->cluster;
    const struct kube_namespace *ns;
    struct ipa_state *s = arena_calloc(cy->arena, 1, sizeof(*s));
    const char *why = prio_pod_affinity_parse_error(cy->pod);
    uint8_t *match;
    size_t i, j;

    if (!s)
        return err_set(e, "InterPodAffinity: out of memory");
    *state = s;
    if (why)
        return err_set(e, "InterPodAffinity: failed to parse pod: %s", why);
    s->hard_weight = pa && pa->value
                         ? ((const struct prio_inter_pod_arg *)pa->value)
                               ->hard_pod_affinity_weight
                         : 1;
    ns = cluster_namespace(c, cy->pod->namespace);
    if (ns)
        s->ns_labels = ns->labels;
    if (init_terms(cy, s) < 0 ||
        topo_counts_init_hint(&s->scores, cy->arena, 64))
        return err_set(e, "InterPodAffinity: out of memory");
    match = arena_calloc(cy->arena, c->terms.n_ids + 1, sizeof(*match));
    if (!match)
        return err_set(e, "InterPodAffinity: out of memory");
    for (i = 0; i < c->n_nodes; i++) {
        const struct node_info *ni = &c->nodes[i];

        if (!s->all_pods && !ni->n_aff_entries)
            continue;
        if (!ni->node->labels.n)
            continue; /* no topology value to add anything at */
        /* v1.22 matches the incoming pod's preferred terms against every
         * pod; existing pods' terms come from the node's entries. */
        for (j = 0; s->all_pods && j < ni->n_pods; j++) {
            if (process_incoming_terms(cy, s, ni->pods[j], ni->node) < 0)
                return err_set(e, "InterPodAffinity: out of memory");
        }
        if (process_entries(cy, s, ni, match) < 0)
            return err_set(e, "InterPodAffinity: out of memory");
    }
    return 0;
}

int prio_inter_pod_affinity_score(const struct prio_cycle *cy, const void *args,
                                  const void *state, const struct node_info *ni,
                                  int64_t *score, struct err *e)
{
    const struct ipa_state *s = state;
    size_t k;

    (void)cy;
    (void)args;
    (void)e;
    *score = 0;
    for (k = 0; k < s->keys.n; k++) {
        const char *v = kube_labels_get(&ni->node->labels, s->keys.keys[k]);
        const int64_t *w;

        if (!v)
            continue;
        w = topo_counts_find(&s->scores, s->keys.keys[k], v);
        if (w)
            *score += *w;
    }
    return 0;
}

int prio_inter_pod_affinity_normalize(const struct prio_cycle *cy,
                                      const void *args, const void *state,
                                      int64_t *scores, struct err *e)
{
    const struct ipa_state *s = state;
    int64_t min = INT64_MAX, max = INT64_MIN, diff;
    size_t i;

    (void)args;
    (void)e;
    if (!s->scores.n)
        return 0;
    /* v1.20.2 starts both at 0, so 0 is always in the range; #98096
     * (CHANGELOG-1.21 v1.21.0) starts them at the extremes (D7) */
    if (cy->semantics < KPE_SEM_1_21)
        min = max = 0;
    for (i = 0; i < cy->n_nodes; i++) {
        if (scores[i] > max)
            max = scores[i];
        if (scores[i] < min)
            min = scores[i];
    }
    diff = max - min;
    for (i = 0; i < cy->n_nodes; i++) {
        double f = 0.0;

        if (diff > 0)
            f = (double)PRIO_MAX_NODE_SCORE *
                ((double)(scores[i] - min) / (double)diff);
        scores[i] = (int64_t)f;
    }
    return 0;
}

const struct prio_plugin prio_plugin_inter_pod_affinity = {
    { "InterPodAffinity", KPE_EP_PRESCORE | KPE_EP_SCORE },
    prio_inter_pod_affinity_prescore,
    prio_inter_pod_affinity_score,
    prio_inter_pod_affinity_normalize,
};

/* For list: the weight InterPodAffinity takes from the Policy's top level. */
static const struct kpe_arg_field hard_weight_fields[] = {
    { .name = "hardPodAffinitySymmetricWeight",
      .type = KPE_ARG_INT32,
      .type_doc = "int32 0..100",
      .def = "1" },
};

static const struct kpe_arg_schema hard_weight_values = {
    .key = "hardPodAffinitySymmetricWeight",
    .fields = KPE_ARG_FIELDS(hard_weight_fields),
    .note = "set by the Policy's top-level hardPodAffinitySymmetricWeight",
    .not_in_policy = true,
};

/* The typed arguments, as check shows them. */
static const struct kpe_arg_field inter_pod_resolved_fields[] = {
    { .name = "hardPodAffinityWeight",
      .type = KPE_ARG_INT32,
      .offset = offsetof(struct prio_inter_pod_arg, hard_pod_affinity_weight) },
};

static const struct kpe_arg_schema inter_pod_resolved = {
    .key = "interPodAffinity",
    .fields = KPE_ARG_FIELDS(inter_pod_resolved_fields),
};

/* The weight the Policy's top level gives (hardPodAffinitySymmetricWeight). */
static int finish(struct prio_args *out, const struct prio_policy_facts *f,
                  struct arena *a, struct err *e)
{
    struct prio_inter_pod_arg *v = arena_calloc(a, 1, sizeof(*v));

    if (!v)
        return err_set(e, "out of memory");
    v->hard_pod_affinity_weight = f->hard_pod_affinity_weight;
    out->value = v;
    return 0;
}

const struct prio_def prio_inter_pod_affinity_priority = {
    .name = PRIO_NAME_INTER_POD_AFFINITY,
    .aliases = NULL,
    .flags = PRIO_DEFAULT,
    .default_weight = 1,
    .needs = KPE_NEED_ALL_PODS | KPE_NEED_NAMESPACES,
    .values = &hard_weight_values,
    .resolved = &inter_pod_resolved,
    .parse_args = NULL,
    .finish = finish,
    .plugins = { &prio_plugin_inter_pod_affinity },
    .own = NULL,
    .gate_off = NULL,
    .doc = "favours nodes by preferred pod (anti-)affinity, both ways",
};
