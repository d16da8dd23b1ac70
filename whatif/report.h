/*
 * report.h: the self-contained HTML page of `simulate --report` and `diff
 * --report`: per-node utilisation bars (CPU, memory, pods) in each state
 * (before and after, or before, A and B), the pods placed (or those that
 * moved), and one pod's per-node score breakdown. No external fetch, no
 * script; every number is also in a data-* attribute, named as in the
 * command's --output json, so a browser test can compare them.
 */
#ifndef WHATIF_REPORT_H
#define WHATIF_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/evaluate.h"
#include "kube/base/err.h"
#include "kube/cluster/cluster.h"
#include "whatif/place.h"

/* One pod's row: where it went in each placement column. */
struct whatif_report_row {
    const char *pod;     /* NS/NAME */
    const char *node[2]; /* per column; NULL: unschedulable */
    const char *message; /* why not, when unschedulable (first column) */
};

struct whatif_report {
    const char *title;  /* "simulate" or "diff" */
    const char *detail; /* one line: sources, seed */
    const struct cluster *c;
    const char *const *states; /* usage column names ("before", "a", ...) */
    const struct whatif_usage *const *usage; /* [state][node index] */
    size_t n_states;
    const char *const *columns; /* placement column names ("node"; a, b) */
    size_t n_columns;           /* 1 or 2 */
    const struct whatif_report_row *rows;
    size_t n_rows;
    const char *rows_title; /* "Placements", "Pods that moved" */
    /* One pod's scores (NULL: none): an explain evaluation. */
    const char *score_pod;
    const struct eval_result *scores;
    const struct prio_plan *plan;
};

/* Write the page to path. Returns 0, or -1 with e set ("PATH: why"). */
int whatif_report_write(const char *path, const struct whatif_report *r,
                        struct err *e);

#endif
