/*
 * framework.h: what every priority implementation sees. A priority is a
 * v1.22 score plugin split the same way: an optional prescore once per
 * pod over the feasible nodes, a score per node, and an optional
 * normalize over all feasible nodes' raw scores (framework/interface.go).
 */
#ifndef PRIORITIES_FRAMEWORK_H
#define PRIORITIES_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "framework/semantics.h"
#include "kube/base/arena.h"
#include "kube/cluster/cluster.h"
#include "kube/base/err.h"
#include "kube/model/types.h"

#define PRIO_MAX_NODE_SCORE     100 /* framework.MaxNodeScore */
#define PRIO_MAX_EXTENDER_SCORE 10  /* extenderv1.MaxExtenderPriority */
#define PRIO_MAX_CUSTOM_SCORE   10  /* config.MaxCustomPriorityScore */

/* One scoring pass for one pod over the feasible nodes F. */
struct prio_cycle {
    const struct kube_pod *pod;
    const struct cluster *cluster;
    struct arena *arena;
    size_t n_nodes;
    const struct node_info *const *nodes; /* F, in request order */
    /* the release evaluated as (the policy's --semantics) */
    enum kpe_semantics semantics;
};

/* PreScore: per-pod state into *state (from cy->arena). 0 or -1 (e). */
typedef int prio_prescore_fn(struct prio_cycle *cy, const void *args,
                             void **state, struct err *e);

/* Score: the raw score of one node. 0 or -1 (e: aborts the pod). */
typedef int prio_score_fn(const struct prio_cycle *cy, const void *args,
                          const void *state, const struct node_info *ni,
                          int64_t *score, struct err *e);

/* NormalizeScore over scores[i] for cy->nodes[i]. 0 or -1 (e). */
typedef int prio_normalize_fn(const struct prio_cycle *cy, const void *args,
                              const void *state, int64_t *scores,
                              struct err *e);

/*
 * helper.DefaultNormalizeScore: scale to 0..max by the highest raw score
 * (integer, truncating); reverse gives max - s; all-zero input stays 0,
 * or becomes max when reversed.
 */
void prio_normalize_default(int64_t *scores, size_t n, int64_t max,
                            bool reverse);

#endif
