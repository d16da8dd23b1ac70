/*
 * service_affinity.c: ServiceAffinity scoring as kube-scheduler v1.22 runs
 * it for the Policy's serviceAntiAffinity priorities (plugins/
 * serviceaffinity/service_affinity.go): the pods of the pod's first
 * service are spread over the values of each antiAffinityLabelsPreference
 * label, each label contributing 1/len(labels) of the score.
 */
#include <string.h>

#include "kube/model/labels.h"
#include "priorities/default_spread_selector.h"
#include "priorities/plugins.h"
#include "priorities/priorities.h"
#include "kube/cluster/topology_counts.h"

#define PRIO_NAME_SERVICE_AFFINITY "ServiceAffinity"

struct service_affinity_state {
    const struct kube_labels *selector; /* NULL: no service selects the pod */
};

int prio_service_affinity_prescore(struct prio_cycle *cy, const void *args,
                                   void **state, struct err *e)
{
    const struct kube_objects *o = cy->cluster->objs;
    struct service_affinity_state *s = arena_calloc(cy->arena, 1, sizeof(*s));
    size_t i;

    (void)args;
    if (!s)
        return err_set(e, "ServiceAffinity: out of memory");
    *state = s;
    /* services[0] of GetPodServices, in input (lister) order. */
    for (i = 0; i < o->n_services && !s->selector; i++) {
        if (prio_service_selects_pod(o->services[i], cy->pod))
            s->selector = &o->services[i]->selector;
    }
    return 0;
}

int prio_service_affinity_score(const struct prio_cycle *cy, const void *args,
                                const void *state, const struct node_info *ni,
                                int64_t *score, struct err *e)
{
    const struct service_affinity_state *s = state;
    size_t i;

    (void)args;
    (void)e;
    *score = 0;
    if (!ni->n_pods || !s->selector || !s->selector->n)
        return 0;
    for (i = 0; i < ni->n_pods; i++) {
        const struct kube_pod *p = ni->pods[i];

        if (p->deleting || strcmp(p->namespace ? p->namespace : "",
                                  cy->pod->namespace ? cy->pod->namespace : ""))
            continue;
        if (kube_labels_contain(&p->labels, s->selector))
            (*score)++;
    }
    return 0;
}

/* updateNodeScoresForLabel: add this label's share to acc. */
static int add_label(const struct prio_cycle *cy, const char *label,
                     const int64_t *raw, double *acc, size_t n_labels,
                     struct err *e)
{
    const double max_score = (double)PRIO_MAX_NODE_SCORE;
    struct topo_counts counts;
    int64_t total = 0;
    size_t i;

    if (topo_counts_init_hint(&counts, cy->arena, 16) < 0)
        return err_set(e, "ServiceAffinity: out of memory");
    for (i = 0; i < cy->n_nodes; i++) {
        const char *v = kube_labels_get(&cy->nodes[i]->node->labels, label);
        int64_t *cnt;

        total += raw[i];
        if (!v)
            continue;
        cnt = topo_counts_add(&counts, label, v, NULL);
        if (!cnt)
            return err_set(e, "ServiceAffinity: out of memory");
        *cnt += raw[i];
    }
    for (i = 0; i < cy->n_nodes; i++) {
        const char *v = kube_labels_get(&cy->nodes[i]->node->labels, label);
        double f = max_score;

        if (!v)
            continue;
        if (total > 0)
            f = max_score *
                ((double)(total - *topo_counts_find(&counts, label, v)) /
                 (double)total);
        acc[i] += f / (double)n_labels;
    }
    return 0;
}

int prio_service_affinity_normalize(const struct prio_cycle *cy,
                                    const void *args, const void *state,
                                    int64_t *scores, struct err *e)
{
    const struct prio_args *pa = args;
    const struct policy_strlist *labels = NULL;
    double *acc;
    size_t i;

    (void)state;
    if (pa)
        labels = pa->value; /* the folded struct policy_strlist */
    acc = arena_calloc(cy->arena, cy->n_nodes + 1, sizeof(*acc));
    if (!acc)
        return err_set(e, "ServiceAffinity: out of memory");
    for (i = 0; labels && i < labels->n; i++) {
        if (add_label(cy, labels->v[i], scores, acc, labels->n, e) < 0)
            return -1;
    }
    for (i = 0; i < cy->n_nodes; i++)
        scores[i] = (int64_t)acc[i];
    return 0;
}

const struct prio_plugin prio_plugin_service_affinity = {
    { "ServiceAffinity", KPE_EP_SCORE },
    prio_service_affinity_prescore,
    prio_service_affinity_score,
    prio_service_affinity_normalize,
};

/* The serviceAntiAffinity argument as written (v1 ServiceAntiAffinity). */
struct service_anti_affinity {
    const char *label;
};

static const struct kpe_arg_field service_anti_affinity_fields[] = {
    { .name = "label",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct service_anti_affinity, label),
      .type_doc = "string" },
};

static const struct kpe_arg_schema service_anti_affinity_schema = {
    .key = "serviceAntiAffinity",
    .api_order = 0,
    .size = sizeof(struct service_anti_affinity),
    .fields = KPE_ARG_FIELDS(service_anti_affinity_fields),
    .note = "any unregistered priority name with this argument scores "
            "through ServiceAffinity; the plugin weight is weight x number "
            "of labels",
};

/* serviceAntiAffinity: one label to spread a service's pods over. */
static int parse_service_affinity_args(const void *written, struct arena *a,
                                       struct prio_args *out, struct err *e)
{
    const struct service_anti_affinity *saa = written;
    struct policy_strlist *labels;

    if (!saa)
        return 0;
    labels = kpe_args_fold(&out->value, sizeof(*labels), a);
    if (!labels)
        return err_set(e, "out of memory");
    return kpe_strlist_push(a, labels, saa->label, e);
}

/* PRIO_WEIGHT_LABELS: one unit of weight per anti-affinity label. */
static int64_t label_count(const struct prio_args *a)
{
    const struct policy_strlist *labels = a->value;

    return labels ? (int64_t)labels->n : 0;
}

/* The typed arguments, as check shows them. */
static const struct kpe_arg_field service_affinity_resolved_fields[] = {
    { .name = "antiAffinityLabelsPreference",
      .type = KPE_ARG_STRINGS,
      .offset = 0 }, /* the folded struct policy_strlist */
};

static const struct kpe_arg_schema service_affinity_resolved = {
    .key = "service_affinity",
    .fields = KPE_ARG_FIELDS(service_affinity_resolved_fields),
};

const struct prio_def prio_service_affinity = {
    .name = PRIO_NAME_SERVICE_AFFINITY,
    .aliases = NULL,
    .flags = PRIO_CUSTOM_ONLY | PRIO_WEIGHT_LABELS,
    .default_weight = 0,
    .needs = KPE_NEED_ALL_PODS | KPE_NEED_SERVICES,
    .args = &service_anti_affinity_schema,
    .resolved = &service_affinity_resolved,
    .parse_args = parse_service_affinity_args,
    .weight_count = label_count,
    .plugins = { &prio_plugin_service_affinity },
    .own = NULL,
    .gate_off = NULL,
    .doc = "spreads a service's pods over the values of the label an argument "
           "names",
};
