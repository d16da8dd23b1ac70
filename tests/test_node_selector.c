/*
 * test_node_selector.c: node selector terms as component-helpers
 * nodeaffinity (v1.22) parses and matches them (MatchNodeSelector,
 * predicates.md A.8 and B.5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kube/model/labels.h"
#include "tests/support/label_fixtures.h"

#define MAX_TERMS 3

/* Upstream's detail for the key "invalid key" (TestNodeSelectorMatch). */
#define INVALID_KEY_DETAIL                                                     \
    "name part must consist of alphanumeric characters, '-', '_' or '.', "     \
    "and must start and end with an alphanumeric character (e.g. "             \
    "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "    \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

struct term_spec {
    const char *exprs;  /* lf_reqs syntax, NULL: none */
    const char *fields; /* lf_reqs syntax, NULL: none */
};

struct validate_case {
    const char *name;
    struct term_spec term;
    const char *want; /* exact t->invalid; NULL: valid */
};

/*
 * nodeaffinity_test.go TestNodeSelectorMatch (its parse errors, paths
 * relative to the term) and TestNodeSelectorRequirementsAsSelector, then
 * predicates.md A.8 parse rules.
 */
static void term_validate_should_parse_as_nodeaffinity(void **state)
{
    static const struct validate_case cases[] = {
        { "fields: In with two values",
          { NULL, "metadata.name in (host_1,host_2)" },
          "matchFields[0].values: Invalid value: []string{\"host_1\", "
          "\"host_2\"}: must have one element" },
        { "expressions: invalid key",
          { "invalid key in (label_value)", NULL },
          "matchExpressions[0].key: Invalid value: \"invalid "
          "key\": " INVALID_KEY_DETAIL },
        { "expressions: in with two values",
          { "foo in (bar,baz)", NULL },
          NULL },
        { "expressions: gt one integer", { "foo>1", NULL }, NULL },
        { "expressions: lt one integer", { "bar<7", NULL }, NULL },
        { "expressions: gt non-integer",
          { "foo>abc", NULL },
          "matchExpressions[0].values[0]: Invalid value: \"abc\": for 'Gt', "
          "'Lt' operators, the value must be an integer" },
        { "expressions: gt with an empty value",
          { "foo>", NULL },
          "matchExpressions[0].values[0]: Invalid value: \"\": for 'Gt', "
          "'Lt' operators, the value must be an integer" },
        { "expressions: in without values",
          { "foo in ()", NULL },
          "matchExpressions[0].values: Invalid value: []string(nil): for "
          "'in', 'notin' operators, values set can't be empty" },
        { "expressions: second one reported with its index",
          { "ok,bad key", NULL },
          "matchExpressions[1].key: Invalid value: \"bad "
          "key\": " INVALID_KEY_DETAIL },
        { "expressions: invalid value",
          { "foo notin (invalid value: ___@#$%^)", NULL },
          "matchExpressions[0].values[0][foo]: Invalid value: \"invalid "
          "value: ___@#$%^\": a valid label must be an empty string or "
          "consist of alphanumeric characters, '-', '_' or '.', and must "
          "start and end with an alphanumeric character (e.g. 'MyValue',  "
          "or 'my_value',  or '12345', regex used for validation is "
          "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')" },
        { "expressions before fields",
          { "bad key", "metadata.name" },
          "matchExpressions[0].key: Invalid value: \"bad "
          "key\": " INVALID_KEY_DETAIL },
        { "fields: exists is unsupported",
          { NULL, "metadata.name" },
          "matchFields[0].operator: Unsupported value: \"Exists\": "
          "supported values: \"In\", \"NotIn\"" },
        { "fields: gt is unsupported",
          { NULL, "metadata.name>1" },
          "matchFields[0].operator: Unsupported value: \"Gt\": supported "
          "values: \"In\", \"NotIn\"" },
        { "fields: notin without values",
          { NULL, "metadata.name=n1,metadata.name notin ()" },
          "matchFields[1].values: Invalid value: []string(nil): must have "
          "one element" },
        { "fields: notin one value", { NULL, "metadata.name!=n1" }, NULL },
        { "fields: other keys are not checked",
          { NULL, "spec.unschedulable=true" },
          NULL },
        { "fields: values are not label-checked",
          { NULL, "metadata.name=node 1" },
          NULL },
        { "empty term is valid (and matches nothing)", { NULL, NULL }, NULL },
    };
    struct arena a;
    int failed = 0;

    (void)state;
    arena_init(&a, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct validate_case *c = &cases[i];
        struct kube_node_selector_term t =
            lf_term(&a, c->term.exprs, c->term.fields);
        int rc = kube_node_selector_term_validate(&a, &t);

        if (c->want ? rc != -1 || !t.invalid || strcmp(t.invalid, c->want)
                    : rc != 0 || t.invalid) {
            print_error("case %s: rc %d invalid \"%s\"\n want \"%s\"\n",
                        c->name, rc, t.invalid ? t.invalid : "",
                        c->want ? c->want : "");
            failed++;
        }
    }
    arena_destroy(&a);
    if (failed)
        fail_msg("%d term validation case(s) failed", failed);
}

