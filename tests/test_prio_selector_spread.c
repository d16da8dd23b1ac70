/*
 * test_prio_selector_spread.c: SelectorSpread (SelectorSpreadPriority with
 * the DefaultPodTopologySpread gate off), ported from v1.22
 * plugins/selectorspread/selector_spread_test.go.
 *
 * Upstream builds most pods without a namespace (""), and its listers
 * then return services of every namespace (NamespaceAll). Pods keep their
 * "" here (a leading '/' in the pod spec) and the services such a pod
 * must see are put in "" too; everything else is as upstream wrote it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "priorities/plugins.h"
#include "tests/support/prio_topo_fixtures.h"

#define L1    "foo=bar,baz=blah"
#define L2    "bar=foo,baz=blah"
#define L1J   "{\"foo\":\"bar\",\"baz\":\"blah\"}"
#define NODES "node1;node2"
/* An incoming pod in namespace ns with labels, owned by kind/name. */
#define OWNED(ns, labels, api, kind, name)                                     \
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"" ns                        \
    "\",\"labels\":" labels ",\"ownerReferences\":[{\"apiVersion\":\"" api     \
    "\",\"kind\":\"" kind "\",\"name\":\"" name                                \
    "\",\"uid\":\"u\",\"controller\":true}]}}"
#define PLAIN(ns, labels)                                                      \
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"" ns                        \
    "\",\"labels\":" labels "}}"
#define SVC(ns, sel)                                                           \
    "{\"kind\":\"Service\",\"metadata\":{\"name\":\"s1\",\"namespace\":\"" ns  \
    "\"},\"spec\":{\"selector\":" sel "}}"
#define CTRL(kind, api, name, sel)                                             \
    "{\"kind\":\"" kind "\",\"apiVersion\":\"" api "\",\"metadata\":{"         \
    "\"name\":\"" name "\"},\"spec\":{\"selector\":" sel "}}"
#define RC(name, sel) CTRL("ReplicationController", "v1", name, sel)
#define RS(name, sel)                                                          \
    CTRL("ReplicaSet", "apps/v1", name, "{\"matchLabels\":" sel "}")
#define SS(name, sel)                                                          \
    CTRL("StatefulSet", "apps/v1", name, "{\"matchLabels\":" sel "}")
#define FOOBAR  "{\"foo\":\"bar\"}"
#define BARFOO  "{\"bar\":\"foo\"}"
#define BAZ     "{\"baz\":\"blah\"}"
#define BOTH    "{\"foo\":\"bar\",\"bar\":\"foo\"}"
#define PARTIAL "p1@node1:" L2 ";p2@node1:" L1 ";p3@node2:" L1

