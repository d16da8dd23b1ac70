/*
 * test_prio_pod_topology_spread.c: PodTopologySpread scoring
 * (EvenPodsSpreadPriority, and SelectorSpreadPriority with the system
 * defaults), ported from v1.22 plugins/podtopologyspread/scoring_test.go.
 *
 * Expected scores are v1.22's: Score truncates the float sum (v1.24 began
 * rounding, and the upstream tables changed with it), and constraints
 * with the same topology key share one (key, value) counter and the
 * domain count goes to the first of them (later versions count per
 * constraint). Rows whose numbers differ from today's upstream table say
 * so, with the raw sums.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "priorities/plugins.h"
#include "priorities/pod_topology_spread.h"
#include "priorities/priorities.h"
#include "tests/support/prio_topo_fixtures.h"

#define HOST "kubernetes.io/hostname"
#define FOO  "{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":\"Exists\"}]}"
#define BAR  "{\"matchExpressions\":[{\"key\":\"bar\",\"operator\":\"Exists\"}]}"
/* A topologySpreadConstraint; SEL is a selector object or omitted. */
#define TSC(skew, key, when, sel)                                              \
    "{\"maxSkew\":" #skew ",\"topologyKey\":\"" key                            \
    "\",\"whenUnsatisfiable\":\"" when "\",\"labelSelector\":" sel "}"
#define TSC_NOSEL(skew, key, when)                                             \
    "{\"maxSkew\":" #skew ",\"topologyKey\":\"" key                            \
    "\",\"whenUnsatisfiable\":\"" when "\"}"
#define ANY "ScheduleAnyway"
/* The incoming pod "p" with labels and extra spec members. */
#define POD(labels, spec)                                                      \
    "{\"metadata\":{\"name\":\"p\",\"labels\":" labels "},\"spec\":{" spec "}" \
    "}"
#define TSCS(...) "\"topologySpreadConstraints\":[" __VA_ARGS__ "]"

static const struct prio_args system_args = {
    .value = &(const struct prio_spread_arg){ PRIO_SPREAD_SYSTEM },
};
static const struct prio_args list_args = {
    .value = &(const struct prio_spread_arg){ PRIO_SPREAD_LIST },
};

#define N4                                                                     \
    HOST "=node-a;node-b:" HOST "=node-b;node-c:" HOST "=node-c;node-d:" HOST  \
         "=node-d"
#define P2103                                                                  \
    "p-a1@node-a:foo=;p-a2@node-a:foo=;p-b1@node-b:foo=;p-d1@node-d:foo=;"     \
    "p-d2@node-d:foo=;p-d3@node-d:foo="
#define P4321                                                                  \
    "p-a1@node-a:foo=;p-a2@node-a:foo=;p-a3@node-a:foo=;p-a4@node-a:foo=;"     \
    "p-b1@node-b:foo=;p-b2@node-b:foo=;p-b3@node-b:foo=;p-c1@node-c:foo=;"     \
    "p-c2@node-c:foo=;p-d1@node-d:foo="
#define P4213                                                                  \
    "p-a1@node-a:foo=;p-a2@node-a:foo=;p-a3@node-a:foo=;p-a4@node-a:foo=;"     \
    "p-b1@node-b:foo=;p-b2@node-b:foo=;p-x1@node-x:foo=;p-y1@node-y:foo=;"     \
    "p-y2@node-y:foo=;p-y3@node-y:foo="
#define ZAB                                                                    \
    "node-a:zone=zone1," HOST "=node-a;node-b:zone=zone1," HOST "=node-b;"     \
    "node-x:zone=zone2," HOST "=node-x;node-y:zone=zone2," HOST "=node-y"
#define PDIFF                                                                  \
    "p-a1@node-a:foo=;p-b1@node-b:foo=,bar=;p-y1@node-y:foo=;p-y2@node-y:bar="

