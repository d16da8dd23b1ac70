/*
 * args_check.h: checks on Policy arguments that both the plugins' argument
 * parsers and the Policy validation apply (args_check.c).
 */
#ifndef FRAMEWORK_ARGS_CHECK_H
#define FRAMEWORK_ARGS_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "framework/args.h"
#include "kube/err.h"

/* highComm defaults (seed 000). */
#define PRED_HIGH_COMM_DEFAULT_POD_LABEL  "high-comm"
#define PRED_HIGH_COMM_DEFAULT_NODE_LABEL "node.kubernetes.io/rdma-enabled"
#define PRED_HIGH_COMM_DEFAULT_NODE_VALUE "true"

/*
 * Defaults and checks for a highComm argument (hc NULL: defaults). The
 * results go to the pod, node and value outputs; when those are set (an
 * earlier entry), the new values must equal them.
 */
int kpe_high_comm_args(const struct policy_high_comm_arg *hc, const char **pod,
                       const char **node, const char **value, struct err *e);

/* RequestedToCapacityRatio args checks (v1.22 validation_pluginargs.go). */
int kpe_validate_rtcr(const struct policy_shape_point *shape, size_t n_shape,
                      const struct policy_resource *res, size_t n_res,
                      struct err *e);

/*
 * apimachinery validation.IsQualifiedName: up to `max` messages in msgs
 * (static strings); returns how many there are.
 */
size_t kpe_qualified_name_errors(const char *s, const char **msgs, size_t max);
bool kpe_is_label_value(const char *s);

#endif
