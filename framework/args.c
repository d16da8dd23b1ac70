/*
 * args.c: folding written arguments into typed ones: arena string lists
 * that grow by one string or by another list.
 */
#include "framework/args.h"

#include <string.h>

int kpe_strlist_append(struct arena *a, struct policy_strlist *dst,
                       const struct policy_strlist *src, struct err *e)
{
    const char **v;
    size_t i;

    if (src->n == 0)
        return 0;
    if (dst->n + src->n > POLICY_MAX_LIST)
        return err_set(e, "more than %d labels", POLICY_MAX_LIST);
    v = arena_calloc(a, dst->n + src->n, sizeof(*v));
    if (!v)
        return err_set(e, "out of memory");
    for (i = 0; i < dst->n; i++)
        v[i] = dst->v[i];
    for (i = 0; i < src->n; i++)
        v[dst->n + i] = src->v[i];
    dst->v = v;
    dst->n += src->n;
    return 0;
}

int kpe_strlist_push(struct arena *a, struct policy_strlist *l, const char *s,
                     struct err *e)
{
    const char **v;

    if (l->n >= POLICY_MAX_LIST)
        return err_set(e, "more than %d labels", POLICY_MAX_LIST);
    v = arena_calloc(a, l->n + 1, sizeof(*v));
    if (!v)
        return err_set(e, "out of memory");
    if (l->n)
        memcpy(v, l->v, l->n * sizeof(*v));
    v[l->n++] = s ? s : "";
    l->v = v;
    return 0;
}
