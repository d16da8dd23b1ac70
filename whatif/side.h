/*
 * side.h: one side of a diff as a loaded policy: a Policy file, or a
 * KubeSchedulerConfiguration profile (policy/ksc_read.h); either one
 * possibly calling an extender (the split shape), whose Policy is then
 * given and run in-process beside the side's own predicates and
 * priorities, each with its own weight. (kube-scheduler rounds an
 * extender's weighted answer to tens: docs/protocol.md, "Scores"; ties that
 * rounding would make are not modelled.)
 */
#ifndef WHATIF_SIDE_H
#define WHATIF_SIDE_H

#include "kube/base/err.h"
#include "policy/policy.h"

struct whatif_side {
    const char *policy;          /* a Policy file, or NULL */
    const char *ksc;             /* a KubeSchedulerConfiguration, or NULL */
    const char *profile;         /* its profile (NULL: the first) */
    const char *extender_policy; /* what the side's extender serves, NULL */
};

/*
 * Load the side into *out (free with policy_free), with opts. Without
 * extender_policy a side that calls an extender is loaded as written
 * (a Policy) or refused (a profile). Returns 0, or -1 with e set.
 */
int whatif_side_load(const struct whatif_side *s,
                     const struct policy_load_opts *opts, struct policy **out,
                     struct err *e);

#endif
