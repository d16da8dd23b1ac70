/*
 * test_backoff.c: the reflector's backoff manager (kube/client/backoff.h)
 * against the sequence client-go's exponentialBackoffManagerImpl gives
 * with NewReflector's values: 0.8 s doubling to the 30 s cap, jitter up to
 * 1.0 x the wait, and a fresh start after 2 minutes without a backoff
 * (apimachinery wait_test.go TestExponentialBackoffManagerGetNextBackoff
 * checks the same walk).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kube/client/backoff.h"

static void backoff_should_double_to_the_cap(void **state)
{
    const double want[] = { 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30, 30 };
    struct kube_backoff b;
    size_t i;

    (void)state;
    kube_backoff_init(&b, 0.8, 30, 120, 0);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        assert_float_equal(kube_backoff_next(&b, (double)i, 0.5), want[i],
                           1e-9);
}

static void backoff_should_start_over_after_a_healthy_period(void **state)
{
    struct kube_backoff b;

    (void)state;
    kube_backoff_init(&b, 0.8, 30, 120, 0);
    assert_float_equal(kube_backoff_next(&b, 0, 0), 0.8, 1e-9);
    assert_float_equal(kube_backoff_next(&b, 100, 0), 1.6, 1e-9);
    /* 120 s since the last wait began: not yet more. */
    assert_float_equal(kube_backoff_next(&b, 220, 0), 3.2, 1e-9);
    assert_float_equal(kube_backoff_next(&b, 340.5, 0), 0.8, 1e-9);
    assert_float_equal(kube_backoff_next(&b, 341, 0), 1.6, 1e-9);
    kube_backoff_reset(&b);
    assert_float_equal(kube_backoff_next(&b, 342, 0), 0.8, 1e-9);
}

static void backoff_jitter_should_add_up_to_the_factor(void **state)
{
    struct kube_backoff b;

    (void)state;
    kube_backoff_init(&b, 0.8, 30, 120, 1.0);
    assert_float_equal(kube_backoff_next(&b, 0, 0), 0.8, 1e-9);
    assert_float_equal(kube_backoff_next(&b, 1, 0.5), 2.4, 1e-9);
    assert_float_equal(kube_backoff_next(&b, 2, 0.999), 3.2 * 1.999, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(backoff_should_double_to_the_cap),
        cmocka_unit_test(backoff_should_start_over_after_a_healthy_period),
        cmocka_unit_test(backoff_jitter_should_add_up_to_the_factor),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
