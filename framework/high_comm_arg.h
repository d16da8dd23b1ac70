/*
 * high_comm_arg.h: the highComm argument (seed 000) that the
 * HighCommPodFilter predicate and the CustomPriorityPolicy priority both
 * read: its value, its fields with their defaults (each plugin's schema
 * lists them under its own key) and its check (high_comm_arg.c).
 */
#ifndef FRAMEWORK_HIGH_COMM_ARG_H
#define FRAMEWORK_HIGH_COMM_ARG_H

#include <stdbool.h>

#include "framework/args.h"
#include "kube/base/err.h"
#include "kube/model/types.h"

/* The value: every member set (the framework applies the defaults). */
struct policy_high_comm_arg {
    const char *pod_label;  /* default "high-comm" */
    const char *node_label; /* default "node.kubernetes.io/rdma-enabled" */
    const char *node_label_value; /* default "true" */
};

/* podLabel, nodeLabel, nodeLabelValue, with their defaults. */
extern const struct kpe_arg_field kpe_high_comm_fields[3];

/*
 * The initialiser of a plugin's schema for this argument under its own
 * key: optional, and an entry without it runs with the defaults; api_order
 * 100 puts it after every v1.22 member.
 */
#define KPE_HIGH_COMM_SCHEMA(k)                                                \
    {                                                                          \
        .key = (k), .api_order = 100,                                          \
        .size = sizeof(struct policy_high_comm_arg),                           \
        .fields = KPE_ARG_FIELDS(kpe_high_comm_fields),                        \
        .note = "ours: optional; one set of values per policy",                \
        .absent_is_default = true,                                             \
    }

/*
 * Check a highComm value (defaults applied) given under `key`: label key
 * and value syntax. *merged is the value of an earlier entry of the same
 * plugin (NULL: none); a later one must equal it (one plugin, one set of
 * arguments); *merged becomes value. 0, or -1 with e set.
 */
int kpe_high_comm_check(const char *key, const struct policy_high_comm_arg *hc,
                        const void **merged, struct err *e);

/* What both plugins need of one pod, found once per pod (their PreFilter
 * and PreScore state): the argument and whether the pod is high-comm. */
struct kpe_high_comm_pod {
    struct policy_high_comm_arg arg; /* defaults applied */
    bool high_comm;                  /* the pod carries arg.pod_label */
};

/* Fill out for pod from a highComm value (NULL: the defaults, read from
 * schema, the plugin's own). */
void kpe_high_comm_pod(const struct kpe_arg_schema *schema,
                       const struct policy_high_comm_arg *value,
                       const struct kube_pod *pod,
                       struct kpe_high_comm_pod *out);

#endif
