/*
 * test_prio_taint_toleration.c: TaintTolerationPriority (TaintToleration
 * scoring).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/support/score_fixtures.h"

#define PLUGIN "TaintToleration"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

/* upstream nodeWithTaints / podWithTolerations */
#define NODE(name, taints)                                                     \
    "{'metadata':{'name':'" name "'},'spec':{'taints':[" taints "]}}"
#define POD(tolerations)                                                       \
    "{'metadata':{'name':'pod1'},'spec':{'tolerations':[" tolerations "]}}"
#define TAINT(key, value, effect)                                              \
    "{'key':'" key "','value':'" value "','effect':'" effect "'}"
#define EQUAL(key, value, effect)                                              \
    "{'key':'" key "','operator':'Equal','value':'" value                      \
    "','effect':'" effect "'}"
#define PNS "PreferNoSchedule"
#define NS  "NoSchedule"

/* TestTaintTolerationScore (plugins/tainttoleration/taint_toleration_test.go)
 */
static const struct sfx_case upstream[] = {
    { "node with taints tolerated by the pod, gets a higher score than those "
      "node with intolerable taints",
      POD(EQUAL("foo", "bar", PNS)),
      { NODE("nodeA", TAINT("foo", "bar", PNS)),
        NODE("nodeB", TAINT("foo", "blah", PNS)) },
      { NULL },
      { 100, 0 } },
    { "the nodes that all of their taints are tolerated by the pod, get the "
      "same score, no matter how many tolerable taints a node has",
      POD(EQUAL("cpu-type", "arm64", PNS) "," EQUAL("disk-type", "ssd", PNS)),
      { NODE("nodeA", ""), NODE("nodeB", TAINT("cpu-type", "arm64", PNS)),
        NODE("nodeC", TAINT("cpu-type", "arm64", PNS) "," TAINT("disk-type",
                                                                "ssd", PNS)) },
      { NULL },
      { 100, 100, 100 } },
    { "the more intolerable taints a node has, the lower score it gets.",
      POD(EQUAL("foo", "bar", PNS)),
      { NODE("nodeA", ""), NODE("nodeB", TAINT("cpu-type", "arm64", PNS)),
        NODE("nodeC", TAINT("cpu-type", "arm64", PNS) "," TAINT("disk-type",
                                                                "ssd", PNS)) },
      { NULL },
      { 100, 50, 0 } },
    { "only taints and tolerations that have effect PreferNoSchedule are "
      "checked by taints-tolerations priority function",
      POD(EQUAL("cpu-type", "arm64", NS) "," EQUAL("disk-type", "ssd", NS)),
      { NODE("nodeA", ""), NODE("nodeB", TAINT("cpu-type", "arm64", NS)),
        NODE("nodeC", TAINT("cpu-type", "arm64", PNS) "," TAINT("disk-type",
                                                                "ssd", PNS)) },
      { NULL },
      { 100, 100, 0 } },
    { "Default behaviour No taints and tolerations, lands on node with no "
      "taints",
      POD(""),
      { NODE("nodeA", ""), NODE("nodeB", TAINT("cpu-type", "arm64", PNS)) },
      { NULL },
      { 100, 0 } },
};

/* Ours: tolerations with no effect count; no intolerable taint anywhere. */
static const struct sfx_case ours[] = {
    { "a toleration without effect tolerates PreferNoSchedule taints",
      POD("{'key':'foo','operator':'Exists'}"),
      { NODE("nodeA", TAINT("foo", "x", PNS)),
        NODE("nodeB", TAINT("bar", "x", PNS)) },
      { NULL },
      { 100, 0 } },
    { "no intolerable taint anywhere: every node 100",
      POD(""),
      { NODE("nodeA", ""), NODE("nodeB", TAINT("foo", "x", NS)) },
      { NULL },
      { 100, 100 } },
};

static void taint_toleration_should_match_upstream_table(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, upstream, N(upstream));
}

static void taint_toleration_should_count_effectless_tolerations(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, ours, N(ours));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(taint_toleration_should_match_upstream_table),
        cmocka_unit_test(taint_toleration_should_count_effectless_tolerations),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
