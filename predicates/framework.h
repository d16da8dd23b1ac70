/*
 * framework.h: what every predicate implementation sees. A predicate is a
 * v1.22 filter plugin split the same way: an optional prefilter that runs
 * once per pod (per request) and a filter that runs once per node.
 * Mirrors framework/interface.go Status codes and CycleState.
 */
#ifndef PREDICATES_FRAMEWORK_H
#define PREDICATES_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>

#include "framework/semantics.h"
#include "kube/base/arena.h"
#include "kube/cluster/cluster.h"
#include "kube/model/types.h"

enum pred_code {
    PRED_FIT = 0,
    PRED_UNFIT = 1,              /* Unschedulable: preemption may help */
    PRED_UNFIT_UNRESOLVABLE = 2, /* UnschedulableAndUnresolvable */
    PRED_ERROR = 3,              /* internal error: aborts the pod */
};

#define PRED_MAX_REASONS 16

/*
 * The outcome of one prefilter or filter call: the code and the reason
 * strings, in order. Reasons are static strings or arena strings.
 */
struct pred_result {
    enum pred_code code;
    size_t n_reasons;
    const char *reasons[PRED_MAX_REASONS];
    struct arena *arena; /* for formatted reasons */
};

/* Reset r to PRED_FIT with no reasons; formatted reasons go to a. */
void pred_result_init(struct pred_result *r, struct arena *a);

/*
 * Record a failure with a static reason string (NULL: no reason). The
 * code only ever gets worse (FIT < UNFIT < UNRESOLVABLE < ERROR).
 * Returns the resulting code.
 */
enum pred_code pred_fail(struct pred_result *r, enum pred_code code,
                         const char *reason);

/* The same with a printf-formatted reason allocated from r->arena. */
enum pred_code pred_failf(struct pred_result *r, enum pred_code code,
                          const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * One scheduling cycle for one pod: the request's view of the world.
 * Built once per request by the evaluator; predicates only read it,
 * except through their own prefilter state.
 */
struct pred_cycle {
    /*
     * Extended resources the Policy's extenders manage with
     * ignoredByScheduler: NodeResourcesFit's IgnoredResources.
     */
    const char *const *ignored_resources;
    size_t n_ignored_resources;
    const struct kube_pod *pod;
    const struct cluster *cluster;
    struct arena *arena; /* per-request scratch, freed with the request */
    /* kube_pod_request(pod), computed once */
    struct kube_resources pod_request;
    /* the release evaluated as (the policy's --semantics) */
    enum kpe_semantics semantics;
};

/*
 * PreFilter: compute per-pod state once (into *state, from cy->arena).
 * Returns PRED_FIT to go on; any failure applies to every node.
 */
typedef enum pred_code pred_prefilter_fn(struct pred_cycle *cy,
                                         const void *args, void **state,
                                         struct pred_result *r);

/* Filter: decide one node. state is what the prefilter left (or NULL). */
typedef enum pred_code pred_filter_fn(const struct pred_cycle *cy,
                                      const void *args, const void *state,
                                      const struct node_info *ni,
                                      struct pred_result *r);

#endif
