/*
 * test_selector.c: label selector requirements (apimachinery pkg/labels)
 * and metav1.LabelSelector conversion (LabelSelectorAsSelector), v1.22.
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

struct match_case {
    const char *name;
    const char *selector; /* lf_reqs syntax; NULL: nil selector */
    const char *labels;   /* lf_labels syntax; NULL: absent */
    bool want;
};

static int run_match_table(const char *what, const struct match_case *cases,
                           size_t n)
{
    struct arena a;
    int failed = 0;

    arena_init(&a, 0);
    for (size_t i = 0; i < n; i++) {
        struct kube_label_selector *s = lf_selector(&a, cases[i].selector);
        struct kube_labels l = lf_labels(&a, cases[i].labels);
        bool got = kube_label_selector_matches(s, &l);

        if (got != cases[i].want) {
            print_error(
                "%s case \"%s\" (%s vs {%s}): got %d, want %d\n", what,
                cases[i].name, cases[i].selector ? cases[i].selector : "nil",
                cases[i].labels ? cases[i].labels : "", got, cases[i].want);
            failed++;
        }
    }
    arena_destroy(&a);
    return failed;
}

/* labels selector_test.go TestSelectorMatches (expectMatch/NoMatch). */
static void selector_should_match_as_upstream_selector_matches(void **state)
{
    static const struct match_case cases[] = {
        { "empty", "", "x=y", true },
        { "equals", "x=y", "x=y", true },
        { "two equals", "x=y,z=w", "x=y,z=w", true },
        { "two not-equals", "x!=y,z!=w", "x=z,z=a", true },
        { "in and notin as values", "notin=in", "notin=in", true },
        { "exists", "x", "x=z", true },
        { "does not exist", "!x", "y=z", true },
        { "greater than", "x>1", "x=2", true },
        { "less than", "x<1", "x=0", true },
        { "equals, empty set", "x=z", "", false },
        { "equals, other value", "x=y", "x=z", false },
        { "two equals, one off", "x=y,z=w", "x=w,z=w", false },
        { "two not-equals, one hit", "x!=y,z!=w", "x=z,z=w", false },
        { "exists, absent", "x", "y=z", false },
        { "does not exist, present", "!x", "x=z", false },
        { "greater than, smaller", "x>1", "x=0", false },
        { "less than, larger", "x<1", "x=2", false },
        { "labelset foo=bar", "foo=bar", "foo=bar,baz=blah", true },
        { "labelset baz=blah", "baz=blah", "foo=bar,baz=blah", true },
        { "labelset both", "foo=bar,baz=blah", "foo=bar,baz=blah", true },
        { "labelset foo=blah", "foo=blah", "foo=bar,baz=blah", false },
        { "labelset baz=bar", "baz=bar", "foo=bar,baz=blah", false },
        { "labelset extra key", "foo=bar,foobar=bar,baz=blah",
          "foo=bar,baz=blah", false },
    };

    (void)state;
    if (run_match_table("TestSelectorMatches", cases,
                        sizeof(cases) / sizeof(cases[0])))
        fail_msg("TestSelectorMatches cases failed");
}

/*
 * labels selector_test.go TestRequirementSelectorMatching, then the
 * operator table of predicates.md A.7 with its integer edge cases.
 */
