/*
 * test_pred_node_label.c: CheckNodeLabelPresence (NodeLabel filter with
 * labelsPresence arguments, predicates.md B.9).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/predicates.h"
#include "predicates/node_label.h"
#include "tests/support/node_filter_fixtures.h"

#define PLUGIN "NodeLabel"
#define N(a)   (sizeof(a) / sizeof((a)[0]))
#define MAXL   3

struct label_case {
    const char *name;
    const char *present[MAXL]; /* NULL-terminated when shorter */
    const char *absent[MAXL];
    enum pred_code want;
};

/* TestNodeLabelFilter (plugins/nodelabel/node_label_test.go); the node has
 * labels foo and bar, both "any value". */
static const struct label_case upstream[] = {
    { "present label does not match",
      { "baz" },
      { NULL },
      PRED_UNFIT_UNRESOLVABLE },
    { "absent label does not match", { NULL }, { "baz" }, PRED_FIT },
    { "one of two present labels matches",
      { "foo", "baz" },
      { NULL },
      PRED_UNFIT_UNRESOLVABLE },
    { "one of two absent labels matches",
      { NULL },
      { "foo", "baz" },
      PRED_UNFIT_UNRESOLVABLE },
    { "all present labels match", { "foo", "bar" }, { NULL }, PRED_FIT },
    { "all absent labels match",
      { NULL },
      { "foo", "bar" },
      PRED_UNFIT_UNRESOLVABLE },
    { "both present and absent label matches",
      { "foo" },
      { "bar" },
      PRED_UNFIT_UNRESOLVABLE },
    { "neither present nor absent label matches",
      { "foz" },
      { "baz" },
      PRED_UNFIT_UNRESOLVABLE },
    { "present label matches and absent label doesn't match",
      { "foo" },
      { "baz" },
      PRED_FIT },
    { "present label doesn't match and absent label matches",
      { "foz" },
      { "bar" },
      PRED_UNFIT_UNRESOLVABLE },
    { "no label", { NULL }, { NULL }, PRED_FIT },
};

static struct policy_strlist strlist(const char *const *v)
{
    struct policy_strlist l = { (const char **)v, 0 };

    while (l.n < MAXL && v[l.n])
        l.n++;
    return l;
}

static int run_label_case(const struct label_case *c, const char *node)
{
    struct pred_args args;
    struct kpe_label_lists lists = { { NULL, 0 }, { NULL, 0 } };
    struct p1_case pc = {
        c->name, "{'metadata':{'name':'p'}}",
        node,    { NULL },
        c->want, c->want == PRED_FIT ? NULL : PRED_REASON_NODE_LABEL
    };

    memset(&args, 0, sizeof(args));
    lists.present = strlist(c->present);
    lists.absent = strlist(c->absent);
    args.value = &lists; /* what the entries fold into */
    return p1_run_case(PLUGIN, &args, &pc);
}

static void node_label_should_match_upstream_table(void **state)
{
    int failed = 0;

    (void)state;
    for (size_t i = 0; i < N(upstream); i++)
        failed += run_label_case(&upstream[i],
                                 "{'metadata':{'name':'n','labels':{'foo':'any "
                                 "value','bar':'any value'}}}");
    assert_int_equal(failed, 0);
}

/* Only keys matter: empty values count as present. */
static void node_label_should_ignore_label_values(void **state)
{
    static const struct label_case empty_values[] = {
        { "empty-valued label is present", { "foo" }, { NULL }, PRED_FIT },
        { "empty-valued label is not absent",
          { NULL },
          { "bar" },
          PRED_UNFIT_UNRESOLVABLE },
    };
    static const struct label_case bare = {
        "node without labels has every absent label",
        { NULL },
        { "foo", "bar" },
        PRED_FIT
    };
    int failed = 0;

    (void)state;
    for (size_t i = 0; i < N(empty_values); i++)
        failed += run_label_case(
            &empty_values[i],
            "{'metadata':{'name':'n','labels':{'foo':'','bar':''}}}");
    failed += run_label_case(&bare, "{'metadata':{'name':'n'}}");
    assert_int_equal(failed, 0);
}

/* Without labelsPresence arguments the filter has nothing to check. */
static void node_label_should_fit_without_arguments(void **state)
{
    static const struct p1_case c = { "no arguments",
                                      "{'metadata':{'name':'p'}}",
                                      "{'metadata':{'name':'n'}}",
                                      { NULL },
                                      PRED_FIT,
                                      NULL };
    struct pred_args none;

    (void)state;
    memset(&none, 0, sizeof(none));
    assert_int_equal(p1_run_case(PLUGIN, NULL, &c), 0);
    assert_int_equal(p1_run_case(PLUGIN, &none, &c), 0);
}

/* TestNodeLabelFilterWithoutNode: no node is an internal error. */
static void node_label_should_fail_without_node(void **state)
{
    struct pred_args args;
    struct kpe_label_lists lists = { { NULL, 0 }, { NULL, 0 } };
    struct pred_cycle cy;
    struct node_info ni;
    struct pred_result r;

    (void)state;
    memset(&args, 0, sizeof(args));
    memset(&cy, 0, sizeof(cy));
    memset(&ni, 0, sizeof(ni));
    args.value = &lists;
    pred_result_init(&r, NULL);
    assert_int_equal(pred_node_label_filter(&cy, &args, NULL, &ni, &r),
                     PRED_ERROR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_label_should_match_upstream_table),
        cmocka_unit_test(node_label_should_ignore_label_values),
        cmocka_unit_test(node_label_should_fit_without_arguments),
        cmocka_unit_test(node_label_should_fail_without_node),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
