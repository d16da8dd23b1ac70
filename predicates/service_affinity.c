/*
 * service_affinity.c: CheckServiceAffinity (a `serviceAffinity` argument),
 * the v1.22 ServiceAffinity filter plugin (plugins/serviceaffinity): the
 * node must carry the pod's nodeSelector values for the affinity labels;
 * labels the selector leaves open are taken from the node of the first pod
 * that looks like this one, when some Service selects the pod
 * (predicates.md B.10).
 */
#include <stdbool.h>
#include <string.h>

#include "kube/model/labels.h"
#include "predicates/plugins.h"
#include "predicates/predicates.h"
#include "predicates/service_affinity.h"

#define PRED_NAME_CHECK_SERVICE_AFFINITY "CheckServiceAffinity"

/* A pod of the namespace whose labels contain the incoming pod's. */
struct sa_match {
    const struct kube_pod *pod;
    const struct node_info *ni;
};

struct sa_state {
    const char **wanted; /* per affinity label: nodeSelector value or NULL */
    bool missing;        /* some affinity label has no nodeSelector value */
    bool has_services;   /* some Service of the namespace selects the pod */
    size_t n_matches;
    struct sa_match *matches; /* node order, then pod order on the node */
};

static const struct policy_strlist *affinity_labels(const void *args)
{
    const struct pred_args *a = args;

    return a ? a->value : NULL; /* the folded struct policy_strlist */
}

/* GetPodServices: a nil selector selects nothing, an empty one all. */
static bool pod_has_services(const struct cluster *c,
                             const struct kube_pod *pod)
{
    size_t i;

    for (i = 0; i < c->objs->n_services; i++) {
        const struct kube_service *s = c->objs->services[i];

        if (strcmp(s->namespace, pod->namespace) || !s->selector.present)
            continue;
        if (kube_labels_contain(&pod->labels, &s->selector))
            return true;
    }
    return false;
}

/* filterPods: pods of the namespace whose labels contain pod's labels. */
static int collect_matches(const struct cluster *c, const struct kube_pod *pod,
                           struct arena *a, struct sa_state *s)
{
    size_t i, j, n = 0;

    for (i = 0; i < c->n_nodes; i++)
        n += c->nodes[i].n_pods;
    if (!n)
        return 0;
    s->matches = arena_calloc(a, n, sizeof(*s->matches));
    if (!s->matches)
        return -1;
    for (i = 0; i < c->n_nodes; i++) {
        const struct node_info *ni = &c->nodes[i];

        for (j = 0; j < ni->n_pods; j++) {
            const struct kube_pod *p = ni->pods[j];

            if (strcmp(p->namespace, pod->namespace) ||
                !kube_labels_contain(&p->labels, &pod->labels))
                continue;
            s->matches[s->n_matches].pod = p;
            s->matches[s->n_matches++].ni = ni;
        }
    }
    return 0;
}

enum pred_code pred_service_affinity_prefilter(struct pred_cycle *cy,
                                               const void *args, void **state,
                                               struct pred_result *r)
{
    const struct policy_strlist *labels = affinity_labels(args);
    struct sa_state *s = arena_calloc(cy->arena, 1, sizeof(*s));
    size_t i;

    if (!s)
        return pred_fail(r, PRED_ERROR, "ServiceAffinity: out of memory");
    *state = s;
    if (!labels || !labels->n)
        return PRED_FIT;
    s->wanted = arena_calloc(cy->arena, labels->n, sizeof(*s->wanted));
    if (!s->wanted)
        return pred_fail(r, PRED_ERROR, "ServiceAffinity: out of memory");
    for (i = 0; i < labels->n; i++) {
        s->wanted[i] = kube_labels_get(&cy->pod->node_selector, labels->v[i]);
        if (!s->wanted[i])
            s->missing = true;
    }
    s->has_services = pod_has_services(cy->cluster, cy->pod);
    if (s->missing && s->has_services &&
        collect_matches(cy->cluster, cy->pod, cy->arena, s) < 0)
        return pred_fail(r, PRED_ERROR, "ServiceAffinity: out of memory");
    return PRED_FIT;
}

