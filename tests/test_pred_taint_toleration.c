/*
 * test_pred_taint_toleration.c: PodToleratesNodeTaints (TaintToleration
 * filter, predicates.md B.8).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "predicates/taint_toleration.h"
#include "tests/support/node_filter_fixtures.h"

#define PLUGIN "TaintToleration"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define POD(tol) "{'metadata':{'name':'pod1'},'spec':{'tolerations':[" tol "]}}"
#define NODE(taints)                                                           \
    "{'metadata':{'name':'nodeA'},'spec':{'taints':[" taints "]}}"
#define TAINT(k, v, e) "{'key':'" k "','value':'" v "','effect':'" e "'}"
#define UNRES          PRED_UNFIT_UNRESOLVABLE
#define REASON(k, v)                                                           \
    "node(s) had taint {" k ": " v "}, that the pod didn't tolerate"

/*
 * TestTaintTolerationFilter (plugins/tainttoleration/taint_toleration_test.go,
 * v1.22: the reason names the taint). Later rows for Gt/Lt toleration
 * operators are not v1.22 behaviour and are not ported.
 */
static const struct p1_case upstream[] = {
    { "A pod having no tolerations can't be scheduled onto a node with "
      "nonempty taints",
      POD(""),
      NODE(TAINT("dedicated", "user1", "NoSchedule")),
      { NULL },
      UNRES,
      REASON("dedicated", "user1") },
    { "A pod which can be scheduled on a dedicated node assigned to user1 "
      "with effect NoSchedule",
      POD("{'key':'dedicated','value':'user1','effect':'NoSchedule'}"),
      NODE(TAINT("dedicated", "user1", "NoSchedule")),
      { NULL },
      PRED_FIT,
      NULL },
    { "A pod which can't be scheduled on a dedicated node assigned to user2 "
      "with effect NoSchedule",
      POD("{'key':'dedicated','operator':'Equal','value':'user2',"
          "'effect':'NoSchedule'}"),
      NODE(TAINT("dedicated", "user1", "NoSchedule")),
      { NULL },
      UNRES,
      REASON("dedicated", "user1") },
    { "A pod can be scheduled onto the node, with a toleration uses operator "
      "Exists that tolerates the taints on the node",
      POD("{'key':'foo','operator':'Exists','effect':'NoSchedule'}"),
      NODE(TAINT("foo", "bar", "NoSchedule")),
      { NULL },
      PRED_FIT,
      NULL },
    { "A pod has multiple tolerations, node has multiple taints, all the "
      "taints are tolerated, pod can be scheduled onto the node",
      POD("{'key':'dedicated','operator':'Equal','value':'user2',"
          "'effect':'NoSchedule'},"
          "{'key':'foo','operator':'Exists','effect':'NoSchedule'}"),
      NODE(TAINT("dedicated", "user2", "NoSchedule") "," TAINT("foo", "bar",
                                                               "NoSchedule")),
      { NULL },
      PRED_FIT,
      NULL },
    { "A pod has a toleration that keys and values match the taint on the "
      "node, but (non-empty) effect doesn't match, can't be scheduled onto "
      "the node",
      POD("{'key':'foo','operator':'Equal','value':'bar',"
          "'effect':'PreferNoSchedule'}"),
      NODE(TAINT("foo", "bar", "NoSchedule")),
      { NULL },
      UNRES,
      REASON("foo", "bar") },
    { "The pod has a toleration that keys and values match the taint on the "
      "node, the effect of toleration is empty, and the effect of taint is "
      "NoSchedule. Pod can be scheduled onto the node",
      POD("{'key':'foo','operator':'Equal','value':'bar'}"),
      NODE(TAINT("foo", "bar", "NoSchedule")),
      { NULL },
      PRED_FIT,
      NULL },
    { "The pod has a toleration that key and value don't match the taint on "
      "the node, but the effect of taint on node is PreferNoSchedule. Pod can "
      "be scheduled onto the node",
      POD("{'key':'dedicated','operator':'Equal','value':'user2',"
          "'effect':'NoSchedule'}"),
      NODE(TAINT("dedicated", "user1", "PreferNoSchedule")),
      { NULL },
      PRED_FIT,
      NULL },
    { "The pod has no toleration, but the effect of taint on node is "
      "PreferNoSchedule. Pod can be scheduled onto the node",
      POD(""),
      NODE(TAINT("dedicated", "user1", "PreferNoSchedule")),
      { NULL },
      PRED_FIT,
      NULL },
};

/* Edge cases of predicates.md B.8 (reason formatting, order, effects). */
static const struct p1_case edges[] = {
    { "node without taints fits",
      POD(""),
      "{'metadata':{'name':'nodeA'}}",
      { NULL },
      PRED_FIT,
      NULL },
    { "NoExecute taint must be tolerated",
      POD(""),
      NODE(TAINT("evict", "now", "NoExecute")),
      { NULL },
      UNRES,
      REASON("evict", "now") },
    { "empty taint value prints as {key: }",
      POD(""),
      NODE("{'key':'gpu','effect':'NoSchedule'}"),
      { NULL },
      UNRES,
      REASON("gpu", "") },
    { "the first untolerated taint in node order is named",
      POD("{'key':'a','operator':'Exists'}"),
      NODE("{'key':'a','value':'1','effect':'NoSchedule'},"
           "{'key':'c','value':'3','effect':'PreferNoSchedule'},"
           "{'key':'b','value':'2','effect':'NoExecute'},"
           "{'key':'d','value':'4','effect':'NoSchedule'}"),
      { NULL },
      UNRES,
      REASON("b", "2") },
    { "Exists with empty key tolerates every taint",
      POD("{'operator':'Exists'}"),
      NODE(TAINT("a", "1", "NoSchedule") "," TAINT("b", "2", "NoExecute")),
      { NULL },
      PRED_FIT,
      NULL },
    { "Equal with empty value matches only an empty-valued taint",
      POD("{'key':'k','operator':'Equal'}"),
      NODE(TAINT("k", "v", "NoSchedule")),
      { NULL },
      UNRES,
      REASON("k", "v") },
    { "Equal with empty value tolerates an empty-valued taint",
      POD("{'key':'k','operator':'Equal'}"),
      NODE("{'key':'k','effect':'NoSchedule'}"),
      { NULL },
      PRED_FIT,
      NULL },
    { "NoSchedule toleration does not cover a NoExecute taint",
      POD("{'key':'k','operator':'Exists','effect':'NoSchedule'}"),
      NODE(TAINT("k", "v", "NoExecute")),
      { NULL },
      UNRES,
      REASON("k", "v") },
    { "the unschedulable taint is handled like any other",
      POD(""),
      NODE(TAINT("node.kubernetes.io/unschedulable", "", "NoSchedule")),
      { NULL },
      UNRES,
      REASON("node.kubernetes.io/unschedulable", "") },
};

static void taint_toleration_should_match_upstream_table(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(PLUGIN, NULL, upstream, N(upstream)), 0);
}

static void taint_toleration_should_name_first_untolerated_taint(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(PLUGIN, NULL, edges, N(edges)), 0);
}

/* The macro and the literal used above agree. */
static void taint_toleration_reason_should_be_v122_format(void **state)
{
    char buf[128];

    (void)state;
    snprintf(buf, sizeof(buf), PRED_REASON_TAINT, "dedicated", "gpu");
    assert_string_equal(buf, REASON("dedicated", "gpu"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(taint_toleration_should_match_upstream_table),
        cmocka_unit_test(taint_toleration_should_name_first_untolerated_taint),
        cmocka_unit_test(taint_toleration_reason_should_be_v122_format),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
