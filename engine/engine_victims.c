/*
 * engine_victims.c: the victims of a preemption on one node and the
 * choice among candidate nodes (engine_preempt.h), after kube-scheduler
 * v1.22's defaultpreemption selectVictimsOnNode,
 * filterPodsWithPDBViolation and pickOneNodeForPreemption, and
 * pkg/scheduler/util MoreImportantPod and GetEarliestPodStartTime.
 */
#include "engine/engine_preempt.h"

#include <string.h>

#include "kube/model/labels.h"

static int64_t start_time(const struct kube_pod *p, int64_t now)
{
    return p->has_start_time ? p->start_time : now;
}

bool engine_more_important(const struct kube_pod *x, const struct kube_pod *y,
                           int64_t now)
{
    int32_t px = engine_pod_priority(x), py = engine_pod_priority(y);

    if (px != py)
        return px > py;
    return start_time(x, now) < start_time(y, now);
}

/* Sort pods most important first; stable, so equal pods keep node order. */
static void sort_by_importance(const struct kube_pod **p, size_t n, int64_t now)
{
    size_t i, j;

    for (i = 1; i < n; i++) {
        const struct kube_pod *x = p[i];

        for (j = i; j > 0 && engine_more_important(x, p[j - 1], now); j--)
            p[j] = p[j - 1];
        p[j] = x;
    }
}

/* Does pdb count pod (same namespace, a non-empty selector matching)? */
static bool pdb_covers(const struct kube_pdb *pdb, const struct kube_pod *pod)
{
    size_t i;

    /* A nil or empty (or invalid) selector matches nothing. */
    if (!pdb->selector || !pdb->selector->n_reqs || pdb->selector->invalid ||
        strcmp(pdb->namespace ? pdb->namespace : "default", pod->namespace) ||
        !kube_label_selector_matches(pdb->selector, &pod->labels))
        return false;
    /* Already in DisruptedPods: processed by the API server. */
    for (i = 0; i < pdb->disrupted.n; i++) {
        if (!strcmp(pdb->disrupted.items[i].key, pod->name))
            return false;
    }
    return true;
}

/*
 * filterPodsWithPDBViolation: split p[0..n) (order kept) into pods whose
 * eviction would take a budget below zero (first *n_viol of out) and the
 * rest (after them). allowed has room for pr->n_pdbs.
 */
static void split_by_pdb(const struct engine_preemptor *pr,
                         const struct kube_pod **p, size_t n,
                         const struct kube_pod **out, size_t *n_viol,
                         int32_t *allowed)
{
    size_t i, k, nv = 0, nn = 0;

    for (k = 0; k < pr->n_pdbs; k++)
        allowed[k] = pr->pdbs[k]->disruptions_allowed;
    for (i = 0; i < n; i++) {
        bool violated = false;

        /* A pod without labels matches no PDB. */
        for (k = 0; p[i]->labels.n && k < pr->n_pdbs; k++) {
            if (pdb_covers(pr->pdbs[k], p[i]) && --allowed[k] < 0)
                violated = true;
        }
        if (violated)
            out[nv++] = p[i];
    }
    for (i = 0; i < n; i++) {
        bool kept = false;

        for (k = 0; k < nv; k++)
            kept = kept || out[k] == p[i];
        if (!kept)
            out[nv + nn++] = p[i];
    }
    *n_viol = nv;
}

/* Does pod fit on ni (of view) once drop[0..n) are gone? */
static int fits_without(const struct engine_preemptor *pr,
                        const struct kube_pod *pod, struct cluster *view,
                        const struct node_info *ni,
                        const struct kube_pod *const *drop, size_t n,
                        struct arena *a, bool *fits, struct err *e)
{
    struct pred_verdict v;

    if (engine_filter_with_nominated(pr->plan, pod, pr->cl, view, ni->index,
                                     drop, n, pr->nominees, a, &v, e) < 0)
        return -1;
    *fits = v.code == PRED_FIT;
    return 0;
}