/*
 * nodeaffinity_test.go TestNodeSelectorRequirementsAsSelector: Exists
 * with values is rejected; Gt/Lt values become int_value.
 */
static void term_validate_should_fill_gt_lt_values(void **state)
{
    struct arena a;
    struct kube_node_selector_term t;

    (void)state;
    arena_init(&a, 0);
    t = (struct kube_node_selector_term){ 0 };
    t.n_exprs = 1;
    t.exprs = arena_calloc(&a, 1, sizeof(*t.exprs));
    assert_non_null(t.exprs);
    t.exprs[0] = lf_req(&a, "foo", KUBE_OP_EXISTS, "bar,baz");
    assert_int_equal(kube_node_selector_term_validate(&a, &t), -1);
    assert_string_equal(t.invalid,
                        "matchExpressions[0].values: Invalid value: "
                        "[]string{\"bar\", \"baz\"}: values set must be empty "
                        "for exists and does not exist");

    t = lf_term(&a, "foo>1,bar<7,kernel-version>0204", NULL);
    t.exprs[0].int_value = t.exprs[1].int_value = t.exprs[2].int_value = 0;
    assert_int_equal(kube_node_selector_term_validate(&a, &t), 0);
    assert_int_equal(t.exprs[0].int_value, 1);
    assert_int_equal(t.exprs[1].int_value, 7);
    assert_int_equal(t.exprs[2].int_value, 204);

    /* a verdict recorded by the parser is kept */
    t = lf_term(&a, "foo", NULL);
    t.invalid = "matchExpressions[0].operator: Unsupported value: \"Foo\"";
    assert_int_equal(kube_node_selector_term_validate(&a, &t), -1);
    assert_string_equal(t.invalid,
                        "matchExpressions[0].operator: Unsupported value: "
                        "\"Foo\"");
    assert_int_equal(kube_node_selector_term_validate(&a, NULL), 0);
    arena_destroy(&a);
}

struct match_case {
    const char *name;
    struct term_spec terms[MAX_TERMS];
    size_t n_terms;
    const char *labels; /* lf_labels syntax; NULL: none */
    const char *node;   /* node name */
    bool want;
};

static int run_match_table(const char *what, const struct match_case *cases,
                           size_t n)
{
    struct arena a;
    int failed = 0;

    arena_init(&a, 0);
    for (size_t i = 0; i < n; i++) {
        const struct match_case *c = &cases[i];
        struct kube_node_selector ns = { 0 };
        struct kube_labels l = lf_labels(&a, c->labels);
        bool got;

        ns.n_terms = c->n_terms;
        ns.terms = arena_calloc(&a, MAX_TERMS, sizeof(*ns.terms));
        assert_non_null(ns.terms);
        for (size_t j = 0; j < c->n_terms; j++) {
            ns.terms[j] = lf_term(&a, c->terms[j].exprs, c->terms[j].fields);
            kube_node_selector_term_validate(&a, &ns.terms[j]);
        }
        got = kube_node_selector_matches(&ns, &l, c->node);
        if (got != c->want) {
            print_error("%s case \"%s\": got %d, want %d\n", what, c->name, got,
                        c->want);
            failed++;
        }
    }
    arena_destroy(&a);
    return failed;
}

