/*
 * node_label.c: the custom priority labelPreference, the v1.22 score
 * plugin NodeLabel (plugins/nodelabel): 100 for each preferred-present
 * label the node has and each preferred-absent label it lacks, averaged
 * over all the preferences of the Policy.
 */
#include "priorities/plugins.h"

#include "kube/model/labels.h"
#include "priorities/priorities.h"

#define PRIO_NAME_NODE_LABEL "NodeLabel"

static bool has_label(const struct kube_node *node, const char *key)
{
    return kube_labels_get(&node->labels, key) != NULL;
}

/*
 * Score: (100 × satisfied preferences) / preferences, integer division;
 * only key presence counts. No preferences (or no NodeLabel args): 0,
 * where upstream would divide by zero (a Policy always has one).
 */
int prio_node_label_score(const struct prio_cycle *cy, const void *args,
                          const void *state, const struct node_info *ni,
                          int64_t *score, struct err *e)
{
    const struct prio_args *a = args;
    const struct kpe_label_lists *l = a ? a->value : NULL;
    const struct policy_strlist *present, *absent;
    int64_t sum = 0;
    size_t i, n;

    (void)cy;
    (void)state;
    (void)e;
    *score = 0;
    if (!l)
        return 0;
    present = &l->present;
    absent = &l->absent;
    for (i = 0; i < present->n; i++) {
        if (has_label(ni->node, present->v[i]))
            sum += PRIO_MAX_NODE_SCORE;
    }
    for (i = 0; i < absent->n; i++) {
        if (!has_label(ni->node, absent->v[i]))
            sum += PRIO_MAX_NODE_SCORE;
    }
    n = present->n + absent->n;
    if (n > 0)
        *score = sum / (int64_t)n;
    return 0;
}

const struct prio_plugin prio_plugin_node_label = {
    { "NodeLabel", KPE_EP_SCORE },
    NULL,
    prio_node_label_score,
    NULL,
};

/* The labelPreference argument as written (v1 LabelPreference). */
struct label_preference {
    const char *label;
    bool presence;
};

static const struct kpe_arg_field label_preference_fields[] = {
    { .name = "label",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct label_preference, label),
      .type_doc = "string" },
    { .name = "presence",
      .type = KPE_ARG_BOOL,
      .offset = offsetof(struct label_preference, presence),
      .type_doc = "bool",
      .def = "false" },
};

static const struct kpe_arg_schema label_preference_schema = {
    .key = "labelPreference",
    .api_order = 1,
    .size = sizeof(struct label_preference),
    .fields = KPE_ARG_FIELDS(label_preference_fields),
    .note = "any unregistered priority name with this argument scores "
            "through NodeLabel; the plugin weight is weight x number of "
            "labels",
};

/* labelPreference: one label, preferred present or absent. */
static int parse_node_label_args(const void *written, struct arena *a,
                                 struct prio_args *out, struct err *e)
{
    const struct label_preference *lp = written;
    struct kpe_label_lists *l;

    if (!lp)
        return 0;
    l = kpe_args_fold(&out->value, sizeof(*l), a);
    if (!l)
        return err_set(e, "out of memory");
    return kpe_strlist_push(a, lp->presence ? &l->present : &l->absent,
                            lp->label, e);
}

/* PRIO_WEIGHT_LABELS: one unit of weight per label preference. */
static int64_t label_count(const struct prio_args *a)
{
    const struct kpe_label_lists *l = a->value;

    return l ? (int64_t)(l->present.n + l->absent.n) : 0;
}

/* The typed arguments, as check shows them. */
static const struct kpe_arg_field node_label_resolved_fields[] = {
    { .name = "presentLabelsPreference",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct kpe_label_lists, present) },
    { .name = "absentLabelsPreference",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct kpe_label_lists, absent) },
};

static const struct kpe_arg_schema node_label_resolved = {
    .key = "node_label",
    .fields = KPE_ARG_FIELDS(node_label_resolved_fields),
};

const struct prio_def prio_node_label = {
    .name = PRIO_NAME_NODE_LABEL,
    .aliases = NULL,
    .flags = PRIO_CUSTOM_ONLY | PRIO_WEIGHT_LABELS,
    .default_weight = 0,
    .needs = 0,
    .args = &label_preference_schema,
    .resolved = &node_label_resolved,
    .parse_args = parse_node_label_args,
    .weight_count = label_count,
    .plugins = { &prio_plugin_node_label },
    .own = NULL,
    .gate_off = NULL,
    .doc = "favours nodes that have (or lack) the label an argument names",
};
