/*
 * label_score_rule.c: LabelScoreRule (ours, no v1.22 plugin), a
 * declarative priority for policy authors who write no C. Each entry's
 * labelScoreRule argument says: pods matching podSelector score `score`
 * (0..10, as the legacy custom priorities) on nodes matching nodeSelector.
 * Entries with a labelScoreRule argument fold into this one priority, in
 * Policy order: a node scores by the first rule that matches both the pod
 * and the node, 0 when none does (an empty nodeSelector matches every
 * node: "elsewhere"). Selector syntax: framework/label_rule_arg.h.
 *
 *   {"name": "RdmaForHighComm", "weight": 1, "argument": {"labelScoreRule":
 *       {"podSelector": ["high-comm"],
 *        "nodeSelector": ["node.kubernetes.io/rdma-enabled=true"],
 *        "score": 10}}}
 */
#include "priorities/plugins.h"

#include <string.h>

#include "framework/label_rule_arg.h"
#include "priorities/priorities.h"

#define PRIO_NAME_LABEL_SCORE_RULE "LabelScoreRule"

#define SCORE_MAX PRIO_MAX_EXTENDER_SCORE /* 10, as written */

/* One entry's argument, as written. */
struct label_score_rule_arg {
    struct policy_strlist pod_selector;
    struct policy_strlist node_selector;
    int32_t score;
};

/* One rule as scored: the written fields, then the parsed selectors. */
struct label_score_rule {
    struct policy_strlist pod_selector;
    struct policy_strlist node_selector;
    int32_t score;
    struct kpe_label_sel pod, node;
};

/* The typed arguments (value): every entry's rule, in Policy order. */
struct label_score_rules {
    struct label_score_rule *v;
    size_t n;
};

static const struct kpe_arg_field written_fields[] = {
    { .name = "podSelector",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct label_score_rule_arg, pod_selector),
      .type_doc = "[]string",
      .def = "[]" },
    { .name = "nodeSelector",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct label_score_rule_arg, node_selector),
      .type_doc = "[]string",
      .def = "[]" },
    { .name = "score",
      .type = KPE_ARG_INT32,
      .offset = offsetof(struct label_score_rule_arg, score),
      .type_doc = "int32",
      .def = "0" },
};

static const struct kpe_arg_schema label_score_rule_schema = {
    .key = "labelScoreRule",
    .api_order = 111, /* ours: after every v1.22 member and highComm */
    .size = sizeof(struct label_score_rule_arg),
    .fields = KPE_ARG_FIELDS(written_fields),
    .note = "ours: pods matching podSelector score `score` (0..10) on nodes "
            "matching nodeSelector (all: []); selector items as labelRule's; "
            "entries fold, the first rule matching pod and node scores, "
            "none: 0",
};

/* check shows the rules through the same field names. */
static const struct kpe_arg_field rule_fields[] = {
    { .name = "podSelector",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct label_score_rule, pod_selector) },
    { .name = "nodeSelector",
      .type = KPE_ARG_STRINGS,
      .offset = offsetof(struct label_score_rule, node_selector) },
    { .name = "score",
      .type = KPE_ARG_INT32,
      .offset = offsetof(struct label_score_rule, score) },
};

static const struct kpe_arg_schema rule_schema = {
    .key = "labelScoreRule",
    .size = sizeof(struct label_score_rule),
    .fields = KPE_ARG_FIELDS(rule_fields),
};

static const struct kpe_arg_field resolved_fields[] = {
    { .name = "rules",
      .type = KPE_ARG_OBJECTS,
      .offset = offsetof(struct label_score_rules, v),
      .count_offset = offsetof(struct label_score_rules, n),
      .elem = &rule_schema },
};

static const struct kpe_arg_schema label_score_rule_resolved = {
    .key = "labelScoreRule",
    .fields = KPE_ARG_FIELDS(resolved_fields),
};

/* Check one entry's rule and append it to the folded list in out. */
static int parse_label_score_rule(const void *written, struct arena *a,
                                  struct prio_args *out, struct err *e)
{
    const struct label_score_rule_arg *w = written;
    const struct label_score_rules *old = out->value;
    struct label_score_rules *rules;
    struct label_score_rule *r;
    size_t n = old ? old->n : 0;

    if (!w)
        return 0; /* named without an argument: no rule of its own */
    if (w->score < 0 || w->score > SCORE_MAX)
        return err_set(e,
                       "labelScoreRule.score: Invalid value: %d: not in "
                       "valid range [0, %d]",
                       (int)w->score, SCORE_MAX);
    r = kpe_label_rules_grow(a, old ? old->v : NULL, n, sizeof(*r),
                             "labelScoreRule", e);
    rules = r ? arena_calloc(a, 1, sizeof(*rules)) : NULL;
    if (!r)
        return -1;
    if (!rules)
        return err_set(e, "out of memory");
    r[n].pod_selector = w->pod_selector;
    r[n].node_selector = w->node_selector;
    r[n].score = w->score;
    if (kpe_label_rule_sels("labelScoreRule", &w->pod_selector,
                            &w->node_selector, a, &r[n].pod, &r[n].node, e))
        return -1;
    rules->v = r;
    rules->n = n + 1;
    out->value = rules;
    return 0;
}

/* PreScore state: the rules whose podSelector the pod matches, in order. */
struct label_score_state {
    size_t n;
    const struct label_score_rule *r[];
};

static int label_score_rule_prescore(struct prio_cycle *cy, const void *args,
                                     void **state, struct err *e)
{
    const struct prio_args *pa = args;
    const struct label_score_rules *rules = pa ? pa->value : NULL;
    struct label_score_state *st;
    size_t i, n = rules ? rules->n : 0;

    st = arena_alloc(cy->arena, sizeof(*st) + n * sizeof(st->r[0]));
    if (!st)
        return err_set(e, "out of memory");
    st->n = 0;
    for (i = 0; i < n; i++) {
        if (kpe_label_sel_matches(&rules->v[i].pod, &cy->pod->labels))
            st->r[st->n++] = &rules->v[i];
    }
    *state = st;
    return 0;
}

/*
 * Score: the first pod-matching rule whose nodeSelector the node matches
 * gives score x 10 (0..100, as CustomPriorityPolicy's 100); none: 0. No
 * normalisation.
 */
static int label_score_rule_score(const struct prio_cycle *cy, const void *args,
                                  const void *state, const struct node_info *ni,
                                  int64_t *score, struct err *e)
{
    const struct label_score_state *st = state;
    size_t i;

    (void)cy;
    (void)args;
    (void)e;
    *score = 0;
    for (i = 0; st && i < st->n; i++) {
        if (kpe_label_sel_matches(&st->r[i]->node, &ni->node->labels)) {
            *score = (int64_t)st->r[i]->score *
                     (PRIO_MAX_NODE_SCORE / PRIO_MAX_EXTENDER_SCORE);
            break;
        }
    }
    return 0;
}

static const struct prio_plugin label_score_rule_plugin = {
    { PRIO_NAME_LABEL_SCORE_RULE, 0 },
    label_score_rule_prescore,
    label_score_rule_score,
    NULL,
};

const struct prio_def prio_label_score_rule = {
    .name = PRIO_NAME_LABEL_SCORE_RULE,
    .flags = PRIO_EXTENSION,
    .args = &label_score_rule_schema,
    .resolved = &label_score_rule_resolved,
    .parse_args = parse_label_score_rule,
    .own = &label_score_rule_plugin,
    .doc = "ours: declarative rules: pods matching a label selector score "
           "0..10 on nodes matching a node selector",
};