/* nodeaffinity_test.go TestNodeSelectorMatch (lazy-error matching). */
static void node_selector_should_match_as_node_selector_match(void **state)
{
    static const struct match_case cases[] = {
        { "invalid terms are skipped, a valid one still matches",
          { { NULL, "metadata.name in (host_1,host_2)" },
            { "label_1 in (label_1_val)", "metadata.name in (host_1)" },
            { "invalid key in (label_value)", NULL } },
          3,
          "label_1=label_1_val",
          "host_1",
          true },
        { "node matches field selector, but not labels",
          { { "label_1 in (label_1_val)", "metadata.name in (host_1)" } },
          1,
          NULL,
          "host_1",
          false },
        { "node matches field selector and label selector",
          { { "label_1 in (label_1_val)", "metadata.name in (host_1)" } },
          1,
          "label_1=label_1_val",
          "host_1",
          true },
        { "second term matches",
          { { "label_1 in (label_1_val)", NULL },
            { NULL, "metadata.name in (host_1)" } },
          2,
          NULL,
          "host_1",
          true },
    };

    (void)state;
    if (run_match_table("TestNodeSelectorMatch", cases,
                        sizeof(cases) / sizeof(cases[0])))
        fail_msg("TestNodeSelectorMatch cases failed");
}

/*
 * nodeaffinity_test.go TestPodMatchesNodeSelectorAndAffinityTerms, the
 * rows with required node affinity (the nodeSelector rows are in
 * test_labels.c).
 */
static void node_selector_should_match_affinity_terms(void **state)
{
    static const struct match_case cases[] = {
        { "In operator that matches the existing node",
          { { "foo in (bar,value2)", NULL } },
          1,
          "foo=bar",
          "",
          true },
        { "Gt operator that matches the existing node",
          { { "kernel-version>0204", NULL } },
          1,
          "kernel-version=0206",
          "",
          true },
        { "NotIn operator that matches the existing node",
          { { "mem-type notin (DDR,DDR2)", NULL } },
          1,
          "mem-type=DDR3",
          "",
          true },
        { "Exists operator that matches the existing node",
          { { "GPU", NULL } },
          1,
          "GPU=NVIDIA-GRID-K1",
          "",
          true },
        { "affinity that doesn't match node's labels",
          { { "foo in (value1,value2)", NULL } },
          1,
          "foo=bar",
          "",
          false },
        { "nil []NodeSelectorTerm",
          { { NULL, NULL } },
          0,
          "foo=bar",
          "",
          false },
        { "empty MatchExpressions term matches no objects",
          { { NULL, NULL } },
          1,
          "foo=bar",
          "",
          false },
        { "multiple matchExpressions ANDed that match",
          { { "GPU,GPU notin (AMD,INTER)", NULL } },
          1,
          "GPU=NVIDIA-GRID-K1",
          "",
          true },
        { "multiple matchExpressions ANDed that don't match",
          { { "GPU,GPU in (AMD,INTER)", NULL } },
          1,
          "GPU=NVIDIA-GRID-K1",
          "",
          false },
        { "multiple NodeSelectorTerms ORed",
          { { "foo in (bar,value2)", NULL },
            { "diffkey in (wrong,value2)", NULL } },
          2,
          "foo=bar",
          "",
          true },
        { "invalid value in affinity term",
          { { "foo notin (invalid value: ___@#$%^)", NULL } },
          1,
          "foo=bar",
          "",
          false },
        { "matchFields In that matches the existing node",
          { { NULL, "metadata.name in (node_1)" } },
          1,
          NULL,
          "node_1",
          true },
        { "matchFields In that does not match the existing node",
          { { NULL, "metadata.name in (node_1)" } },
          1,
          NULL,
          "node_2",
          false },
        { "two terms: matchFields does not match, matchExpressions matches",
          { { NULL, "metadata.name in (node_1)" }, { "foo in (bar)", NULL } },
          2,
          "foo=bar",
          "node_2",
          true },
        { "one term: matchFields does not match, matchExpressions matches",
          { { "foo in (bar)", "metadata.name in (node_1)" } },
          1,
          "foo=bar",
          "node_2",
          false },
        { "one term: both matchFields and matchExpressions match",
          { { "foo in (bar)", "metadata.name in (node_1)" } },
          1,
          "foo=bar",
          "node_1",
          true },
        { "two terms: neither matches",
          { { NULL, "metadata.name in (node_1)" },
            { "foo in (not-match-to-bar)", NULL } },
          2,
          "foo=bar",
          "node_2",
          false },
    };

    (void)state;
    if (run_match_table("TestPodMatchesNodeSelectorAndAffinityTerms", cases,
                        sizeof(cases) / sizeof(cases[0])))
        fail_msg("TestPodMatchesNodeSelectorAndAffinityTerms cases failed");
}

