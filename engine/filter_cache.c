/*
 * filter_cache.c: the verdict cache of filter_cache.h. Each filter plugin
 * declares beside its code when its verdict survives replicas placed on
 * other nodes (struct pred_plugin's stable); a loadable plugin never does.
 */
#include "engine/filter_cache.h"

#include <stdlib.h>
#include <string.h>

#include "predicates/predicates.h"

static bool no_pod_terms(const struct kube_pod *pod)
{
    const struct kube_pod_affinity *aff = &pod->affinity.pod_affinity;
    const struct kube_pod_affinity *anti = &pod->affinity.pod_anti_affinity;

    return !aff->n_required && !aff->n_preferred && !anti->n_required &&
           !anti->n_preferred;
}

/*
 * Whether plugin's answer for replicas of pod on a node stays while that
 * node is unchanged, whatever else the replicas placed changed: what the
 * plugin declares beside its code (enum pred_stable), against this pod.
 * ServiceAffinity, loadable plugins and the rest declare nothing: never.
 */
static bool invariant(const struct pred_plugin *p, const struct kube_pod *pod)
{
    switch (p->stable) {
    case PRED_STABLE_ALWAYS:
        return true;
    case PRED_STABLE_NO_VOLUMES:
        return pod->n_volumes == 0;
    case PRED_STABLE_NO_POD_TERMS:
        return no_pod_terms(pod);
    case PRED_STABLE_NO_SPREAD:
        return pod->n_spread_constraints == 0;
    case PRED_STABLE_NEVER:
        break;
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
    fc->plan = NULL;
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

/* fc->plan and fc->prefix for the plan and pod of ev (kept until the
 * next clear: the pods until then are replicas of this one). */
static void start(struct filter_cache *fc, const struct pred_eval *ev)
{
    const struct pred_plan *plan = ev->plan;
    size_t n = 0;

    if (fc->plan == plan)
        return;
    while (n < plan->n_steps && invariant(plan->steps[n].plugin, ev->cy.pod))
        n++;
    fc->plan = plan;
    fc->prefix = n;
}

/* A verdict every step of which (up to the failure) is invariant. */
static bool qualifies(const struct filter_cache *fc, const struct pred_eval *ev,
                      const struct pred_verdict *v)
{
    if (ev->rejected || v->code == PRED_ERROR)
        return false;
    if (v->code == PRED_FIT || ev->plan->always_check_all)
        return fc->prefix == ev->plan->n_steps;
    return ev->stopped_at < fc->prefix;
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

    start(fc, ev);
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
