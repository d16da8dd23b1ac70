/*
 * test_topology_counts.c: the one (topology key, value) -> count map both
 * plugin folders use (kube/cluster/topology_counts.c): insert-or-find, growth
 * past many pairs with every count kept, pairs that differ only in where the
 * key ends, absent pairs, and a map sized by a hint.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "kube/cluster/topology_counts.h"

static void add_should_insert_once_and_say_so(void **state)
{
    struct arena a;
    struct topo_counts m;
    bool created = false;
    int64_t *c;

    (void)state;
    arena_init(&a, 0);
    topo_counts_init(&m, &a);
    assert_null(topo_counts_find(&m, "zone", "a"));
    assert_int_equal(topo_counts_get(&m, "zone", "a"), 0);
    c = topo_counts_add(&m, "zone", "a", &created);
    assert_non_null(c);
    assert_true(created);
    *c += 3;
    assert_ptr_equal(topo_counts_add(&m, "zone", "a", &created), c);
    assert_false(created);
    assert_int_equal(topo_counts_get(&m, "zone", "a"), 3);
    assert_int_equal(m.n, 1);
    arena_destroy(&a);
}

/* "ab"+"c" and "a"+"bc" are different pairs. */
static void pairs_should_not_run_together(void **state)
{
    struct arena a;
    struct topo_counts m;

    (void)state;
    arena_init(&a, 0);
    topo_counts_init(&m, &a);
    *topo_counts_add(&m, "ab", "c", NULL) = 1;
    *topo_counts_add(&m, "a", "bc", NULL) = 2;
    assert_int_equal(topo_counts_get(&m, "ab", "c"), 1);
    assert_int_equal(topo_counts_get(&m, "a", "bc"), 2);
    assert_int_equal(topo_counts_get(&m, "abc", ""), 0);
    assert_int_equal(m.n, 2);
    arena_destroy(&a);
}

static void growth_should_keep_every_count(void **state)
{
    static char keys[5000][16];
    struct arena a;
    struct topo_counts m;
    size_t i;

    (void)state;
    arena_init(&a, 0);
    assert_int_equal(topo_counts_init_hint(&m, &a, 100), 0);
    assert_true(m.cap * 3 >= 100 * 4);
    for (i = 0; i < 5000; i++) {
        snprintf(keys[i], sizeof(keys[i]), "n-%zu", i);
        *topo_counts_add(&m, "kubernetes.io/hostname", keys[i], NULL) =
            (int64_t)i;
    }
    assert_int_equal(m.n, 5000);
    assert_true(m.n * 4 <= m.cap * 3);
    for (i = 0; i < 5000; i++)
        assert_int_equal(topo_counts_get(&m, "kubernetes.io/hostname", keys[i]),
                         (int64_t)i);
    assert_null(topo_counts_find(&m, "kubernetes.io/hostname", "n-5000"));
    arena_destroy(&a);
}

/* The distinct keys: each once, in first-seen order, through growth. */
static void keys_should_list_each_once(void **state)
{
    static const char *const seen[] = {
        "zone", "host", "zone", "rack", "host", "a", "b", "c", "d", "zone"
    };
    static const char *const want[] = { "zone", "host", "rack", "a",
                                        "b",    "c",    "d" };
    struct arena a;
    struct topo_keys k = { 0 };
    size_t i;

    (void)state;
    arena_init(&a, 0);
    for (i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
        assert_int_equal(topo_keys_add(&k, &a, seen[i]), 0);
    assert_int_equal(k.n, sizeof(want) / sizeof(want[0]));
    for (i = 0; i < k.n; i++)
        assert_string_equal(k.keys[i], want[i]);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_should_insert_once_and_say_so),
        cmocka_unit_test(pairs_should_not_run_together),
        cmocka_unit_test(growth_should_keep_every_count),
        cmocka_unit_test(keys_should_list_each_once),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