static void requirement_should_match_per_operator(void **state)
{
    static const struct match_case cases[] = {
        { "in and notin", "x in (foo),y notin (alpha)", "x=foo,y=baz", true },
        { "in and in, second off", "x in (foo),y in (alpha)", "x=foo,y=baz",
          false },
        { "notin empty value, key absent", "x!=,y", "y=", true },
        { "does not exist and exists", "!x,y", "y=", true },
        { "notin, does not exist on present", "x!=,!y", "y=", false },
        { "in empty value, key absent", "x=", "y=baz", false },
        { "gt 1 on 2", "z>1", "z=2", true },
        { "gt 1 on v2", "z>1", "z=v2", false },
        /* predicates.md A.7 */
        { "in: second value", "x in (a,b)", "x=b", true },
        { "in: absent key", "x in (a,b)", "y=a", false },
        { "in: empty value listed", "x in (a,)", "x=", true },
        { "notin: absent key matches", "x notin (a)", "", true },
        { "notin: listed value", "x notin (a,b)", "x=b", false },
        { "notin: unlisted value", "x notin (a,b)", "x=c", true },
        { "exists: empty value counts", "x", "x=", true },
        { "does not exist: absent labels", "!x", NULL, true },
        { "gt: equal is not greater", "x>1", "x=1", false },
        { "lt: equal is not less", "x<1", "x=1", false },
        { "gt: absent key", "x>1", "y=5", false },
        { "gt: empty label value", "x>1", "x=", false },
        { "gt: decimal label value", "x>1", "x=1.5", false },
        { "gt: leading zeros are decimal", "x>0204", "x=0206", true },
        { "gt: label with plus sign parses", "x>1", "x=+2", true },
        { "lt: negative label value", "x<0", "x=-5", true },
        { "gt: int64 max", "x>9223372036854775806", "x=9223372036854775807",
          true },
        { "gt: label beyond int64", "x>1", "x=9223372036854775808", false },
        { "lt: int64 min parses", "x<0", "x=-9223372036854775808", true },
        { "lt: below int64 min", "x<0", "x=-9223372036854775809", false },
        { "lt: sign alone", "x<1", "x=-", false },
        { "gt: hex is not decimal", "x>1", "x=0x10", false },
        { "gt: underscores rejected", "x>1", "x=1_000", false },
        { "all requirements ANDed", "a,b=1,!c,d notin (x)", "a=,b=1,d=y",
          true },
        { "nil selector matches nothing", NULL, "x=y", false },
        { "empty selector matches absent labels", "", NULL, true },
    };

    (void)state;
    if (run_match_table("requirement", cases, sizeof(cases) / sizeof(cases[0])))
        fail_msg("requirement cases failed");
}

/* The zero Requirement of TestRequirementSelectorMatching never matches. */
static void requirement_should_not_match_when_zero(void **state)
{
    struct arena a;
    struct kube_requirement zero = { 0 };
    struct kube_labels l;

    (void)state;
    arena_init(&a, 0);
    l = lf_labels(&a, "x=foo,y=baz");
    assert_false(kube_requirement_matches(&zero, &l));
    assert_false(kube_requirement_matches(NULL, &l));
    arena_destroy(&a);
}

struct validate_case {
    const char *name;
    const char *key;
    enum kube_selector_op op;
    const char *values; /* lf_req syntax: NULL none, "a,b" */
    const char *want;   /* NULL: valid; else a substring of the error */
    int64_t int_value;  /* Gt/Lt when valid */
};

/*
 * labels selector_test.go TestRequirementConstructor (v1.22 rows x1..x18,
 * minus x5/x16/x17's Equals which our model maps to In, and the older
 * rows), then predicates.md A.7/A.8 edges. Messages as NewRequirement's.
 */
