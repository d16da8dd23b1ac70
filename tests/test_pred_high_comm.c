/*
 * test_pred_high_comm.c: HighCommPodFilter (seed 000, first version: the
 * pod label key alone selects the pod, whatever its value).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "predicates/predicates.h"
#include "tests/support/node_filter_fixtures.h"
#include "tests/support/pred_fixtures.h"

#define PLUGIN "HighCommPodFilter"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define HC      "Node does not support RDMA"
#define POD(l)  "{'metadata':{'name':'p','labels':{" l "}}}"
#define NODE(l) "{'metadata':{'name':'n','labels':{" l "}}}"
#define RDMA(v) "'node.kubernetes.io/rdma-enabled':'" v "'"

/* The seed's rule with its default label names (args kind NONE). */
static const struct p1_case defaults[] = {
    { "pod without the label fits a node without RDMA",
      POD(""),
      NODE(""),
      { NULL },
      PRED_FIT,
      NULL },
    { "pod without the label fits a node with rdma false",
      POD(""),
      NODE(RDMA("false")),
      { NULL },
      PRED_FIT,
      NULL },
    { "pod with other labels only is not restricted",
      POD("'app':'web'"),
      NODE(""),
      { NULL },
      PRED_FIT,
      NULL },
    { "high-comm=true fits rdma-enabled=true",
      POD("'high-comm':'true'"),
      NODE(RDMA("true")),
      { NULL },
      PRED_FIT,
      NULL },
    { "high-comm=true rejected by a node without the label",
      POD("'high-comm':'true'"),
      NODE("'zone':'a'"),
      { NULL },
      PRED_UNFIT,
      HC },
    { "high-comm=true rejected by rdma-enabled=false",
      POD("'high-comm':'true'"),
      NODE(RDMA("false")),
      { NULL },
      PRED_UNFIT,
      HC },
    { "high-comm=true rejected by rdma-enabled empty",
      POD("'high-comm':'true'"),
      NODE(RDMA("")),
      { NULL },
      PRED_UNFIT,
      HC },
    { "rdma-enabled value is case-sensitive",
      POD("'high-comm':'true'"),
      NODE(RDMA("True")),
      { NULL },
      PRED_UNFIT,
      HC },
    { "high-comm=false still selects the pod (key presence)",
      POD("'high-comm':'false'"),
      NODE(RDMA("false")),
      { NULL },
      PRED_UNFIT,
      HC },
    { "high-comm=false fits rdma-enabled=true",
      POD("'high-comm':'false'"),
      NODE(RDMA("true")),
      { NULL },
      PRED_FIT,
      NULL },
    { "high-comm empty still selects the pod",
      POD("'high-comm':''"),
      NODE(""),
      { NULL },
      PRED_UNFIT,
      HC },
    { "high-comm empty fits rdma-enabled=true",
      POD("'high-comm':''"),
      NODE(RDMA("true")),
      { NULL },
      PRED_FIT,
      NULL },
    { "a label value named high-comm does not select the pod",
      POD("'role':'high-comm'"),
      NODE(""),
      { NULL },
      PRED_FIT,
      NULL },
};

static void high_comm_should_apply_seed_rule_with_defaults(void **state)
{
    struct pred_args none;

    (void)state;
    memset(&none, 0, sizeof(none));
    assert_int_equal(p1_run_cases(PLUGIN, &none, defaults, N(defaults)), 0);
    /* No args at all behaves the same. */
    assert_int_equal(p1_run_cases(PLUGIN, NULL, defaults, N(defaults)), 0);
}

/* Custom label names from the highComm argument. */
static const struct p1_case custom[] = {
    { "custom pod label selects the pod",
      POD("'net/heavy':'x'"),
      NODE("'fabric':'ib'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "custom node label with another value rejects",
      POD("'net/heavy':'x'"),
      NODE("'fabric':'eth'"),
      { NULL },
      PRED_UNFIT,
      HC },
    { "default node label no longer counts",
      POD("'net/heavy':'x'"),
      NODE(RDMA("true")),
      { NULL },
      PRED_UNFIT,
      HC },
    { "default pod label no longer selects",
      POD("'high-comm':'true'"),
      NODE(""),
      { NULL },
      PRED_FIT,
      NULL },
};

static void high_comm_should_use_custom_label_arguments(void **state)
{
    static const struct policy_high_comm_arg hc = { "net/heavy", "fabric",
                                                    "ib" };
    struct pred_args args;

    (void)state;
    memset(&args, 0, sizeof(args));
    args.value = &hc;
    assert_int_equal(p1_run_cases(PLUGIN, &args, custom, N(custom)), 0);
}

/* Members left out take the defaults one by one (the framework's). */
static void high_comm_should_default_missing_arguments(void **state)
{
    static const struct p1_case cases[] = {
        { "default pod label, custom value fits",
          POD("'high-comm':'1'"),
          NODE(RDMA("yes")),
          { NULL },
          PRED_FIT,
          NULL },
        { "default pod label, custom value rejects",
          POD("'high-comm':'1'"),
          NODE(RDMA("true")),
          { NULL },
          PRED_UNFIT,
          HC },
    };
    const struct kpe_arg_schema *s = pred_lookup(PLUGIN)->args;
    struct kpe_args_written w = { 0 };
    struct policy_high_comm_arg *hc;
    struct pred_args args;
    struct arena a;
    struct err e;

    (void)state;
    arena_init(&a, 0);
    hc = kpe_args_add(&w, s, &a);
    assert_non_null(hc);
    hc->node_label_value = "yes"; /* as a reader leaves it */
    kpe_args_given(&w, s, 1u << 2);
    memset(&args, 0, sizeof(args));
    assert_int_equal(kpe_args_effective(&w, s, &a, &args.value, &e), 0);
    assert_int_equal(p1_run_cases(PLUGIN, &args, cases, N(cases)), 0);
    arena_destroy(&a);
}

/* The same tables with no PreFilter state: the filter reads the pod. */
static void high_comm_should_decide_alike_without_prefilter_state(void **state)
{
    static const struct policy_high_comm_arg hc = { "net/heavy", "fabric",
                                                    "ib" };
    struct pred_args args;

    (void)state;
    memset(&args, 0, sizeof(args));
    fx_without_pre_state = true;
    assert_int_equal(p1_run_cases(PLUGIN, &args, defaults, N(defaults)), 0);
    assert_int_equal(p1_run_cases(PLUGIN, NULL, defaults, N(defaults)), 0);
    args.value = &hc;
    assert_int_equal(p1_run_cases(PLUGIN, &args, custom, N(custom)), 0);
    fx_without_pre_state = false;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(high_comm_should_apply_seed_rule_with_defaults),
        cmocka_unit_test(high_comm_should_use_custom_label_arguments),
        cmocka_unit_test(high_comm_should_default_missing_arguments),
        cmocka_unit_test(high_comm_should_decide_alike_without_prefilter_state),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
