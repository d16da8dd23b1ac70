/*
 * registry.c: the table of predicate descriptors, in run order. v1.22's 19
 * keys keep the order of legacy_registry.go predicateOrdering; the names
 * v1.22 dropped sit where the v1.13-v1.16 orderings ran them; ours come
 * last. Each descriptor lives next to its code; adding a predicate is one
 * line here. Mirrors pkg/scheduler/framework/plugins/legacy_registry.go.
 */
#include "predicates/predicates.h"
#include "predicates/reasons.h"

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

#define ROW(n) &pred_##n,
static const struct pred_def *const rows[] = { PREDICATES(ROW) };
#undef ROW

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

/*
 * The runtime part: descriptors loaded from plugins (--plugin), after the
 * static rows. Written only at start, before any policy is read and
 * before any thread runs (pred_registry_add); read-only afterwards.
 */
static const struct pred_def *all[N_ROWS + PRED_MAX_RUNTIME];
static size_t n_runtime;

/* Every descriptor, static then runtime; *n gets the count. */
static const struct pred_def *const *view(size_t *n)
{
    *n = N_ROWS + n_runtime;
    return n_runtime ? all : rows;
}

/* legacy_registry.go predicateOrdering, kept here for tests. */
static const char *const v122_ordering[] = {
    PRED_NAME_CHECK_NODE_UNSCHEDULABLE,
    PRED_NAME_GENERAL_PREDICATES,
    PRED_NAME_HOST_NAME,
    PRED_NAME_POD_FITS_HOST_PORTS,
    PRED_NAME_MATCH_NODE_SELECTOR,
    PRED_NAME_POD_FITS_RESOURCES,
    PRED_NAME_NO_DISK_CONFLICT,
    PRED_NAME_POD_TOLERATES_NODE_TAINTS,
    PRED_NAME_CHECK_NODE_LABEL_PRESENCE,
    PRED_NAME_CHECK_SERVICE_AFFINITY,
    PRED_NAME_MAX_EBS_VOLUME_COUNT,
    PRED_NAME_MAX_GCE_PD_VOLUME_COUNT,
    PRED_NAME_MAX_CSI_VOLUME_COUNT,
    PRED_NAME_MAX_AZURE_DISK_COUNT,
    PRED_NAME_MAX_CINDER_VOLUME_COUNT,
    PRED_NAME_CHECK_VOLUME_BINDING,
    PRED_NAME_NO_VOLUME_ZONE_CONFLICT,
    PRED_NAME_EVEN_PODS_SPREAD,
    PRED_NAME_MATCH_INTER_POD_AFFINITY,
};

const struct pred_def *const *pred_registry(size_t *n)
{
    return view(n);
}

const char *const *pred_v122_ordering(size_t *n)
{
    *n = sizeof(v122_ordering) / sizeof(v122_ordering[0]);
    return v122_ordering;
}

const struct pred_def *pred_lookup(const char *name)
{
    size_t nr;
    const struct pred_def *const *r = view(&nr);
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

size_t pred_index(const struct pred_def *d)
{
    size_t nr;
    const struct pred_def *const *r = view(&nr);
    size_t i;

    for (i = 0; i < nr && r[i] != d; i++)
        ;
    return i;
}

const struct pred_plugin *pred_plugin_find(const char *name)
{
    size_t nr;
    const struct pred_def *const *r = view(&nr);
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
    size_t nr;
    const struct pred_def *const *r = view(&nr);
    size_t i, n = 0;

    for (i = 0; i < nr; i++)
        n = kpe_arg_schemas_add(out, n, max, r[i]->args);
    return n;
}

const struct pred_def *pred_for_arg(const struct kpe_arg_schema *s)
{
    size_t nr;
    const struct pred_def *const *r = view(&nr);
    size_t i;

    for (i = 0; s && i < nr; i++) {
        if (r[i]->args == s)
            return r[i];
    }
    return NULL;
}

int pred_registry_add(const struct pred_def *d, struct err *e)
{
    const struct pred_def *old = pred_lookup(d->name);

    if (old && pred_index(old) >= N_ROWS)
        return err_set(e, "predicate \"%s\" is already registered by a plugin",
                       d->name);
    if (old && !strcmp(old->name, d->name))
        return err_set(e, "predicate \"%s\" clashes with a built-in predicate",
                       d->name);
    if (old)
        return err_set(e,
                       "predicate \"%s\" clashes with an alias of the built-in "
                       "predicate \"%s\"",
                       d->name, old->name);
    if (pred_plugin_find(d->name))
        return err_set(e,
                       "predicate \"%s\" clashes with a built-in filter plugin "
                       "of that name",
                       d->name);
    if (n_runtime == PRED_MAX_RUNTIME)
        return err_set(e,
                       "predicate \"%s\": more than %d plugin predicate names",
                       d->name, PRED_MAX_RUNTIME);
    if (!n_runtime)
        memcpy(all, rows, sizeof(rows));
    all[N_ROWS + n_runtime++] = d;
    return 0;
}

size_t pred_registry_runtime(void)
{
    return n_runtime;
}

void pred_registry_truncate(size_t keep)
{
    if (keep < n_runtime)
        n_runtime = keep;
}
