/*
 * node_label.c: CheckNodeLabelPresence (labelsPresence argument), the
 * v1.22 NodeLabel filter plugin (plugins/nodelabel). Only label keys
 * matter: every presentLabels key must be on the node and no absentLabels
 * key may be.
 */
#include "predicates/plugins.h"

#include "kube/model/labels.h"
#include "predicates/predicates.h"
#include "predicates/node_label.h"

#define PRED_NAME_CHECK_NODE_LABEL_PRESENCE "CheckNodeLabelPresence"

static bool all_present(const struct kube_labels *l,
                        const struct policy_strlist *keys, bool want)
{
    for (size_t i = 0; i < keys->n; i++)
        if ((kube_labels_get(l, keys->v[i]) != NULL) != want)
            return false;
    return true;
}

/*
 * Filter: args is a struct pred_args whose value is the folded struct
 * kpe_label_lists (NULL, or no args, means empty lists: always fit).
 * Failure is UnschedulableAndUnresolvable; a node_info without a node is
 * an error.
 */
enum pred_code pred_node_label_filter(const struct pred_cycle *cy,
                                      const void *args, const void *state,
                                      const struct node_info *ni,
                                      struct pred_result *r)
{
    const struct pred_args *a = args;
    const struct kpe_label_lists *l = a ? a->value : NULL;
    const struct kube_labels *labels;

    (void)cy;
    (void)state;
    if (!ni || !ni->node)
        return pred_fail(r, PRED_ERROR, "node not found");
    if (!l)
        return PRED_FIT;
    labels = &ni->node->labels;
    if (all_present(labels, &l->present, true) &&
        all_present(labels, &l->absent, false))
        return PRED_FIT;
    return pred_fail(r, PRED_UNFIT_UNRESOLVABLE, PRED_REASON_NODE_LABEL);
}

const struct pred_plugin pred_plugin_node_label = {
    { "NodeLabel", KPE_EP_FILTER },
    NULL,
    pred_node_label_filter,
    (const char *const[]){ PRED_REASON_NODE_LABEL, NULL },
    PRED_STABLE_ALWAYS,
};

/* The labelsPresence argument as written (v1 LabelsPresence). */
struct labels_presence {
    struct policy_strlist labels;
    bool presence;
};

static const struct kpe_arg_field labels_presence_fields[] = {
    { .name = "labels",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct labels_presence, labels),
      .type_doc = "[]string",
      .def = "[]" },
    { .name = "presence",
      .type = KPE_ARG_BOOL,
      .offset = offsetof(struct labels_presence, presence),
      .type_doc = "bool",
      .def = "false" },
};

static const struct kpe_arg_schema labels_presence_schema = {
    .key = "labelsPresence",
    .api_order = 1,
    .size = sizeof(struct labels_presence),
    .fields = KPE_ARG_FIELDS(labels_presence_fields),
    .note = "any unregistered predicate name with this argument runs "
            "CheckNodeLabelPresence; entries add to its label lists",
};

/* labelsPresence: labels appended to presentLabels or absentLabels. */
static int parse_node_label_args(const void *written, struct arena *a,
                                 struct pred_args *out, struct err *e)
{
    const struct labels_presence *lp = written;
    struct kpe_label_lists *l;

    if (!lp)
        return 0;
    l = kpe_args_fold(&out->value, sizeof(*l), a);
    if (!l)
        return err_set(e, "out of memory");
    return kpe_strlist_append(a, lp->presence ? &l->present : &l->absent,
                              &lp->labels, e);
}

/* The typed arguments, as check shows them. */
static const struct kpe_arg_field node_label_resolved_fields[] = {
    { .name = "presentLabels",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct kpe_label_lists, present) },
    { .name = "absentLabels",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct kpe_label_lists, absent) },
};

static const struct kpe_arg_schema node_label_resolved = {
    .key = "node_label",
    .fields = KPE_ARG_FIELDS(node_label_resolved_fields),
};

const struct pred_def pred_check_node_label_presence = {
    .name = PRED_NAME_CHECK_NODE_LABEL_PRESENCE,
    .aliases = NULL,
    .flags = PRED_CUSTOM_ONLY,
    .needs = 0,
    .args = &labels_presence_schema,
    .resolved = &node_label_resolved,
    .parse_args = parse_node_label_args,
    .plugins = { &pred_plugin_node_label },
    .own = NULL,
    .doc = "the node has (or lacks) the labels an argument names",
};
