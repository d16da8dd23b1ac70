/*
 * framework.c: predicate result helpers (see framework.h).
 */
#include "predicates/framework.h"

#include <stdarg.h>
#include <stdio.h>

void pred_result_init(struct pred_result *r, struct arena *a)
{
    r->code = PRED_FIT;
    r->n_reasons = 0;
    r->arena = a;
}

static void worsen(struct pred_result *r, enum pred_code code)
{
    if (code > r->code)
        r->code = code;
}

enum pred_code pred_fail(struct pred_result *r, enum pred_code code,
                         const char *reason)
{
    worsen(r, code);
    if (reason && r->n_reasons < PRED_MAX_REASONS)
        r->reasons[r->n_reasons++] = reason;
    return r->code;
}

enum pred_code pred_failf(struct pred_result *r, enum pred_code code,
                          const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return pred_fail(r, code, r->arena ? arena_strdup(r->arena, buf) : NULL);
}
