/*
 * engine_nominated.h: pods nominated to a node after a preemption, and the
 * filter run that counts them (kube-scheduler v1.22's PodNominator and
 * framework.RunFilterPluginsWithNominatedPods / addNominatedPods): a pod
 * filtered on a node must leave room for the pods of equal or higher
 * priority nominated there, and must also fit without them.
 */
#ifndef ENGINE_ENGINE_NOMINATED_H
#define ENGINE_ENGINE_NOMINATED_H

#include <stddef.h>
#include <stdint.h>

#include "engine/evaluate.h"

/* One pending pod and the node it was nominated to. */
struct engine_nominee {
    const struct kube_pod *pod;
    const char *node;
};

/* corev1helpers.PodPriority: spec.priority, 0 when unset. */
int32_t engine_pod_priority(const struct kube_pod *pod);

/* The same pod (by UID when both have one, else by namespace/name). */
int engine_same_pod(const struct kube_pod *x, const struct kube_pod *y);

/*
 * The nominations of one decision, by node: PodNominator's per-node lists.
 * A preemption filters hundreds of nodes several times each, and walking
 * every nomination with strcmp on each was most of its time at 5,000
 * nodes (thousands of nominations); here a node's are found by a binary
 * search. The caller builds it once per decision and hands it to the
 * placer and the preemptor (NULL there: no nominations); it borrows nom.
 */
struct engine_nominees {
    const struct engine_nominee *nom;
    size_t n;
    const size_t *order; /* the indices of nom with a node, by (node, index) */
    size_t n_order;
};

/* ix over nom[0..n), its order from a. Returns 0, or -1 out of memory. */
int engine_nominees_index(struct arena *a, const struct engine_nominee *nom,
                          size_t n, struct engine_nominees *ix);

/*
 * addNominatedPods' choice: the pods of ix (NULL: none) nominated to node
 * whose priority is at least pod's, pod itself excluded, into out (room for
 * ix->n), in nom's order. Returns how many.
 */
size_t engine_nominated_on(const struct engine_nominees *ix,
                           const struct kube_pod *pod, const char *node,
                           const struct kube_pod **out);

/*
 * RunFilterPluginsWithNominatedPods for pod on node idx of c, that node
 * first changed by dropping drop[0..n_drop) (preemption's victims): run
 * the filters with the nominated pods engine_nominated_on picks from ix
 * (NULL: none) added,
 * and, when any were added and the pod fit, once more without them (both
 * must pass). view is a cluster_view_begin of c whose node idx is c's;
 * it is left so. *v gets the verdict (from a). Returns 0, or -1 with e
 * set on a plugin's internal error or out of memory.
 */
int engine_filter_with_nominated(const struct pred_plan *plan,
                                 const struct kube_pod *pod,
                                 const struct cluster *c, struct cluster *view,
                                 size_t idx, const struct kube_pod *const *drop,
                                 size_t n_drop,
                                 const struct engine_nominees *ix,
                                 struct arena *a, struct pred_verdict *v,
                                 struct err *e);

/*
 * The nominated pods' part of findNodesThatPassFilters for a pass r that
 * ran without them: each feasible node of r where engine_nominated_on
 * picks pods is filtered again with them (engine_filter_with_nominated);
 * where the pod no longer fits, the node turns infeasible with that
 * verdict and leaves r->feasible (order kept). Nothing is done when ix is
 * NULL or holds no nomination. Returns 0, or -1 with e set.
 */
int engine_recheck_nominated(const struct pred_plan *plan,
                             const struct kube_pod *pod,
                             const struct cluster *c,
                             const struct engine_nominees *ix, struct arena *a,
                             struct eval_result *r, struct err *e);

#endif
