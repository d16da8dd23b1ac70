/*
 * label_rule.c: LabelRule (ours, no v1.22 plugin; served by the extender),
 * a declarative predicate for policy authors who write no C. Each entry's
 * labelRule argument says: pods matching podSelector fit only nodes
 * matching nodeSelector, failing with `reason`. Entries with a labelRule
 * argument fold into this one predicate, in Policy order; a pod must
 * satisfy every rule whose podSelector it matches. Selector syntax:
 * framework/label_rule_arg.h.
 *
 *   {"name": "RdmaOnly", "argument": {"labelRule": {
 *       "podSelector": ["high-comm"],
 *       "nodeSelector": ["node.kubernetes.io/rdma-enabled=true"],
 *       "reason": "node(s) didn't have RDMA"}}}
 */
#include "predicates/plugins.h"

#include <string.h>

#include "framework/label_rule_arg.h"
#include "predicates/predicates.h"

#define PRED_NAME_LABEL_RULE "LabelRule"

/* One entry's argument, as written. */
struct label_rule_arg {
    struct policy_strlist pod_selector;
    struct policy_strlist node_selector;
    const char *reason;
};

/* One rule as checked: the written fields, then the parsed selectors. */
struct label_rule {
    struct policy_strlist pod_selector;
    struct policy_strlist node_selector;
    const char *reason;
    struct kpe_label_sel pod, node;
};

/* The typed arguments (value): every entry's rule, in Policy order. */
struct label_rules {
    struct label_rule *v;
    size_t n;
};

static const struct kpe_arg_field written_fields[] = {
    { .name = "podSelector",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct label_rule_arg, pod_selector),
      .type_doc = "[]string",
      .def = "[]" },
    { .name = "nodeSelector",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct label_rule_arg, node_selector),
      .type_doc = "[]string" },
    { .name = "reason",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct label_rule_arg, reason),
      .type_doc = "string" },
};

static const struct kpe_arg_schema label_rule_schema = {
    .key = "labelRule",
    .api_order = 110, /* ours: after every v1.22 member and highComm */
    .size = sizeof(struct label_rule_arg),
    .fields = KPE_ARG_FIELDS(written_fields),
    .note = "ours: pods matching podSelector (all: []) fit only nodes "
            "matching nodeSelector; selector items \"key\", \"!key\", "
            "\"key=value\", \"key!=value\", all must hold; entries fold, "
            "each rule applies",
};

/* check shows the rules through the same field names. */
static const struct kpe_arg_field rule_fields[] = {
    { .name = "podSelector",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct label_rule, pod_selector) },
    { .name = "nodeSelector",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct label_rule, node_selector) },
    { .name = "reason",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct label_rule, reason) },
};

static const struct kpe_arg_schema rule_schema = {
    .key = "labelRule",
    .size = sizeof(struct label_rule),
    .fields = KPE_ARG_FIELDS(rule_fields),
};

static const struct kpe_arg_field resolved_fields[] = {
    { .name = "rules",
      .type = KPE_ARG_OBJECTS,
      .offset = offsetof(struct label_rules, v),
      .count_offset = offsetof(struct label_rules, n),
      .elem = &rule_schema },
};

static const struct kpe_arg_schema label_rule_resolved = {
    .key = "labelRule",
    .fields = KPE_ARG_FIELDS(resolved_fields),
};

/* Check one entry's rule and append it to the folded list in out. */
static int parse_label_rule(const void *written, struct arena *a,
                            struct pred_args *out, struct err *e)
{
    const struct label_rule_arg *w = written;
    const struct label_rules *old = out->value;
    struct label_rules *rules;
    struct label_rule *r;
    size_t n = old ? old->n : 0;

    if (!w)
        return 0; /* named without an argument: no rule of its own */
    if (!w->node_selector.n)
        return err_set(e, "labelRule.nodeSelector: required: at least one "
                          "requirement the nodes must meet");
    if (!w->reason || !*w->reason)
        return err_set(e, "labelRule.reason: required: the reason the "
                          "nodes that fail the rule give");
    r = kpe_label_rules_grow(a, old ? old->v : NULL, n, sizeof(*r), "labelRule",
                             e);
    rules = r ? arena_calloc(a, 1, sizeof(*rules)) : NULL;
    if (!r)
        return -1;
    if (!rules)
        return err_set(e, "out of memory");
    r[n].pod_selector = w->pod_selector;
    r[n].node_selector = w->node_selector;
    r[n].reason = w->reason;
    if (kpe_label_rule_sels("labelRule", &w->pod_selector, &w->node_selector, a,
                            &r[n].pod, &r[n].node, e))
        return -1;
    rules->v = r;
    rules->n = n + 1;
    out->value = rules;
    return 0;
}

/* PreFilter state: the rules whose podSelector the pod matches. */
struct label_rule_state {
    size_t n;
    const struct label_rule *r[];
};

static enum pred_code label_rule_prefilter(struct pred_cycle *cy,
                                           const void *args, void **state,
                                           struct pred_result *r)
{
    const struct pred_args *pa = args;
    const struct label_rules *rules = pa ? pa->value : NULL;
    struct label_rule_state *st;
    size_t i, n = rules ? rules->n : 0;

    st = arena_alloc(cy->arena, sizeof(*st) + n * sizeof(st->r[0]));
    if (!st)
        return pred_fail(r, PRED_ERROR, "out of memory");
    st->n = 0;
    for (i = 0; i < n; i++) {
        if (kpe_label_sel_matches(&rules->v[i].pod, &cy->pod->labels))
            st->r[st->n++] = &rules->v[i];
    }
    *state = st;
    return PRED_FIT;
}

/*
 * Filter: the node must match the nodeSelector of every rule the pod
 * matched; each rule it misses adds its reason (Unschedulable).
 */
static enum pred_code label_rule_filter(const struct pred_cycle *cy,
                                        const void *args, const void *state,
                                        const struct node_info *ni,
                                        struct pred_result *r)
{
    const struct label_rule_state *st = state;
    enum pred_code code = PRED_FIT;
    size_t i;

    (void)cy;
    (void)args;
    if (!st || !st->n)
        return PRED_FIT;
    if (!ni || !ni->node)
        return pred_fail(r, PRED_ERROR, "node not found");
    for (i = 0; i < st->n; i++) {
        if (!kpe_label_sel_matches(&st->r[i]->node, &ni->node->labels))
            code = pred_fail(r, PRED_UNFIT, st->r[i]->reason);
    }
    return code;
}

static const struct pred_plugin label_rule_plugin = {
    { PRED_NAME_LABEL_RULE, 0 },
    label_rule_prefilter,
    label_rule_filter,
    (const char *const[]){ "(the reason each labelRule gives)", NULL },
    PRED_STABLE_NEVER,
};

const struct pred_def pred_label_rule = {
    .name = PRED_NAME_LABEL_RULE,
    .flags = PRED_EXTENSION,
    .args = &label_rule_schema,
    .resolved = &label_rule_resolved,
    .parse_args = parse_label_rule,
    .own = &label_rule_plugin,
    .doc = "ours: declarative rules: pods matching a label selector fit "
           "only nodes matching a node selector",
};
