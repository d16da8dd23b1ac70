/*
 * test_normalize.c: DefaultNormalizeScore, ported from upstream
 * pkg/scheduler/framework/plugins/helper/normalize_score_test.go
 * (TestDefaultNormalizeScore).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "priorities/framework.h"

struct normalize_case {
    const char *name;
    bool reverse;
    size_t n;
    int64_t in[8];
    int64_t want[8];
};

/* TestDefaultNormalizeScore (all seven upstream cases) */
static const struct normalize_case cases[] = {
    { "case_0", false, 4, { 1, 2, 3, 4 }, { 25, 50, 75, 100 } },
    { "case_1", true, 4, { 1, 2, 3, 4 }, { 75, 50, 25, 0 } },
    { "case_2", false, 4, { 1000, 10, 20, 30 }, { 100, 1, 2, 3 } },
    { "case_3", true, 4, { 1000, 10, 20, 30 }, { 0, 99, 98, 97 } },
    { "case_4", false, 4, { 1, 1, 1, 1 }, { 100, 100, 100, 100 } },
    { "case_5", false, 4, { 1000, 1, 1, 1 }, { 100, 0, 0, 0 } },
    { "case_6", true, 4, { 0, 1, 1, 1 }, { 100, 0, 0, 0 } },
    /* The all-zero branch (normalize_score.go: maxCount == 0). */
    { "all zero", false, 3, { 0, 0, 0 }, { 0, 0, 0 } },
    { "all zero, reverse", true, 3, { 0, 0, 0 }, { 100, 100, 100 } },
    { "empty list", false, 0, { 0 }, { 0 } },
};

static void normalize_should_match_upstream_table(void **state)
{
    size_t i, j;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t s[8];

        for (j = 0; j < cases[i].n; j++)
            s[j] = cases[i].in[j];
        prio_normalize_default(s, cases[i].n, PRIO_MAX_NODE_SCORE,
                               cases[i].reverse);
        for (j = 0; j < cases[i].n; j++) {
            if (s[j] != cases[i].want[j])
                fail_msg("%s: score[%zu] = %lld, want %lld", cases[i].name, j,
                         (long long)s[j], (long long)cases[i].want[j]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(normalize_should_match_upstream_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
