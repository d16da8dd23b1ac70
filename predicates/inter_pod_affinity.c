/*
 * inter_pod_affinity.c: MatchInterPodAffinity, the filter half of v1.22's
 * InterPodAffinity plugin (plugins/interpodaffinity filtering.go): the
 * pod's required affinity and anti-affinity, and the required
 * anti-affinity of pods already running, by topology domain. Terms are
 * scoped and matched in inter_pod_affinity_terms.c.
 */
#include "predicates/inter_pod_affinity.h"

#include <string.h>

#include "kube/model/labels.h"
#include "predicates/plugins.h"
#include "kube/cluster/topology_counts.h"
#include "predicates/predicates.h"

#define PRED_NAME_MATCH_INTER_POD_AFFINITY "MatchInterPodAffinity"

#define NO_STATE                                                               \
    "error reading \"PreFilterInterPodAffinity\" from cycleState: not found"

struct ipa_state {
    size_t n_affinity;
    struct pred_ipa_term *affinity;
    size_t n_anti;
    struct pred_ipa_term *anti;
    bool self_matches; /* the pod matches all its own affinity terms */
    struct topo_counts existing_anti;   /* E */
    struct topo_keys existing_keys;     /* E's distinct topology keys */
    struct topo_counts affinity_counts; /* A */
    struct topo_counts anti_counts;     /* N */
};

/* +1 at (key, node's value) when the node has the key. */
static int bump(struct topo_counts *m, const struct kube_node *node,
                const char *key)
{
    const char *v = kube_labels_get(&node->labels, key);
    int64_t *count;

    if (!v)
        return 0;
    count = topo_counts_add(m, key, v, NULL);
    if (!count)
        return -1;
    (*count)++;
    return 0;
}

/* +1 in E at the node's value of key, and key among E's keys. */
static int bump_existing(struct arena *a, struct ipa_state *s,
                         const struct kube_node *node, const char *key)
{
    if (topo_keys_add(&s->existing_keys, a, key) < 0)
        return -1;
    return bump(&s->existing_anti, node, key);
}

/* E on one node, from its pods (a view's node with pods added). */
static int count_pods_anti(const struct pred_cycle *cy, struct ipa_state *s,
                           const struct node_info *ni,
                           const struct kube_labels *ns_labels)
{
    size_t j, k;

    /* Only pods with affinity terms can carry anti-affinity ones. */
    for (j = 0; j < ni->n_affinity_pods; j++) {
        const struct kube_pod *x = ni->affinity_pods[j];
        const struct kube_pod_affinity *anti = &x->affinity.pod_anti_affinity;

        if (!pred_ipa_terms_valid(anti->required, anti->n_required))
            continue;
        for (k = 0; k < anti->n_required; k++)
            if (pred_ipa_existing_term_matches(x->namespace, &anti->required[k],
                                               cy->pod, ns_labels,
                                               cy->semantics) &&
                bump_existing(cy->arena, s, ni->node,
                              anti->required[k].topology_key) < 0)
                return -1;
    }
    return 0;
}

/*
 * E on one node, from its interned entries: each distinct term is matched
 * against the pod once per cycle, its answer kept in match (0 unknown,
 * 1 yes, 2 no) by term id. Replicas share terms, so this skips reading
 * thousands of pods.
 */
static int count_entries_anti(const struct pred_cycle *cy, struct ipa_state *s,
                              const struct node_info *ni,
                              const struct kube_labels *ns_labels,
                              uint8_t *match)
{
    const struct term_index *x = &cy->cluster->terms;
    size_t j;

    for (j = 0; j < ni->n_aff_entries; j++) {
        const struct aff_entry *en = &ni->aff_entries[j];
        const struct term_index_term *t;

        if (en->kind != AFF_ENTRY_REQUIRED_ANTI)
            continue;
        t = term_index_get(x, en->term);
        if (!match[en->term])
            match[en->term] =
                pred_ipa_existing_term_matches(t->owner_ns, t->term, cy->pod,
                                               ns_labels, cy->semantics)
                    ? 1
                    : 2;
        if (match[en->term] == 1 &&
            bump_existing(cy->arena, s, ni->node, t->term->topology_key) < 0)
            return -1;
    }
    return 0;
}