static void requirement_validate_should_follow_new_requirement(void **state)
{
    static const struct validate_case cases[] = {
        { "x1 in without values", "x1", KUBE_OP_IN, NULL,
          "values: Invalid value: []string(nil): for 'in', 'notin' "
          "operators, values set can't be empty",
          0 },
        { "x2 notin without values", "x2", KUBE_OP_NOT_IN, NULL,
          "values: Invalid value: []string(nil): for 'in', 'notin' "
          "operators, values set can't be empty",
          0 },
        { "x3 in", "x3", KUBE_OP_IN, "foo", NULL, 0 },
        { "x4 notin", "x4", KUBE_OP_NOT_IN, "foo", NULL, 0 },
        { "x6 exists", "x6", KUBE_OP_EXISTS, NULL, NULL, 0 },
        { "x7 does not exist", "x7", KUBE_OP_DOES_NOT_EXIST, NULL, NULL, 0 },
        { "x8 exists with a value", "x8", KUBE_OP_EXISTS, "foo",
          "values: Invalid value: []string{\"foo\"}: values set must be "
          "empty for exists and does not exist",
          0 },
        { "x9 in", "x9", KUBE_OP_IN, "bar", NULL, 0 },
        { "x11 gt", "x11", KUBE_OP_GT, "1", NULL, 1 },
        { "x12 lt", "x12", KUBE_OP_LT, "6", NULL, 6 },
        { "x13 gt without values", "x13", KUBE_OP_GT, NULL,
          "values: Invalid value: []string(nil): for 'Gt', 'Lt' operators, "
          "exactly one value is required",
          0 },
        { "x14 gt non-integer", "x14", KUBE_OP_GT, "bar",
          "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, the "
          "value must be an integer",
          0 },
        { "x15 lt non-integer", "x15", KUBE_OP_LT, "bar",
          "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, the "
          "value must be an integer",
          0 },
        { "key of 64 characters",
          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
          KUBE_OP_EXISTS, NULL,
          "key: Invalid value: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
          "aaaaaaaaaaaaaaaaaaaaaa\": name part must be no more than 63 "
          "characters",
          0 },
        { "x17 value with a space", "x17", KUBE_OP_IN, "a b",
          "values[0][x17]: Invalid value: \"a b\": a valid label must be an "
          "empty string",
          0 },
        /* older TestRequirementConstructor rows */
        { "key starting with a digit", "1foo", KUBE_OP_IN, "bar", NULL, 0 },
        { "numeric key", "1234", KUBE_OP_IN, "bar", NULL, 0 },
        { "gt foo bar", "foo", KUBE_OP_GT, "bar", "must be an integer", 0 },
        { "lt barz blah", "barz", KUBE_OP_LT, "blah", "must be an integer", 0 },
        /* edges */
        { "in with the empty value", "x", KUBE_OP_IN, "", NULL, 0 },
        { "gt with two values", "x", KUBE_OP_GT, "1,2",
          "values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' "
          "operators, exactly one value is required",
          0 },
        { "gt with leading zeros", "kernel-version", KUBE_OP_GT, "0204", NULL,
          204 },
        { "gt beyond int64", "x", KUBE_OP_GT, "9223372036854775808",
          "values[0]: Invalid value: \"9223372036854775808\": for 'Gt', 'Lt' "
          "operators, the value must be an integer",
          0 },
        { "lt int64 max", "x", KUBE_OP_LT, "9223372036854775807", NULL,
          INT64_MAX },
        { "gt negative fails the label value syntax", "x", KUBE_OP_GT, "-1",
          "values[0][x]: Invalid value: \"-1\": a valid label must be", 0 },
        { "unknown operator", "x", (enum kube_selector_op)99, NULL,
          "operator: Invalid value: 99", 0 },
        { "prefixed key", "example.com/zone", KUBE_OP_IN, "a", NULL, 0 },
        { "bad prefix", "Example.com/zone", KUBE_OP_IN, "a",
          "key: Invalid value: \"Example.com/zone\": prefix part a lowercase "
          "RFC 1123 subdomain",
          0 },
        { "several errors aggregate", "a b", KUBE_OP_IN, NULL,
          "[key: Invalid value: \"a b\": name part must consist of", 0 },
    };
    struct arena a;
    int failed = 0;

    (void)state;
    arena_init(&a, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct validate_case *c = &cases[i];
        struct kube_requirement r = lf_req(&a, c->key, c->op, c->values);
        const char *why = NULL;
        int rc;

        r.int_value = -42; /* must be overwritten for valid Gt/Lt */
        rc = kube_requirement_validate(&a, &r, NULL, &why);
        if (!c->want && rc != 0) {
            print_error("case %s: unexpected error %s\n", c->name, why);
            failed++;
        } else if (c->want && (rc != -1 || !why || !strstr(why, c->want))) {
            print_error("case %s: got rc %d \"%s\"\n want \"%s\"\n", c->name,
                        rc, why ? why : "(none)", c->want);
            failed++;
        } else if (!c->want && (c->op == KUBE_OP_GT || c->op == KUBE_OP_LT) &&
                   r.int_value != c->int_value) {
            print_error("case %s: int_value %lld, want %lld\n", c->name,
                        (long long)r.int_value, (long long)c->int_value);
            failed++;
        }
    }
    arena_destroy(&a);
    if (failed)
        fail_msg("%d NewRequirement case(s) failed", failed);
}

