/*
 * test_extender_scale.c: the 0..10 extender score of a weighted total.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/extender/extender.h"

struct scale_case {
    int64_t total, weights, want;
};

static const struct scale_case cases[] = {
    { 0, 2, 0 },            /* worst on every priority */
    { 200, 2, 10 },         /* best on both of two weight-1 priorities */
    { 199, 2, 9 },          /* truncates, as the Go peer's formula does */
    { 150, 2, 7 },          /* 75 on average */
    { 1000800, 10008, 10 }, /* the v1.22 default set's maximum */
    { 1000000, 10008, 9 },  /* NodePreferAvoidPods dominates */
    { 50, 0, 0 },           /* no priorities: nothing to add */
};

static void scale_should_be_the_weighted_average_in_tenths(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t got = ext_scale_score(cases[i].total, cases[i].weights);

        if (got != cases[i].want)
            fail_msg("total %lld, weights %lld: got %lld, want %lld",
                     (long long)cases[i].total, (long long)cases[i].weights,
                     (long long)got, (long long)cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scale_should_be_the_weighted_average_in_tenths),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
