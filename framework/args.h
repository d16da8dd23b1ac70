/*
 * args.h: Policy arguments as written (PredicateArgument and
 * PriorityArgument of kube-scheduler v1.22's v1 Policy types, plus our
 * highComm), the form both the Policy readers fill and the plugins' argument
 * parsers read. Strings live in the arena of the policy being built.
 */
#ifndef FRAMEWORK_ARGS_H
#define FRAMEWORK_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/arena.h"
#include "kube/err.h"

/* Most items one argument list may hold (curl's `toobig`). */
#define POLICY_MAX_LIST 4096

struct policy_strlist {
    const char **v;
    size_t n;
};

/* highComm argument (our extension): NULL members take the defaults. */
struct policy_high_comm_arg {
    const char *pod_label;  /* default "high-comm" */
    const char *node_label; /* default "node.kubernetes.io/rdma-enabled" */
    const char *node_label_value; /* default "true" */
};

/* PredicateArgument: each has_* says the member was present (non-null). */
struct policy_pred_arg {
    bool has_service_affinity;
    struct policy_strlist service_affinity_labels;
    bool has_labels_presence;
    struct policy_strlist labels_presence_labels;
    bool labels_presence_presence;
    bool has_high_comm;
    struct policy_high_comm_arg high_comm;
};

struct policy_shape_point {
    int32_t utilization;
    int32_t score; /* 0..10 in the legacy Policy */
};

struct policy_resource {
    const char *name;
    int64_t weight;
};

/* PriorityArgument, with the same has_* convention. */
struct policy_prio_arg {
    bool has_service_anti_affinity;
    const char *service_anti_affinity_label;
    bool has_label_preference;
    const char *label_preference_label;
    bool label_preference_presence;
    bool has_rtcr; /* requestedToCapacityRatioArguments */
    struct policy_shape_point *shape;
    size_t n_shape;
    struct policy_resource *resources;
    size_t n_resources;
    bool has_high_comm;
    struct policy_high_comm_arg high_comm;
};

/* Append one string (NULL: "") to an arena list; 0 or -1 with e set. */
int kpe_strlist_push(struct arena *a, struct policy_strlist *l, const char *s,
                     struct err *e);

/* Append every string of src to an arena list; 0 or -1 with e set. */
int kpe_strlist_append(struct arena *a, struct policy_strlist *dst,
                       const struct policy_strlist *src, struct err *e);

#endif
