/*
 * pod_affinity_terms.h: pod (anti-)affinity term checks shared by the
 * InterPodAffinity score plugin (framework/types.go AffinityTerm,
 * PodInfo term parsing in kube-scheduler v1.22).
 */
#ifndef PRIORITIES_POD_AFFINITY_TERMS_H
#define PRIORITIES_POD_AFFINITY_TERMS_H

#include <stdbool.h>

#include "kube/types.h"

/*
 * Why the pod's (anti-)affinity terms cannot be used (an invalid label or
 * namespace selector in any list), or NULL when they all parse.
 */
const char *prio_pod_affinity_parse_error(const struct kube_pod *p);

/*
 * An existing pod's term against the incoming pod: the term's namespaces
 * (its owner's by default) or its namespaceSelector against ns_labels,
 * the incoming pod's namespace labels; then its label selector.
 */
bool prio_term_matches_incoming(const struct kube_labels *ns_labels,
                                const struct kube_pod *owner,
                                const struct kube_pod_affinity_term *t,
                                const struct kube_pod *in);

/* False when a term of the list is invalid: v1.22 then drops the list. */
bool prio_required_terms_valid(const struct kube_pod_affinity *a);
bool prio_preferred_terms_valid(const struct kube_pod_affinity *a);

#endif