static void requirement_validate_should_aggregate_and_prefix(void **state)
{
    struct arena a;
    struct kube_requirement r;
    const char *why = NULL;
    char key[300];

    (void)state;
    arena_init(&a, 0);
    r = lf_req(&a, "a b", KUBE_OP_EXISTS, "v w");
    assert_int_equal(
        kube_requirement_validate(&a, &r, "matchExpressions[3]", &why), -1);
    assert_string_equal(
        why,
        "[matchExpressions[3].key: Invalid value: \"a b\": name part must "
        "consist of alphanumeric characters, '-', '_' or '.', and must start "
        "and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), "
        "matchExpressions[3].values: Invalid value: []string{\"v w\"}: "
        "values set must be empty for exists and does not exist, "
        "matchExpressions[3].values[0][a b]: Invalid value: \"v w\": a valid "
        "label must be an empty string or consist of alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
        "'12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]");

    /* a 254-character key (TestRequirementConstructor) is quoted whole */
    memset(key, 'k', 254);
    key[254] = '\0';
    r = lf_req(&a, key, KUBE_OP_EXISTS, NULL);
    assert_int_equal(kube_requirement_validate(&a, &r, NULL, &why), -1);
    assert_non_null(strstr(why, key));
    assert_non_null(strstr(why, "name part must be no more than 63"));

    /* why may be NULL */
    r = lf_req(&a, "x", KUBE_OP_IN, NULL);
    assert_int_equal(kube_requirement_validate(&a, &r, NULL, NULL), -1);
    arena_destroy(&a);
}

/*
 * meta/v1 helpers_test.go TestLabelSelectorAsSelector: nil is Nothing, {}
 * is Everything, matchLabels and matchExpressions AND together.
 */
static void
label_selector_should_convert_as_label_selector_as_selector(void **state)
{
    static const struct match_case cases[] = {
        { "nil matches nothing", NULL, "foo=bar", false },
        { "nil matches nothing, even no labels", NULL, NULL, false },
        { "empty matches everything", "", "foo=bar", true },
        { "empty matches no labels", "", NULL, true },
        { "matchLabels", "foo=bar", "foo=bar", true },
        { "matchLabels, other value", "foo=bar", "foo=baz", false },
        { "matchExpressions", "baz in (qux,norf)", "baz=norf", true },
        { "matchExpressions, other value", "baz in (qux,norf)", "baz=x",
          false },
        { "both", "foo=bar,baz in (qux,norf)", "foo=bar,baz=qux", true },
        { "both, expression unmet", "foo=bar,baz in (qux,norf)", "foo=bar",
          false },
    };
    struct arena a;
    int failed;

    (void)state;
    failed = run_match_table("TestLabelSelectorAsSelector", cases,
                             sizeof(cases) / sizeof(cases[0]));
    arena_init(&a, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kube_label_selector *s = lf_selector(&a, cases[i].selector);

        if (kube_label_selector_validate(&a, s) != 0 || (s && s->invalid)) {
            print_error("case %s: should validate\n", cases[i].name);
            failed++;
        }
    }
    arena_destroy(&a);
    if (failed)
        fail_msg("%d LabelSelectorAsSelector case(s) failed", failed);
}

struct selector_validate_case {
    const char *name;
    struct kube_requirement reqs[2];
    size_t n;
    const char *want; /* exact s->invalid; NULL: valid */
};

/*
 * LabelSelectorAsSelector errors: its own operator check (Gt/Lt are not
 * pod selector operators), then the first requirement NewRequirement
 * rejects (TestLabelSelectorAsSelector's Exists-with-values row).
 */
