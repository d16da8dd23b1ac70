/*
 * registry.c: the rows of the predicate registry, in run order. v1.22's 19
 * keys keep the order of legacy_registry.go predicateOrdering; the names
 * v1.22 dropped sit where the v1.13-v1.16 orderings ran them; ours come
 * last. Each descriptor lives next to its code; adding a predicate is one
 * line here. The machinery (lookup, aliases, runtime part, argument keys)
 * is framework/registry.c's, shared with the priorities.
 * Mirrors pkg/scheduler/framework/plugins/legacy_registry.go.
 */
#include "predicates/predicates.h"

#include <string.h>

#define PREDICATES(X)                                                          \
    X(check_node_condition)                                                    \
    X(check_node_unschedulable)                                                \
    X(general_predicates)                                                      \
    X(host_name)                                                               \
    X(pod_fits_host_ports)                                                     \
    X(match_node_selector)                                                     \
    X(pod_fits_resources)                                                      \
    X(no_disk_conflict)                                                        \
    X(pod_tolerates_node_taints)                                               \
    X(pod_tolerates_node_no_execute_taints)                                    \
    X(check_node_label_presence)                                               \
    X(check_service_affinity)                                                  \
    X(max_ebs_volume_count)                                                    \
    X(max_gce_pd_volume_count)                                                 \
    X(max_csi_volume_count)                                                    \
    X(max_azure_disk_volume_count)                                             \
    X(max_cinder_volume_count)                                                 \
    X(check_volume_binding)                                                    \
    X(no_volume_zone_conflict)                                                 \
    X(check_node_memory_pressure)                                              \
    X(check_node_pid_pressure)                                                 \
    X(check_node_disk_pressure)                                                \
    X(no_volume_node_conflict)                                                 \
    X(even_pods_spread)                                                        \
    X(match_inter_pod_affinity)                                                \
    X(high_comm_pod_filter)                                                    \
    X(pod_fits_host_new)                                                       \
    X(label_rule)                                                              \
    /* one line per descriptor, above this one */

#define DECLARE(n) extern const struct pred_def pred_##n;
PREDICATES(DECLARE)
#undef DECLARE

#define ROW(n) &pred_##n.head,
static const struct kpe_def *const rows[] = { PREDICATES(ROW) };
#undef ROW

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

_Static_assert(offsetof(struct pred_def, head) == 0,
               "a predicate descriptor starts with its struct kpe_def");

static bool filter_plugin_named(const char *name)
{
    return pred_plugin_find(name) != NULL;
}

/* Written only at start (pred_registry_add); read-only afterwards. */
static const struct kpe_def *all[N_ROWS + PRED_MAX_RUNTIME];

static struct kpe_registry pred_reg = {
    .kind = "predicate",
    .plugin_kind = "filter plugin",
    .rows = rows,
    .n_rows = N_ROWS,
    .all = all,
    .max_runtime = PRED_MAX_RUNTIME,
    .plugin_named = filter_plugin_named,
};

/* A head of this registry as its predicate descriptor. */
static const struct pred_def *def_of(const struct kpe_def *h)
{
    return (const struct pred_def *)(const void *)h;
}

const struct pred_def *const *pred_registry(size_t *n)
{
    /* every row is a pred_def whose head is its first member */
    return (const struct pred_def *const *)(const void *)kpe_registry_view(
        &pred_reg, n);
}

const struct pred_def *pred_lookup(const char *name)
{
    return def_of(kpe_registry_lookup(&pred_reg, name));
}

size_t pred_index(const struct pred_def *d)
{
    return kpe_registry_index(&pred_reg, &d->head);
}

const struct pred_plugin *pred_plugin_find(const char *name)
{
    size_t nr;
    const struct pred_def *const *r = pred_registry(&nr);
    size_t i, j;

    for (i = 0; i < nr; i++) {
        const struct pred_def *d = r[i];

        if (d->own && !strcmp(d->own->ref.name, name))
            return d->own;
        for (j = 0; j < KPE_MAX_PLUGINS && d->plugins[j]; j++) {
            if (!strcmp(d->plugins[j]->ref.name, name))
                return d->plugins[j];
        }
    }
    return NULL;
}

size_t pred_def_refs(const struct pred_def *d,
                     const struct kpe_plugin_ref **out)
{
    size_t i;

    for (i = 0; i < KPE_MAX_PLUGINS && d->plugins[i]; i++)
        out[i] = &d->plugins[i]->ref;
    return i;
}

size_t pred_arg_schemas(const struct kpe_arg_schema **out, size_t max)
{
    return kpe_registry_arg_schemas(&pred_reg, out, max);
}

const struct pred_def *pred_for_arg(const struct kpe_arg_schema *s)
{
    return def_of(kpe_registry_for_arg(&pred_reg, s));
}

int pred_registry_add(const struct pred_def *d, struct err *e)
{
    return kpe_registry_add(&pred_reg, &d->head, e);
}

int pred_registry_keys_fit(const struct pred_def *d, struct err *e)
{
    return kpe_registry_keys_fit(&pred_reg, &d->head, e);
}

size_t pred_registry_runtime(void)
{
    return pred_reg.n_runtime;
}

void pred_registry_truncate(size_t keep)
{
    kpe_registry_truncate(&pred_reg, keep);
}
