/*
 * registry.c: the one registry machinery (registry.h): lookup, aliases,
 * positions, argument keys and the runtime part plugins add to.
 */
#include "framework/registry.h"

#include <string.h>

#include "framework/plugin.h"

const struct kpe_def *const *kpe_registry_view(const struct kpe_registry *r,
                                               size_t *n)
{
    *n = r->n_rows + r->n_runtime;
    return r->n_runtime ? r->all : r->rows;
}

const struct kpe_def *kpe_registry_lookup(const struct kpe_registry *r,
                                          const char *name)
{
    size_t nr, i;
    const struct kpe_def *const *v = kpe_registry_view(r, &nr);

    if (!name)
        return NULL;
    for (i = 0; i < nr; i++) {
        if (!strcmp(v[i]->name, name))
            return v[i];
    }
    for (i = 0; i < nr; i++) {
        if (kpe_name_in(v[i]->aliases, name))
            return v[i];
    }
    return NULL;
}

size_t kpe_registry_index(const struct kpe_registry *r, const struct kpe_def *d)
{
    size_t nr, i;
    const struct kpe_def *const *v = kpe_registry_view(r, &nr);

    for (i = 0; i < nr && v[i] != d; i++)
        ;
    return i;
}

/* The schemas of v[0..nr) into out[max]: 0, or -1 with e set when full. */
static int collect(const struct kpe_def *const *v, size_t nr,
                   const struct kpe_arg_schema **out, size_t max, size_t *n,
                   struct err *e)
{
    size_t i;

    *n = 0;
    for (i = 0; i < nr; i++) {
        if (kpe_arg_schemas_add(out, n, max, v[i]->args, e) < 0)
            return -1;
    }
    return 0;
}

size_t kpe_registry_arg_schemas(const struct kpe_registry *r,
                                const struct kpe_arg_schema **out, size_t max)
{
    size_t nr, n;
    const struct kpe_def *const *v = kpe_registry_view(r, &nr);
    struct err e;

    (void)collect(v, nr, out, max, &n, &e); /* kept within bounds by add */
    return n;
}

const struct kpe_def *kpe_registry_for_arg(const struct kpe_registry *r,
                                           const struct kpe_arg_schema *s)
{
    size_t nr, i;
    const struct kpe_def *const *v = kpe_registry_view(r, &nr);

    for (i = 0; s && i < nr; i++) {
        if (v[i]->args == s)
            return v[i];
    }
    return NULL;
}

/* The name, alias and v1.22 plugin clashes of d; 0 or -1 with e set. */
static int check_name(const struct kpe_registry *r, const struct kpe_def *d,
                      struct err *e)
{
    const struct kpe_def *old = kpe_registry_lookup(r, d->name);

    if (old && kpe_registry_index(r, old) >= r->n_rows)
        return err_set(e, "%s \"%s\" is already registered by a plugin",
                       r->kind, d->name);
    if (old && !strcmp(old->name, d->name))
        return err_set(e, "%s \"%s\" clashes with a built-in %s", r->kind,
                       d->name, r->kind);
    if (old)
        return err_set(e,
                       "%s \"%s\" clashes with an alias of the built-in %s "
                       "\"%s\"",
                       r->kind, d->name, r->kind, old->name);
    if (r->plugin_named && r->plugin_named(d->name))
        return err_set(e, "%s \"%s\" clashes with a built-in %s of that name",
                       r->kind, d->name, r->plugin_kind);
    return 0;
}

int kpe_registry_add(struct kpe_registry *r, const struct kpe_def *d,
                     struct err *e)
{
    if (check_name(r, d, e) < 0)
        return -1;
    if (r->n_runtime == r->max_runtime)
        return err_set(e, "%s \"%s\": more than %zu plugin %s names", r->kind,
                       d->name, r->max_runtime, r->kind);
    if (!r->n_runtime)
        memcpy(r->all, r->rows, r->n_rows * sizeof(*r->rows));
    r->all[r->n_rows + r->n_runtime++] = d;
    if (kpe_registry_keys_fit(r, d, e) < 0) {
        r->n_runtime--;
        return -1;
    }
    return 0;
}

int kpe_registry_keys_fit(const struct kpe_registry *r, const struct kpe_def *d,
                          struct err *e)
{
    const struct kpe_arg_schema *keys[KPE_MAX_ARGS];
    size_t nr, n;
    const struct kpe_def *const *v = kpe_registry_view(r, &nr);

    if (collect(v, nr, keys, KPE_MAX_ARGS, &n, e) < 0)
        return err_prefix(e, "%s \"%s\": ", r->kind, d->name);
    return 0;
}

void kpe_registry_truncate(struct kpe_registry *r, size_t keep)
{
    if (keep < r->n_runtime)
        r->n_runtime = keep;
}
