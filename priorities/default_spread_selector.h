/*
 * default_spread_selector.h: the selector kube-scheduler v1.22 derives
 * from the Services, ReplicationController, ReplicaSet and StatefulSet
 * that select a pod (plugins/helper/spread.go DefaultSelector), shared by
 * SelectorSpread and PodTopologySpread's system defaults, and the other
 * helpers the spreading plugins share.
 */
#ifndef PRIORITIES_DEFAULT_SPREAD_SELECTOR_H
#define PRIORITIES_DEFAULT_SPREAD_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "framework/semantics.h"
#include "kube/base/arena.h"
#include "kube/cluster/cluster.h"
#include "kube/model/types.h"

/*
 * True when svc is in pod's namespace and its non-nil selector matches the
 * pod's labels (helper.GetPodServices: a nil selector matches nothing).
 */
bool prio_service_selects_pod(const struct kube_service *svc,
                              const struct kube_pod *pod);

/*
 * Build the default selector of pod into *out (requirements ANDed, from
 * a): the merged selectors of the pod's services, then its controller's
 * (RC map merged; ReplicaSet/StatefulSet requirements added). A missing
 * controller object, an unknown owner kind or an invalid controller
 * selector adds nothing. out->n_reqs == 0 means the selector is empty.
 * As 1.20 / 1.21 (sem, D6): instead of the controller owner, every RC,
 * ReplicaSet and StatefulSet of the namespace that selects the pod, as
 * v1.20.2's client-go listers find them. Returns 0, or -1 when the arena
 * is out of memory.
 */
int prio_default_spread_selector(const struct cluster *c,
                                 const struct kube_pod *pod,
                                 enum kpe_semantics sem, struct arena *a,
                                 struct kube_label_selector *out);

/*
 * countPodsMatchSelector: the pods of ni in namespace ns, not being
 * deleted, whose labels sel matches (NULL sel matches none).
 */
int64_t prio_count_matching_pods(const struct node_info *ni, const char *ns,
                                 const struct kube_label_selector *sel);

/*
 * The pod's required node affinity (GetRequiredNodeAffinity): its
 * nodeSelector map and its required node affinity terms, on node.
 */
bool prio_pod_fits_node_affinity(const struct kube_pod *pod,
                                 const struct kube_node *node);

#endif
