/*
 * doctor_internal.h: what the wiring doctor's files share (doctor.c: the
 * scheduler's file, its apiVersion, the split's coverage; doctor_ext.c:
 * each extender entry against serve's routes, weight, TLS).
 */
#ifndef SERVER_CLI_DOCTOR_INTERNAL_H
#define SERVER_CLI_DOCTOR_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "policy/policy.h"
#include "server/cli/doctor.h"

struct doctor {
    FILE *out;
    const char *file; /* the scheduler's file, for messages */
    const struct doctor_opts *o;
    const struct policy *served;
    const struct policy *sched;
    int problems;
};

/* "problem: FILE: what" / "note: FILE: what" on d->out. */
void doctor_problem(struct doctor *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void doctor_note(struct doctor *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The predicates p names (listed or by default: not the mandatory ones
 * alone), counted; *first gets the first one's name. */
size_t doctor_served_preds(const struct policy *p, const char **first);

/* Every extender entry of d->sched, and whether the verbs reach serve. */
void doctor_extenders(struct doctor *d);

#endif