int engine_select_victims(const struct engine_preemptor *pr,
                          const struct kube_pod *pod, struct cluster *view,
                          const struct node_info *ni, struct arena *a,
                          struct engine_victims *out, struct err *e)
{
    int32_t prio = engine_pod_priority(pod), *allowed;
    const struct kube_pod **pot, **order, **drop;
    size_t n = 0, n_viol = 0, n_drop, i, k;
    bool fits;

    memset(out, 0, sizeof(*out));
    out->node = ni;
    pot = arena_alloc(a, (ni->n_pods + 1) * sizeof(*pot));
    order = arena_alloc(a, (ni->n_pods + 1) * sizeof(*order));
    drop = arena_alloc(a, (ni->n_pods + 1) * sizeof(*drop));
    out->pods = arena_alloc(a, (ni->n_pods + 1) * sizeof(*out->pods));
    allowed = arena_alloc(a, (pr->n_pdbs + 1) * sizeof(*allowed));
    if (!pot || !order || !drop || !out->pods || !allowed)
        return err_set(e, "out of memory");
    for (i = 0; i < ni->n_pods; i++) {
        if (engine_pod_priority(ni->pods[i]) < prio)
            pot[n++] = ni->pods[i];
    }
    /* No potential victims: the node's state would not change. */
    if (!n)
        return 0;
    if (fits_without(pr, pod, view, ni, pot, n, a, &fits, e) < 0)
        return -1;
    if (!fits)
        return 0;
    sort_by_importance(pot, n, pr->now);
    split_by_pdb(pr, pot, n, order, &n_viol, allowed);
    memcpy(drop, order, n * sizeof(*drop));
    n_drop = n;
    /* Reprieve in order: drop[] keeps the pods still evicted. */
    for (i = 0; i < n; i++) {
        for (k = 0; k < n_drop && drop[k] != order[i]; k++)
            ;
        memmove(&drop[k], &drop[k + 1], (n_drop - k - 1) * sizeof(*drop));
        n_drop--;
        if (fits_without(pr, pod, view, ni, drop, n_drop, a, &fits, e) < 0)
            return -1;
        if (fits)
            continue;
        drop[n_drop++] = order[i];
        out->pods[out->n_pods++] = order[i];
        if (i < n_viol)
            out->num_pdb_violations++;
    }
    return 1;
}

/* GetEarliestPodStartTime: the earliest start among the victims of the
 * highest priority (v->n_pods > 0). */
static int64_t earliest_start(const struct engine_victims *v, int64_t now)
{
    int64_t best = start_time(v->pods[0], now);
    int32_t top = engine_pod_priority(v->pods[0]);
    size_t i;

    for (i = 1; i < v->n_pods; i++) {
        int32_t p = engine_pod_priority(v->pods[i]);
        int64_t t = start_time(v->pods[i], now);

        if (p > top) {
            top = p;
            best = t;
        } else if (p == top && t < best) {
            best = t;
        }
    }
    return best;
}

/* One criterion of pickOneNodeForPreemption: lower is better. */
static int64_t key(const struct engine_victims *v, int which, int64_t now)
{
    int64_t sum = 0;
    size_t i;

    switch (which) {
    case 0:
        return v->num_pdb_violations;
    case 1:
        return v->n_pods ? engine_pod_priority(v->pods[0]) : INT64_MIN;
    case 2:
        /* Shifted by MaxInt32 + 1 so that more negative pods cost more. */
        for (i = 0; i < v->n_pods; i++)
            sum +=
                (int64_t)engine_pod_priority(v->pods[i]) + INT64_C(2147483648);
        return sum;
    case 3:
        return (int64_t)v->n_pods;
    default:
        /* The latest start wins. */
        return v->n_pods ? -earliest_start(v, now) : INT64_MIN;
    }
}

size_t engine_pick_one_node(const struct engine_victims *c, size_t n,
                            int64_t now)
{
    size_t best = 0, i;
    int which;

    /* Criteria in order; the first of the candidates tied on all wins
     * (upstream walks a map, so its tie is random). */
    for (i = 1; i < n; i++) {
        for (which = 0; which < 5; which++) {
            int64_t ki = key(&c[i], which, now), kb = key(&c[best], which, now);

            if (ki != kb) {
                if (ki < kb)
                    best = i;
                break;
            }
        }
    }
    return best;
}