/* TestPodTopologySpreadScore (scoring_test.go), SystemDefaulting args. */
static const struct ptf_case score_cases[] = {
    { "one constraint on node, no existing pods",
      POD("{\"foo\":\"\"}", TSCS(TSC(1, HOST, ANY, FOO))),
      "node-a:" HOST "=node-a;node-b:" HOST "=node-b",
      NULL,
      NULL,
      { NULL },
      { 100, 100 } },
    { "one constraint on node, only one node is candidate",
      POD("{\"foo\":\"\"}", TSCS(TSC(1, HOST, ANY, FOO))),
      "node-a:" HOST "=node-a",
      "node-b:" HOST "=node-b",
      "p-a1@node-a:foo=;p-a2@node-a:foo=;p-b1@node-b:foo=",
      { NULL },
      { 100 } },
    { "one constraint on node, all nodes have the same number of matching "
      "pods",
      POD("{\"foo\":\"\"}", TSCS(TSC(1, HOST, ANY, FOO))),
      "node-a:" HOST "=node-a;node-b:" HOST "=node-b",
      NULL,
      "p-a1@node-a:foo=;p-b1@node-b:foo=",
      { NULL },
      { 100, 100 } },
    /* 2/1/0/3: raw 2*ln6=3.58->3, 1.79->1, 0, 5.37->5 (rounded: 4,2,0,5). */
    { "one constraint on node, all 4 nodes are candidates",
      POD("{\"foo\":\"\"}", TSCS(TSC(1, HOST, ANY, FOO))),
      "node-a:" N4,
      NULL,
      P2103,
      { NULL },
      { 40, 80, 100, 0 } },
    { "one constraint on node, null selector",
      POD("{\"foo\":\"\"}", TSCS(TSC_NOSEL(1, HOST, ANY))),
      "node-a:" N4,
      NULL,
      P2103,
      { NULL },
      { 100, 100, 100, 100 } },
    /* raw 4.58->4, 2.79->2, 1, 6.37->6 (rounded: 5,3,1,6). */
    { "one constraint on node, all 4 nodes are candidates, maxSkew=2",
      POD("{\"foo\":\"\"}", TSCS(TSC(2, HOST, ANY, FOO))),
      "node-a:" N4,
      NULL,
      P2103,
      { NULL },
      { 50, 83, 100, 16 } },
    /* 4/3/2/1: raw 9.17->9, 7.38->7, 5.58->5, 3.79->3 (rounded 9,7,6,4). */
    { "one constraint on node, all 4 nodes are candidates, maxSkew=3",
      POD("{\"foo\":\"\"}", TSCS(TSC(3, HOST, ANY, FOO))),
      "node-a:" N4,
      NULL,
      P4321,
      { NULL },
      { 33, 55, 77, 100 } },
    /* Same sums as the row above: the zone term is absent on every node. */
    { "system defaulting, nodes don't have zone, pods match service",
      POD("{\"foo\":\"\"}", ""),
      "node-a:" N4,
      NULL,
      P4321,
      { "{\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},"
        "\"spec\":{\"selector\":{\"foo\":\"\"}}}",
        NULL },
      { 33, 55, 77, 100 } },
    /* 4/2/1/~3~: raw 4*ln5=6.44->6, 3.22->3, 1.61->1 (rounded 6,3,2). */
    { "one constraint on node, 3 out of 4 nodes are candidates",
      POD("{\"foo\":\"\"}", TSCS(TSC(1, HOST, ANY, FOO))),
      "node-a:" HOST "=node-a;node-b:" HOST "=node-b;node-x:" HOST "=node-x",
      "node-y:" HOST "=node-y",
      P4213,
      { NULL },
      { 16, 66, 100 } },
    /* node-b ignored; raw 4*ln4=5.55->5, 1.39->1 (rounded 6, 1). */
    { "one constraint on node, 3 out of 4 nodes are candidates, one node "
      "doesn't match topology key",
      POD("{\"foo\":\"\"}", TSCS(TSC(1, HOST, ANY, FOO))),
      "node-a:" HOST "=node-a;node-b:n=node-b;node-x:" HOST "=node-x",
      "node-y:" HOST "=node-y",
      P4213,
      { NULL },
      { 20, 0, 100 } },
    /* zone1 6, zone2 4: raw 6*ln4=8.3->8, 5.5->5 (rounded 8, 6). */
    { "one constraint on zone, 3 out of 4 nodes are candidates",
      POD("{\"foo\":\"\"}", TSCS(TSC(1, "zone", ANY, FOO))),
      "node-a:zone=zone1," HOST "=node-a;node-b:zone=zone1," HOST
      "=node-b;node-x:zone=zone2," HOST "=node-x",
      "node-y:zone=zone2," HOST "=node-y",
      P4213,
      { NULL },
      { 62, 62, 100 } },
    /* raw 5*ln4=6.9->6, 8*ln4=11.1->11 (rounded 7, 11). */
    { "two Constraints on zone and node, 2 out of 4 nodes are candidates",
      POD("{\"foo\":\"\"}",
          TSCS(TSC(1, "zone", ANY, FOO) "," TSC(1, HOST, ANY, FOO))),
      "node-a:zone=zone1," HOST "=node-a;node-x:zone=zone2," HOST "=node-x",
      "node-b:zone=zone1," HOST "=node-b;node-y:zone=zone2," HOST "=node-y",
      "p-a1@node-a:foo=;p-a2@node-a:foo=;p-b1@node-b:foo=;p-x1@node-x:foo=;"
      "p-x2@node-x:foo=;p-y1@node-y:foo=;p-y2@node-y:foo=;p-y3@node-y:foo=;"
      "p-y4@node-y:foo=",
      { NULL },
      { 100, 54 } },
    /*
     * v1.22: both constraints add into the shared (zone, value) counters
     * (zone1 3+2=5, zone2 3+1=4) and only the first gets the 2 domains:
     * weights ln4, ln2. Raw 5*ln4+5*ln2=10.4->10, 8.3->8 -> 80, 100.
     */
    { "two Constraints on zone, 2 out of 4 nodes are candidates",
      POD("{\"foo\":\"\",\"bar\":\"\"}",
          TSCS(TSC(1, "zone", ANY, FOO) "," TSC(1, "zone", ANY, BAR))),
      "node-a:zone=zone1;node-x:zone=zone2",
      "node-b:zone=zone1;node-y:zone=zone2",
      "p-a1@node-a:foo=,bar=;p-a2@node-a:foo=;p-b1@node-b:foo=,bar=;"
      "p-y1@node-y:foo=;p-y2@node-y:foo=,bar=;p-y3@node-y:foo=",
      { NULL },
      { 80, 100 } },
    /* raw 2*ln4=2.8->2, 4.6->4, 1.4->1, 3.2->3 (rounded 3, 5, 1, 3). */
    { "two Constraints on zone and node, with different labelSelectors",
      POD("{\"foo\":\"\",\"bar\":\"\"}",
          TSCS(TSC(1, "zone", ANY, FOO) "," TSC(1, HOST, ANY, BAR))),
      ZAB,
      NULL,
      PDIFF,
      { NULL },
      { 75, 25, 100, 50 } },
    /* raw 0, 1.8->1, 2.8->2, 4.6->4 (rounded 0, 2, 3, 5). */
    { "two Constraints on zone and node, with different labelSelectors, "
      "some nodes have 0 pods",
      POD("{\"foo\":\"\",\"bar\":\"\"}",
          TSCS(TSC(1, "zone", ANY, FOO) "," TSC(1, HOST, ANY, BAR))),
      ZAB,
      NULL,
      "p-b1@node-b:bar=;p-x1@node-x:foo=;p-y1@node-y:foo=,bar=",
      { NULL },
      { 100, 75, 50, 0 } },
    /* raw 2*ln4=2.8->2, 4.4->4, 1.4->1 (rounded 3, 4, 1). */
    { "two Constraints on zone and node, with different labelSelectors, 3 "
      "out of 4 nodes are candidates",
      POD("{\"foo\":\"\",\"bar\":\"\"}",
          TSCS(TSC(1, "zone", ANY, FOO) "," TSC(1, HOST, ANY, BAR))),
      "node-a:zone=zone1," HOST "=node-a;node-b:zone=zone1," HOST
      "=node-b;node-x:zone=zone2," HOST "=node-x",
      "node-y:zone=zone2," HOST "=node-y",
      PDIFF,
      { NULL },
      { 75, 25, 100 } },
    /* raw 1*ln4=1.39->1, 2.77->2 (rounded 1, 3). */
    { "existing pods in a different namespace do not count",
      POD("{\"foo\":\"\"}", TSCS(TSC(1, HOST, ANY, FOO))),
      "node-a:" HOST "=node-a;node-b:" HOST "=node-b",
      NULL,
      "ns1/p-a1@node-a:foo=;p-a2@node-a:foo=;p-b1@node-b:foo=;"
      "p-b2@node-b:foo=",
      { NULL },
      { 100, 50 } },
    { "terminating Pods should be excluded",
      POD("{\"foo\":\"\"}", TSCS(TSC(1, HOST, ANY, FOO))),
      "node-a:" HOST "=node-a;node-b:" HOST "=node-b",
      NULL,
      "p-a@node-a!:foo=;p-b@node-b:foo=",
      { NULL },
      { 100, 0 } },
    /* Upstream's minDomains row without minDomains (a later field):
     * raw 2*ln5+1=4.2->4, 4, 2.6->2 (rounded 4,4,3). */
    { "minDomains has no effect when ScheduleAnyway",
      POD("{\"foo\":\"\"}", TSCS(TSC(2, "node", ANY, FOO))),
      "node-a:node=node-a;node-b:node=node-b;node-c:node=node-c",
      NULL,
      "p-a1@node-a:foo=;p-a2@node-a:foo=;p-b1@node-b:foo=;p-b2@node-b:foo=;"
      "p-c1@node-c:foo=",
      { NULL },
      { 50, 50, 100 } },
    /* NodeAffinityPolicy Honor is v1.22's only behaviour: node-c, outside
     * the pod's nodeSelector, is not counted. Raw 3.2->3, 1.6->1, 0. */
    { "NodeAffinityPolicy honored with labelSelectors",
      POD("{\"foo\":\"\"}",
          "\"nodeSelector\":{\"foo\":\"\"}," TSCS(TSC(1, "node", ANY, FOO))),
      "node-a:node=node-a,foo=;node-b:node=node-b,foo=;node-c:node=node-c",
      NULL,
      "p-a1@node-a:foo=;p-a2@node-a:foo=;p-b1@node-b:foo=;p-c1@node-c:foo=",
      { NULL },
      { 0, 66, 100 } },
    { "NodeAffinityPolicy honored with nodeAffinity",
      POD("{\"foo\":\"\"}",
          "\"affinity\":{\"nodeAffinity\":{"
          "\"requiredDuringSchedulingIgnoredDuringExecution\":{"
          "\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"foo\","
          "\"operator\":\"In\",\"values\":[\"\"]}]}]}}}," TSCS(
              TSC(1, "node", ANY, FOO))),
      "node-a:node=node-a,foo=;node-b:node=node-b,foo=;node-c:node=node-c",
      NULL,
      "p-a1@node-a:foo=;p-a2@node-a:foo=;p-b1@node-b:foo=;p-c1@node-c:foo=",
      { NULL },
      { 0, 66, 100 } },
    /* NodeTaintsPolicy Ignore is v1.22's only behaviour. Raw 3, 1, 1. */
    { "NodeTaintsPolicy ignored",
      POD("{\"foo\":\"\"}", TSCS(TSC(1, "node", ANY, FOO))),
      "node-a:node=node-a;node-b:node=node-b;"
      "{\"metadata\":{\"name\":\"node-c\",\"labels\":{\"node\":\"node-c\"}},"
      "\"spec\":{\"taints\":[{\"key\":\"foo\",\"value\":\"bar\","
      "\"effect\":\"NoSchedule\"}]}}",
      NULL,
      "p-a1@node-a:foo=;p-a2@node-a:foo=;p-b1@node-b:foo=;p-c1@node-c:foo=",
      { NULL },
      { 33, 100, 100 } },
    /* v1.22 has no matchLabelKeys: the field is ignored. Raw 2, 4, 3, 1
     * (rounded 3, 5, 3, 1). */
    { "matchLabelKeys ignored when feature gate disabled",
      POD("{\"foo\":\"\",\"bar\":\"\",\"baz\":\"\"}",
          TSCS("{\"maxSkew\":1,\"topologyKey\":\"zone\","
               "\"whenUnsatisfiable\":\"ScheduleAnyway\","
               "\"labelSelector\":" FOO ",\"matchLabelKeys\":[\"baz\"]},"
               "{\"maxSkew\":1,\"topologyKey\":\"" HOST "\","
               "\"whenUnsatisfiable\":\"ScheduleAnyway\","
               "\"labelSelector\":" BAR ",\"matchLabelKeys\":[\"baz\"]}")),
      "node-a:zone=zone1," HOST "=node-a;node-b:zone=zone1," HOST
      "=node-b;node-c:zone=zone2," HOST "=node-c;node-d:zone=zone2," HOST
      "=node-d",
      NULL,
      "p-a1@node-a:foo=;p-b1@node-b:foo=,bar=;p-y1@node-c:foo=;"
      "p-y2@node-c:bar=",
      { NULL },
      { 75, 25, 50, 100 } },
};