/* E: existing pods' required anti-affinity terms matching the pod. */
static int count_existing_anti(const struct pred_cycle *cy, struct ipa_state *s)
{
    const struct cluster *c = cy->cluster;
    const struct kube_namespace *ns = cluster_namespace(c, cy->pod->namespace);
    const struct kube_labels *ns_labels = ns ? &ns->labels : NULL;
    uint8_t *match;
    size_t i;

    /* None anywhere: nothing to walk (a preemption filters hundreds of
     * nodes several times each, each time from the PreFilter). */
    if (!c->n_anti_affinity_pods)
        return 0;
    match = arena_calloc(cy->arena, c->terms.n_ids + 1, 1);
    if (!match)
        return -1;
    for (i = 0; i < c->n_nodes; i++) {
        const struct node_info *ni = &c->nodes[i];

        if (!ni->n_anti_affinity_pods)
            continue;
        if ((ni->entries_partial
                 ? count_pods_anti(cy, s, ni, ns_labels)
                 : count_entries_anti(cy, s, ni, ns_labels, match)) < 0)
            return -1;
    }
    return 0;
}

/* A and N: existing pods matched by the pod's own terms. */
static int count_incoming(const struct cluster *c, struct ipa_state *s)
{
    size_t i, j, k;

    if (!s->n_affinity && !s->n_anti)
        return 0;
    for (i = 0; i < c->n_nodes; i++) {
        const struct node_info *ni = &c->nodes[i];

        for (j = 0; j < ni->n_pods; j++) {
            const struct kube_pod *x = ni->pods[j];

            if (pred_ipa_terms_match_all(s->affinity, s->n_affinity, x))
                for (k = 0; k < s->n_affinity; k++)
                    if (bump(&s->affinity_counts, ni->node,
                             s->affinity[k].topology_key) < 0)
                        return -1;
            for (k = 0; k < s->n_anti; k++)
                if (pred_ipa_term_matches(&s->anti[k], x) &&
                    bump(&s->anti_counts, ni->node, s->anti[k].topology_key) <
                        0)
                    return -1;
        }
    }
    return 0;
}

enum pred_code pred_inter_pod_affinity_prefilter(struct pred_cycle *cy,
                                                 const void *args, void **state,
                                                 struct pred_result *r)
{
    const struct kube_pod *pod = cy->pod;
    const struct kube_pod_affinity *aff = &pod->affinity.pod_affinity;
    const struct kube_pod_affinity *anti = &pod->affinity.pod_anti_affinity;
    const char *why = pred_ipa_parse_error(cy->arena, pod);
    struct ipa_state *s;

    (void)args;
    if (why)
        return pred_failf(r, PRED_UNFIT_UNRESOLVABLE, "parsing pod: %s", why);
    s = arena_calloc(cy->arena, 1, sizeof(*s));
    if (!s)
        return pred_fail(r, PRED_ERROR, "out of memory");
    topo_counts_init(&s->existing_anti, cy->arena);
    topo_counts_init(&s->affinity_counts, cy->arena);
    topo_counts_init(&s->anti_counts, cy->arena);
    s->n_affinity = aff->n_required;
    s->n_anti = anti->n_required;
    if (pred_ipa_terms_build(cy->arena, cy->cluster, pod, aff->required,
                             aff->n_required, cy->semantics,
                             &s->affinity) < 0 ||
        pred_ipa_terms_build(cy->arena, cy->cluster, pod, anti->required,
                             anti->n_required, cy->semantics, &s->anti) < 0 ||
        count_existing_anti(cy, s) < 0 || count_incoming(cy->cluster, s) < 0)
        return pred_fail(r, PRED_ERROR, "out of memory");
    s->self_matches = pred_ipa_terms_match_all(s->affinity, s->n_affinity, pod);
    *state = s;
    return PRED_FIT;
}

/* satisfyPodAffinity, with the "first pod of a group" exception. */
static bool affinity_ok(const struct ipa_state *s, const struct kube_node *n)
{
    bool pods_exist = true;
    size_t i;

    for (i = 0; i < s->n_affinity; i++) {
        const char *key = s->affinity[i].topology_key;
        const char *v = kube_labels_get(&n->labels, key);

        if (!v)
            return false;
        if (topo_counts_get(&s->affinity_counts, key, v) <= 0)
            pods_exist = false;
    }
    return pods_exist || (!s->affinity_counts.n && s->self_matches);
}

static bool anti_affinity_ok(const struct ipa_state *s,
                             const struct kube_node *n)
{
    size_t i;

    for (i = 0; i < s->n_anti; i++) {
        const char *key = s->anti[i].topology_key;
        const char *v = kube_labels_get(&n->labels, key);

        if (v && topo_counts_get(&s->anti_counts, key, v) > 0)
            return false;
    }
    return true;
}

