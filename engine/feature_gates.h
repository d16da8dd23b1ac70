/*
 * feature_gates.h: `--feature-gates Name=true,Name=false`, as
 * kube-scheduler spells it, for the v1.22 gates that change what a Policy
 * does: DefaultPodTopologySpread (how SelectorSpreadPriority resolves)
 * and the CSI migration gates the volume-count predicates consult.
 */
#ifndef ENGINE_FEATURE_GATES_H
#define ENGINE_FEATURE_GATES_H

#include "kube/base/err.h"

/*
 * Parse spec; on success set *policy_gates (POLICY_GATE_* bits for the
 * policy loader) and export the CSI migration gates to the volume
 * predicates (KPE_FEATURE_GATES in the environment; call before threads
 * start). Unknown names and values other than true/false are refused as
 * kube-scheduler refuses them. Returns 0 or -1 with e set.
 */
int feature_gates_apply(const char *spec, unsigned *policy_gates,
                        struct err *e);

#endif