static void spread_should_match_upstream_score_table(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(score_cases) / sizeof(score_cases[0]); i++)
        bad += ptf_run_case("PodTopologySpread", &system_args, &score_cases[i]);
    assert_int_equal(bad, 0);
}

/*
 * The table as v1.20.2 and v1.21 score it (D5): v1.20.2's
 * initPreScoreState ignores a node missing any constraint's key, system
 * defaults included, so on zone-less nodes every node scores 0; #105046's
 * fix reached the latest 1.21 patch (#106605), so 1.21 keeps the table.
 */
static void spread_should_ignore_zone_less_nodes_as_v120(void **state)
{
    static const char zone_less[] =
        "system defaulting, nodes don't have zone, pods match service";
    size_t i;
    int bad = 0, seen = 0;

    (void)state;
    for (i = 0; i < sizeof(score_cases) / sizeof(score_cases[0]); i++) {
        struct ptf_case c = score_cases[i];

        bad += ptf_run_case_as(KPE_SEM_1_21, "PodTopologySpread", &system_args,
                               &c);
        if (!strcmp(c.name, zone_less)) {
            memset(c.want, 0, sizeof(c.want));
            seen++;
        }
        bad += ptf_run_case_as(KPE_SEM_1_20, "PodTopologySpread", &system_args,
                               &c);
    }
    assert_int_equal(seen, 1);
    assert_int_equal(bad, 0);
}

