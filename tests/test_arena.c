/*
 * test_arena.c: the region allocator and the error helpers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"

static void arena_should_keep_every_allocation_until_destroy(void **state)
{
    struct arena a;
    char *p[1000];
    int i;

    (void)state;
    arena_init(&a, 256);
    for (i = 0; i < 1000; i++) {
        p[i] = arena_sprintf(&a, "item-%d", i);
        assert_non_null(p[i]);
    }
    for (i = 0; i < 1000; i++) {
        char want[32];

        snprintf(want, sizeof(want), "item-%d", i);
        assert_string_equal(p[i], want);
    }
    arena_destroy(&a);
}

static void arena_should_align_and_serve_large_blocks(void **state)
{
    struct arena a;
    unsigned char *small, *big, *after;

    (void)state;
    arena_init(&a, 128);
    small = arena_alloc(&a, 3);
    big = arena_calloc(&a, 1, 10000);
    after = arena_alloc(&a, 8);
    assert_non_null(small);
    assert_non_null(big);
    assert_non_null(after);
    assert_int_equal((uintptr_t)small % _Alignof(max_align_t), 0);
    assert_int_equal((uintptr_t)after % _Alignof(max_align_t), 0);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(big[i], 0);
    memset(big, 0xab, 10000);
    assert_null(arena_calloc(&a, SIZE_MAX / 2, 4));
    assert_null(arena_strdup(&a, NULL));
    assert_string_equal(arena_strndup(&a, "abcdef", 3), "abc");
    arena_destroy(&a);
}

static void err_should_prefix_and_quote(void **state)
{
    struct err e;
    char q[64];

    (void)state;
    assert_int_equal(err_set(&e, "invalid quantity %s",
                             err_quote(q, sizeof(q), "1.5\"3", 100)),
                     -1);
    err_prefix(&e, "%s: ", "spec.containers[2].resources.requests.cpu");
    assert_string_equal(
        e.msg, "spec.containers[2].resources.requests.cpu: invalid quantity "
               "\"1.5\\\"3\"");
    assert_string_equal(err_quote(q, sizeof(q), "abcdef", 3), "\"abc...\"");
    assert_string_equal(err_quote(q, sizeof(q), "a\nb", 10), "\"a\\nb\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_should_keep_every_allocation_until_destroy),
        cmocka_unit_test(arena_should_align_and_serve_large_blocks),
        cmocka_unit_test(err_should_prefix_and_quote),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
