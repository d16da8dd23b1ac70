/*
 * test_toleration.c: v1.Toleration.ToleratesTaint as of v1.22 and the
 * any-of-the-list rule (predicates.md A.9, B.1, B.8).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kube/model/labels.h"

#define NO_SCHEDULE        "NoSchedule"
#define PREFER_NO_SCHEDULE "PreferNoSchedule"
#define NO_EXECUTE         "NoExecute"
#define UNSCHEDULABLE_KEY  "node.kubernetes.io/unschedulable"

struct tolerate_case {
    const char *name;
    struct kube_toleration toleration;
    struct kube_taint taint;
    bool want;
};

static int run_tolerate_table(const char *what,
                              const struct tolerate_case *cases, size_t n)
{
    int failed = 0;

    for (size_t i = 0; i < n; i++) {
        bool got =
            kube_toleration_tolerates(&cases[i].toleration, &cases[i].taint);

        if (got != cases[i].want) {
            print_error("%s case \"%s\": got %d, want %d\n", what,
                        cases[i].name, got, cases[i].want);
            failed++;
        }
    }
    return failed;
}

/*
 * core/v1 toleration_test.go TestTolerationToleratesTaint. Later releases
 * added Gt/Lt toleration operators; v1.22 has none, so those rows are
 * ported with v1.22's answer: an unknown operator tolerates nothing.
 */
static void toleration_should_tolerate_as_upstream(void **state)
{
    static const struct tolerate_case cases[] = {
        { "same key and effect, Exists, taint without value",
          { "foo", "Exists", "", NO_SCHEDULE },
          { "foo", "", NO_SCHEDULE },
          true },
        { "same key and effect, Exists, taint with a value",
          { "foo", "Exists", "", NO_SCHEDULE },
          { "foo", "bar", NO_SCHEDULE },
          true },
        { "same effect, empty key and Exists match all taints",
          { "", "Exists", "", NO_SCHEDULE },
          { "foo", "bar", NO_SCHEDULE },
          true },
        { "same key, effect and value, Equal",
          { "foo", "Equal", "bar", NO_SCHEDULE },
          { "foo", "bar", NO_SCHEDULE },
          true },
        { "same key and effect, different values, Equal",
          { "foo", "Equal", "value1", NO_SCHEDULE },
          { "foo", "value2", NO_SCHEDULE },
          false },
        { "same key and value, different effects, Equal",
          { "foo", "Equal", "bar", NO_SCHEDULE },
          { "foo", "bar", NO_EXECUTE },
          false },
        { "Gt is not a v1.22 operator (taint value greater)",
          { "node.kubernetes.io/sla", "Gt", "750", NO_SCHEDULE },
          { "node.kubernetes.io/sla", "950", NO_SCHEDULE },
          false },
        { "Lt is not a v1.22 operator (taint value less)",
          { "node.kubernetes.io/sla", "Lt", "950", NO_SCHEDULE },
          { "node.kubernetes.io/sla", "800", NO_SCHEDULE },
          false },
    };

    (void)state;
    if (run_tolerate_table("TestTolerationToleratesTaint", cases,
                           sizeof(cases) / sizeof(cases[0])))
        fail_msg("TestTolerationToleratesTaint cases failed");
}

