/*
 * replay.c: the pods to place and one placement run (replay.h).
 */
#include "whatif/replay.h"

#include <stdlib.h>
#include <string.h>

static int cmp_ref(const struct kube_pod *a, const struct kube_pod *b)
{
    int c = strcmp(a->namespace, b->namespace);

    return c ? c : strcmp(a->name, b->name);
}

static int by_creation(const void *x, const void *y)
{
    const struct kube_pod *a = *(const struct kube_pod *const *)x;
    const struct kube_pod *b = *(const struct kube_pod *const *)y;

    if (a->creation_timestamp != b->creation_timestamp)
        return a->creation_timestamp < b->creation_timestamp ? -1 : 1;
    return cmp_ref(a, b);
}

/* PrioritySort of v1.22: higher priority first, then the older pod. */
static int by_queue(const void *x, const void *y)
{
    const struct kube_pod *a = *(const struct kube_pod *const *)x;
    const struct kube_pod *b = *(const struct kube_pod *const *)y;
    int32_t pa = a->has_priority ? a->priority : 0;
    int32_t pb = b->has_priority ? b->priority : 0;

    if (pa != pb)
        return pa > pb ? -1 : 1;
    return by_creation(x, y);
}

int whatif_pods_to_place(const struct kube_objects *objs, bool replay,
                         const char *sched, struct arena *a,
                         const struct kube_pod ***out, size_t *n)
{
    const struct kube_pod **v =
        arena_calloc(a, objs->n_pods ? objs->n_pods : 1, sizeof(*v));
    size_t i, k = 0;

    if (!v)
        return -1;
    for (i = 0; i < objs->n_pods; i++) {
        const struct kube_pod *p = objs->pods[i];

        if (!cluster_pod_is_active(p))
            continue;
        if (!replay && (p->node_name[0] || p->deleting ||
                        (sched && strcmp(p->scheduler_name, sched))))
            continue;
        v[k++] = p;
    }
    qsort(v, k, sizeof(*v), replay ? by_creation : by_queue);
    *out = v;
    *n = k;
    return 0;
}

int whatif_run_pods(const struct eval_plans *plans,
                    const struct kube_objects *objs, bool empty,
                    const struct kube_pod *const *pods, size_t n,
                    int percentage, uint64_t seed, struct arena *a,
                    struct whatif_run *r, struct err *e)
{
    struct kube_objects nodes_only = *objs;
    struct whatif_sim s;
    size_t i;
    int rc = -1;

    memset(r, 0, sizeof(*r));
    if (empty) {
        nodes_only.n_pods = 0;
        nodes_only.pods = NULL;
    }
    if (cluster_build(&r->c, empty ? &nodes_only : objs, e) < 0)
        return -1;
    r->pl = arena_calloc(a, n ? n : 1, sizeof(*r->pl));
    r->before = whatif_usage_take(&r->c, a);
    if (!r->pl || !r->before)
        return err_set(e, "out of memory");
    whatif_sim_init(&s, plans, &r->c, percentage, seed, a);
    for (i = 0; i < n; i++) {
        if (whatif_place(&s, pods[i], &r->pl[i], e) < 0)
            goto out;
    }
    r->after = whatif_usage_take(&r->c, a);
    rc = r->after ? 0 : err_set(e, "out of memory");
out:
    whatif_sim_free(&s);
    return rc;
}
