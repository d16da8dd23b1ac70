/*
 * test_sched_lost_bind.c: Bindings whose answer was lost
 * (server/scheduler/sched_lost_bind.h): a record is confirmed only by the
 * node it names, forgotten by any other answer, replaced by a newer one,
 * and bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/scheduler/sched_lost_bind.h"
#include "server/scheduler/scheduler.h"

static void bound_to_our_node_should_confirm_once(void **state)
{
    struct scheduler s = { 0 };
    char *uid = NULL;

    (void)state;
    assert_int_equal(sched_lost_bind_note(&s, "default/a", "u-a", "n1"), 0);
    assert_int_equal(sched_lost_bind_count(&s), 1);
    assert_true(sched_lost_bind_take(&s, "default/a", "n1", &uid));
    assert_string_equal(uid, "u-a");
    free(uid);
    uid = NULL;
    /* Taken: a second sighting of the same pod says nothing. */
    assert_false(sched_lost_bind_take(&s, "default/a", "n1", &uid));
    assert_null(uid);
    assert_int_equal(sched_lost_bind_count(&s), 0);
    sched_lost_bind_free(&s);
}

static void another_node_or_a_new_attempt_should_forget(void **state)
{
    struct scheduler s = { 0 };
    char *uid = NULL;

    (void)state;
    sched_lost_bind_note(&s, "default/a", "u-a", "n1");
    sched_lost_bind_note(&s, "default/b", NULL, "n2");
    sched_lost_bind_note(&s, "default/c", "u-c", "n3");
    /* Someone else bound a elsewhere: not ours, and forgotten. */
    assert_false(sched_lost_bind_take(&s, "default/a", "n9", &uid));
    assert_null(uid);
    assert_false(sched_lost_bind_take(&s, "default/a", "n1", &uid));
    /* b popped for another attempt (or deleted): forgotten. */
    assert_false(sched_lost_bind_take(&s, "default/b", NULL, NULL));
    assert_false(sched_lost_bind_take(&s, "default/b", "n2", &uid));
    /* A pod never recorded. */
    assert_false(sched_lost_bind_take(&s, "default/z", "n3", &uid));
    assert_int_equal(sched_lost_bind_count(&s), 1);
    assert_true(sched_lost_bind_take(&s, "default/c", "n3", &uid));
    assert_string_equal(uid, "u-c");
    free(uid);
    sched_lost_bind_free(&s);
}

static void a_newer_bind_should_replace_the_record(void **state)
{
    struct scheduler s = { 0 };
    char *uid = NULL;

    (void)state;
    sched_lost_bind_note(&s, "default/a", "u-a", "n1");
    sched_lost_bind_note(&s, "default/a", "u-a", "n2");
    assert_int_equal(sched_lost_bind_count(&s), 1);
    assert_true(sched_lost_bind_take(&s, "default/a", "n2", &uid));
    assert_string_equal(uid, "u-a");
    free(uid);
    sched_lost_bind_free(&s);
}

static void records_should_be_bounded_oldest_first(void **state)
{
    struct scheduler s = { 0 };
    char key[32];
    char *uid = NULL;
    int i;

    (void)state;
    for (i = 0; i < SCHED_LOST_BIND_MAX + 5; i++) {
        snprintf(key, sizeof(key), "default/p%d", i);
        assert_int_equal(sched_lost_bind_note(&s, key, "", "n"), 0);
    }
    assert_int_equal(sched_lost_bind_count(&s), SCHED_LOST_BIND_MAX);
    assert_false(sched_lost_bind_take(&s, "default/p4", "n", &uid));
    assert_true(sched_lost_bind_take(&s, "default/p5", "n", &uid));
    assert_string_equal(uid, "");
    free(uid);
    snprintf(key, sizeof(key), "default/p%d", SCHED_LOST_BIND_MAX + 4);
    assert_true(sched_lost_bind_take(&s, key, "n", &uid));
    free(uid);
    sched_lost_bind_free(&s);
    assert_int_equal(sched_lost_bind_count(&s), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bound_to_our_node_should_confirm_once),
        cmocka_unit_test(another_node_or_a_new_attempt_should_forget),
        cmocka_unit_test(a_newer_bind_should_replace_the_record),
        cmocka_unit_test(records_should_be_bounded_oldest_first),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