/* No (key, value) of the node's labels counted in E: looked up by E's
 * few distinct keys rather than by each of the node's labels. */
static bool existing_anti_affinity_ok(const struct ipa_state *s,
                                      const struct kube_node *n)
{
    size_t i;

    for (i = 0; s->existing_anti.n && i < s->existing_keys.n; i++) {
        const char *key = s->existing_keys.keys[i];
        const char *v = kube_labels_get(&n->labels, key);

        if (v && topo_counts_get(&s->existing_anti, key, v) > 0)
            return false;
    }
    return true;
}

enum pred_code pred_inter_pod_affinity_filter(const struct pred_cycle *cy,
                                              const void *args,
                                              const void *state,
                                              const struct node_info *ni,
                                              struct pred_result *r)
{
    const struct ipa_state *s = state;
    /*
     * v1.20.2's ErrReasonAffinityNotMatch has no " rules"; the PR that
     * added it is not identified and v1.21 is kept on the old text
     * (docs/VERSION-SEMANTICS.md D8, Q3).
     */
    const char *generic =
        cy->semantics < KPE_SEM_1_22
            ? "node(s) didn't match pod affinity/anti-affinity"
            : PRED_REASON_AFFINITY_NOT_MATCH;

    (void)args;
    if (!s)
        return pred_fail(r, PRED_ERROR, NO_STATE);
    if (!affinity_ok(s, ni->node)) {
        pred_fail(r, PRED_UNFIT_UNRESOLVABLE, generic);
        return pred_fail(r, PRED_UNFIT_UNRESOLVABLE,
                         PRED_REASON_AFFINITY_RULES);
    }
    if (!anti_affinity_ok(s, ni->node)) {
        pred_fail(r, PRED_UNFIT, generic);
        return pred_fail(r, PRED_UNFIT, PRED_REASON_ANTI_AFFINITY_RULES);
    }
    if (!existing_anti_affinity_ok(s, ni->node)) {
        pred_fail(r, PRED_UNFIT, generic);
        return pred_fail(r, PRED_UNFIT, PRED_REASON_EXISTING_ANTI_AFFINITY);
    }
    return PRED_FIT;
}

/* ---- read-only view (inter_pod_affinity.h) ---- */

static const struct topo_counts *counts_of(const void *state,
                                           enum pred_ipa_counts which)
{
    const struct ipa_state *s = state;

    if (!s)
        return NULL;
    switch (which) {
    case PRED_IPA_EXISTING_ANTI:
        return &s->existing_anti;
    case PRED_IPA_AFFINITY:
        return &s->affinity_counts;
    case PRED_IPA_ANTI_AFFINITY:
        return &s->anti_counts;
    }
    return NULL;
}

size_t pred_ipa_state_pairs(const void *state, enum pred_ipa_counts which)
{
    const struct topo_counts *m = counts_of(state, which);

    return m ? m->n : 0;
}

int64_t pred_ipa_state_count(const void *state, enum pred_ipa_counts which,
                             const char *key, const char *value)
{
    const struct topo_counts *m = counts_of(state, which);

    return m ? topo_counts_get(m, key, value) : 0;
}

const struct pred_plugin pred_plugin_inter_pod_affinity = {
    { "InterPodAffinity", KPE_EP_PREFILTER | KPE_EP_FILTER },
    pred_inter_pod_affinity_prefilter,
    pred_inter_pod_affinity_filter,
    (const char *const[]){ PRED_REASON_AFFINITY_NOT_MATCH,
                           PRED_REASON_AFFINITY_RULES,
                           PRED_REASON_ANTI_AFFINITY_RULES,
                           PRED_REASON_EXISTING_ANTI_AFFINITY, NULL },
    PRED_STABLE_NO_POD_TERMS,
};

const struct pred_def pred_match_inter_pod_affinity = {
    .name = PRED_NAME_MATCH_INTER_POD_AFFINITY,
    .aliases = NULL,
    .flags = PRED_DEFAULT,
    .needs = KPE_NEED_ALL_PODS | KPE_NEED_NAMESPACES,
    .parse_args = NULL,
    .plugins = { &pred_plugin_inter_pod_affinity },
    .own = NULL,
    .doc = "the node satisfies the pod's required pod (anti-)affinity and "
           "existing pods' anti-affinity",
};
