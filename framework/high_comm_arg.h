/*
 * high_comm_arg.h: the highComm argument (seed 000), shared by the
 * HighCommPodFilter predicate and the CustomPriorityPolicy priority: one
 * schema, one set of defaults, one check (high_comm_arg.c).
 */
#ifndef FRAMEWORK_HIGH_COMM_ARG_H
#define FRAMEWORK_HIGH_COMM_ARG_H

#include "framework/args.h"
#include "kube/base/err.h"

#define PRED_HIGH_COMM_DEFAULT_POD_LABEL  "high-comm"
#define PRED_HIGH_COMM_DEFAULT_NODE_LABEL "node.kubernetes.io/rdma-enabled"
#define PRED_HIGH_COMM_DEFAULT_NODE_VALUE "true"

/* "highComm": podLabel, nodeLabel, nodeLabelValue (struct
 * policy_high_comm_arg). */
extern const struct kpe_arg_schema kpe_high_comm_schema;

/*
 * Defaults and checks for a highComm argument (hc NULL: defaults). The
 * results go to the pod, node and value outputs; when those are set (an
 * earlier entry), the new values must equal them.
 */
int kpe_high_comm_args(const struct policy_high_comm_arg *hc, const char **pod,
                       const char **node, const char **value, struct err *e);

#endif
