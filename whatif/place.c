/*
 * place.c: the placement loop of place.h. The decision is engine_place's;
 * the assume step is cluster_add_pod, the snapshot-side counterpart of
 * the scheduler cache's AssumePod.
 */
#include "whatif/place.h"

#include <stdlib.h>
#include <string.h>

void whatif_sim_init(struct whatif_sim *s, const struct eval_plans *plans,
                     struct cluster *c, int percentage, uint64_t seed,
                     struct arena *a)
{
    memset(s, 0, sizeof(*s));
    s->plans = plans;
    s->c = c;
    s->a = a;
    engine_placer_init(&s->placer, percentage, seed);
    filter_cache_init(&s->cache);
    prescore_cache_init(&s->prescore);
    s->no_cache = getenv("KPE_WHATIF_NO_CACHE") != NULL;
}

void whatif_sim_free(struct whatif_sim *s)
{
    engine_placer_free(&s->placer);
    filter_cache_free(&s->cache);
    prescore_cache_free(&s->prescore);
}

/*
 * Use the verdict cache for ask when it is a replica of the pod asked
 * before: every field equal, bit for bit (the pointers too, so the same
 * spec), but its name and uid, which whatif_replica alone sets and no
 * node-local filter reads. Anything else starts the cache afresh.
 */
static void cache_for(struct whatif_sim *s, const struct kube_pod *ask)
{
    struct kube_pod key;

    memcpy(&key, ask, sizeof(key));
    key.name = NULL;
    key.uid = NULL;
    if (s->no_cache || !s->have_last || memcmp(&key, &s->last, sizeof(key))) {
        filter_cache_clear(&s->cache);
        prescore_cache_clear(&s->prescore);
        s->placer.cache = NULL;
        s->placer.prescore = NULL;
    } else {
        s->placer.cache = &s->cache;
        s->placer.prescore = &s->prescore;
    }
    memcpy(&s->last, &key, sizeof(key));
    s->have_last = true;
}

#define MAX_NAMES 64 /* distinct predicates a plan can run */

const char *whatif_top_predicate(const struct eval_result *r, size_t *count)
{
    const char *names[MAX_NAMES];
    size_t counts[MAX_NAMES], n_names = 0, i, j, k, best = 0;

    for (i = 0; i < r->n_nodes; i++) {
        const struct pred_verdict *v = &r->nodes[i].verdict;

        for (j = 0; j < v->n_failures; j++) {
            const char *name = v->failures[j].predicate;

            for (k = 0; k < n_names && strcmp(names[k], name); k++)
                ;
            if (k == n_names) {
                if (n_names == MAX_NAMES)
                    continue;
                names[n_names] = name;
                counts[n_names++] = 0;
            }
            counts[k]++;
        }
    }
    for (k = 1; k < n_names; k++) {
        if (counts[k] > counts[best])
            best = k;
    }
    *count = n_names ? counts[best] : 0;
    return n_names ? names[best] : NULL;
}

/* Keep what outlives the decision (made in scratch) in s->a. */
static int keep_failure(struct whatif_sim *s, const struct eval_result *r,
                        const char *msg, struct whatif_placement *out)
{
    const char *top = whatif_top_predicate(r, &out->top_count);

    out->message = msg ? arena_strdup(s->a, msg) : NULL;
    out->top_predicate = top ? arena_strdup(s->a, top) : NULL;
    return (msg && !out->message) || (top && !out->top_predicate) ? -1 : 0;
}

int whatif_place(struct whatif_sim *s, const struct kube_pod *pod,
                 struct whatif_placement *out, struct err *e)
{
    struct kube_pod ask = *pod, *bound;
    const struct node_info *ni;
    struct eval_result filtered;
    struct arena scratch; /* the decision's memory: gone after it */
    const char *msg = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    out->pod = pod;
    ask.node_name = "";
    ask.nominated_node_name = NULL;
    arena_init(&scratch, 0);
    cache_for(s, &ask);
    rc = engine_place(&s->placer, s->plans, &ask, s->c, &scratch, &filtered,
                      &ni, &msg);
    if (rc < 0) {
        err_set(e, "pod %s/%s: %s", pod->namespace, pod->name,
                msg ? msg : "out of memory");
        goto out;
    }
    if (rc > 0) {
        rc = keep_failure(s, &filtered, msg, out);
        if (rc < 0)
            err_set(e, "out of memory");
        goto out;
    }
    rc = -1;
    bound = arena_alloc(s->a, sizeof(*bound));
    if (!bound) {
        err_set(e, "out of memory");
        goto out;
    }
    *bound = ask;
    bound->node_name = ni->node->name;
    if (cluster_add_pod(s->c, bound) < 0) {
        err_set(e, "out of memory assuming pod %s/%s on %s", pod->namespace,
                pod->name, ni->node->name);
        goto out;
    }
    filter_cache_forget(&s->cache, ni->index); /* its pods changed */
    out->node = ni->node->name;
    s->n_placed++;
    rc = 0;
out:
    arena_destroy(&scratch);
    return rc;
}

struct kube_pod *whatif_replica(struct arena *a, const struct kube_pod *pod,
                                size_t i)
{
    struct kube_pod *r = arena_alloc(a, sizeof(*r));

    if (!r)
        return NULL;
    *r = *pod;
    r->name = arena_sprintf(a, "%s-%zu", pod->name, i);
    r->uid = arena_sprintf(a, "whatif-%s-%s-%zu", pod->namespace, pod->name, i);
    return r->name && r->uid ? r : NULL;
}

struct whatif_usage *whatif_usage_take(const struct cluster *c, struct arena *a)
{
    struct whatif_usage *u =
        arena_calloc(a, c->n_nodes ? c->n_nodes : 1, sizeof(*u));
    size_t i;

    for (i = 0; u && i < c->n_nodes; i++) {
        u[i].cpu = c->nodes[i].requested.milli_cpu;
        u[i].memory = c->nodes[i].requested.memory;
        u[i].pods = (int64_t)c->nodes[i].n_pods;
    }
    return u;
}
