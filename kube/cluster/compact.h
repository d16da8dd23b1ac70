/*
 * compact.h: self-contained copies of parsed objects (compact.c),
 * for holders that outlive the decode arena: the live cache's pods and
 * nodes, the term index's affinity terms.
 */
#ifndef KUBE_CLUSTER_COMPACT_H
#define KUBE_CLUSTER_COMPACT_H

#include <stddef.h>

#include "kube/model/types.h"

/*
 * Compact copies (compact.c): one malloc'd block holding the struct
 * and all it points to; *size gets its length; free() releases it.
 * `bound` is a size estimate (the decode arena's total). NULL when out of
 * memory.
 *
 * A pod keeps what v1.22's plugins read of pods already on nodes: name,
 * namespace, uid, creation time, deletion flag, labels, nodeName,
 * schedulerName, priority, pod (anti-)affinity terms, containers' names,
 * requests and ports, init containers' names and requests, overhead,
 * volumes of the kinds predicates inspect, phase. Dropped: annotations,
 * owner references, resourceVersion, nodeSelector, node affinity,
 * tolerations, topology spread constraints, container images and limits,
 * init container ports, KUBE_VOL_OTHER volumes (projected, configMap,
 * emptyDir, ...), conditions, nominatedNodeName. (managedFields are never
 * parsed at all.)
 *
 * A node keeps everything but addresses, resourceVersion and annotations
 * other than KUBE_ANNOTATION_PREFER_AVOID_PODS.
 */
struct kube_pod *kube_pod_compact(const struct kube_pod *src, size_t bound,
                                  size_t *size);
struct kube_node *kube_node_compact(const struct kube_node *src, size_t bound,
                                    size_t *size);

/* One pod affinity term (selectors, namespaces, topology key). */
struct kube_pod_affinity_term *
kube_pod_affinity_term_compact(const struct kube_pod_affinity_term *src,
                               size_t *size);

#endif
