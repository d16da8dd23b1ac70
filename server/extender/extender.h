/*
 * extender.h: the scheduler-extender protocol: decoding ExtenderArgs and
 * answering filter and prioritize from the published policy and cluster.
 * Pure functions over a request body, so tests can drive them directly.
 */
#ifndef SERVER_EXTENDER_EXTENDER_H
#define SERVER_EXTENDER_EXTENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/base/json_scan.h"
#include "kube/model/types.h"
#include "engine/evaluate.h"

/* A decoded ExtenderArgs. Strings and objects live in the arena. */
struct ext_args {
    struct kube_pod pod;
    bool has_nodes; /* Nodes was a NodeList (not null) */
    size_t n_nodes;
    struct kube_node *nodes;
    struct json_span *node_spans; /* each item's bytes in the body */
    bool has_names;               /* NodeNames was an array (not null) */
    size_t n_names;
    const char **names;
};

/*
 * Decode an ExtenderArgs body (keys case-insensitive, exact case first);
 * with want_spans, also find each node item's bytes (for echoing them).
 * Returns 0, or -1 with e naming the path ("Nodes.items[3].status...").
 */
int ext_decode_args(struct arena *a, const char *body, size_t len,
                    bool want_spans, struct ext_args *x, struct err *e);

#define EXT_STATS_MAX_PREDICATES 64

/* What one filter call saw, for metrics (filled when non-NULL). */
struct ext_stats {
    size_t nodes;    /* nodes evaluated */
    size_t feasible; /* nodes that passed */
    size_t n_preds;
    struct {
        const char *predicate; /* lives as long as the policy */
        size_t failures;       /* nodes it rejected */
    } preds[EXT_STATS_MAX_PREDICATES];
};

/*
 * The node an answer leaves kube-scheduler no choice but to pick: a filter
 * that passes one node (kube-scheduler then skips prioritize), or a ranked
 * prioritize whose best node alone gets the top score. `serve` holds the
 * pod there until the watch shows where it was bound (serve_holds.c).
 */
struct ext_decision {
    const struct kube_pod *pod; /* the request's pod (request arena) */
    const char *node;           /* NULL: no single node */
    size_t n_nodes;             /* the request's nodes (for /debug/calls) */
    size_t n_feasible;          /* of them, those the predicates pass */
};

/*
 * Answer a filter request with an ExtenderFilterResult (malloc'd JSON,
 * length in *out_len; NULL only when out of memory). With NodeNames the
 * cache's nodes are used and names returned; with Nodes the request's
 * objects are used (with the cache's pods) and the passing items are
 * echoed byte for byte. Problems are reported in Error.
 */
char *ext_filter(const struct eval_plans *plans, const struct cluster *cl,
                 struct arena *a, const char *body, size_t len, size_t *out_len,
                 struct ext_stats *stats, struct ext_decision *dec);

/* An ExtenderFilterResult carrying only Error. */
char *ext_filter_error(const char *msg, size_t *out_len);

/* How prioritize turns the policy's weighted totals into answers. */
enum ext_score_mode {
    EXT_SCORE_PROPORTIONAL, /* ext_scale_score: the split shape */
    EXT_SCORE_RANK,         /* ext_rank_score: the extender decides alone */
    EXT_SCORE_RAW,          /* the v1.22 totals, outside the protocol */
};

struct ext_prio_opts {
    enum ext_score_mode mode;
    /* RANK: one of the best nodes, chosen at random as v1.22's selectHost
     * does, alone gets 10 (the other best get 9) and is the decision. */
    bool single_top;
};

/*
 * Answer a prioritize request with a HostPriorityList for every node of
 * the request, in request order, scored as o->mode says; nodes the policy
 * finds infeasible (or does not know) score 0. dec (may be NULL) gets the
 * single top node. NULL with e set on a bad request or a plugin error.
 */
char *ext_prioritize(const struct eval_plans *plans, const struct cluster *cl,
                     struct arena *a, const char *body, size_t len,
                     const struct ext_prio_opts *o, size_t *out_len,
                     struct ext_decision *dec, struct err *e);

/* An empty HostPriorityList, the answer to a prioritize that failed. */
char *ext_prioritize_empty(size_t *out_len);

/*
 * Answer a preempt request (ExtenderPreemptionArgs, victims as full pods
 * or as MetaVictims) with an ExtenderPreemptionResult: every candidate
 * node, with its victims by UID, on which the pod passes the policy's
 * predicates once those victims are gone. Nodes with no victims, and
 * nodes the cache does not know, are never returned. NULL with e set on a
 * bad request.
 */
char *ext_preempt(const struct eval_plans *plans, const struct cluster *cl,
                  struct arena *a, const char *body, size_t len,
                  size_t *out_len, struct err *e);

/* A decoded ExtenderBindingArgs; strings live in the arena. */
struct ext_binding {
    const char *pod_name;
    const char *pod_namespace; /* "default" when empty */
    const char *pod_uid;       /* "" when absent */
    const char *node;
};

/* Decode a bind request (keys case-insensitive). 0, or -1 with e set. */
int ext_decode_binding(struct arena *a, const char *body, size_t len,
                       struct ext_binding *b, struct err *e);

/* An ExtenderBindingResult: {"Error": error} ("" on success). */
char *ext_binding_result(const char *error, size_t *out_len);

/*
 * The 0..10 extender score of a node's weighted total: the weighted
 * average of its 0..100 priority scores, scaled to MaxExtenderPriority,
 *   total * 10 / (100 * sum of the score plugins' weights)
 * in integer arithmetic (truncating). kube-scheduler then multiplies it by
 * the extender's weight and by 10. No priorities (sum 0) gives 0.
 */
int64_t ext_scale_score(int64_t total, int64_t sum_weights);

/*
 * The 0..10 score of a total when the extender is the only scorer: over
 * the request's feasible nodes with totals in [lo, hi], the best (total ==
 * hi) get 10 and every other node (total - lo) * 10 / (hi - lo), at most
 * 9, so that kube-scheduler's choice among its highest sums is a choice
 * among v1.22's best nodes. hi == lo: every node is best.
 */
int64_t ext_rank_score(int64_t total, int64_t lo, int64_t hi);

#endif
