/*
 * resources.h: resource-name classes (pkg/apis/core/v1/helper) and a pod's
 * effective request as kube-scheduler v1.22 computes it
 * (framework/types.go calculateResource, util/non_zero.go).
 */
#ifndef KUBE_MODEL_RESOURCES_H
#define KUBE_MODEL_RESOURCES_H

#include <stdbool.h>
#include <stdint.h>

#include "kube/base/arena.h"
#include "kube/model/types.h"

#define KUBE_DEFAULT_MILLI_CPU_REQUEST 100                 /* 0.1 core */
#define KUBE_DEFAULT_MEMORY_REQUEST    (200 * 1024 * 1024) /* 200 MiB */

bool kube_resource_is_native(const char *name);
bool kube_resource_is_prefixed_native(const char *name);
bool kube_resource_is_extended(const char *name);
bool kube_resource_is_hugepages(const char *name);
bool kube_resource_is_attachable_volume(const char *name);
/* extended, hugepages, prefixed native or attachable volume */
bool kube_resource_is_scalar(const char *name);

/* The value of a scalar in r, 0 when absent; *found tells which. */
int64_t kube_resources_scalar(const struct kube_resources *r, const char *name,
                              bool *found);

/*
 * The pod's effective request for filtering and node accounting (A.4.1):
 * per resource max(sum of containers, max of init containers), plus
 * overhead when set. Only cpu, memory, ephemeral-storage and scalar names
 * are kept; scalars in first-seen order. Scalar storage comes from a.
 * Returns 0, or -1 when a is out of memory.
 */
int kube_pod_request(struct arena *a, const struct kube_pod *p,
                     struct kube_resources *out);

/*
 * The non-zero request (A.4.3) used for NodeInfo.NonZeroRequested:
 * missing cpu/memory keys count as 100m / 200Mi per container, with the
 * init-container max, plus overhead (cpu in millicores).
 */
void kube_pod_nonzero_request(const struct kube_pod *p, int64_t *milli_cpu,
                              int64_t *memory);

#endif
