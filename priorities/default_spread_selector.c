/*
 * default_spread_selector.c: helper.DefaultSelector of kube-scheduler
 * v1.22 (plugins/helper/spread.go) and the pod counting the spreading
 * plugins share (podtopologyspread/common.go countPodsMatchSelector).
 */
#include "priorities/default_spread_selector.h"

#include <string.h>

#include "kube/model/labels.h"

/* The growing map of label requirements merged from services and RCs. */
struct merged {
    size_t n, cap;
    struct kube_label *items;
};

static int merge_map(struct arena *a, struct merged *m,
                     const struct kube_labels *sel)
{
    size_t i, j;

    for (i = 0; i < sel->n; i++) {
        for (j = 0; j < m->n; j++) {
            if (!strcmp(m->items[j].key, sel->items[i].key))
                break;
        }
        if (j < m->n) { /* labels.Merge: the later map wins */
            m->items[j].value = sel->items[i].value;
            continue;
        }
        if (m->n == m->cap) {
            size_t cap = m->cap ? m->cap * 2 : 8;
            struct kube_label *ni = arena_alloc(a, cap * sizeof(*ni));

            if (!ni)
                return -1;
            if (m->n)
                memcpy(ni, m->items, m->n * sizeof(*ni));
            m->items = ni;
            m->cap = cap;
        }
        m->items[m->n++] = sel->items[i];
    }
    return 0;
}

bool prio_service_selects_pod(const struct kube_service *svc,
                              const struct kube_pod *pod)
{
    if (strcmp(svc->namespace ? svc->namespace : "",
               pod->namespace ? pod->namespace : ""))
        return false;
    if (!svc->selector.present)
        return false;
    return kube_labels_contain(&pod->labels, &svc->selector);
}

/* metav1.GetControllerOf: the first owner reference with controller set. */
static const struct kube_owner_ref *controller_of(const struct kube_pod *pod)
{
    size_t i;

    for (i = 0; i < pod->n_owner_refs; i++) {
        if (pod->owner_refs[i].controller)
            return &pod->owner_refs[i];
    }
    return NULL;
}

static bool same(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

static const struct kube_workload *find_workload(struct kube_workload *const *v,
                                                 size_t n, const char *ns,
                                                 const char *name)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (same(v[i]->namespace, ns) && same(v[i]->name, name))
            return v[i];
    }
    return NULL;
}

static const struct kube_replication_controller *
find_rc(const struct kube_objects *o, const char *ns, const char *name)
{
    size_t i;

    for (i = 0; i < o->n_rcs; i++) {
        if (same(o->rcs[i]->namespace, ns) && same(o->rcs[i]->name, name))
            return o->rcs[i];
    }
    return NULL;
}

/* The controller's own requirements (RS, SS), or NULL when none apply. */
static const struct kube_label_selector *
owner_requirements(const struct kube_objects *o, const struct kube_pod *pod,
                   const struct kube_owner_ref *owner)
{
    const struct kube_workload *w = NULL;

    if (!same(owner->api_version, "apps/v1"))
        return NULL;
    if (same(owner->kind, "ReplicaSet"))
        w = find_workload(o->replica_sets, o->n_replica_sets, pod->namespace,
                          owner->name);
    else if (same(owner->kind, "StatefulSet"))
        w = find_workload(o->stateful_sets, o->n_stateful_sets, pod->namespace,
                          owner->name);
    /* A nil selector is labels.Nothing(): it has no requirements to add. */
    if (!w || !w->selector || w->selector->invalid)
        return NULL;
    return w->selector;
}

/*
 * v1.20.2 GetPodControllers: with pod labels, every RC of the namespace
 * whose non-empty selector map the labels contain, merged into m.
 */
static int merge_lister_rcs(const struct kube_objects *o,
                            const struct kube_pod *pod, struct arena *a,
                            struct merged *m)
{
    size_t i;

    if (!pod->labels.n)
        return 0;
    for (i = 0; i < o->n_rcs; i++) {
        const struct kube_replication_controller *rc = o->rcs[i];

        if (!same(rc->namespace, pod->namespace) || !rc->selector.n ||
            !kube_labels_contain(&pod->labels, &rc->selector))
            continue;
        if (merge_map(a, m, &rc->selector) < 0)
            return -1;
    }
    return 0;
}

/*
 * v1.20.2 GetPodReplicaSets / GetPodStatefulSets: with pod labels, the
 * workloads of the namespace whose selector matches them (a nil selector
 * matches nothing, an empty one is skipped), none at all when any
 * selector of the namespace is invalid (the lister's error). Appends their
 * requirements to out (room for them all is the caller's).
 */
static void add_lister_workloads(struct kube_workload *const *v, size_t n,
                                 const struct kube_pod *pod,
                                 struct kube_label_selector *out)
{
    size_t i, k;