/*
 * pkg/apis/core/v1/helper helpers_test.go TestMatchNodeSelectorTerms, with
 * node fields reduced to the node name. One row differs on purpose: the
 * old helper failed a fields-only term on a node without fields, while the
 * v1.22 component-helpers matcher skips the fields part when the node has
 * no name (len(nodeFields) > 0), so that term matches.
 */
static void
node_selector_should_match_as_match_node_selector_terms(void **state)
{
    static const struct match_case cases[] = {
        { "nil terms", { { NULL, NULL } }, 0, NULL, "", false },
        { "node label matches matchExpressions terms",
          { { "label_1 in (label_1_val)", NULL } },
          1,
          "label_1=label_1_val",
          "",
          true },
        { "node field matches matchFields terms",
          { { NULL, "metadata.name in (host_1)" } },
          1,
          NULL,
          "host_1",
          true },
        { "fieldSelectorTerm with node labels (v1.22: fields skipped)",
          { { NULL, "metadata.name in (host_1)" } },
          1,
          "metadata.name=host_1",
          "",
          true },
        { "labelSelectorTerm with node fields",
          { { "metadata.name in (host_1)", NULL } },
          1,
          NULL,
          "host_1",
          false },
        { "labelSelectorTerm and fieldSelectorTerm, only node fields",
          { { "label_1 in (label_1_val)", "metadata.name in (host_1)" } },
          1,
          NULL,
          "host_1",
          false },
        { "both node fields and labels (both matched)",
          { { "label_1 in (label_1_val)", "metadata.name in (host_1)" } },
          1,
          "label_1=label_1_val",
          "host_1",
          true },
        { "both node fields and labels (one mismatched)",
          { { "label_1 in (label_1_val)", "metadata.name in (host_1)" } },
          1,
          "label_1=label_1_val-failed",
          "host_1",
          false },
        { "multi-selector, one mismatched",
          { { "label_1 in (label_1_val)", NULL },
            { NULL, "metadata.name in (host_1)" } },
          2,
          "label_1=label_1_val-failed",
          "host_1",
          true },
    };

    (void)state;
    if (run_match_table("TestMatchNodeSelectorTerms", cases,
                        sizeof(cases) / sizeof(cases[0])))
        fail_msg("TestMatchNodeSelectorTerms cases failed");
}

