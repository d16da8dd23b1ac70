/*
 * pod_affinity_terms.h: pod (anti-)affinity term checks shared by the
 * InterPodAffinity score plugin (framework/types.go AffinityTerm,
 * PodInfo term parsing in kube-scheduler v1.22).
 */
#ifndef PRIORITIES_POD_AFFINITY_TERMS_H
#define PRIORITIES_POD_AFFINITY_TERMS_H

#include <stdbool.h>

#include "framework/semantics.h"
#include "kube/model/types.h"

/*
 * Why the pod's (anti-)affinity terms cannot be used (an invalid label or
 * namespace selector in any list), or NULL when they all parse.
 */
const char *prio_pod_affinity_parse_error(const struct kube_pod *p);

/*
 * An existing pod's term against the incoming pod: the term's namespaces
 * (by default owner_ns, its owner's) or its namespaceSelector against
 * ns_labels, the incoming pod's namespace labels (the namespaceSelector
 * as release sem sees it, D11); then its label selector.
 * Which existing terms count, and whether their lists parse, is decided
 * as pods are accounted (struct aff_entry in kube/cluster/cluster.h).
 */
bool prio_term_matches_incoming(const struct kube_labels *ns_labels,
                                const char *owner_ns,
                                const struct kube_pod_affinity_term *t,
                                const struct kube_pod *in,
                                enum kpe_semantics sem);

#endif
