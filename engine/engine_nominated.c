/*
 * engine_nominated.c: nominated pods in filtering (engine_nominated.h),
 * after kube-scheduler v1.22's framework/runtime/framework.go
 * RunFilterPluginsWithNominatedPods and addNominatedPods, on the cluster
 * views of kube/cluster/cluster.h.
 */
#include "engine/engine_nominated.h"

#include <stdlib.h>
#include <string.h>

int32_t engine_pod_priority(const struct kube_pod *pod)
{
    return pod->has_priority ? pod->priority : 0;
}

int engine_same_pod(const struct kube_pod *x, const struct kube_pod *y)
{
    if (x == y)
        return 1;
    if (x->uid && *x->uid && y->uid && *y->uid)
        return !strcmp(x->uid, y->uid);
    return x->name && y->name && !strcmp(x->name, y->name) &&
           !strcmp(x->namespace ? x->namespace : "",
                   y->namespace ? y->namespace : "");
}

struct by_node {
    const char *node;
    size_t index;
};

static int by_node_cmp(const void *x, const void *y)
{
    const struct by_node *a = x, *b = y;
    int c = strcmp(a->node, b->node);

    if (c)
        return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

int engine_nominees_index(struct arena *a, const struct engine_nominee *nom,
                          size_t n, struct engine_nominees *ix)
{
    struct by_node *keys = arena_alloc(a, (n ? n : 1) * sizeof(*keys));
    size_t *order = arena_alloc(a, (n ? n : 1) * sizeof(*order));
    size_t i, k = 0;

    memset(ix, 0, sizeof(*ix));
    if (!keys || !order)
        return -1;
    for (i = 0; i < n; i++) {
        if (nom[i].node) {
            keys[k].node = nom[i].node;
            keys[k++].index = i;
        }
    }
    if (k > 1)
        qsort(keys, k, sizeof(*keys), by_node_cmp);
    for (i = 0; i < k; i++)
        order[i] = keys[i].index;
    ix->nom = nom;
    ix->n = n;
    ix->order = order;
    ix->n_order = k;
    return 0;
}

size_t engine_nominated_on(const struct engine_nominees *ix,
                           const struct kube_pod *pod, const char *node,
                           const struct kube_pod **out)
{
    int32_t prio = engine_pod_priority(pod);
    size_t n = ix ? ix->n_order : 0, lo = 0, hi = n, k = 0;

    /* The first of node's entries. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (strcmp(ix->nom[ix->order[mid]].node, node) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n; lo++) {
        const struct engine_nominee *x = &ix->nom[ix->order[lo]];

        if (strcmp(x->node, node))
            break;
        if (engine_pod_priority(x->pod) >= prio &&
            !engine_same_pod(x->pod, pod))
            out[k++] = x->pod;
    }
    return k;
}

/* Filter pod on node idx of view changed by ch; *v from a. */
static int filter_changed(const struct pred_plan *plan,
                          const struct kube_pod *pod, const struct cluster *c,
                          struct cluster *view, size_t idx,
                          const struct cluster_view_change *ch, struct arena *a,
                          struct pred_verdict *v, struct err *e)
{
    const struct node_info *ni = &view->nodes[idx];
    struct eval_result r;
    int rc;

    if (cluster_view_set_node(a, c, view, idx, ch) < 0) {
        cluster_view_reset_node(c, view, idx);
        return err_set(e, "out of memory");
    }
    rc = eval_filter(plan, pod, view, &ni, 1, 0, 1, a, &r, NULL, e);
    cluster_view_reset_node(c, view, idx);
    if (rc < 0)
        return -1;
    *v = r.nodes[0].verdict;
    return 0;
}

int engine_filter_with_nominated(const struct pred_plan *plan,
                                 const struct kube_pod *pod,
                                 const struct cluster *c, struct cluster *view,
                                 size_t idx, const struct kube_pod *const *drop,
                                 size_t n_drop,
                                 const struct engine_nominees *ix,
                                 struct arena *a, struct pred_verdict *v,
                                 struct err *e)
{
    const struct kube_pod **add =
        arena_alloc(a, (ix && ix->n ? ix->n : 1) * sizeof(*add));
    struct cluster_view_change ch = { .drop = drop, .n_drop = n_drop };

    if (!add)
        return err_set(e, "out of memory");
    ch.add = add;
    ch.n_add = engine_nominated_on(ix, pod, c->nodes[idx].node->name, add);
    if (filter_changed(plan, pod, c, view, idx, &ch, a, v, e) < 0)
        return -1;
    if (!ch.n_add || v->code != PRED_FIT)
        return 0;
    ch.n_add = 0;
    return filter_changed(plan, pod, c, view, idx, &ch, a, v, e);
}

int engine_recheck_nominated(const struct pred_plan *plan,
                             const struct kube_pod *pod,
                             const struct cluster *c,
                             const struct engine_nominees *ix, struct arena *a,
                             struct eval_result *r, struct err *e)
{
    const struct kube_pod **add;
    struct cluster view;
    bool have_view = false;
    size_t i;

    if (!ix || !ix->n_order || !r->n_feasible)
        return 0;
    add = arena_alloc(a, ix->n * sizeof(*add));
    if (!add)
        return err_set(e, "out of memory");
    r->n_feasible = 0;
    for (i = 0; i < r->n_nodes; i++) {
        struct eval_node *en = &r->nodes[i];

        if (!en->feasible)
            continue;
        if (engine_nominated_on(ix, pod, en->ni->node->name, add)) {
            if (!have_view && cluster_view_begin(a, c, &view) < 0)
                return err_set(e, "out of memory");
            have_view = true;
            if (engine_filter_with_nominated(plan, pod, c, &view, en->ni->index,
                                             NULL, 0, ix, a, &en->verdict,
                                             e) < 0)
                return -1;
            en->feasible = en->verdict.code == PRED_FIT;
            if (!en->feasible) {
                en->feasible_index = -1;
                continue;
            }
        }
        en->feasible_index = (int)r->n_feasible;
        r->feasible[r->n_feasible++] = en->ni;
    }
    return 0;
}
