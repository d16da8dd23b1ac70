/*
 * filter_cache.c: the verdict cache of filter_cache.h. Node-local filters
 * are named by their code (not their names, which Policy aliases vary);
 * a loadable or unlisted filter is never taken as node-local.
 */
#include "engine/filter_cache.h"

#include <stdlib.h>
#include <string.h>

/*
 * Filters whose answer depends only on the pod's spec and the one node
 * (its object and its pods' requests, ports and volumes): no other
 * node, no cluster-wide pod state, no pod name or uid. Left out on
 * purpose: the volume count limits and volume binding (an ephemeral
 * volume's claim is matched by the pod's uid), the service, topology
 * spread and inter-pod affinity filters (other nodes' pods).
 */
static pred_filter_fn *const node_local[] = {
    pred_check_node_condition_filter, pred_node_unschedulable_filter,
    pred_node_resources_fit_filter,   pred_node_name_filter,
    pred_node_ports_filter,           pred_node_affinity_filter,
    pred_volume_restrictions_filter,  pred_taint_toleration_filter,
    pred_no_execute_taints_filter,    pred_node_label_filter,
    pred_memory_pressure_filter,      pred_disk_pressure_filter,
    pred_pid_pressure_filter,         pred_pod_fits_host_new_filter,
};

static bool is_node_local(const struct pred_plugin *p)
{
    size_t i;

    for (i = 0; i < sizeof(node_local) / sizeof(node_local[0]); i++) {
        if (p->filter == node_local[i])
            return true;
    }
    return false;
}

void filter_cache_init(struct filter_cache *fc)
{
    memset(fc, 0, sizeof(*fc));
    fc->gen = 1;
    arena_init(&fc->a, 0);
}

void filter_cache_free(struct filter_cache *fc)
{
    free(fc->e);
    arena_destroy(&fc->a);
    memset(fc, 0, sizeof(*fc));
}

void filter_cache_clear(struct filter_cache *fc)
{
    fc->gen++;
    arena_destroy(&fc->a);
    arena_init(&fc->a, 0);
}

void filter_cache_forget(struct filter_cache *fc, size_t i)
{
    if (i < fc->cap)
        fc->e[i].gen = 0;
}

const struct pred_verdict *filter_cache_get(struct filter_cache *fc,
                                            const struct pred_plan *plan,
                                            size_t i)
{
    if (plan != fc->plan || i >= fc->cap || fc->e[i].gen != fc->gen)
        return NULL;
    return &fc->e[i].verdict;
}

/* fc->plan and fc->local_prefix for plan. */
static void use_plan(struct filter_cache *fc, const struct pred_plan *plan)
{
    size_t n = 0;

    if (fc->plan == plan)
        return;
    filter_cache_clear(fc);
    while (n < plan->n_steps && is_node_local(plan->steps[n].plugin))
        n++;
    fc->plan = plan;
    fc->local_prefix = n;
}

static bool qualifies(const struct filter_cache *fc, const struct pred_eval *ev,
                      const struct pred_verdict *v)
{
    if (ev->rejected || v->code == PRED_FIT || v->code == PRED_ERROR)
        return false;
    if (ev->plan->always_check_all)
        return fc->local_prefix == ev->plan->n_steps;
    return ev->stopped_at < fc->local_prefix;
}

static int grow(struct filter_cache *fc, size_t i)
{
    size_t cap = fc->cap ? fc->cap : 64;
    struct filter_cache_entry *e;

    while (cap <= i)
        cap *= 2;
    e = realloc(fc->e, cap * sizeof(*e));
    if (!e)
        return -1;
    memset(e + fc->cap, 0, (cap - fc->cap) * sizeof(*e));
    fc->e = e;
    fc->cap = cap;
    return 0;
}

int filter_cache_put(struct filter_cache *fc, const struct pred_eval *ev,
                     size_t i, const struct pred_verdict *v)
{
    struct pred_verdict *kept;
    size_t j, k;

    use_plan(fc, ev->plan);
    if (!qualifies(fc, ev, v))
        return 0;
    if (i >= fc->cap && grow(fc, i) < 0)
        return -1;
    kept = &fc->e[i].verdict;
    *kept = *v;
    kept->failures = arena_alloc(&fc->a, v->n_failures * sizeof(*v->failures));
    if (!kept->failures)
        return -1;
    for (j = 0; j < v->n_failures; j++) {
        const struct pred_failure *f = &v->failures[j];
        struct pred_failure *g = &kept->failures[j];

        *g = *f; /* predicate: the plan's report name, lives as long */
        g->reasons = arena_alloc(&fc->a, (f->n_reasons ? f->n_reasons : 1) *
                                             sizeof(*g->reasons));
        if (!g->reasons)
            return -1;
        for (k = 0; k < f->n_reasons; k++) {
            g->reasons[k] = arena_strdup(&fc->a, f->reasons[k]);
            if (!g->reasons[k])
                return -1;
        }
    }
    fc->e[i].gen = fc->gen;
    return 0;
}