static void label_selector_validate_should_record_first_problem(void **state)
{
    struct arena a;
    int failed = 0;

    (void)state;
    arena_init(&a, 0);
    {
        struct selector_validate_case cases[] = {
            { "exists with values",
              { lf_req(&a, "baz", KUBE_OP_EXISTS, "qux,norf") },
              1,
              "values: Invalid value: []string{\"qux\", \"norf\"}: values "
              "set must be empty for exists and does not exist" },
            { "gt is not a pod selector operator",
              { lf_req(&a, "x", KUBE_OP_GT, "1") },
              1,
              "\"Gt\" is not a valid pod selector operator" },
            { "lt is not a pod selector operator",
              { lf_req(&a, "x", KUBE_OP_LT, "1") },
              1,
              "\"Lt\" is not a valid pod selector operator" },
            { "in without values",
              { lf_req(&a, "x", KUBE_OP_IN, NULL) },
              1,
              "values: Invalid value: []string(nil): for 'in', 'notin' "
              "operators, values set can't be empty" },
            { "first failure wins",
              { lf_req(&a, "ok", KUBE_OP_IN, "a"),
                lf_req(&a, "y", KUBE_OP_DOES_NOT_EXIST, "v") },
              2,
              "values: Invalid value: []string{\"v\"}: values set must be "
              "empty for exists and does not exist" },
            { "operator checked before values",
              { lf_req(&a, "x", KUBE_OP_GT, NULL),
                lf_req(&a, "y", KUBE_OP_IN, NULL) },
              2,
              "\"Gt\" is not a valid pod selector operator" },
            { "valid pair",
              { lf_req(&a, "a", KUBE_OP_NOT_IN, "x,y"),
                lf_req(&a, "b", KUBE_OP_DOES_NOT_EXIST, NULL) },
              2,
              NULL },
        };
        struct kube_labels l = lf_labels(&a, "baz=qux,x=5,y=,ok=a");

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            struct kube_label_selector s = { 0 };
            int rc;

            s.n_reqs = cases[i].n;
            s.reqs = cases[i].reqs;
            rc = kube_label_selector_validate(&a, &s);
            if (cases[i].want ? rc != -1 || !s.invalid ||
                                    strcmp(s.invalid, cases[i].want) != 0
                              : rc != 0 || s.invalid) {
                print_error("case %s: rc %d invalid \"%s\"\n want \"%s\"\n",
                            cases[i].name, rc, s.invalid ? s.invalid : "",
                            cases[i].want ? cases[i].want : "");
                failed++;
            }
            if (cases[i].want && kube_label_selector_matches(&s, &l)) {
                print_error("case %s: an invalid selector matched\n",
                            cases[i].name);
                failed++;
            }
        }
    }
    arena_destroy(&a);
    if (failed)
        fail_msg("%d LabelSelector validation case(s) failed", failed);
}

static void label_selector_validate_should_keep_parser_verdict(void **state)
{
    struct arena a;
    struct kube_label_selector *s;
    struct kube_labels l;

    (void)state;
    arena_init(&a, 0);
    l = lf_labels(&a, "x=y");
    s = lf_selector(&a, "x=y");
    assert_true(kube_label_selector_matches(s, &l));
    s->invalid = "\"Foo\" is not a valid pod selector operator";
    assert_int_equal(kube_label_selector_validate(&a, s), -1);
    assert_string_equal(s->invalid,
                        "\"Foo\" is not a valid pod selector operator");
    assert_false(kube_label_selector_matches(s, &l));
    assert_int_equal(kube_label_selector_validate(&a, NULL), 0);
    arena_destroy(&a);
}

static void op_name_should_spell_api_operators(void **state)
{
    (void)state;
    assert_string_equal(kube_selector_op_name(KUBE_OP_IN), "In");
    assert_string_equal(kube_selector_op_name(KUBE_OP_NOT_IN), "NotIn");
    assert_string_equal(kube_selector_op_name(KUBE_OP_EXISTS), "Exists");
    assert_string_equal(kube_selector_op_name(KUBE_OP_DOES_NOT_EXIST),
                        "DoesNotExist");
    assert_string_equal(kube_selector_op_name(KUBE_OP_GT), "Gt");
    assert_string_equal(kube_selector_op_name(KUBE_OP_LT), "Lt");
    assert_string_equal(kube_selector_op_name((enum kube_selector_op)42),
                        "(unknown)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(selector_should_match_as_upstream_selector_matches),
        cmocka_unit_test(requirement_should_match_per_operator),
        cmocka_unit_test(requirement_should_not_match_when_zero),
        cmocka_unit_test(requirement_validate_should_follow_new_requirement),
        cmocka_unit_test(requirement_validate_should_aggregate_and_prefix),
        cmocka_unit_test(
            label_selector_should_convert_as_label_selector_as_selector),
        cmocka_unit_test(label_selector_validate_should_record_first_problem),
        cmocka_unit_test(label_selector_validate_should_keep_parser_verdict),
        cmocka_unit_test(op_name_should_spell_api_operators),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