/*
 * TestPreScoreSkip (later upstream; in v1.22 the same pods simply score
 * 100 everywhere): no ScheduleAnyway constraints and List defaulting, or
 * system defaults without any selecting service or controller.
 */
static const struct ptf_case neutral_list_cases[] = {
    { "the pod doesn't have soft topology spread Constraints",
      POD("{}", TSCS(TSC(1, HOST, "DoNotSchedule", FOO))),
      "node-a:" HOST "=node-a;node-b:" HOST "=node-b",
      NULL,
      "p-a1@node-a:foo=",
      { NULL },
      { 100, 100 } },
    { "no constraints at all, List defaulting",
      POD("{\"foo\":\"\"}", ""),
      "node-a:" HOST "=node-a;node-b:" HOST "=node-b",
      NULL,
      "p-a1@node-a:foo=",
      { "{\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},"
        "\"spec\":{\"selector\":{\"foo\":\"\"}}}",
        NULL },
      { 100, 100 } },
};

static const struct ptf_case neutral_system_cases[] = {
    { "system defaults, a replicaset that doesn't exist",
      "{\"metadata\":{\"name\":\"p\",\"labels\":{\"foo\":\"bar\"},"
      "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
      "\"ReplicaSet\",\"name\":\"rs2\",\"uid\":\"u\",\"controller\":true}]}}",
      "node-a:" HOST "=node-a;node-b:" HOST "=node-b",
      NULL,
      "p-a1@node-a:foo=bar",
      { "{\"kind\":\"ReplicaSet\",\"apiVersion\":\"apps/v1\","
        "\"metadata\":{\"name\":\"rs1\"},\"spec\":{\"selector\":"
        "{\"matchExpressions\":[{\"key\":\"tar\",\"operator\":"
        "\"Exists\"}]}}}",
        NULL },
      { 100, 100 } },
};

