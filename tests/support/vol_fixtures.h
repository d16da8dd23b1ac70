/*
 * vol_fixtures.h: a table runner for the volume predicate tests. Objects
 * are JSON texts written with single quotes (turned into double quotes
 * before parsing) to keep the ported upstream tables readable.
 */
#ifndef TESTS_SUPPORT_VOL_FIXTURES_H
#define TESTS_SUPPORT_VOL_FIXTURES_H

#include "predicates/framework.h"

#define VF_MAX_OBJS 40

struct vf_case {
    const char *name;
    const char *pod;               /* the pod to place */
    const char *node;              /* the node it is tried on */
    const char *objs[VF_MAX_OBJS]; /* PVs, PVCs, classes, CSINodes, pods */
    enum pred_code want;
    const char *want_reasons; /* "r1|r2"; NULL: "" */
};

/*
 * Build the case's cluster (objs, then the node) and run plugin for pod on
 * the node; fails the test naming the case when the code or the reasons
 * differ. extra (may be NULL) is a second list of documents shared by all
 * cases of a table.
 */
void vf_run(const char *plugin, const struct vf_case *c,
            const char *const *extra);

/* vf_run evaluated as release sem (--semantics, issue 25). */
void vf_run_as(enum kpe_semantics sem, const char *plugin,
               const struct vf_case *c, const char *const *extra);

/* Run every case of a table. */
void vf_run_table(const char *plugin, const struct vf_case *cases, size_t n,
                  const char *const *extra);

#endif
