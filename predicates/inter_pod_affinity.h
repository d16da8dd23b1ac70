/*
 * inter_pod_affinity.h: pod (anti-)affinity terms as v1.22's framework
 * turns them into AffinityTerms (framework/types.go) and the
 * InterPodAffinity plugin scopes them (plugins/interpodaffinity), plus a
 * read-only view of the plugin's prefilter state for tests.
 */
#ifndef PREDICATES_INTER_POD_AFFINITY_H
#define PREDICATES_INTER_POD_AFFINITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/base/arena.h"
#include "kube/cluster/cluster.h"
#include "framework/semantics.h"
#include "kube/model/types.h"

/*
 * A term of the incoming pod with its namespace scope resolved: the listed
 * namespaces (or the pod's own when neither namespaces nor
 * namespaceSelector is given) plus every Namespace the namespaceSelector
 * matches; an empty namespaceSelector ({}) scopes every namespace.
 */
struct pred_ipa_term {
    const char *topology_key;
    const struct kube_label_selector *selector; /* NULL: matches nothing */
    size_t n_namespaces;
    const char **namespaces; /* sorted, unique */
    bool all_namespaces;
};

/*
 * Why v1.22 cannot parse the pod's affinity terms (PodInfo.ParseError):
 * the first invalid selector of each of the four term lists, prefixed by
 * the list's name and aggregated as utilerrors does. NULL when every term
 * converts. The message comes from a.
 */
const char *pred_ipa_parse_error(struct arena *a, const struct kube_pod *pod);

/*
 * Resolve the pod's n terms in[] against the cluster's Namespaces into
 * *out (from a), the namespaceSelector as release sem sees it (D11).
 * Returns 0, or -1 when a runs out of memory.
 */
int pred_ipa_terms_build(struct arena *a, const struct cluster *c,
                         const struct kube_pod *pod,
                         const struct kube_pod_affinity_term *in, size_t n,
                         enum kpe_semantics sem, struct pred_ipa_term **out);

/* p is in t's namespace scope and t's selector matches p's labels. */
bool pred_ipa_term_matches(const struct pred_ipa_term *t,
                           const struct kube_pod *p);

/* n > 0 and every term matches p (podMatchesAllAffinityTerms). */
bool pred_ipa_terms_match_all(const struct pred_ipa_term *t, size_t n,
                              const struct kube_pod *p);

/* True when every term of the list converts (else v1.22 drops the list). */
bool pred_ipa_terms_valid(const struct kube_pod_affinity_term *t, size_t n);

/*
 * An existing pod's term against the incoming pod, whose namespace has
 * labels ns_labels (AffinityTerm.Matches); owner_ns is the existing pod's
 * namespace (what a term naming none means); the namespaceSelector as
 * release sem sees it (D11).
 */
bool pred_ipa_existing_term_matches(const char *owner_ns,
                                    const struct kube_pod_affinity_term *t,
                                    const struct kube_pod *pod,
                                    const struct kube_labels *ns_labels,
                                    enum kpe_semantics sem);

/* ---- the prefilter state, read-only ---- */

enum pred_ipa_counts {
    PRED_IPA_EXISTING_ANTI, /* existing pods' anti-affinity vs the pod */
    PRED_IPA_AFFINITY,      /* pods matching all the pod's affinity terms */
    PRED_IPA_ANTI_AFFINITY, /* pods matching the pod's anti-affinity */
};

/* Pairs in one of the state's maps. */
size_t pred_ipa_state_pairs(const void *state, enum pred_ipa_counts which);

/* The count of (key, value) in one of the maps (0 when absent). */
int64_t pred_ipa_state_count(const void *state, enum pred_ipa_counts which,
                             const char *key, const char *value);

/* Its failure reasons, exactly as kube-scheduler prints them (v1.22). */
#define PRED_REASON_AFFINITY_NOT_MATCH                                         \
    "node(s) didn't match pod affinity/anti-affinity rules"
#define PRED_REASON_AFFINITY_RULES "node(s) didn't match pod affinity rules"
#define PRED_REASON_ANTI_AFFINITY_RULES                                        \
    "node(s) didn't match pod anti-affinity rules"
#define PRED_REASON_EXISTING_ANTI_AFFINITY                                     \
    "node(s) didn't satisfy existing pods anti-affinity rules"

#endif
