/*
 * test_framework_registry.c: the one registry machinery (framework/
 * registry.c) on a registry of its own: lookup by name then alias,
 * positions, runtime additions and their refusals, and the argument-key
 * set, which refuses the key past KPE_MAX_ARGS with a message instead of
 * dropping it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "framework/registry.h"

static const char *const alpha_aliases[] = { "Alef", NULL };

static const struct kpe_def alpha = { .name = "Alpha",
                                      .aliases = alpha_aliases };
static const struct kpe_def beta = { .name = "Beta" };
static const struct kpe_def *const rows[] = { &alpha, &beta };

#define MAX_RUNTIME (KPE_MAX_ARGS + 2)
static const struct kpe_def *all[2 + MAX_RUNTIME];

static bool plugin_named(const char *name)
{
    return !strcmp(name, "BuiltinPlugin");
}

static struct kpe_registry reg = {
    .kind = "widget",
    .plugin_kind = "widget plugin",
    .rows = rows,
    .n_rows = 2,
    .all = all,
    .max_runtime = MAX_RUNTIME,
    .plugin_named = plugin_named,
};

static int reset(void **state)
{
    (void)state;
    kpe_registry_truncate(&reg, 0);
    return 0;
}

static void lookup_should_find_names_then_aliases(void **state)
{
    size_t n;

    (void)state;
    assert_ptr_equal(kpe_registry_lookup(&reg, "Alpha"), &alpha);
    assert_ptr_equal(kpe_registry_lookup(&reg, "Alef"), &alpha);
    assert_null(kpe_registry_lookup(&reg, "Gamma"));
    assert_null(kpe_registry_lookup(&reg, NULL));
    assert_int_equal(kpe_registry_index(&reg, &beta), 1);
    assert_ptr_equal(kpe_registry_view(&reg, &n), rows);
    assert_int_equal(n, 2);
}

static void add_should_refuse_clashes_and_append(void **state)
{
    static const struct kpe_def dup = { .name = "Alpha" };
    static const struct kpe_def alias = { .name = "Alef" };
    static const struct kpe_def plug = { .name = "BuiltinPlugin" };
    static const struct kpe_def gamma = { .name = "Gamma" };
    struct err e = { "" };
    size_t n;

    (void)state;
    assert_int_equal(kpe_registry_add(&reg, &dup, &e), -1);
    assert_string_equal(e.msg,
                        "widget \"Alpha\" clashes with a built-in widget");
    assert_int_equal(kpe_registry_add(&reg, &alias, &e), -1);
    assert_string_equal(e.msg, "widget \"Alef\" clashes with an alias of the "
                               "built-in widget \"Alpha\"");
    assert_int_equal(kpe_registry_add(&reg, &plug, &e), -1);
    assert_string_equal(e.msg, "widget \"BuiltinPlugin\" clashes with a "
                               "built-in widget plugin of that name");
    assert_int_equal(kpe_registry_add(&reg, &gamma, &e), 0);
    assert_ptr_equal(kpe_registry_lookup(&reg, "Gamma"), &gamma);
    assert_int_equal(kpe_registry_index(&reg, &gamma), 2);
    kpe_registry_view(&reg, &n);
    assert_int_equal(n, 3);
    assert_int_equal(kpe_registry_add(&reg, &gamma, &e), -1);
    assert_string_equal(e.msg,
                        "widget \"Gamma\" is already registered by a plugin");
}

static struct kpe_arg_schema schemas[KPE_MAX_ARGS + 1];
static struct kpe_def defs[KPE_MAX_ARGS + 1];
static char names[KPE_MAX_ARGS + 1][2][16];

static void full_key_set_should_be_refused_with_a_message(void **state)
{
    const struct kpe_arg_schema *set[KPE_MAX_ARGS];
    struct err e = { "" };
    size_t i;

    (void)state;
    for (i = 0; i <= KPE_MAX_ARGS; i++) {
        snprintf(names[i][0], sizeof(names[i][0]), "W%zu", i);
        snprintf(names[i][1], sizeof(names[i][1]), "key%zu", i);
        schemas[i].key = names[i][1];
        schemas[i].api_order = (int)i;
        defs[i].name = names[i][0];
        defs[i].args = &schemas[i];
    }
    for (i = 0; i < KPE_MAX_ARGS; i++)
        assert_int_equal(kpe_registry_add(&reg, &defs[i], &e), 0);
    assert_int_equal(kpe_registry_arg_schemas(&reg, set, KPE_MAX_ARGS),
                     KPE_MAX_ARGS);
    assert_int_equal(kpe_registry_add(&reg, &defs[KPE_MAX_ARGS], &e), -1);
    assert_string_equal(e.msg, "widget \"W40\": argument key \"key40\" "
                               "refused: the policy already reads 40 "
                               "argument keys, the most one kind holds");
    assert_null(kpe_registry_lookup(&reg, "W40"));
    assert_int_equal(reg.n_runtime, KPE_MAX_ARGS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(lookup_should_find_names_then_aliases, reset),
        cmocka_unit_test_setup(add_should_refuse_clashes_and_append, reset),
        cmocka_unit_test_setup(full_key_set_should_be_refused_with_a_message,
                               reset),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