/* predicates.md A.8 and B.5 edge cases. */
static void node_selector_should_follow_reference_edges(void **state)
{
    static const struct match_case cases[] = {
        { "notin matches a node lacking the label",
          { { "disk notin (hdd)", NULL } },
          1,
          "zone=a",
          "n1",
          true },
        { "does not exist matches a node lacking the label",
          { { "!gpu", NULL } },
          1,
          "zone=a",
          "n1",
          true },
        { "gt with a non-integer node label",
          { { "cores>4", NULL } },
          1,
          "cores=many",
          "n1",
          false },
        { "lt below", { { "cores<10", NULL } }, 1, "cores=9", "n1", true },
        { "gt with a non-integer requirement: term unparseable",
          { { "cores>four", NULL } },
          1,
          "cores=8",
          "n1",
          false },
        { "unparseable term does not stop another term",
          { { "cores>four", NULL }, { "zone in (a)", NULL } },
          2,
          "zone=a",
          "n1",
          true },
        { "gt with a negative requirement fails the value syntax",
          { { "temp>-1", NULL } },
          1,
          "temp=5",
          "n1",
          false },
        { "only empty terms match nothing",
          { { NULL, NULL }, { NULL, NULL } },
          2,
          "zone=a",
          "n1",
          false },
        { "empty term next to a matching one",
          { { NULL, NULL }, { "zone", NULL } },
          2,
          "zone=a",
          "n1",
          true },
        { "fields pin to a node",
          { { NULL, "metadata.name=n1" } },
          1,
          NULL,
          "n1",
          true },
        { "fields pin away from other nodes",
          { { NULL, "metadata.name=n1" } },
          1,
          NULL,
          "n2",
          false },
        { "fields notin excludes the node",
          { { NULL, "metadata.name notin (n1)" } },
          1,
          NULL,
          "n1",
          false },
        { "fields notin admits other nodes",
          { { NULL, "metadata.name notin (n1)" } },
          1,
          NULL,
          "n2",
          true },
        { "node without a name: fields-only term matches",
          { { NULL, "metadata.name=n1" } },
          1,
          NULL,
          "",
          true },
        { "node without a name: expressions still apply",
          { { "zone=b", "metadata.name=n1" } },
          1,
          "zone=a",
          "",
          false },
        { "node without a name: expressions match, fields skipped",
          { { "zone=a", "metadata.name=n1" } },
          1,
          "zone=a",
          NULL,
          true },
        { "node without a name: invalid fields still fail",
          { { "zone=a", "metadata.name" } },
          1,
          "zone=a",
          "",
          false },
        { "other field keys read as empty: In empty",
          { { NULL, "spec.unschedulable=" } },
          1,
          NULL,
          "n1",
          true },
        { "other field keys read as empty: In a value",
          { { NULL, "spec.unschedulable=true" } },
          1,
          NULL,
          "n1",
          false },
        { "other field keys read as empty: NotIn a value",
          { { NULL, "spec.unschedulable!=true" } },
          1,
          NULL,
          "n1",
          true },
        { "fields and expressions both required",
          { { "zone=a", "metadata.name=n1" } },
          1,
          "zone=a",
          "n1",
          true },
    };

    (void)state;
    if (run_match_table("predicates.md A.8", cases,
                        sizeof(cases) / sizeof(cases[0])))
        fail_msg("A.8 edge cases failed");
}

static void node_selector_should_handle_missing_and_odd_inputs(void **state)
{
    struct arena a;
    struct kube_node_selector_term t;
    struct kube_labels l;
    const char *v = "host_1, host_2";

    (void)state;
    arena_init(&a, 0);
    l = lf_labels(&a, "zone=a");
    assert_false(kube_node_selector_matches(NULL, &l, "n1"));
    assert_false(kube_node_selector_term_matches(NULL, &l, "n1"));

    /*
     * TestMatchNodeSelectorTerms "invalid node field requirement": one
     * value "host_1, host_2" parses and simply does not equal host_1.
     */
    t = lf_term(&a, NULL, "metadata.name=x");
    t.fields[0].values = &v;
    assert_int_equal(kube_node_selector_term_validate(&a, &t), 0);
    assert_false(kube_node_selector_term_matches(&t, &l, "host_1"));

    /* an invalid term never matches, even where it otherwise would */
    t = lf_term(&a, "zone=a", NULL);
    assert_true(kube_node_selector_term_matches(&t, &l, "n1"));
    t.invalid = "matchExpressions[0].operator: Unsupported value";
    assert_false(kube_node_selector_term_matches(&t, &l, "n1"));
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(term_validate_should_parse_as_nodeaffinity),
        cmocka_unit_test(term_validate_should_fill_gt_lt_values),
        cmocka_unit_test(node_selector_should_match_as_node_selector_match),
        cmocka_unit_test(node_selector_should_match_affinity_terms),
        cmocka_unit_test(
            node_selector_should_match_as_match_node_selector_terms),
        cmocka_unit_test(node_selector_should_follow_reference_edges),
        cmocka_unit_test(node_selector_should_handle_missing_and_odd_inputs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
