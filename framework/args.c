/*
 * args.c: arguments as written (the members one entry gives, kept in
 * api_order) and the arena string lists plugins fold them into.
 */
#include "framework/args.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
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

void *kpe_args_fold(const void **folded, size_t size, struct arena *a)
{
    if (!*folded)
        *folded = arena_calloc(a, 1, size ? size : 1);
    /* the arena value this function made: writable */
    return (void *)(uintptr_t)*folded;
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

void kpe_args_given(struct kpe_args_written *w, const struct kpe_arg_schema *s,
                    uint64_t mask)
{
    size_t i;

    for (i = 0; i < w->n; i++) {
        if (w->v[i].schema == s)
            w->v[i].given |= mask;
    }
}

/* f->def as an integer in [lo, hi]; 0, or -1 when it is not one. */
static int default_int(const struct kpe_arg_field *f, int64_t lo, int64_t hi,
                       int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(f->def, &end, 10);
    if (errno || end == f->def || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int kpe_arg_default_check(const struct kpe_arg_field *f, struct err *e)
{
    int64_t v;
    bool ok = true;

    if (!f->def)
        return 0;
    switch (f->type) {
    case KPE_ARG_BOOL:
        ok = !strcmp(f->def, "true") || !strcmp(f->def, "false");
        break;
    case KPE_ARG_INT32:
        ok = default_int(f, INT32_MIN, INT32_MAX, &v) == 0;
        break;
    case KPE_ARG_INT64:
        ok = default_int(f, INT64_MIN, INT64_MAX, &v) == 0;
        break;
    case KPE_ARG_STRINGS:
        ok = !strcmp(f->def, "[]");
        break;
    default:
        break;
    }
    if (ok)
        return 0;
    return err_set(e,
                   "field \"%s\": default \"%s\" is not a value of its type "
                   "(a bool is true or false, an int a decimal, a list [])",
                   f->name, f->def);
}

/* Set field f of value to its default (checked by kpe_arg_default_check). */
static void apply_default(const struct kpe_arg_field *f, void *value)
{
    unsigned char *at = (unsigned char *)value + f->offset;
    int64_t v = 0;

    switch (f->type) {
    case KPE_ARG_STRING:
        *(const char **)(void *)at = f->def;
        break;
    case KPE_ARG_BOOL:
        *(bool *)(void *)at = !strcmp(f->def, "true");
        break;
    case KPE_ARG_INT32:
        if (default_int(f, INT32_MIN, INT32_MAX, &v) == 0)
            *(int32_t *)(void *)at = (int32_t)v;
        break;
    case KPE_ARG_INT64:
        if (default_int(f, INT64_MIN, INT64_MAX, &v) == 0)
            *(int64_t *)(void *)at = v;
        break;
    default: /* "[]": the zero list; others are shown, not applied */
        break;
    }
}

void kpe_arg_defaults(const struct kpe_arg_schema *s, void *value)
{
    size_t i;

    for (i = 0; i < s->n_fields; i++) {
        if (s->fields[i].def)
            apply_default(&s->fields[i], value);
    }
}

int kpe_args_effective(const struct kpe_args_written *w,
                       const struct kpe_arg_schema *s, struct arena *a,
                       const void **out, struct err *e)
{
    const struct kpe_arg_value *v = NULL;
    void *value;
    size_t i;

    *out = NULL;
    for (i = 0; w && s && i < w->n && !v; i++) {
        if (w->v[i].schema == s)
            v = &w->v[i];
    }
    if (!s || (!v && !s->absent_is_default))
        return 0;
    value = arena_calloc(a, 1, s->size ? s->size : 1);
    if (!value)
        return err_set(e, "out of memory");
    if (!v) {
        kpe_arg_defaults(s, value);
        *out = value;
        return 0;
    }
    memcpy(value, v->value, s->size);
    for (i = 0; i < s->n_fields; i++) {
        bool given = i < KPE_MAX_ARG_FIELDS && (v->given >> i & 1u);

        if (!given && s->fields[i].def)
            apply_default(&s->fields[i], value);
    }
    *out = value;
    return 0;
}
