/*
 * registry.c: the rows of the priority registry, sorted by key as v1.22
 * generates score plugins (legacy_registry.go: sorted keys in
 * AppendPriorityConfigs). Each descriptor lives next to its code; adding a
 * priority is one line here, in name order. The machinery is
 * framework/registry.c's, shared with the predicates.
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

#define ROW(n) &prio_##n.head,
static const struct kpe_def *const rows[] = { PRIORITIES(ROW) };
#undef ROW

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

_Static_assert(offsetof(struct prio_def, head) == 0,
               "a priority descriptor starts with its struct kpe_def");

static bool score_plugin_named(const char *name)
{
    return prio_plugin_find(name) != NULL;
}

/* Written only at start (prio_registry_add); read-only afterwards. */
static const struct kpe_def *all[N_ROWS + PRIO_MAX_RUNTIME];

static struct kpe_registry prio_reg = {
    .kind = "priority",
    .plugin_kind = "score plugin",
    .rows = rows,
    .n_rows = N_ROWS,
    .all = all,
    .max_runtime = PRIO_MAX_RUNTIME,
    .plugin_named = score_plugin_named,
};

/* A head of this registry as its priority descriptor. */
static const struct prio_def *def_of(const struct kpe_def *h)
{
    return (const struct prio_def *)(const void *)h;
}

const struct prio_def *const *prio_registry(size_t *n)
{
    /* every row is a prio_def whose head is its first member */
    return (const struct prio_def *const *)(const void *)kpe_registry_view(
        &prio_reg, n);
}

const struct prio_def *prio_lookup(const char *name)
{
    return def_of(kpe_registry_lookup(&prio_reg, name));
}

size_t prio_index(const struct prio_def *d)
{
    return kpe_registry_index(&prio_reg, &d->head);
}

static bool named(const struct prio_plugin *pl, const char *name)
{
    return pl && !strcmp(pl->ref.name, name);
}

const struct prio_plugin *prio_plugin_find(const char *name)
{
    size_t nr;
    const struct prio_def *const *r = prio_registry(&nr);
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
    return kpe_registry_arg_schemas(&prio_reg, out, max);
}

const struct prio_def *prio_for_arg(const struct kpe_arg_schema *s)
{
    return def_of(kpe_registry_for_arg(&prio_reg, s));
}

int prio_registry_add(const struct prio_def *d, struct err *e)
{
    return kpe_registry_add(&prio_reg, &d->head, e);
}

int prio_registry_keys_fit(const struct prio_def *d, struct err *e)
{
    return kpe_registry_keys_fit(&prio_reg, &d->head, e);
}

size_t prio_registry_runtime(void)
{
    return prio_reg.n_runtime;
}

void prio_registry_truncate(size_t keep)
{
    kpe_registry_truncate(&prio_reg, keep);
}
