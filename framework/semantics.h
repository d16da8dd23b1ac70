/*
 * semantics.h: which kube-scheduler release a Policy is evaluated as
 * (`--semantics 1.20|1.21|1.22`, docs/VERSION-SEMANTICS.md). The value
 * travels with the loaded policy into every evaluation context
 * (struct pred_cycle, struct prio_cycle), never through a global, so one
 * process can evaluate the same pod under two versions.
 *
 * "1.20" is v1.20.2, "1.21" and "1.22" the latest patch of their line.
 * The values are ordered, and 1.22 is 0 so that a zeroed options struct or
 * cycle means the default.
 */
#ifndef FRAMEWORK_SEMANTICS_H
#define FRAMEWORK_SEMANTICS_H

#include "kube/base/err.h"
#include "kube/model/types.h"

enum kpe_semantics {
    KPE_SEM_1_20 = -2,
    KPE_SEM_1_21 = -1,
    KPE_SEM_1_22 = 0, /* the default */
};

#define KPE_SEM_DEFAULT  KPE_SEM_1_22
#define KPE_SEM_ACCEPTED "1.20, 1.21 or 1.22"

/* "1.20", "1.21" or "1.22". */
const char *kpe_semantics_name(enum kpe_semantics s);

/*
 * Parse "1.20", "1.21" or "1.22" (also with a leading "v"). Returns 0, or
 * -1 with e = `WHERE: invalid value "X": expected 1.20, 1.21 or 1.22`.
 */
int kpe_semantics_parse(const char *where, const char *s,
                        enum kpe_semantics *out, struct err *e);

/*
 * A pod (anti-)affinity term's namespaceSelector as release s sees it
 * (docs/VERSION-SEMANTICS.md D11): v1.20 has no such field and v1.21's
 * PodAffinityNamespaceSelector gate is alpha, off, so their API servers
 * drop it and the term means its namespaces (or its pod's own); from v1.22
 * (beta, on) it is the term's. NULL when absent or not seen.
 */
const struct kube_label_selector *
kpe_term_namespace_selector(const struct kube_pod_affinity_term *t,
                            enum kpe_semantics s);

#endif
