/*
 * test_labels.c: string maps (lookup, normalisation) and the plain map
 * selector used by spec.nodeSelector and Service selectors.
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

static void labels_get_should_find_keys_by_bisection(void **state)
{
    static const struct {
        const char *name;
        const char *labels;
        const char *key;
        const char *want; /* NULL: absent */
    } cases[] = {
        { "first of many", "a=1,b=2,c=3,d=4,e=5", "a", "1" },
        { "middle of many", "a=1,b=2,c=3,d=4,e=5", "c", "3" },
        { "last of many", "a=1,b=2,c=3,d=4,e=5", "e", "5" },
        { "between keys", "a=1,c=3", "b", NULL },
        { "before all keys", "b=1,c=3", "a", NULL },
        { "after all keys", "a=1,b=3", "z", NULL },
        { "empty value is present", "a=,b=2", "a", "" },
        { "empty map", "", "a", NULL },
        { "absent map", NULL, "a", NULL },
        { "prefix is not a match", "ab=1", "a", NULL },
        { "case sensitive", "A=1", "a", NULL },
        { "prefixed key", "kubernetes.io/hostname=n1,zone=z", "zone", "z" },
        { "unsorted input is normalised", "z=26,a=1,m=13", "m", "13" },
    };
    struct arena a;
    int failed = 0;

    (void)state;
    arena_init(&a, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kube_labels l = lf_labels(&a, cases[i].labels);
        const char *got = kube_labels_get(&l, cases[i].key);

        if ((got == NULL) != (cases[i].want == NULL) ||
            (got && strcmp(got, cases[i].want) != 0)) {
            print_error("case %s: got %s, want %s\n", cases[i].name,
                        got ? got : "(absent)",
                        cases[i].want ? cases[i].want : "(absent)");
            failed++;
        }
    }
    assert_null(kube_labels_get(NULL, "a"));
    arena_destroy(&a);
    if (failed)
        fail_msg("%d lookup case(s) failed", failed);
}

static void labels_normalize_should_sort_and_keep_last_duplicate(void **state)
{
    static const struct {
        const char *name;
        const char *raw;
        const char *want;
    } cases[] = {
        { "already sorted", "a=1,b=2", "a=1,b=2" },
        { "reversed", "c=3,b=2,a=1", "a=1,b=2,c=3" },
        { "duplicate: last value wins", "a=1,b=2,a=3", "a=3,b=2" },
        { "three duplicates", "k=1,k=2,k=3", "k=3" },
        { "duplicates around others", "x=1,a=0,x=2,b=0,x=3", "a=0,b=0,x=3" },
        { "strcmp order: upper before lower", "b=1,B=2,a=3", "B=2,a=3,b=1" },
        { "strcmp order: slash and dot", "a/b=1,a.b=2,a-b=3",
          "a-b=3,a.b=2,a/b=1" },
        { "empty", "", "" },
        { "single", "only=1", "only=1" },
        { "many (merge passes)",
          "j=10,i=9,h=8,g=7,f=6,e=5,d=4,c=3,b=2,a=1,j=11,a=0",
          "a=0,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9,j=11" },
    };
    struct arena a;
    int failed = 0;

    (void)state;
    arena_init(&a, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kube_labels l = lf_labels_raw(&a, cases[i].raw);
        const char *got;

        kube_labels_normalize(&l);
        got = lf_labels_str(&a, &l);
        if (strcmp(got, cases[i].want) != 0) {
            print_error("case %s: got \"%s\", want \"%s\"\n", cases[i].name,
                        got, cases[i].want);
            failed++;
        }
        if (!l.present) {
            print_error("case %s: lost `present`\n", cases[i].name);
            failed++;
        }
    }
    kube_labels_normalize(NULL);
    arena_destroy(&a);
    if (failed)
        fail_msg("%d normalize case(s) failed", failed);
}

/*
 * labels selector_test.go TestSetMatches (SelectorFromSet), then
 * nodeaffinity_test.go TestPodMatchesNodeSelectorAndAffinityTerms, its
 * spec.nodeSelector rows, and predicates.md B.5 (nodeSelector part).
 */
static void labels_contain_should_apply_map_selector(void **state)
{
    static const struct {
        const char *name;
        const char *selector; /* NULL: absent */
        const char *labels;   /* NULL: absent */
        bool want;
    } cases[] = {
        { "TestSetMatches: empty set", "", "foo=bar,baz=blah", true },
        { "TestSetMatches: foo=bar", "foo=bar", "foo=bar,baz=blah", true },
        { "TestSetMatches: baz=blah", "baz=blah", "foo=bar,baz=blah", true },
        { "TestSetMatches: both", "foo=bar,baz=blah", "foo=bar,baz=blah",
          true },
        { "no selector", NULL, "", true },
        { "missing labels", "foo=bar", NULL, false },
        { "same labels", "foo=bar", "foo=bar", true },
        { "node labels are superset", "foo=bar", "foo=bar,baz=blah", true },
        { "node labels are subset", "foo=bar,baz=blah", "foo=bar", false },
        { "value differs", "foo=bar", "foo=barrrrrr", false },
        { "empty value must match empty", "foo=", "foo=", true },
        { "empty value is not absent", "foo=", "bar=", false },
        { "empty value is not any value", "foo=", "foo=x", false },
        { "empty selector, absent labels", "", NULL, true },
    };
    struct arena a;
    int failed = 0;

    (void)state;
    arena_init(&a, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kube_labels sel = lf_labels(&a, cases[i].selector);
        struct kube_labels l = lf_labels(&a, cases[i].labels);
        bool got = kube_labels_contain(&l, &sel);

        if (got != cases[i].want) {
            print_error("case %s: got %d, want %d\n", cases[i].name, got,
                        cases[i].want);
            failed++;
        }
    }
    assert_true(kube_labels_contain(NULL, NULL));
    arena_destroy(&a);
    if (failed)
        fail_msg("%d map selector case(s) failed", failed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(labels_get_should_find_keys_by_bisection),
        cmocka_unit_test(labels_normalize_should_sort_and_keep_last_duplicate),
        cmocka_unit_test(labels_contain_should_apply_map_selector),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