/* predicates.md A.9 and the toleration edges of B.1 and B.8. */
static void toleration_should_follow_reference_rules(void **state)
{
    static const struct tolerate_case cases[] = {
        { "empty effect matches every effect",
          { "foo", "Equal", "bar", "" },
          { "foo", "bar", PREFER_NO_SCHEDULE },
          true },
        { "empty operator means Equal, equal values",
          { "foo", "", "bar", NO_SCHEDULE },
          { "foo", "bar", NO_SCHEDULE },
          true },
        { "empty operator means Equal, different values",
          { "foo", "", "bar", NO_SCHEDULE },
          { "foo", "baz", NO_SCHEDULE },
          false },
        { "Exists with empty key and effect tolerates everything",
          { "", "Exists", "", "" },
          { "anything", "at-all", NO_EXECUTE },
          true },
        { "empty key with Equal matches any key with an equal value",
          { "", "Equal", "v", "" },
          { "some-key", "v", NO_SCHEDULE },
          true },
        { "Equal with empty value matches only empty-valued taints",
          { "foo", "Equal", "", "" },
          { "foo", "x", NO_SCHEDULE },
          false },
        { "Equal with empty value matches an empty-valued taint",
          { "foo", "Equal", "", "" },
          { "foo", "", NO_SCHEDULE },
          true },
        { "different key",
          { "foo", "Exists", "", "" },
          { "bar", "", NO_SCHEDULE },
          false },
        { "unknown operator tolerates nothing",
          { "foo", "exists", "", "" },
          { "foo", "", NO_SCHEDULE },
          false },
        { "Exists ignores the toleration value",
          { "foo", "Exists", "ignored", "" },
          { "foo", "bar", NO_SCHEDULE },
          true },
        { "keys compare case-sensitively",
          { "Foo", "Exists", "", "" },
          { "foo", "", NO_SCHEDULE },
          false },
        /* B.1: the synthetic unschedulable taint */
        { "B.1 Exists on the unschedulable key, any effect",
          { UNSCHEDULABLE_KEY, "Exists", "", "" },
          { UNSCHEDULABLE_KEY, "", NO_SCHEDULE },
          true },
        { "B.1 Exists on the unschedulable key, NoSchedule",
          { UNSCHEDULABLE_KEY, "Exists", "", NO_SCHEDULE },
          { UNSCHEDULABLE_KEY, "", NO_SCHEDULE },
          true },
        { "B.1 Equal \"true\" does not match the empty taint value",
          { UNSCHEDULABLE_KEY, "Equal", "true", "" },
          { UNSCHEDULABLE_KEY, "", NO_SCHEDULE },
          false },
        { "B.1 Exists with an empty key",
          { "", "Exists", "", "" },
          { UNSCHEDULABLE_KEY, "", NO_SCHEDULE },
          true },
        { "B.1 NoExecute toleration does not cover NoSchedule",
          { UNSCHEDULABLE_KEY, "Exists", "", NO_EXECUTE },
          { UNSCHEDULABLE_KEY, "", NO_SCHEDULE },
          false },
        /* B.8 */
        { "B.8 dedicated=gpu tolerated by Equal",
          { "dedicated", "Equal", "gpu", NO_SCHEDULE },
          { "dedicated", "gpu", NO_SCHEDULE },
          true },
        { "B.8 NoSchedule toleration does not cover NoExecute",
          { "dedicated", "Equal", "gpu", NO_SCHEDULE },
          { "dedicated", "gpu", NO_EXECUTE },
          false },
        { "absent fields read as empty",
          { NULL, "Exists", NULL, NULL },
          { "foo", NULL, NO_SCHEDULE },
          true },
        { "absent value equals empty value",
          { "foo", NULL, NULL, NULL },
          { "foo", "", NO_SCHEDULE },
          true },
    };

    (void)state;
    if (run_tolerate_table("A.9", cases, sizeof(cases) / sizeof(cases[0])))
        fail_msg("A.9 cases failed");
}

/*
 * pkg/apis/core/v1/helper helpers_test.go
 * TestTolerationsTolerateTaintsWithFilter, per taint: a taint is tolerated
 * when some toleration of the list tolerates it.
 */
static void tolerations_should_tolerate_when_any_does(void **state)
{
    static const struct kube_toleration foo_exists_no_schedule[] = {
        { "foo", "Exists", "", NO_SCHEDULE },
    };
    static const struct kube_toleration several[] = {
        { "a", "Equal", "1", NO_SCHEDULE },
        { "b", "Exists", "", NO_EXECUTE },
        { "c", "Equal", "3", "" },
    };
    static const struct {
        const char *name;
        const struct kube_toleration *t;
        size_t n;
        struct kube_taint taint;
        bool want;
    } cases[] = {
        { "tolerations match the taint",
          foo_exists_no_schedule,
          1,
          { "foo", "", NO_SCHEDULE },
          true },
        { "tolerations don't match the taint",
          foo_exists_no_schedule,
          1,
          { "bar", "", NO_SCHEDULE },
          false },
        { "no tolerations", NULL, 0, { "foo", "", NO_SCHEDULE }, false },
        { "first of several", several, 3, { "a", "1", NO_SCHEDULE }, true },
        { "second of several", several, 3, { "b", "x", NO_EXECUTE }, true },
        { "last of several",
          several,
          3,
          { "c", "3", PREFER_NO_SCHEDULE },
          true },
        { "none of several", several, 3, { "b", "x", NO_SCHEDULE }, false },
        { "count limits the list",
          several,
          2,
          { "c", "3", NO_SCHEDULE },
          false },
    };
    int failed = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool got =
            kube_tolerations_tolerate(cases[i].t, cases[i].n, &cases[i].taint);

        if (got != cases[i].want) {
            print_error("case \"%s\": got %d, want %d\n", cases[i].name, got,
                        cases[i].want);
            failed++;
        }
    }
    assert_false(kube_toleration_tolerates(NULL, &cases[0].taint));
    assert_false(kube_toleration_tolerates(&several[0], NULL));
    if (failed)
        fail_msg("%d toleration list case(s) failed", failed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(toleration_should_tolerate_as_upstream),
        cmocka_unit_test(toleration_should_follow_reference_rules),
        cmocka_unit_test(tolerations_should_tolerate_when_any_does),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
