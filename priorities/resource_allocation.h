/*
 * resource_allocation.h: what the resource-based score plugins share
 * (noderesources/resource_allocation.go, v1.22): the weighted resource
 * list from the plugin's args, and per (node, resource) the allocatable
 * amount and the requested amount with the incoming pod added. Serves
 * LeastRequestedPriority, MostRequestedPriority, BalancedResourceAllocation
 * and RequestedToCapacityRatioPriority.
 */
#ifndef PRIORITIES_RESOURCE_ALLOCATION_H
#define PRIORITIES_RESOURCE_ALLOCATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/cluster/cluster.h"
#include "priorities/priorities.h"
#include "kube/model/types.h"
#include "framework/args.h"
#include "priorities/framework.h"
#include "priorities/priorities.h"

/* How cpu and memory are counted, node side and pod side (§2.1, §2.2). */
enum prio_res_mode {
    /* NodeInfo.NonZeroRequested; pod containers without a cpu / memory
     * request count 100m / 200Mi (Least, Most, RTCR). */
    PRIO_RES_NON_ZERO,
    /* NodeInfo.Requested; the pod's actual requests, absent = 0
     * (BalancedAllocation from v1.22.4, upstream #105845). */
    PRIO_RES_REQUESTED,
};

/* A weighted resource list; entries point into the args (or a constant). */
struct prio_res_list {
    const struct policy_resource *v;
    size_t n;
};

/*
 * The resources a plugin scores, from its args (a struct prio_args, or
 * NULL) whose value is a struct prio_resources_arg: with rtcr set,
 * exactly its `resources` (empty: nothing is scored); else its list when
 * `resources` is non-NULL (an
 * explicit list, possibly empty), else the default. Anything else, or no
 * args: the default cpu=1, memory=1 (defaultRequestedRatioResources).
 */
void prio_res_list_from_args(const void *args, struct prio_res_list *out);

/* The default list: cpu=1, memory=1. */
void prio_res_list_default(struct prio_res_list *out);

/*
 * True when entry i is overridden by a later entry of the same name: the
 * list becomes a Go map upstream, so the last weight for a name wins and
 * each name is scored once.
 */
bool prio_res_list_shadowed(const struct prio_res_list *l, size_t i);

/*
 * calculatePodResourceRequest for one resource name: the sum over
 * containers, raised to any single init container's request, plus the
 * pod overhead's Value() for that name (for cpu: whole cores, added as if
 * they were millicores; the v1.22 quirk, §2.3). No allocation.
 */
int64_t prio_res_pod_request(const struct kube_pod *pod, const char *name,
                             enum prio_res_mode mode);

/*
 * The pod's side of a resource list, worked out once per scheduling cycle
 * by a plugin's PreScore (prio_res_prescore_*): per entry whether a later
 * entry shadows it and the pod's request (prio_res_pod_request).
 */
struct prio_res_pod {
    struct prio_res_list list;
    enum prio_res_mode mode;
    /* v1.22 (#103169) leaves out unrequested scalars and allocatable 0;
     * v1.20.2 and v1.21 score every listed resource (D14) */
    bool skip_unused;
    bool *shadowed;
    int64_t *request;
};

/* The pod side of l in mode, from cy's arena; NULL when out of memory. */
struct prio_res_pod *prio_res_pod_new(struct prio_cycle *cy,
                                      const struct prio_res_list *l,
                                      enum prio_res_mode mode);

/* The resource plugins' PreScore functions are in plugins.h. */

/*
 * calculateResourceAllocatableRequest and the exclusion rules (§2.4) for
 * entry i of rp on the node: returns true and sets *alloc and *req (node
 * part + the pod's part, already in rp) when the resource takes part in
 * the score; false when it is excluded (a scalar the pod does not
 * request, or an allocatable of 0, including names the node side does
 * not know). Without skip_unused (--semantics 1.20/1.21) nothing is
 * excluded: a name the node side does not know is (0, 0), as v1.20.2's
 * calculateResourceAllocatableRequest gives it, so *alloc may be 0.
 */
bool prio_res_node_pair_at(const struct prio_res_pod *rp, size_t i,
                           const struct node_info *ni, int64_t *alloc,
                           int64_t *req);

/* A per-resource score from (requested, allocatable), allocatable != 0. */
typedef int64_t prio_res_scorer_fn(int64_t requested, int64_t allocatable);

/*
 * Least/MostAllocated: Σ score_r × w_r / Σ w_r over the included resources
 * of l (integer division; 0 when nothing is included).
 */
int64_t prio_res_weighted_score(const struct prio_res_pod *rp,
                                const struct node_info *ni,
                                prio_res_scorer_fn *scorer);

/*
 * RequestedToCapacityRatio's broken-linear function (requested_to_capacity
 * _ratio.c; helper/shape_score.go upstream) at utilisation p, over the
 * shape points with each score multiplied by scale: below the first point
 * its score, above the last its score, in between the linear
 * interpolation truncated toward zero. n == 0 gives 0.
 */
int64_t prio_rtcr_broken_linear(const struct policy_shape_point *shape,
                                size_t n, int64_t scale, int64_t p);

/* Go's int64 arithmetic: wrapping, and x / -1 == -x without a trap. */
static inline int64_t prio_add64(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t prio_sub64(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

static inline int64_t prio_mul64(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* b must not be 0. */
static inline int64_t prio_div64(int64_t a, int64_t b)
{
    if (b == -1)
        return (int64_t)(0 - (uint64_t)a);
    return a / b;
}

/*
 * Go's int64(x) for a float64 on amd64 (CVTTSD2SI): truncation toward
 * zero; NaN and out-of-range values give the "integer indefinite"
 * INT64_MIN instead of C's undefined behaviour.
 */
static inline int64_t prio_f2i64(double x)
{
    if (!(x > -9223372036854775808.0 && x < 9223372036854775808.0))
        return INT64_MIN;
    return (int64_t)x;
}

/* For list: the resources Least/MostRequestedPriority score. */
extern const struct kpe_arg_schema prio_default_resources_values;

/* One {name, weight} resource (struct policy_resource), as written. */
extern const struct kpe_arg_schema prio_resource_schema;

/* check: Least/MostRequestedPriority's typed arguments. */
extern const struct kpe_arg_schema prio_resources_resolved;

/* Least/MostAllocated's finish: the value cpu=1, memory=1. */
prio_finish_fn prio_resources_finish;

#endif
