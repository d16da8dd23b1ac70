/*
 * pred_eval.h: running a policy's predicates for one pod, as v1.22's framework
 * runs filter plugins: the plan (plugins in predicate order, each once),
 * prefilters once per pod, then filters per node, stopping at the first
 * failure unless alwaysCheckAllPredicates is set.
 */
#ifndef ENGINE_PRED_EVAL_H
#define ENGINE_PRED_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/base/err.h"
#include "predicates/framework.h"
#include "predicates/plugins.h"

struct policy;
struct policy_pred;

#define PRED_PLAN_MAX 64

struct pred_plan_step {
    const struct pred_plugin *plugin;
    const struct policy_pred *pred; /* the key that brought it in: args */
    const char *report_name;        /* the name failures are reported under */
};

struct pred_plan {
    const struct policy *policy;
    size_t n_steps;
    struct pred_plan_step steps[PRED_PLAN_MAX];
    bool always_check_all;
};

/*
 * Build the plan for a policy: for each predicate in run order, its
 * plugins (or its own name when it has none), skipping plugins already
 * planned. Fails when an implementation is missing from this build.
 */
int pred_plan_build(const struct policy *p, struct pred_plan *plan,
                    struct err *e);

/* One failed predicate on one node. */
struct pred_failure {
    const char *predicate;
    size_t n_reasons;
    const char **reasons;
};

/* A node's verdict: PRED_FIT, or the worst failure code and the list. */
struct pred_verdict {
    enum pred_code code;
    size_t n_failures;
    struct pred_failure *failures;
};

/* One pod's evaluation across nodes; everything lives in the arena. */
struct pred_eval {
    const struct pred_plan *plan;
    struct pred_cycle cy;
    void *states[PRED_PLAN_MAX];
    /* A prefilter rejection applies to every node. */
    bool rejected;
    struct pred_verdict rejection;
    /* After pred_eval_node: the index of the step it stopped at (its
     * first failure when not checking all), else plan->n_steps. */
    size_t stopped_at;
};

/*
 * Start evaluating pod against cluster: compute the pod's request and run
 * every prefilter. Returns 0 (check ev->rejected), or -1 with e set when a
 * plugin reports an internal error (the pod cannot be scheduled now).
 */
int pred_eval_begin(struct pred_eval *ev, const struct pred_plan *plan,
                    const struct kube_pod *pod, const struct cluster *c,
                    struct arena *a, struct err *e);

/*
 * Decide one node. Returns 0 with *v filled, or -1 with e set on an
 * internal error (which aborts the pod, as in v1.22).
 */
int pred_eval_node(struct pred_eval *ev, const struct node_info *ni,
                   struct pred_verdict *v, struct err *e);

#endif
