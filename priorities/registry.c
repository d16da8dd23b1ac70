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

const struct prio_def *const *prio_registry(size_t *n)
{
    *n = N_ROWS;
    return rows;
}

const struct prio_def *prio_lookup(const char *name)
{
    size_t i;

    if (!name)
        return NULL;
    for (i = 0; i < N_ROWS; i++) {
        if (!strcmp(rows[i]->name, name))
            return rows[i];
    }
    for (i = 0; i < N_ROWS; i++) {
        if (kpe_name_in(rows[i]->aliases, name))
            return rows[i];
    }
    return NULL;
}

size_t prio_index(const struct prio_def *d)
{
    size_t i;

    for (i = 0; i < N_ROWS && rows[i] != d; i++)
        ;
    return i;
}

static bool named(const struct prio_plugin *pl, const char *name)
{
    return pl && !strcmp(pl->ref.name, name);
}

const struct prio_plugin *prio_plugin_find(const char *name)
{
    size_t i;

    for (i = 0; i < N_ROWS; i++) {
        const struct prio_def *d = rows[i];

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
    size_t i, n = 0;

    for (i = 0; i < N_ROWS; i++)
        n = kpe_arg_schemas_add(out, n, max, rows[i]->args);
    return n;
}

const struct prio_def *prio_for_arg(const struct kpe_arg_schema *s)
{
    size_t i;

    for (i = 0; s && i < N_ROWS; i++) {
        if (rows[i]->args == s)
            return rows[i];
    }
    return NULL;
}
