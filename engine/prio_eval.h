/*
 * prio_eval.h: scoring the feasible nodes for one pod as v1.22's framework does
 * (RunPreScorePlugins, RunScorePlugins, prioritizeNodes): per score plugin
 * prescore once, score each node, normalize over the list, check the
 * 0..100 range, multiply by the plugin weight and sum.
 */
#ifndef ENGINE_PRIO_EVAL_H
#define ENGINE_PRIO_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/base/err.h"
#include "priorities/framework.h"
#include "priorities/plugins.h"

struct policy;
struct policy_prio;

#define PRIO_PLAN_MAX 32

struct prio_plan_step {
    const struct prio_plugin *plugin;
    const struct policy_prio *prio; /* weight and args */
};

/* A configured priority name and the step whose score it reports. */
struct prio_plan_name {
    const char *name;
    int step; /* index into steps, or -1 when v1.22 drops it */
};

struct prio_plan {
    const struct policy *policy;
    size_t n_steps;
    struct prio_plan_step steps[PRIO_PLAN_MAX];
    size_t n_names;
    struct prio_plan_name names[PRIO_PLAN_MAX * 4];
};

/*
 * Build the plan: one step per score plugin of the policy, in v1.22's
 * plugin order (SelectorSpread when the policy was loaded with the
 * DefaultPodTopologySpread gate off), and the list of configured names (file
 * order; the keys when the policy uses the default set). Fails when an
 * implementation is missing from this build.
 */
int prio_plan_build(const struct policy *p, struct prio_plan *plan,
                    struct err *e);

/*
 * Scores of one pod over F = nodes[0..n): scores[s * n + i] is step s's
 * normalised (unweighted) score for node i; totals[i] the weighted sum.
 * Everything is allocated from a.
 */
struct prio_result {
    size_t n_nodes;
    size_t n_steps;
    int64_t *scores;
    int64_t *totals;
};

/* Returns 0, or -1 with e set (a plugin error or an out-of-range score). */
int prio_eval(const struct prio_plan *plan, const struct kube_pod *pod,
              const struct cluster *c, const struct node_info *const *nodes,
              size_t n, struct arena *a, struct prio_result *out,
              struct err *e);

/* prio_eval, taking and keeping PreScore states in pc (may be NULL; see
 * prescore_cache.h). */
struct prescore_cache;
int prio_eval_cached(const struct prio_plan *plan, const struct kube_pod *pod,
                     const struct cluster *c,
                     const struct node_info *const *nodes, size_t n,
                     struct prescore_cache *pc, struct arena *a,
                     struct prio_result *out, struct err *e);

#endif
