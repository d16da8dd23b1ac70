/*
 * engine_preempt.h: kube-scheduler v1.22's DefaultPreemption PostFilter
 * (framework/plugins/defaultpreemption) as a decision without side
 * effects: is the pod eligible, which nodes might help, the victims per
 * node, the node to nominate. The caller (the standalone scheduler)
 * deletes the victims and nominates the node.
 *
 * v1.20.2, v1.21 and v1.22 choose alike (docs/VERSION-SEMANTICS.md D15,
 * D16): extenders are not consulted (we call none), and a PDB with an
 * empty selector protects nothing in all three.
 */
#ifndef ENGINE_ENGINE_PREEMPT_H
#define ENGINE_ENGINE_PREEMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine_nominated.h"
#include "engine/evaluate.h"

/* DefaultPreemptionArgs defaults (minCandidateNodesPercentage/Absolute). */
#define ENGINE_PREEMPT_MIN_CANDIDATES_PERCENT  10
#define ENGINE_PREEMPT_MIN_CANDIDATES_ABSOLUTE 100

/* engine_preempt's reasons for not preempting. */
#define ENGINE_PREEMPT_NOT_ELIGIBLE "not eligible to preempt others"
#define ENGINE_PREEMPT_NO_POTENTIAL "preemption will not help on any node"
#define ENGINE_PREEMPT_NO_CANDIDATES                                           \
    "no node fits once lower-priority pods are evicted"

/* One preemption candidate: a node and the pods to evict there. */
struct engine_victims {
    const struct node_info *node;
    size_t n_pods;
    const struct kube_pod **pods; /* reprieve order: most important first */
    int64_t num_pdb_violations;
};

/* What a preemption reads besides the pod. */
struct engine_preemptor {
    const struct pred_plan *plan;
    const struct cluster *cl;
    const struct kube_pdb *const *pdbs; /* PodDisruptionBudgets */
    size_t n_pdbs;
    /* pods nominated to nodes (NULL: none) */
    const struct engine_nominees *nominees;
    int64_t now; /* seconds: the start time of a pod that has none */
    /* minCandidateNodesPercentage / minCandidateNodesAbsolute; 0 each:
     * the defaults (10, 100). */
    int min_candidates_percent;
    int min_candidates_absolute;
};

/* util.MoreImportantPod: higher priority, then earlier start time. */
bool engine_more_important(const struct kube_pod *x, const struct kube_pod *y,
                           int64_t now);

/*
 * PodEligibleToPreemptOthers: false when preemptionPolicy is Never, or
 * when the pod's nominated node still holds a terminating pod of lower
 * priority (unless the failed pass found that node
 * UnschedulableAndUnresolvable). filtered is the failed filter pass (may
 * be NULL: no verdicts).
 */
bool engine_preempt_eligible(const struct kube_pod *pod,
                             const struct cluster *cl,
                             const struct eval_result *filtered);

/* calculateNumCandidates for n potential nodes (at most n). */
size_t engine_preempt_num_candidates(const struct engine_preemptor *pr,
                                     size_t n);

/*
 * selectVictimsOnNode for node ni: without every lower-priority pod the
 * pod must fit (filters with nominated pods); then the victims are
 * reprieved from the most important down, PDB-violating ones first,
 * each kept while the pod still fits. view is a cluster_view_begin of
 * pr->cl, left unchanged. Returns 1 with *out (from a), 0 when the node
 * cannot be made to fit, -1 with e set on an internal error.
 */
int engine_select_victims(const struct engine_preemptor *pr,
                          const struct kube_pod *pod, struct cluster *view,
                          const struct node_info *ni, struct arena *a,
                          struct engine_victims *out, struct err *e);

/*
 * pickOneNodeForPreemption over c[0..n) (n > 0): fewest PDB violations,
 * lowest highest-victim priority, smallest priority sum (each shifted by
 * 2^31), fewest victims, latest earliest start among the most important
 * victims, then the first. A candidate without victims (every one
 * reprieved) wins the second step (upstream would index an empty list).
 * Returns the index.
 */
size_t engine_pick_one_node(const struct engine_victims *c, size_t n,
                            int64_t now);

/*
 * FindCandidates after the failed pass filtered: the nodes where
 * preemption might help (not UnschedulableAndUnresolvable), in NodeTree
 * order, dry-run from offset (modulo their number; kube-scheduler draws
 * it at random) until a candidate without PDB violations is found and
 * enough are (dryRunPreemption, one node at a time); those without
 * violations first. *cands from a. Returns the count, or -1 with e set.
 */
long engine_preempt_candidates(const struct engine_preemptor *pr,
                               const struct kube_pod *pod,
                               const struct eval_result *filtered,
                               size_t offset, struct arena *a,
                               struct engine_victims **cands, struct err *e);

/*
 * The PostFilter decision for pod after the failed pass filtered: when
 * eligible, engine_preempt_candidates, then pick one. Returns 1 with *best
 * (from a), 0 when no preemption helps (*reason, when not NULL, says why), -1
 * with e set.
 */
int engine_preempt(const struct engine_preemptor *pr,
                   const struct kube_pod *pod,
                   const struct eval_result *filtered, size_t offset,
                   struct arena *a, struct engine_victims *best,
                   const char **reason, struct err *e);

#endif