    if (!pod->labels.n)
        return;
    for (i = 0; i < n; i++) {
        if (same(v[i]->namespace, pod->namespace) && v[i]->selector &&
            v[i]->selector->invalid)
            return;
    }
    for (i = 0; i < n; i++) {
        const struct kube_label_selector *s = v[i]->selector;

        if (!same(v[i]->namespace, pod->namespace) || !s || !s->n_reqs ||
            !kube_label_selector_matches(s, &pod->labels))
            continue;
        for (k = 0; k < s->n_reqs; k++)
            out->reqs[out->n_reqs++] = s->reqs[k];
    }
}

static size_t workload_reqs(struct kube_workload *const *v, size_t n)
{
    size_t i, sum = 0;

    for (i = 0; i < n; i++)
        sum += v[i]->selector ? v[i]->selector->n_reqs : 0;
    return sum;
}

/* helper.DefaultSelector of v1.20.2 and v1.21 (before #102236). */
static int lister_selector(const struct kube_objects *o,
                           const struct kube_pod *pod, struct arena *a,
                           struct merged *m, struct kube_label_selector *out)
{
    size_t i;

    if (merge_lister_rcs(o, pod, a, m) < 0)
        return -1;
    out->reqs = arena_calloc(
        a,
        m->n + workload_reqs(o->replica_sets, o->n_replica_sets) +
            workload_reqs(o->stateful_sets, o->n_stateful_sets) + 1,
        sizeof(*out->reqs));
    if (!out->reqs)
        return -1;
    for (i = 0; i < m->n; i++) {
        struct kube_requirement *r = &out->reqs[out->n_reqs++];

        r->key = m->items[i].key;
        r->op = KUBE_OP_IN;
        r->n_values = 1;
        r->values = &m->items[i].value;
    }
    add_lister_workloads(o->replica_sets, o->n_replica_sets, pod, out);
    add_lister_workloads(o->stateful_sets, o->n_stateful_sets, pod, out);
    return 0;
}

int prio_default_spread_selector(const struct cluster *c,
                                 const struct kube_pod *pod,
                                 enum kpe_semantics sem, struct arena *a,
                                 struct kube_label_selector *out)
{
    const struct kube_objects *o = c->objs;
    const struct kube_owner_ref *owner = controller_of(pod);
    const struct kube_label_selector *extra = NULL;
    struct merged m = { 0, 0, NULL };
    size_t i, n_extra;

    memset(out, 0, sizeof(*out));
    for (i = 0; i < o->n_services; i++) {
        if (prio_service_selects_pod(o->services[i], pod) &&
            merge_map(a, &m, &o->services[i]->selector) < 0)
            return -1;
    }
    /* the owner reference from #102236 (v1.22.0), listers before (D6) */
    if (sem < KPE_SEM_1_22)
        return lister_selector(o, pod, a, &m, out);
    if (owner && same(owner->api_version, "v1") &&
        same(owner->kind, "ReplicationController")) {
        const struct kube_replication_controller *rc =
            find_rc(o, pod->namespace, owner->name);

        if (rc && merge_map(a, &m, &rc->selector) < 0)
            return -1;
    } else if (owner) {
        extra = owner_requirements(o, pod, owner);
    }
    n_extra = extra ? extra->n_reqs : 0;
    out->reqs = arena_calloc(a, m.n + n_extra + 1, sizeof(*out->reqs));
    if (!out->reqs)
        return -1;
    for (i = 0; i < m.n; i++) {
        struct kube_requirement *r = &out->reqs[out->n_reqs++];

        r->key = m.items[i].key;
        r->op = KUBE_OP_IN;
        r->n_values = 1;
        r->values = &m.items[i].value;
    }
    for (i = 0; i < n_extra; i++)
        out->reqs[out->n_reqs++] = extra->reqs[i];
    return 0;
}

int64_t prio_count_matching_pods(const struct node_info *ni, const char *ns,
                                 const struct kube_label_selector *sel)
{
    int64_t n = 0;
    size_t i;

    if (!sel)
        return 0;
    for (i = 0; i < ni->n_pods; i++) {
        const struct kube_pod *p = ni->pods[i];

        if (p->deleting || !same(p->namespace, ns))
            continue;
        if (kube_label_selector_matches(sel, &p->labels))
            n++;
    }
    return n;
}

bool prio_pod_fits_node_affinity(const struct kube_pod *pod,
                                 const struct kube_node *node)
{
    if (!kube_labels_contain(&node->labels, &pod->node_selector))
        return false;
    if (pod->affinity.node_required &&
        !kube_node_selector_matches(pod->affinity.node_required, &node->labels,
                                    node->name))
        return false;
    return true;
}