/*
 * The node of the first matching pod after NodeInfo.FilterOutPods: a pod
 * on the node being filtered counts only when it has a UID (v1.22 keys
 * NodeInfo pods by UID and drops the pod when it has none). NULL: none.
 */
static const struct node_info *backfill_node(const struct sa_state *s,
                                             const struct node_info *ni)
{
    size_t i;

    for (i = 0; i < s->n_matches; i++) {
        const struct sa_match *m = &s->matches[i];

        if (m->ni != ni || (m->pod->uid && *m->pod->uid))
            return m->ni;
    }
    return NULL;
}

enum pred_code pred_service_affinity_filter(const struct pred_cycle *cy,
                                            const void *args, const void *state,
                                            const struct node_info *ni,
                                            struct pred_result *r)
{
    const struct policy_strlist *labels = affinity_labels(args);
    const struct sa_state *s = state;
    const struct node_info *from = NULL;
    size_t i;

    (void)cy;
    if (!labels || !labels->n)
        return PRED_FIT;
    if (!s || !s->wanted)
        return pred_fail(r, PRED_ERROR,
                         "error reading \"PreFilterServiceAffinity\" from "
                         "cycleState: not found");
    if (s->missing && s->has_services)
        from = backfill_node(s, ni);
    for (i = 0; i < labels->n; i++) {
        const char *want = s->wanted[i];
        const char *have = kube_labels_get(&ni->node->labels, labels->v[i]);

        if (!want && from)
            want = kube_labels_get(&from->node->labels, labels->v[i]);
        if (want && (!have || strcmp(have, want)))
            return pred_fail(r, PRED_UNFIT, PRED_REASON_SERVICE_AFFINITY);
    }
    return PRED_FIT;
}

const struct pred_plugin pred_plugin_service_affinity = {
    { "ServiceAffinity", KPE_EP_PREFILTER | KPE_EP_FILTER },
    pred_service_affinity_prefilter,
    pred_service_affinity_filter,
    (const char *const[]){ PRED_REASON_SERVICE_AFFINITY, NULL },
    PRED_STABLE_NEVER,
};

/* The serviceAffinity argument as written (v1 ServiceAffinity). */
struct service_affinity_arg {
    struct policy_strlist labels;
};

static const struct kpe_arg_field service_affinity_fields[] = {
    { .name = "labels",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct service_affinity_arg, labels),
      .type_doc = "[]string",
      .def = "[]" },
};

static const struct kpe_arg_schema service_affinity_schema = {
    .key = "serviceAffinity",
    .api_order = 0,
    .size = sizeof(struct service_affinity_arg),
    .fields = KPE_ARG_FIELDS(service_affinity_fields),
    .note = "any unregistered predicate name with this argument runs "
            "CheckServiceAffinity; entries add to its labels",
};

/* serviceAffinity: labels appended to affinityLabels. */
static int parse_service_affinity_args(const void *written, struct arena *a,
                                       struct pred_args *out, struct err *e)
{
    const struct service_affinity_arg *sa = written;
    struct policy_strlist *labels;

    if (!sa)
        return 0;
    labels = kpe_args_fold(&out->value, sizeof(*labels), a);
    if (!labels)
        return err_set(e, "out of memory");
    return kpe_strlist_append(a, labels, &sa->labels, e);
}

/* The typed arguments, as check shows them. */
static const struct kpe_arg_field service_affinity_resolved_fields[] = {
    { .name = "affinityLabels",
      .type = KPE_ARG_STRINGS,
      .offset = 0 }, /* the folded struct policy_strlist */
};

static const struct kpe_arg_schema service_affinity_resolved = {
    .key = "service_affinity",
    .fields = KPE_ARG_FIELDS(service_affinity_resolved_fields),
};

const struct pred_def pred_check_service_affinity = {
    .name = PRED_NAME_CHECK_SERVICE_AFFINITY,
    .aliases = NULL,
    .flags = PRED_CUSTOM_ONLY,
    .needs = KPE_NEED_ALL_PODS | KPE_NEED_SERVICES,
    .args = &service_affinity_schema,
    .resolved = &service_affinity_resolved,
    .parse_args = parse_service_affinity_args,
    .plugins = { &pred_plugin_service_affinity },
    .own = NULL,
    .doc = "the node's values for the argument's labels match those of the "
           "nodes running the pod's service",
};
