/*
 * rack_pinning.c: RackPinning, the example of docs/extending.md "Writing your
 * own predicate in C": a predicate with an argument, added by this file, its
 * test and one line in predicates/registry.c (tests/cli/test_add_predicate.sh
 * does exactly that to a copy of the tree). A pod labelled "rack-pinned"
 * fits only nodes whose rack label is one of the argument's racks; other
 * pods fit everywhere.
 *
 *   {"name": "RackPinning",
 *    "argument": {"rackPinning": {"label": "example.com/rack",
 *                                 "racks": ["r1", "r2"]}}}
 */
#include <string.h>

#include "kube/model/labels.h"
#include "predicates/predicates.h"

#define RACK_PINNING_REASON "node(s) are not in the pod's racks"

/* The argument as written; the schema below says how. */
struct rack_pinning_arg {
    const char *label;           /* node label holding the rack */
    struct policy_strlist racks; /* the racks pinned pods may use */
};

static const struct kpe_arg_field rack_pinning_fields[] = {
    { .name = "label",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct rack_pinning_arg, label),
      .type_doc = "string",
      .def = "topology.example.com/rack" },
    { .name = "racks",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct rack_pinning_arg, racks),
      .type_doc = "[]string",
      .def = "[]" },
};

static const struct kpe_arg_schema rack_pinning_schema = {
    .key = "rackPinning",
    .api_order = 200,
    .size = sizeof(struct rack_pinning_arg),
    .fields = KPE_ARG_FIELDS(rack_pinning_fields),
    .note = "example: pods labelled rack-pinned fit only these racks",
};

/* The argument as written is what the filter reads: keep the last one. */
static int parse_rack_pinning(const void *written, struct arena *a,
                              struct pred_args *out, struct err *e)
{
    (void)a;
    (void)e;
    out->value = written;
    return 0;
}

static enum pred_code rack_pinning_filter(const struct pred_cycle *cy,
                                          const void *args, const void *state,
                                          const struct node_info *ni,
                                          struct pred_result *r)
{
    const struct pred_args *pa = args;
    const struct rack_pinning_arg *arg = pa ? pa->value : NULL;
    const char *label =
        arg && arg->label ? arg->label : "topology.example.com/rack";
    const char *rack;
    size_t i;

    (void)state;
    if (!kube_labels_get(&cy->pod->labels, "rack-pinned"))
        return PRED_FIT;
    rack = kube_labels_get(&ni->node->labels, label);
    for (i = 0; rack && arg && i < arg->racks.n; i++) {
        if (!strcmp(arg->racks.v[i], rack))
            return PRED_FIT;
    }
    return pred_fail(r, PRED_UNFIT, RACK_PINNING_REASON);
}

static const struct pred_plugin rack_pinning_plugin = {
    { "RackPinning", 0 }, NULL,
    rack_pinning_filter,  (const char *const[]){ RACK_PINNING_REASON, NULL },
    PRED_STABLE_ALWAYS, /* pod labels against this node's labels only */
};

const struct pred_def pred_rack_pinning = {
    .name = "RackPinning",
    .flags = PRED_EXTENSION,
    .args = &rack_pinning_schema,
    .parse_args = parse_rack_pinning,
    .own = &rack_pinning_plugin,
    .doc = "example: pods labelled rack-pinned fit only the argument's racks",
};
