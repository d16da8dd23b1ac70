/*
 * test_policy_load.c: the load API: a failed load leaves nothing behind
 * and does not touch the running policy; every policy in tests/policies
 * loads; file errors; the cluster-data mask.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"

static void failed_reload_should_keep_the_running_policy(void **state)
{
    struct policy *running = NULL, *before;
    struct err e;
    static const char *const bad[] = {
        "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\""
        ":\"Nope\"}]}",
        "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"priorities\":[{\"name\""
        ":\"A\"}]}",
        "{\"kind\":\"Policy\"",
        "[policy]\nbogus = 1\n",
    };
    size_t i;

    (void)state;
    if (policy_load_file("tests/policies/reference-10.2-custom.json", NULL,
                         &running, &e))
        fail_msg("%s", e.msg);
    before = running;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct policy *next = running;

        if (!policy_load_buffer(i == 3 ? "x.ini" : "x.json", bad[i],
                                strlen(bad[i]), NULL, &next, &e))
            fail_msg("bad policy %zu loaded", i);
        assert_ptr_equal(next, running); /* untouched on failure */
        assert_true(e.msg[0] != '\0');
    }
    assert_ptr_equal(running, before);
    assert_int_equal(running->n_prios, 4);
    assert_string_equal(running->prios[1].def->name, "NodeLabel");
    policy_free(running);
}

static void every_real_world_policy_should_load(void **state)
{
    const char *dirs[] = { "tests/policies", "tests/policies/legacy" };
    size_t d;
    int count = 0;

    (void)state;
    for (d = 0; d < 2; d++) {
        DIR *dir = opendir(dirs[d]);
        struct dirent *de;

        assert_non_null(dir);
        while ((de = readdir(dir))) {
            struct policy_load_opts o = { .compat =
                                              d ? POLICY_COMPAT_LEGACY : 0,
                                          .format = POLICY_FORMAT_AUTO,
                                          .warnings = NULL };
            struct policy *p = NULL;
            struct err e;
            char path[512];
            size_t n = strlen(de->d_name);

            if (n < 5 || (strcmp(de->d_name + n - 5, ".json") &&
                          strcmp(de->d_name + n - 4, ".ini")))
                continue;
            snprintf(path, sizeof(path), "%s/%s", dirs[d], de->d_name);
            if (policy_load_file(path, &o, &p, &e))
                fail_msg("%s does not load: %s", path, e.msg);
            if (d) {
                struct policy *q = NULL;

                o.compat = 0;
                if (!policy_load_file(path, &o, &q, &e))
                    fail_msg("%s loads without compat legacy", path);
                if (!strstr(e.msg, "predicate type not found for \"") &&
                    !strstr(e.msg, "priority type not found for \""))
                    fail_msg("%s: unexpected message %s", path, e.msg);
            }
            policy_free(p);
            count++;
        }
        closedir(dir);
    }
    assert_true(count >= 22);
}

static void missing_file_should_say_so(void **state)
{
    struct policy *p = NULL;
    struct err e;

    (void)state;
    assert_int_equal(policy_load_file("tests/policies/nope.json", NULL, &p, &e),
                     -1);
    assert_null(p);
    assert_string_equal(e.msg, "tests/policies/nope.json: cannot open: No "
                               "such file or directory");
}

static void needs_should_cover_enabled_entries(void **state)
{
    struct policy *p = NULL;
    struct err e;

    (void)state;
    if (policy_load_file("tests/policies/seed-002-custom.json", NULL, &p, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(p->needs, 0);
    policy_free(p);
    if (policy_load_file("tests/policies/v122-defaults.json", NULL, &p, &e))
        fail_msg("%s", e.msg);
    assert_true(p->needs & KPE_NEED_ALL_PODS);
    assert_true(p->needs & KPE_NEED_SERVICES); /* SelectorSpread defaults */
    assert_true(p->needs & KPE_NEED_PVCS);
    assert_true(p->needs & KPE_NEED_CSINODES);
    assert_true(p->needs & KPE_NEED_NAMESPACES);
    policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(failed_reload_should_keep_the_running_policy),
        cmocka_unit_test(every_real_world_policy_should_load),
        cmocka_unit_test(missing_file_should_say_so),
        cmocka_unit_test(needs_should_cover_enabled_entries),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