/* TestSelectorSpreadScore (selector_spread_test.go). */
static const struct ptf_case spread_cases[] = {
    { "nothing scheduled",
      PLAIN("", "{}"),
      NODES,
      NULL,
      NULL,
      { NULL },
      { 100, 100 } },
    { "no services",
      PLAIN("", L1J),
      NODES,
      NULL,
      "/p1@node1",
      { NULL },
      { 100, 100 } },
    { "different services",
      PLAIN("", L1J),
      NODES,
      NULL,
      "/p1@node1:" L2,
      { SVC("", "{\"key\":\"value\"}"), NULL },
      { 100, 100 } },
    { "two pods, one service pod",
      PLAIN("", L1J),
      NODES,
      NULL,
      "/p1@node1:" L2 ";/p2@node2:" L1,
      { SVC("", L1J), NULL },
      { 100, 0 } },
    { "five pods, one service pod in no namespace",
      PLAIN("", L1J),
      NODES,
      NULL,
      "/p1@node1:" L2 ";default/p2@node1:" L1 ";ns1/p3@node1:" L1
      ";/p4@node2:" L1 ";/p5@node2:" L2,
      { SVC("", L1J), NULL },
      { 100, 0 } },
    { "four pods, one service pod in default namespace",
      PLAIN("default", L1J),
      NODES,
      NULL,
      "/p1@node1:" L1 ";ns1/p2@node1:" L1 ";default/p3@node2:" L1
      ";/p4@node2:" L2,
      { SVC("default", L1J), NULL },
      { 100, 0 } },
    { "five pods, one service pod in specific namespace",
      PLAIN("ns1", L1J),
      NODES,
      NULL,
      "/p1@node1:" L2 ";default/p2@node1:" L1 ";ns2/p3@node1:" L1
      ";ns1/p4@node2:" L1 ";/p5@node2:" L2,
      { SVC("ns1", L1J), NULL },
      { 100, 0 } },
    { "three pods, two service pods on different nodes",
      PLAIN("", L1J),
      NODES,
      NULL,
      "/p1@node1:" L2 ";/p2@node1:" L1 ";/p3@node2:" L1,
      { SVC("", L1J), NULL },
      { 0, 0 } },
    { "four pods, three service pods",
      PLAIN("", L1J),
      NODES,
      NULL,
      "/p1@node1:" L2 ";/p2@node1:" L1 ";/p3@node2:" L1 ";/p4@node2:" L1,
      { SVC("", L1J), NULL },
      { 50, 0 } },
    { "service with partial pod label matches",
      PLAIN("", L1J),
      NODES,
      NULL,
      "/p1@node1:" L2 ";/p2@node1:" L1 ";/p3@node2:" L1,
      { SVC("", BAZ), NULL },
      { 0, 50 } },
    { "service with partial pod label matches with service and replication "
      "controller",
      OWNED("default", L1J, "v1", "ReplicationController", "rc1"),
      NODES,
      NULL,
      PARTIAL,
      { RC("rc1", FOOBAR), RC("rc2", BARFOO), SVC("default", BAZ), NULL },
      { 0, 0 } },
    { "service with partial pod label matches with service and replica set",
      OWNED("default", L1J, "apps/v1", "ReplicaSet", "rs1"),
      NODES,
      NULL,
      PARTIAL,
      { SVC("default", BAZ), RS("rs1", FOOBAR), RS("rs2", BARFOO), NULL },
      { 0, 0 } },
    { "service with partial pod label matches with service and statefulset",
      OWNED("default", L1J, "apps/v1", "StatefulSet", "ss1"),
      NODES,
      NULL,
      PARTIAL,
      { SVC("default", BAZ), SS("ss1", FOOBAR), SS("ss2", BARFOO), NULL },
      { 0, 0 } },
    { "disjoined service and replication controller matches no pods",
      OWNED("default", BOTH, "v1", "ReplicationController", "rc3"),
      NODES,
      NULL,
      PARTIAL,
      { RC("rc3", FOOBAR), SVC("default", BARFOO), NULL },
      { 100, 100 } },
    { "disjoined service and replica set matches no pods",
      OWNED("default", BOTH, "apps/v1", "ReplicaSet", "rs3"),
      NODES,
      NULL,
      PARTIAL,
      { SVC("default", BARFOO), RS("rs3", FOOBAR), NULL },
      { 100, 100 } },
    { "disjoined service and stateful set matches no pods",
      OWNED("default", BOTH, "apps/v1", "StatefulSet", "ss3"),
      NODES,
      NULL,
      PARTIAL,
      { SVC("default", BARFOO), SS("ss3", FOOBAR), NULL },
      { 100, 100 } },
    { "Replication controller with partial pod label matches",
      OWNED("default", L1J, "v1", "ReplicationController", "rc1"),
      NODES,
      NULL,
      PARTIAL,
      { RC("rc1", FOOBAR), NULL },
      { 0, 0 } },
    { "Replica set with partial pod label matches",
      OWNED("default", L1J, "apps/v1", "ReplicaSet", "rs1"),
      NODES,
      NULL,
      PARTIAL,
      { RS("rs1", FOOBAR), NULL },
      { 0, 0 } },
    { "StatefulSet with partial pod label matches",
      OWNED("default", L1J, "apps/v1", "StatefulSet", "ss1"),
      NODES,
      NULL,
      PARTIAL,
      { SS("ss1", FOOBAR), NULL },
      { 0, 0 } },
    { "Another replication controller with partial pod label matches",
      OWNED("default", L1J, "v1", "ReplicationController", "rc3"),
      NODES,
      NULL,
      PARTIAL,
      { RC("rc3", BAZ), NULL },
      { 0, 50 } },
    { "Another replication set with partial pod label matches",
      OWNED("default", L1J, "apps/v1", "ReplicaSet", "rs3"),
      NODES,
      NULL,
      PARTIAL,
      { RS("rs3", BAZ), NULL },
      { 0, 50 } },
    { "Another stateful set with partial pod label matches",
      OWNED("default", L1J, "apps/v1", "StatefulSet", "ss3"),
      NODES,
      NULL,
      PARTIAL,
      { SS("ss3", BAZ), NULL },
      { 0, 50 } },
    { "Another statefulset with TopologySpreadConstraints set in pod",
      "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"labels\":" L1J
      ",\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
      "\"StatefulSet\",\"name\":\"ss1\",\"uid\":\"u\",\"controller\":true}]},"
      "\"spec\":{\"topologySpreadConstraints\":[{\"maxSkew\":1,"
      "\"topologyKey\":\"foo\",\"whenUnsatisfiable\":\"DoNotSchedule\"}]}}",
      NODES,
      NULL,
      PARTIAL,
      { SS("ss1", BAZ), NULL },
      { 0, 0 } },
};

#define Z "topology.kubernetes.io/zone="
#define ZNODES                                                                 \
    "node1.zone1:" Z "zone1;node1.zone2:" Z "zone2;node2.zone2:" Z "zone2;"    \
    "node1.zone3:" Z "zone3;node2.zone3:" Z "zone3;node3.zone3:" Z "zone3"
#define ZL1  "label1=l1,baz=blah"
#define ZL2  "label2=l2,baz=blah"
#define ZL1J "{\"label1\":\"l1\",\"baz\":\"blah\"}"

