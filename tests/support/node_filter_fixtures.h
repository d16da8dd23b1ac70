/*
 * node_filter_fixtures.h: a table runner for the node-level filter plugins
 * (NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts, NodeLabel,
 * HighCommPodFilter and the legacy condition/taint predicates). Objects are
 * JSON texts in which ' stands for " so tables stay readable.
 */
#ifndef TESTS_SUPPORT_NODE_FILTER_FIXTURES_H
#define TESTS_SUPPORT_NODE_FILTER_FIXTURES_H

#include <stddef.h>

#include "predicates/framework.h"

#define P1_MAX_EXISTING 4

struct p1_case {
    const char *name;
    const char *pod;  /* the incoming pod */
    const char *node; /* must carry metadata.name */
    /* pods already bound to the node (spec.nodeName is set for them) */
    const char *existing[P1_MAX_EXISTING];
    enum pred_code want;
    const char *reasons; /* "r1|r2", NULL for none */
};

/*
 * Run plugin with args on one case: build a one-node cluster, run the
 * prefilter (when the plugin has one) and the filter, compare the code and
 * the joined reasons. Returns 0 on a match; otherwise prints what differs,
 * naming the case, and returns 1.
 */
int p1_run_case(const char *plugin, const void *args, const struct p1_case *c);

/* p1_run_case over a table; returns the number of mismatches. */
int p1_run_cases(const char *plugin, const void *args,
                 const struct p1_case *cases, size_t n);

#endif
