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
#include "predicates/reasons.h"
#include "tests/support/node_filter_fixtures.h"

#define PLUGIN PRED_NAME_HIGH_COMM
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define HC      PRED_REASON_HIGH_COMM
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
    struct pred_args args;

    (void)state;
    memset(&args, 0, sizeof(args));
    args.kind = PRED_ARGS_HIGH_COMM;
    args.u.high_comm.pod_label = "net/heavy";
    args.u.high_comm.node_label = "fabric";
    args.u.high_comm.node_label_value = "ib";
    assert_int_equal(p1_run_cases(PLUGIN, &args, custom, N(custom)), 0);
}

/* Members left NULL take the defaults one by one. */
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
    struct pred_args args;

    (void)state;
    memset(&args, 0, sizeof(args));
    args.kind = PRED_ARGS_HIGH_COMM;
    args.u.high_comm.node_label_value = "yes";
    assert_int_equal(p1_run_cases(PLUGIN, &args, cases, N(cases)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(high_comm_should_apply_seed_rule_with_defaults),
        cmocka_unit_test(high_comm_should_use_custom_label_arguments),
        cmocka_unit_test(high_comm_should_default_missing_arguments),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
