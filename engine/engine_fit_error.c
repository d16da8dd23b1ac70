/*
 * engine_fit_error.c: FitError.Error() of kube-scheduler v1.22
 * (framework/types.go): the one-line summary of why a pod fits no node,
 * shared by the standalone scheduler's events and explain.
 */
#include "engine/engine_fit_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reason_count {
    const char *reason;
    size_t n;
    char *text;
};

static int cmp_text(const void *a, const void *b)
{
    return strcmp(((const struct reason_count *)a)->text,
                  ((const struct reason_count *)b)->text);
}

/* Count one reason in rc[0..*n) (capacity cap). */
static void count_reason(struct reason_count *rc, size_t *n, size_t cap,
                         const char *reason)
{
    size_t i;

    for (i = 0; i < *n; i++) {
        if (!strcmp(rc[i].reason, reason)) {
            rc[i].n++;
            return;
        }
    }
    if (*n < cap) {
        rc[*n].reason = reason;
        rc[(*n)++].n = 1;
    }
}

char *engine_fit_error(struct arena *a, const struct eval_result *r)
{
    size_t cap = 64, n = 0, i, j, k, len = 0;
    struct reason_count *rc = arena_calloc(a, cap, sizeof(*rc));
    char *out, *p;

    if (!rc)
        return NULL;
    for (i = 0; i < r->n_nodes; i++) {
        const struct pred_verdict *v = &r->nodes[i].verdict;

        if (r->nodes[i].feasible)
            continue;
        for (j = 0; j < v->n_failures; j++)
            for (k = 0; k < v->failures[j].n_reasons; k++)
                count_reason(rc, &n, cap, v->failures[j].reasons[k]);
    }
    for (i = 0; i < n; i++) {
        rc[i].text = arena_sprintf(a, "%zu %s", rc[i].n, rc[i].reason);
        if (!rc[i].text)
            return NULL;
        len += strlen(rc[i].text) + 2;
    }
    qsort(rc, n, sizeof(*rc), cmp_text);
    out = arena_alloc(a, len + 64);
    if (!out)
        return NULL;
    p = out + sprintf(out, "0/%zu nodes are available: ", r->n_nodes);
    for (i = 0; i < n; i++)
        p += sprintf(p, "%s%s", i ? ", " : "", rc[i].text);
    strcpy(p, ".");
    return out;
}
