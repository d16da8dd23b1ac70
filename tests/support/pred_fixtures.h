/*
 * pred_fixtures.h: builders for predicate and priority tests. Objects are
 * written as small JSON texts (the parser fills defaults) and a cluster is
 * assembled from them; a plugin is run by name exactly as the evaluator
 * runs it (prefilter once, then filter on one node).
 */
#ifndef TESTS_SUPPORT_PRED_FIXTURES_H
#define TESTS_SUPPORT_PRED_FIXTURES_H

#include "kube/base/arena.h"
#include "kube/cluster/cluster.h"
#include "kube/model/types.h"
#include "predicates/framework.h"

struct policy;

/* Parse a Pod / Node from JSON ("kind" optional); fails the test on error. */
struct kube_pod *fx_pod(struct arena *a, const char *json);
struct kube_node *fx_node(struct arena *a, const char *json);

/* A cluster assembled from JSON documents (objects or Lists). */
struct fx_cluster {
    struct arena *a;
    struct kube_objects objs;
    struct cluster c;
    int built;
};

void fx_cluster_init(struct fx_cluster *fc, struct arena *a);
/* Add one JSON document (any modelled kind, or a List). */
void fx_cluster_add(struct fx_cluster *fc, const char *json);
/* Add an already-parsed node or pod (before fx_cluster_build). */
void fx_cluster_add_node(struct fx_cluster *fc, struct kube_node *n);
void fx_cluster_add_pod(struct fx_cluster *fc, struct kube_pod *p);
/* Build the snapshot; fails the test on error. */
void fx_cluster_build(struct fx_cluster *fc);
void fx_cluster_free(struct fx_cluster *fc);

/*
 * Run the filter plugin `plugin` (a pred_plugin name) with args for pod on
 * the cluster's node `node`: the plugin's prefilter first (a prefilter
 * rejection is returned as the result), then its filter. policy may be
 * NULL. r gets the reasons (strings from a).
 */
enum pred_code fx_run_filter(const char *plugin, const void *args,
                             const struct policy *policy,
                             const struct kube_pod *pod,
                             const struct cluster *c, const char *node,
                             struct arena *a, struct pred_result *r);

/*
 * Run the score plugin `plugin` (a prio_plugin name) with args for pod over
 * the cluster's nodes named in nodes[0..n) (the feasible list F, in that
 * order): prescore, score each node, then normalize, exactly as the
 * evaluator does. scores[i] is node i's final, unweighted score. Returns 0,
 * or -1 with e set when the plugin reports an error.
 */
int fx_run_score(const char *plugin, const void *args,
                 const struct kube_pod *pod, const struct cluster *c,
                 const char *const *nodes, size_t n, struct arena *a,
                 int64_t *scores, struct err *e);

/* The same evaluated as release sem (--semantics, issue 25). */
int fx_run_score_as(enum kpe_semantics sem, const char *plugin,
                    const void *args, const struct kube_pod *pod,
                    const struct cluster *c, const char *const *nodes, size_t n,
                    struct arena *a, int64_t *scores, struct err *e);

/*
 * Set: fx_run_filter and fx_run_score skip the prefilter / prescore and
 * hand the plugin a NULL state, to test a plugin's own path for callers
 * that have none. Tests set it back.
 */
extern bool fx_without_pre_state;

/* "reason1|reason2" for messages and comparisons ("" when none). */
const char *fx_reasons(struct arena *a, const struct pred_result *r);

#endif
