/*
 * inter_pod_affinity_terms.c: pod affinity term conversion, namespace
 * scoping and matching for InterPodAffinity (v1.22 framework/types.go
 * newAffinityTerm and AffinityTerm.Matches; interpodaffinity plugin.go
 * mergeAffinityTermNamespacesIfNotEmpty).
 */
#include "predicates/inter_pod_affinity.h"

#include <stdlib.h>
#include <string.h>

#include "kube/model/labels.h"

static const struct kube_labels no_labels;

bool pred_ipa_terms_valid(const struct kube_pod_affinity_term *t, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (kube_pod_affinity_term_error(&t[i]))
            return false;
    return true;
}

/* Append "name: why" for the list's first error to the aggregate. */
static const char *add_error(struct arena *a, const char *agg, size_t *n,
                             const char *name, const char *why)
{
    if (!why)
        return agg;
    (*n)++;
    return agg ? arena_sprintf(a, "%s, %s: %s", agg, name, why)
               : arena_sprintf(a, "%s: %s", name, why);
}

static const char *list_error(const struct kube_pod_affinity_term *t, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (kube_pod_affinity_term_error(&t[i]))
            return kube_pod_affinity_term_error(&t[i]);
    return NULL;
}

static const char *
weighted_error(const struct kube_weighted_pod_affinity_term *t, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (kube_pod_affinity_term_error(&t[i].term))
            return kube_pod_affinity_term_error(&t[i].term);
    return NULL;
}

const char *pred_ipa_parse_error(struct arena *a, const struct kube_pod *pod)
{
    const struct kube_pod_affinity *aff = &pod->affinity.pod_affinity;
    const struct kube_pod_affinity *anti = &pod->affinity.pod_anti_affinity;
    const char *agg = NULL;
    size_t n = 0;

    agg = add_error(a, agg, &n, "requiredAffinityTerms",
                    list_error(aff->required, aff->n_required));
    agg = add_error(a, agg, &n, "requiredAntiAffinityTerms",
                    list_error(anti->required, anti->n_required));
    agg = add_error(a, agg, &n, "preferredAffinityTerms",
                    weighted_error(aff->preferred, aff->n_preferred));
    agg = add_error(a, agg, &n, "preferredAntiAffinityTerms",
                    weighted_error(anti->preferred, anti->n_preferred));
    if (n > 1 && agg)
        agg = arena_sprintf(a, "[%s]", agg);
    if (n && !agg)
        return "out of memory describing the parse error";
    return agg;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Sort and drop duplicates in place. */
static size_t sort_unique(const char **v, size_t n)
{
    size_t i, k = 0;

    if (!n)
        return 0;
    qsort(v, n, sizeof(*v), cmp_str);
    for (i = 1; i < n; i++)
        if (strcmp(v[i], v[k]))
            v[++k] = v[i];
    return k + 1;
}

static int build_one(struct arena *a, const struct cluster *c,
                     const struct kube_pod *pod,
                     const struct kube_pod_affinity_term *in,
                     enum kpe_semantics sem, struct pred_ipa_term *t)
{
    const struct kube_label_selector *nss =
        kpe_term_namespace_selector(in, sem);
    size_t n_ns = c && c->objs ? c->objs->n_namespaces : 0;
    size_t i, n = 0;

    t->topology_key = in->topology_key ? in->topology_key : "";
    t->selector = in->selector;
    t->namespaces =
        arena_calloc(a, in->n_namespaces + n_ns + 1, sizeof(*t->namespaces));
    if (!t->namespaces)
        return -1;
    if (!in->n_namespaces && !nss)
        t->namespaces[n++] = pod->namespace;
    for (i = 0; i < in->n_namespaces; i++)
        t->namespaces[n++] = in->namespaces[i];
    /* A non-empty selector is unrolled into names; {} means all. */
    if (nss && !nss->n_reqs)
        t->all_namespaces = true;
    else if (nss)
        for (i = 0; i < n_ns; i++)
            if (kube_label_selector_matches(nss,
                                            &c->objs->namespaces[i]->labels))
                t->namespaces[n++] = c->objs->namespaces[i]->name;
    t->n_namespaces = sort_unique(t->namespaces, n);
    return 0;
}

int pred_ipa_terms_build(struct arena *a, const struct cluster *c,
                         const struct kube_pod *pod,
                         const struct kube_pod_affinity_term *in, size_t n,
                         enum kpe_semantics sem, struct pred_ipa_term **out)
{
    size_t i;

    *out = arena_calloc(a, n + 1, sizeof(**out));
    if (!*out)
        return -1;
    for (i = 0; i < n; i++)
        if (build_one(a, c, pod, &in[i], sem, &(*out)[i]) < 0)
            return -1;
    return 0;
}

bool pred_ipa_term_matches(const struct pred_ipa_term *t,
                           const struct kube_pod *p)
{
    if (!t->all_namespaces &&
        !bsearch(&p->namespace, t->namespaces, t->n_namespaces,
                 sizeof(*t->namespaces), cmp_str))
        return false;
    return kube_label_selector_matches(t->selector, &p->labels);
}

bool pred_ipa_terms_match_all(const struct pred_ipa_term *t, size_t n,
                              const struct kube_pod *p)
{
    size_t i;

    if (!n)
        return false;
    for (i = 0; i < n; i++)
        if (!pred_ipa_term_matches(&t[i], p))
            return false;
    return true;
}

bool pred_ipa_existing_term_matches(const char *owner_ns,
                                    const struct kube_pod_affinity_term *t,
                                    const struct kube_pod *pod,
                                    const struct kube_labels *ns_labels,
                                    enum kpe_semantics sem)
{
    const struct kube_label_selector *nss = kpe_term_namespace_selector(t, sem);
    bool in_scope = false;
    size_t i;

    if (!t->n_namespaces && !nss)
        in_scope = !strcmp(owner_ns ? owner_ns : "",
                           pod->namespace ? pod->namespace : "");
    for (i = 0; !in_scope && i < t->n_namespaces; i++)
        in_scope = !strcmp(t->namespaces[i], pod->namespace);
    if (!in_scope && nss)
        in_scope = kube_label_selector_matches(nss, ns_labels ? ns_labels
                                                              : &no_labels);
    return in_scope && kube_label_selector_matches(t->selector, &pod->labels);
}
