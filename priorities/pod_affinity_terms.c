/*
 * pod_affinity_terms.c: pod (anti-)affinity term checks for
 * InterPodAffinity scoring, as framework.PodInfo parses terms and
 * AffinityTerm.Matches applies them in kube-scheduler v1.22.
 */
#include "priorities/pod_affinity_terms.h"

#include <string.h>

#include "kube/model/labels.h"

static bool same(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

/* The first unparsable term of a pod, or NULL (framework.NewPodInfo). */
const char *prio_pod_affinity_parse_error(const struct kube_pod *p)
{
    const struct kube_pod_affinity *lists[2] = {
        &p->affinity.pod_affinity, &p->affinity.pod_anti_affinity
    };
    size_t l, i;

    for (l = 0; l < 2; l++) {
        for (i = 0; i < lists[l]->n_required; i++) {
            if (kube_pod_affinity_term_error(&lists[l]->required[i]))
                return kube_pod_affinity_term_error(&lists[l]->required[i]);
        }
        for (i = 0; i < lists[l]->n_preferred; i++) {
            if (kube_pod_affinity_term_error(&lists[l]->preferred[i].term))
                return kube_pod_affinity_term_error(
                    &lists[l]->preferred[i].term);
        }
    }
    return NULL;
}

/* An existing pod's term against the incoming pod (AffinityTerm.Matches). */
bool prio_term_matches_incoming(const struct kube_labels *ns_labels,
                                const char *owner_ns,
                                const struct kube_pod_affinity_term *t,
                                const struct kube_pod *in,
                                enum kpe_semantics sem)
{
    const struct kube_label_selector *nss = kpe_term_namespace_selector(t, sem);
    bool ns_ok = false;
    size_t i;

    if (!t->n_namespaces && !nss) {
        ns_ok = same(owner_ns, in->namespace);
    } else {
        for (i = 0; i < t->n_namespaces && !ns_ok; i++)
            ns_ok = same(t->namespaces[i], in->namespace);
        if (!ns_ok && nss)
            ns_ok = kube_label_selector_matches(nss, ns_labels);
    }
    return ns_ok && kube_label_selector_matches(t->selector, &in->labels);
}