/* TestZoneSelectorSpreadPriority (selector_spread_test.go). */
static const struct ptf_case zone_cases[] = {
    { "nothing scheduled",
      PLAIN("", "{}"),
      ZNODES,
      NULL,
      NULL,
      { NULL },
      { 100, 100, 100, 100, 100, 100 } },
    { "no services",
      PLAIN("default", ZL1J),
      ZNODES,
      NULL,
      "p1@node1.zone1",
      { NULL },
      { 100, 100, 100, 100, 100, 100 } },
    { "different services",
      PLAIN("default", ZL1J),
      ZNODES,
      NULL,
      "p1@node1.zone1:" ZL2,
      { SVC("default", "{\"key\":\"value\"}"), NULL },
      { 100, 100, 100, 100, 100, 100 } },
    { "two pods, 0 matching",
      PLAIN("default", ZL1J),
      ZNODES,
      NULL,
      "p1@node1.zone1:" ZL2 ";p2@node1.zone2:" ZL2,
      { SVC("default", ZL1J), NULL },
      { 100, 100, 100, 100, 100, 100 } },
    { "two pods, 1 matching (in z2)",
      PLAIN("default", ZL1J),
      ZNODES,
      NULL,
      "p1@node1.zone1:" ZL2 ";p2@node1.zone2:" ZL1,
      { SVC("default", ZL1J), NULL },
      { 100, 0, 33, 100, 100, 100 } },
    { "five pods, 3 matching (z2=2, z3=1)",
      PLAIN("default", ZL1J),
      ZNODES,
      NULL,
      "p1@node1.zone1:" ZL2 ";p2@node1.zone2:" ZL1 ";p3@node2.zone2:" ZL1
      ";p4@node1.zone3:" ZL2 ";p5@node2.zone3:" ZL1,
      { SVC("default", ZL1J), NULL },
      { 100, 0, 0, 66, 33, 66 } },
    { "four pods, 3 matching (z1=1, z2=1, z3=1)",
      PLAIN("default", ZL1J),
      ZNODES,
      NULL,
      "p1@node1.zone1:" ZL1 ";p2@node1.zone2:" ZL1 ";p3@node2.zone2:" ZL2
      ";p4@node1.zone3:" ZL1,
      { SVC("default", ZL1J), NULL },
      { 0, 0, 33, 0, 33, 33 } },
    { "five pods, 4 matching (z1=1, z2=2, z3=1)",
      PLAIN("default", ZL1J),
      ZNODES,
      NULL,
      "p1@node1.zone1:" ZL1 ";p2@node1.zone2:" ZL1 ";p3@node2.zone2:" ZL1
      ";p4@node2.zone2:" ZL2 ";p5@node1.zone3:" ZL1,
      { SVC("default", ZL1J), NULL },
      { 33, 0, 0, 33, 66, 66 } },
    { "Replication controller spreading (z1=0, z2=1, z3=2)",
      OWNED("default", ZL1J, "v1", "ReplicationController", "rc1"),
      ZNODES,
      NULL,
      "p1@node1.zone3:" ZL1 ";p2@node1.zone2:" ZL1 ";p3@node1.zone3:" ZL1,
      { RC("rc1", ZL1J), NULL },
      { 100, 50, 66, 0, 33, 33 } },
};

/* The zone key: the beta labels win, and region alone is a zone. */
static const struct ptf_case zone_key_cases[] = {
    { "beta zone label wins over the GA one",
      PLAIN("default", ZL1J),
      "a:failure-domain.beta.kubernetes.io/zone=z1," Z "z2;b:" Z "z1;c:" Z "z2",
      NULL,
      "p1@a:" ZL1 ";p2@b:" ZL1,
      { SVC("default", ZL1J), NULL },
      /* zones z1 {a, b} = 2, z2 {c} = 0: a and b 0, c 100/3 + 200/3 = 100
       * (with a in z2, c would share its zone and score 33). */
      { 0, 0, 100 } },
    { "nodes without zone labels use the node count only",
      PLAIN("default", ZL1J),
      "a:" Z "z1;b;c",
      NULL,
      "p1@a:" ZL1 ";p2@b:" ZL1 ";p3@b:" ZL1,
      { SVC("default", ZL1J), NULL },
      /* max node 2: a 50/3 + 0 = 16; b 0; c 100 (no zone). */
      { 16, 0, 100 } },
};

static void selector_spread_should_match_upstream_tables(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(spread_cases) / sizeof(spread_cases[0]); i++)
        bad += ptf_run_case("SelectorSpread", NULL, &spread_cases[i]);
    for (i = 0; i < sizeof(zone_cases) / sizeof(zone_cases[0]); i++)
        bad += ptf_run_case("SelectorSpread", NULL, &zone_cases[i]);
    assert_int_equal(bad, 0);
}

static void selector_spread_should_key_zones_like_get_zone_key(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(zone_key_cases) / sizeof(zone_key_cases[0]); i++)
        bad += ptf_run_case("SelectorSpread", NULL, &zone_key_cases[i]);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(selector_spread_should_match_upstream_tables),
        cmocka_unit_test(selector_spread_should_key_zones_like_get_zone_key),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
