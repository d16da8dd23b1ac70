/*
 * test_strbuf.c: the one growable text buffer (kube/base/strbuf.c): growth by
 * add and printf, the byte cap, starting in caller storage and moving to
 * the heap, take, and growth charged to an arena's limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/base/strbuf.h"

static void add_and_printf_should_grow(void **state)
{
    struct strbuf b;
    size_t i;

    (void)state;
    strbuf_init(&b, 0);
    for (i = 0; i < 1000; i++)
        strbuf_printf(&b, "%04zu,", i);
    strbuf_add(&b, "end");
    assert_false(b.failed);
    assert_int_equal(b.len, 5003);
    assert_int_equal(strncmp(b.s, "0000,0001,", 10), 0);
    assert_string_equal(b.s + 4995, "0999,end");
    strbuf_free(&b);
}

static void the_cap_should_fail_the_buffer_once_and_for_all(void **state)
{
    struct strbuf b;

    (void)state;
    strbuf_init(&b, 8);
    strbuf_add(&b, "1234567");
    assert_false(b.failed);
    strbuf_printf(&b, "%d", 8);
    assert_true(b.failed);
    strbuf_add(&b, "");
    assert_true(b.failed);
    assert_null(strbuf_take(&b, NULL));
}

static void storage_should_move_to_the_heap(void **state)
{
    char stack[8];
    struct strbuf b;
    size_t len;
    char *s;

    (void)state;
    strbuf_init_on(&b, stack, sizeof(stack));
    strbuf_add(&b, "abc");
    assert_ptr_equal(b.s, stack);
    strbuf_printf(&b, "%s", "defghijkl");
    assert_ptr_not_equal(b.s, stack);
    assert_string_equal(b.s, "abcdefghijkl");
    s = strbuf_take(&b, &len);
    assert_string_equal(s, "abcdefghijkl");
    assert_int_equal(len, 12);
    free(s);
    strbuf_init_on(&b, stack, sizeof(stack));
    strbuf_add(&b, "short");
    s = strbuf_take(&b, NULL);
    assert_ptr_not_equal(s, stack);
    assert_string_equal(s, "short");
    free(s);
}

static void charged_growth_should_fail_past_the_arena_limit(void **state)
{
    struct arena a;
    struct strbuf b;
    char chunk[300];

    (void)state;
    arena_init(&a, 0);
    a.limit = 1024;
    memset(chunk, 'x', sizeof(chunk) - 1);
    chunk[sizeof(chunk) - 1] = '\0';
    strbuf_init(&b, 0);
    b.charge = &a;
    strbuf_add(&b, chunk);
    assert_false(b.failed);
    strbuf_add(&b, chunk);
    strbuf_add(&b, chunk);
    strbuf_add(&b, chunk);
    assert_true(b.failed);
    strbuf_free(&b);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_and_printf_should_grow),
        cmocka_unit_test(the_cap_should_fail_the_buffer_once_and_for_all),
        cmocka_unit_test(storage_should_move_to_the_heap),
        cmocka_unit_test(charged_growth_should_fail_past_the_arena_limit),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
