/*
 * registry.c: the table of priority descriptors, sorted by key as v1.22
 * generates score plugins (legacy_registry.go: sorted keys in
 * AppendPriorityConfigs). Each descriptor lives next to its code; adding a
 * priority is one line here, in name order.
 */
#include "priorities/priorities.h"

#include <string.h>

#define PRIORITIES(X)                                                          \
    X(balanced_resource_allocation)                                            \
    X(custom_priority_policy)                                                  \
    X(equal_priority)                                                          \
    X(even_pods_spread_priority)                                               \
    X(image_locality_priority)                                                 \
    X(inter_pod_affinity_priority)                                             \
    X(label_score_rule)                                                        \
    X(least_requested_priority)                                                \
    X(most_requested_priority)                                                 \
    X(node_affinity_priority)                                                  \
    X(node_label)                                                              \
    X(node_prefer_avoid_pods_priority)                                         \
    X(requested_to_capacity_ratio)                                             \
    X(resource_limits_priority)                                                \
    X(selector_spread_priority)                                                \
    X(service_affinity)                                                        \
    X(taint_toleration_priority)                                               \
    /* one line per descriptor, above this one */

#define DECLARE(n) extern const struct prio_def prio_##n;
PRIORITIES(DECLARE)
#undef DECLARE

#define ROW(n) &prio_##n,
static const struct prio_def *const rows[] = { PRIORITIES(ROW) };
#undef ROW

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

/*
 * The runtime part: descriptors loaded from plugins (--plugin), after the
 * static rows. Written only at start, before any policy is read and
 * before any thread runs (prio_registry_add); read-only afterwards.
 */
static const struct prio_def *all[N_ROWS + PRIO_MAX_RUNTIME];
static size_t n_runtime;

/* Every descriptor, static then runtime; *n gets the count. */
static const struct prio_def *const *view(size_t *n)
{
    *n = N_ROWS + n_runtime;
    return n_runtime ? all : rows;
}

const struct prio_def *const *prio_registry(size_t *n)
{
    return view(n);
}

const struct prio_def *prio_lookup(const char *name)
{
    size_t nr;
    const struct prio_def *const *r = view(&nr);
    size_t i;

    if (!name)
        return NULL;
    for (i = 0; i < nr; i++) {
        if (!strcmp(r[i]->name, name))
            return r[i];
    }
    for (i = 0; i < nr; i++) {
        if (kpe_name_in(r[i]->aliases, name))
            return r[i];
    }
    return NULL;
}

size_t prio_index(const struct prio_def *d)
{
    size_t nr;
    const struct prio_def *const *r = view(&nr);
    size_t i;

    for (i = 0; i < nr && r[i] != d; i++)
        ;
    return i;
}

static bool named(const struct prio_plugin *pl, const char *name)
{
    return pl && !strcmp(pl->ref.name, name);
}

const struct prio_plugin *prio_plugin_find(const char *name)
{
    size_t nr;
    const struct prio_def *const *r = view(&nr);
    size_t i;

    for (i = 0; i < nr; i++) {
        const struct prio_def *d = r[i];

        if (named(d->own, name))
            return d->own;
        if (named(d->plugins[0], name))
            return d->plugins[0];
        if (named(d->gate_off, name))
            return d->gate_off;
    }
    return NULL;
}

size_t prio_def_refs(const struct prio_def *d,
                     const struct kpe_plugin_ref **out)
{
    size_t i;

    for (i = 0; i < 2 && d->plugins[i]; i++)
        out[i] = &d->plugins[i]->ref;
    return i;
}

size_t prio_arg_schemas(const struct kpe_arg_schema **out, size_t max)
{
    size_t nr;
    const struct prio_def *const *r = view(&nr);
    size_t i, n = 0;

    for (i = 0; i < nr; i++)
        n = kpe_arg_schemas_add(out, n, max, r[i]->args);
    return n;
}

const struct prio_def *prio_for_arg(const struct kpe_arg_schema *s)
{
    size_t nr;
    const struct prio_def *const *r = view(&nr);
    size_t i;

    for (i = 0; s && i < nr; i++) {
        if (r[i]->args == s)
            return r[i];
    }
    return NULL;
}

int prio_registry_add(const struct prio_def *d, struct err *e)
{
    const struct prio_def *old = prio_lookup(d->name);

    if (old && prio_index(old) >= N_ROWS)
        return err_set(e, "priority \"%s\" is already registered by a plugin",
                       d->name);
    if (old && !strcmp(old->name, d->name))
        return err_set(e, "priority \"%s\" clashes with a built-in priority",
                       d->name);
    if (old)
        return err_set(e,
                       "priority \"%s\" clashes with an alias of the built-in "
                       "priority \"%s\"",
                       d->name, old->name);
    if (prio_plugin_find(d->name))
        return err_set(e,
                       "priority \"%s\" clashes with a built-in score plugin "
                       "of that name",
                       d->name);
    if (n_runtime == PRIO_MAX_RUNTIME)
        return err_set(e, "priority \"%s\": more than %d plugin priority names",
                       d->name, PRIO_MAX_RUNTIME);
    if (!n_runtime)
        memcpy(all, rows, sizeof(rows));
    all[N_ROWS + n_runtime++] = d;
    return 0;
}

size_t prio_registry_runtime(void)
{
    return n_runtime;
}

void prio_registry_truncate(size_t keep)
{
    if (keep < n_runtime)
        n_runtime = keep;
}