static void spread_should_score_neutral_without_soft_constraints(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(neutral_list_cases) / sizeof(neutral_list_cases[0]);
         i++)
        bad += ptf_run_case("PodTopologySpread", &list_args,
                            &neutral_list_cases[i]);
    for (i = 0;
         i < sizeof(neutral_system_cases) / sizeof(neutral_system_cases[0]);
         i++)
        bad += ptf_run_case("PodTopologySpread", &system_args,
                            &neutral_system_cases[i]);
    assert_int_equal(bad, 0);
}

/* One expected constraint of the PreScore state. */
struct want_constraint {
    const char *key;
    int32_t max_skew;
    size_t size; /* the weight is log(size + 2) */
};

struct state_case {
    const char *name;
    const struct prio_args *args;
    const char *pod;
    const char *nodes;
    const char *docs[4];
    size_t n_constraints;
    struct want_constraint c[3];
    const char *ignored;  /* ";"-separated node names */
    const char *pairs[4]; /* "key=value" pairs registered, count 0 */
};

/* TestPreScoreStateEmptyNodes (scoring_test.go): rows expressible in v1.22. */
static const struct state_case state_cases[] = {
    { "normal case",
      &list_args,
      POD("{\"foo\":\"\"}",
          TSCS(TSC(1, "zone", ANY, FOO) "," TSC(1, HOST, ANY, FOO))),
      "node-a:zone=zone1," HOST "=node-a;node-b:zone=zone1," HOST
      "=node-b;node-x:zone=zone2," HOST "=node-x",
      { NULL },
      2,
      { { "zone", 1, 2 }, { HOST, 1, 3 } },
      "",
      { "zone=zone1", "zone=zone2", NULL } },
    { "null selector",
      &list_args,
      POD("{\"foo\":\"\"}", TSCS(TSC_NOSEL(1, "zone", ANY))),
      "node-a:zone=zone1," HOST "=node-a;node-b:zone=zone1," HOST
      "=node-b;node-x:zone=zone2," HOST "=node-x",
      { NULL },
      1,
      { { "zone", 1, 2 } },
      "",
      { "zone=zone1", "zone=zone2", NULL } },
    { "node-x doesn't have label zone",
      &list_args,
      POD("{\"foo\":\"\"}",
          TSCS(TSC(1, "zone", ANY, FOO) "," TSC(1, HOST, ANY, BAR))),
      "node-a:zone=zone1," HOST "=node-a;node-b:zone=zone1," HOST
      "=node-b;node-x:" HOST "=node-x",
      { NULL },
      2,
      { { "zone", 1, 1 }, { HOST, 1, 2 } },
      "node-x",
      { "zone=zone1", NULL } },
    /* Nodes with no zone are not excluded: they form the zone "". */
    { "system default constraints and a replicaset",
      &system_args,
      "{\"metadata\":{\"name\":\"p\",\"labels\":{\"foo\":\"tar\","
      "\"baz\":\"sup\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
      "\"kind\":\"ReplicaSet\",\"name\":\"rs1\",\"uid\":\"u\","
      "\"controller\":true}]}}",
      "node-a:" HOST "=node-a," PRIO_LABEL_ZONE "=mars;node-b:" HOST
      "=node-b," PRIO_LABEL_ZONE "=mars;node-c:" HOST "=node-c;node-d:" HOST
      "=node-d",
      { "{\"kind\":\"ReplicaSet\",\"apiVersion\":\"apps/v1\","
        "\"metadata\":{\"name\":\"rs1\"},\"spec\":{\"selector\":" FOO "}}",
        NULL },
      2,
      { { HOST, 3, 4 }, { PRIO_LABEL_ZONE, 5, 2 } },
      "",
      { PRIO_LABEL_ZONE "=mars", PRIO_LABEL_ZONE "=", NULL } },
    /* Upstream also configures default constraints; the pod's own win. */
    { "default constraints and a replicaset, but pod has constraints",
      &list_args,
      "{\"metadata\":{\"name\":\"p\",\"labels\":{\"foo\":\"bar\","
      "\"baz\":\"sup\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
      "\"kind\":\"ReplicaSet\",\"name\":\"rs1\",\"uid\":\"u\","
      "\"controller\":true}]},\"spec\":{" TSCS(
          TSC(1, "zone", "DoNotSchedule", BAR) "," TSC(
              2, "planet", ANY, "{\"matchLabels\":{\"baz\":\"sup\"}}")) "}}",
      "node-a:planet=mars,galaxy=andromeda",
      { "{\"kind\":\"ReplicaSet\",\"apiVersion\":\"apps/v1\","
        "\"metadata\":{\"name\":\"rs1\"},\"spec\":{\"selector\":" FOO "}}",
        NULL },
      1,
      { { "planet", 2, 1 } },
      "",
      { "planet=mars", NULL } },
    /* NodeAffinityPolicy Honor / NodeTaintsPolicy Ignore: v1.22's rules;
     * the domains still come from every node of F. */
    { "NodeAffinityPolicy honored with labelSelectors",
      &list_args,
      POD("{\"foo\":\"\"}",
          "\"nodeSelector\":{\"foo\":\"\"}," TSCS(TSC(1, "zone", ANY, BAR))),
      "node-a:zone=zone1,foo=," HOST "=node-a;node-b:zone=zone1,foo=," HOST
      "=node-b;node-x:zone=zone2," HOST "=node-x",
      { NULL },
      1,
      { { "zone", 1, 2 } },
      "",
      { "zone=zone1", "zone=zone2", NULL } },
    { "NodeTaintsPolicy ignored",
      &list_args,
      POD("{\"foo\":\"\"}", TSCS(TSC(1, "zone", ANY, BAR))),
      "node-a:zone=zone1,foo=," HOST "=node-a;node-b:zone=zone1,foo=," HOST
      "=node-b;{\"metadata\":{\"name\":\"node-x\",\"labels\":{\"zone\":"
      "\"zone2\",\"" HOST "\":\"node-x\"}},\"spec\":{\"taints\":[{"
      "\"key\":\"foo\",\"effect\":\"NoSchedule\"}]}}",
      { NULL },
      1,
      { { "zone", 1, 2 } },
      "",
      { "zone=zone1", "zone=zone2", NULL } },
};

