/*
 * args.c: arguments as written (the members one entry gives, kept in
 * api_order) and the arena string lists plugins fold them into.
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

const void *kpe_args_get(const struct kpe_args_written *w,
                         const struct kpe_arg_schema *s)
{
    size_t i;

    for (i = 0; w && s && i < w->n; i++) {
        if (w->v[i].schema == s)
            return w->v[i].value;
    }
    return NULL;
}

void *kpe_args_add(struct kpe_args_written *w, const struct kpe_arg_schema *s,
                   struct arena *a)
{
    void *v = (void *)kpe_args_get(w, s);
    size_t i;

    if (v)
        return v;
    if (w->n == KPE_MAX_ARGS)
        return NULL;
    v = arena_calloc(a, 1, s->size ? s->size : 1);
    if (!v)
        return NULL;
    for (i = w->n; i > 0 && w->v[i - 1].schema->api_order > s->api_order; i--)
        w->v[i] = w->v[i - 1];
    w->v[i].schema = s;
    w->v[i].value = v;
    w->n++;
    return v;
}

int kpe_arg_schemas_add(const struct kpe_arg_schema **set, size_t *n,
                        size_t max, const struct kpe_arg_schema *s,
                        struct err *e)
{
    size_t j;

    for (j = 0; s && j < *n && set[j] != s; j++)
        ;
    if (!s || j < *n)
        return 0;
    if (*n == max)
        return err_set(e,
                       "argument key \"%s\" refused: the policy already "
                       "reads %zu argument keys, the most one kind holds",
                       s->key, max);
    for (j = (*n)++; j > 0 && set[j - 1]->api_order > s->api_order; j--)
        set[j] = set[j - 1];
    set[j] = s;
    return 0;
}