static int check_state(const struct state_case *tc)
{
    const struct prio_plugin *pl = prio_plugin_find("PodTopologySpread");
    const char *names[16];
    const struct node_info *list[16];
    const struct prio_spread_state *st;
    struct fx_cluster fc;
    struct prio_cycle cy;
    struct arena a;
    struct err e;
    void *state = NULL;
    size_t n = 0, i, n_ignored = 0, n_pairs = 0;
    int bad = 0;

    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    ptf_add_nodes(&fc, tc->nodes, names, &n);
    ptf_add_docs(&fc, tc->docs);
    fx_cluster_build(&fc);
    for (i = 0; i < n; i++)
        list[i] = cluster_node(&fc.c, names[i]);
    memset(&cy, 0, sizeof(cy));
    cy.pod = fx_pod(&a, tc->pod);
    cy.cluster = &fc.c;
    cy.arena = &a;
    cy.n_nodes = n;
    cy.nodes = list;
    if (pl->prescore(&cy, tc->args, &state, &e) < 0)
        fail_msg("%s: prescore: %s", tc->name, e.msg);
    st = state;
    if (st->n != tc->n_constraints) {
        print_error("%s: %zu constraints, want %zu\n", tc->name, st->n,
                    tc->n_constraints);
        bad = 1;
    }
    for (i = 0; i < st->n && i < tc->n_constraints; i++) {
        const struct want_constraint *w = &tc->c[i];

        if (strcmp(st->c[i].key, w->key) || st->c[i].max_skew != w->max_skew ||
            st->c[i].weight != log((double)(w->size + 2))) {
            print_error("%s: constraint %zu is %s/%d/%g, want %s/%d/log(%zu)\n",
                        tc->name, i, st->c[i].key, st->c[i].max_skew,
                        st->c[i].weight, w->key, w->max_skew, w->size + 2);
            bad = 1;
        }
    }
    for (i = 0; i < n; i++) {
        bool want = strstr(tc->ignored, names[i]) != NULL;

        n_ignored += want;
        if (st->n && (st->ignored[list[i]->index] != 0) != want) {
            print_error("%s: node %s ignored=%d\n", tc->name, names[i],
                        st->ignored[list[i]->index]);
            bad = 1;
        }
    }
    if (st->n_ignored != n_ignored) {
        print_error("%s: %zu ignored nodes\n", tc->name, st->n_ignored);
        bad = 1;
    }
    for (i = 0; tc->pairs[i]; i++, n_pairs++) {
        char *kv = arena_strdup(&a, tc->pairs[i]);
        char *eq = strchr(kv, '=');
        const int64_t *cnt;

        *eq = '\0';
        cnt = topo_counts_find(&st->pairs, kv, eq + 1);
        if (!cnt || *cnt) {
            print_error("%s: pair %s missing or counted\n", tc->name,
                        tc->pairs[i]);
            bad = 1;
        }
    }
    if (st->pairs.n != n_pairs) {
        print_error("%s: %zu pairs, want %zu\n", tc->name, st->pairs.n,
                    n_pairs);
        bad = 1;
    }
    fx_cluster_free(&fc);
    arena_destroy(&a);
    return bad;
}

static void spread_prescore_should_build_upstream_state(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(state_cases) / sizeof(state_cases[0]); i++)
        bad += check_state(&state_cases[i]);
    assert_int_equal(bad, 0);
}

/* priorities.md 3.7 worked example: truncation gives 72/100/100. */
static const struct ptf_case reference_cases[] = {
    { "system defaults, matching pods 2/0/1 over zones a, a, b",
      POD("{\"app\":\"web\"}", ""),
      "n1:" HOST "=n1," PRIO_LABEL_ZONE "=a;n2:" HOST "=n2," PRIO_LABEL_ZONE
      "=a;n3:" HOST "=n3," PRIO_LABEL_ZONE "=b",
      NULL,
      "w1@n1:app=web;w2@n1:app=web;w3@n3:app=web;o1@n2:app=db",
      { "{\"kind\":\"Service\",\"metadata\":{\"name\":\"web\"},"
        "\"spec\":{\"selector\":{\"app\":\"web\"}}}",
        NULL },
      { 72, 100, 100 } },
    /* A node outside the pod's nodeSelector is not counted, even in F's
     * zone; a terminating pod is not counted either: zone a 1, zone b 2,
     * raw 1.4->1, 2.8->2 (counting n2 would make it 50, 100). */
    { "counting skips nodes the pod's node affinity rejects",
      POD("{\"app\":\"web\"}", "\"nodeSelector\":{\"disk\":\"ssd\"}," TSCS(
                                   TSC(1, "zone", ANY,
                                       "{\"matchLabels\":{\"app\":"
                                       "\"web\"}}"))),
      "n1:zone=a,disk=ssd;n3:zone=b,disk=ssd",
      "n2:zone=a",
      "w1@n1:app=web;w2@n2:app=web;w3@n2:app=web;w4@n3!:app=web;"
      "w5@n3:app=web;w6@n3:app=web",
      { NULL },
      { 100, 50 } },
};

static void spread_should_match_reference_examples(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(reference_cases) / sizeof(reference_cases[0]); i++)
        bad += ptf_run_case("PodTopologySpread", &system_args,
                            &reference_cases[i]);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spread_should_match_upstream_score_table),
        cmocka_unit_test(spread_should_ignore_zone_less_nodes_as_v120),
        cmocka_unit_test(spread_should_score_neutral_without_soft_constraints),
        cmocka_unit_test(spread_prescore_should_build_upstream_state),
        cmocka_unit_test(spread_should_match_reference_examples),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
