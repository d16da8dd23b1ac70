/*
 * test_pred_pod_topology_spread.c: EvenPodsSpread (PodTopologySpread
 * filter), tables ported from upstream v1.22
 * plugins/podtopologyspread/filtering_test.go.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/pod_topology_spread.h"
#include "tests/support/pred_fixtures.h"
#include "tests/support/topo_fixtures.h"

#define PLUGIN "PodTopologySpread"

/* spec members of the incoming pod */
#define SC(skew, key, when, sel)                                               \
    "{\"maxSkew\":" #skew ",\"topologyKey\":\"" key                            \
    "\",\"whenUnsatisfiable\":\"" when "\",\"labelSelector\":" sel "}"
#define HARD(skew, key, sel) SC(skew, key, "DoNotSchedule", sel)
#define SOFT(skew, key, sel) SC(skew, key, "ScheduleAnyway", sel)
#define SPREAD(list)         "\"topologySpreadConstraints\":[" list "]"
#define EXISTS(k)                                                              \
    "{\"matchExpressions\":[{\"key\":\"" k "\",\"operator\":\"Exists\"}]}"
#define LABEL(k, v) "{\"matchLabels\":{\"" k "\":\"" v "\"}}"
#define NODE_AFFINITY(op, values)                                              \
    "\"affinity\":{\"nodeAffinity\":{"                                         \
    "\"requiredDuringSchedulingIgnoredDuringExecution\":{"                     \
    "\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"node\","         \
    "\"operator\":\"" op "\",\"values\":[" values "]}]}]}}}"

#define NODE_A "node-a zone=zone1 node=node-a"
#define NODE_B "node-b zone=zone1 node=node-b"
#define NODE_X "node-x zone=zone2 node=node-x"
#define NODE_Y "node-y zone=zone2 node=node-y"
#define NODE_O "node-o zone=zone3 node=node-o"
#define NODE_P "node-p zone=zone3 node=node-p"

#define MAX_NODES 8
#define MAX_PODS  12
#define MAX_PAIRS 8
#define MAX_KEYS  3

struct pair_want {
    const char *key;
    const char *value;
    int64_t count;
};

struct min_want {
    const char *key;
    int64_t min;
};

struct state_case {
    const char *name;
    const char *pod_labels; /* "k=v k=v" */
    const char *pod_spec;   /* extra spec members, NULL for none */
    const char *nodes[MAX_NODES];
    const char *pods[MAX_PODS];
    size_t constraints;
    struct pair_want pairs[MAX_PAIRS];
    struct min_want mins[MAX_KEYS];
};

/* TestPreFilterState (filtering_test.go) */
static const struct state_case prefilter_state_cases[] = {
    { "clean cluster with one spreadConstraint",
      "foo=",
      SPREAD(HARD(5, "zone", LABEL("foo", "bar"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { NULL },
      1,
      { { "zone", "zone1", 0 }, { "zone", "zone2", 0 } },
      { { "zone", 0 } } },
    { "normal case with one spreadConstraint",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=",
        "p-y1 node-y foo=", "p-y2 node-y foo=" },
      1,
      { { "zone", "zone1", 3 }, { "zone", "zone2", 2 } },
      { { "zone", 2 } } },
    { "normal case with one spreadConstraint, on a 3-zone cluster",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y, NODE_O, NODE_P },
      { "p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=",
        "p-y1 node-y foo=", "p-y2 node-y foo=" },
      1,
      { { "zone", "zone1", 3 },
        { "zone", "zone2", 2 },
        { "zone", "zone3", 0 } },
      { { "zone", 0 } } },
    { "namespace mismatch doesn't count",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-a2 node-a foo= ns:ns1",
        "p-b1 node-b foo=", "p-y1 node-y foo= ns:ns2", "p-y2 node-y foo=" },
      1,
      { { "zone", "zone1", 2 }, { "zone", "zone2", 1 } },
      { { "zone", 1 } } },
    { "normal case with two spreadConstraints",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo")) "," HARD(1, "node", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=",
        "p-y1 node-y foo=", "p-y2 node-y foo=", "p-y3 node-y foo=",
        "p-y4 node-y foo=" },
      2,
      { { "zone", "zone1", 3 },
        { "zone", "zone2", 4 },
        { "node", "node-a", 2 },
        { "node", "node-b", 1 },
        { "node", "node-x", 0 },
        { "node", "node-y", 4 } },
      { { "zone", 3 }, { "node", 0 } } },
    { "soft spreadConstraints should be bypassed",
      "foo=",
      SPREAD(SOFT(1, "zone", EXISTS("foo")) "," HARD(
          1, "zone",
          EXISTS("foo")) "," SOFT(1, "node",
                                  EXISTS("foo")) "," HARD(1, "node",
                                                          EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_Y },
      { "p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=",
        "p-y1 node-y foo=", "p-y2 node-y foo=", "p-y3 node-y foo=",
        "p-y4 node-y foo=" },
      2,
      { { "zone", "zone1", 3 },
        { "zone", "zone2", 4 },
        { "node", "node-a", 2 },
        { "node", "node-b", 1 },
        { "node", "node-y", 4 } },
      { { "zone", 3 }, { "node", 1 } } },
    { "different labelSelectors - simple version",
      "foo= bar=",
      SPREAD(HARD(1, "zone", EXISTS("foo")) "," HARD(1, "node", EXISTS("bar"))),
      { NODE_A, NODE_B, NODE_Y },
      { "p-a node-a foo=", "p-b node-b bar=" },
      2,
      { { "zone", "zone1", 1 },
        { "zone", "zone2", 0 },
        { "node", "node-a", 0 },
        { "node", "node-b", 1 },
        { "node", "node-y", 0 } },
      { { "zone", 0 }, { "node", 0 } } },
    { "different labelSelectors - complex pods",
      "foo= bar=",
      SPREAD(HARD(1, "zone", EXISTS("foo")) "," HARD(1, "node", EXISTS("bar"))),
      { NODE_A, NODE_B, NODE_Y },
      { "p-a1 node-a foo=", "p-a2 node-a foo= bar=", "p-b1 node-b foo=",
        "p-y1 node-y foo=", "p-y2 node-y foo= bar=", "p-y3 node-y foo=",
        "p-y4 node-y foo= bar=" },
      2,
      { { "zone", "zone1", 3 },
        { "zone", "zone2", 4 },
        { "node", "node-a", 1 },
        { "node", "node-b", 0 },
        { "node", "node-y", 2 } },
      { { "zone", 3 }, { "node", 0 } } },
    { "two spreadConstraints, and with podAffinity",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo")) "," HARD(
          1, "node", EXISTS("foo"))) "," NODE_AFFINITY("NotIn", "\"node-x\""),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=",
        "p-y1 node-y foo=", "p-y2 node-y foo=", "p-y3 node-y foo=",
        "p-y4 node-y foo=" },
      2,
      { { "zone", "zone1", 3 },
        { "zone", "zone2", 4 },
        { "node", "node-a", 2 },
        { "node", "node-b", 1 },
        { "node", "node-y", 4 } },
      { { "zone", 3 }, { "node", 1 } } },
    { "default constraints and a service, but pod has constraints",
      "foo=bar baz=tar",
      SPREAD(HARD(1, "zone", LABEL("baz", "tar")) "," SOFT(
          2, "planet", LABEL("fot", "rok"))),
      { NULL },
      { NULL },
      1,
      { { NULL, NULL, 0 } },
      { { "zone", INT32_MAX } } },
    /* Policy-generated system defaults are ScheduleAnyway. */
    { "default soft constraints and a service",
      "foo=bar",
      NULL,
      { NULL },
      { NULL },
      0,
      { { NULL, NULL, 0 } },
      { { NULL, 0 } } },
};

#define ZONE_NODE_HARD                                                         \
    SPREAD(HARD(1, "zone", EXISTS("foo")) "," HARD(1, "node", EXISTS("foo")))
#define ZONE_FOO_NODE_BAR                                                      \
    SPREAD(HARD(1, "zone", EXISTS("foo")) "," HARD(1, "node", EXISTS("bar")))

/*
 * TestPreFilterStateAddPod: v1.22's AddPod must leave the state PreFilter
 * computes with the added pod already in the cluster; each row is that
 * cluster (existing pods, then the added pod) and the expected state.
 */
static const struct state_case add_pod_cases[] = {
    { "node a and b both impact current min match",
      "foo=",
      SPREAD(HARD(1, "node", EXISTS("foo"))),
      { NODE_A, NODE_B },
      { "p-a1 node-a foo=" },
      1,
      { { "node", "node-a", 1 }, { "node", "node-b", 0 } },
      { { "node", 0 } } },
    { "only node a impacts current min match",
      "foo=",
      SPREAD(HARD(1, "node", EXISTS("foo"))),
      { NODE_A, NODE_B },
      { "p-b1 node-b foo=", "p-a1 node-a foo=" },
      1,
      { { "node", "node-a", 1 }, { "node", "node-b", 1 } },
      { { "node", 1 } } },
    { "add a pod in a different namespace doesn't change "
      "topologyKeyToMinPodsMap",
      "foo=",
      SPREAD(HARD(1, "node", EXISTS("foo"))),
      { NODE_A, NODE_B },
      { "p-b1 node-b foo=", "p-a1 node-a foo= ns:ns1" },
      1,
      { { "node", "node-a", 0 }, { "node", "node-b", 1 } },
      { { "node", 0 } } },
    { "add pod on non-critical node won't trigger re-calculation",
      "foo=",
      SPREAD(HARD(1, "node", EXISTS("foo"))),
      { NODE_A, NODE_B },
      { "p-b1 node-b foo=", "p-b2 node-b foo=" },
      1,
      { { "node", "node-a", 0 }, { "node", "node-b", 2 } },
      { { "node", 0 } } },
    { "node a and x both impact topologyKeyToMinPodsMap on zone and node",
      "foo=",
      ZONE_NODE_HARD,
      { NODE_A, NODE_X },
      { "p-a1 node-a foo=" },
      2,
      { { "zone", "zone1", 1 },
        { "zone", "zone2", 0 },
        { "node", "node-a", 1 },
        { "node", "node-x", 0 } },
      { { "zone", 0 }, { "node", 0 } } },
    { "only node a impacts topologyKeyToMinPodsMap on zone and node",
      "foo=",
      ZONE_NODE_HARD,
      { NODE_A, NODE_X },
      { "p-x1 node-x foo=", "p-a1 node-a foo=" },
      2,
      { { "zone", "zone1", 1 },
        { "zone", "zone2", 1 },
        { "node", "node-a", 1 },
        { "node", "node-x", 1 } },
      { { "zone", 1 }, { "node", 1 } } },
    { "node a impacts topologyKeyToMinPodsMap on node, node x impacts "
      "topologyKeyToMinPodsMap on zone",
      "foo=",
      ZONE_NODE_HARD,
      { NODE_A, NODE_B, NODE_X },
      { "p-b1 node-b foo=", "p-b2 node-b foo=", "p-x1 node-x foo=",
        "p-a1 node-a foo=" },
      2,
      { { "zone", "zone1", 3 },
        { "zone", "zone2", 1 },
        { "node", "node-a", 1 },
        { "node", "node-b", 2 },
        { "node", "node-x", 1 } },
      { { "zone", 1 }, { "node", 1 } } },
    { "Constraints hold different labelSelectors, node a impacts "
      "topologyKeyToMinPodsMap on zone",
      "foo= bar=",
      ZONE_FOO_NODE_BAR,
      { NODE_A, NODE_B, NODE_X },
      { "p-b1 node-b foo= bar=", "p-x1 node-x foo= bar=", "p-x2 node-x bar=",
        "p-a1 node-a foo=" },
      2,
      { { "zone", "zone1", 2 },
        { "zone", "zone2", 1 },
        { "node", "node-a", 0 },
        { "node", "node-b", 1 },
        { "node", "node-x", 2 } },
      { { "zone", 1 }, { "node", 0 } } },
    { "Constraints hold different labelSelectors, node a impacts "
      "topologyKeyToMinPodsMap on both zone and node",
      "foo= bar=",
      ZONE_FOO_NODE_BAR,
      { NODE_A, NODE_B, NODE_X },
      { "p-b1 node-b bar=", "p-x1 node-x foo= bar=", "p-x2 node-x bar=",
        "p-a1 node-a foo= bar=" },
      2,
      { { "zone", "zone1", 1 },
        { "zone", "zone2", 1 },
        { "node", "node-a", 1 },
        { "node", "node-b", 1 },
        { "node", "node-x", 2 } },
      { { "zone", 1 }, { "node", 1 } } },
};

/*
 * TestPreFilterStateRemovePod: likewise, the state PreFilter computes
 * once the deleted pod is gone from the cluster.
 */
static const struct state_case remove_pod_cases[] = {
    { "one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X },
      { "p-b1 node-b foo=", "p-x1 node-x foo=" },
      1,
      { { "zone", "zone1", 1 }, { "zone", "zone2", 1 } },
      { { "zone", 1 } } },
    { "one spreadConstraint on node, topologyKeyToMinPodsMap changed",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-b1 node-b foo=", "p-x1 node-x foo=", "p-y1 node-y foo=" },
      1,
      { { "zone", "zone1", 1 }, { "zone", "zone2", 2 } },
      { { "zone", 1 } } },
    { "delete an irrelevant pod won't help",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-b1 node-b foo=", "p-x1 node-x foo=",
        "p-y1 node-y foo=" },
      1,
      { { "zone", "zone1", 2 }, { "zone", "zone2", 2 } },
      { { "zone", 2 } } },
    { "delete a non-existing pod won't help",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-b1 node-b foo=", "p-x1 node-x foo=",
        "p-y1 node-y foo=" },
      1,
      { { "zone", "zone1", 2 }, { "zone", "zone2", 2 } },
      { { "zone", 2 } } },
    { "two spreadConstraints",
      "foo=",
      ZONE_NODE_HARD,
      { NODE_A, NODE_B, NODE_X },
      { "p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=",
        "p-x2 node-x foo=" },
      2,
      { { "zone", "zone1", 3 },
        { "zone", "zone2", 1 },
        { "node", "node-a", 2 },
        { "node", "node-b", 1 },
        { "node", "node-x", 1 } },
      { { "zone", 1 }, { "node", 1 } } },
};

/* Ours: the v1.22 behaviours predicates.md B.18 calls out. */
static const struct state_case v122_state_cases[] = {
    /* node-b is not eligible (node affinity) but shares zone1: counted */
    { "non-eligible node sharing a registered value is counted",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))) "," NODE_AFFINITY("NotIn",
                                                               "\"node-b\""),
      { NODE_A, NODE_B, NODE_X },
      { "p-b1 node-b foo=", "p-b2 node-b foo=", "p-x1 node-x foo=" },
      1,
      { { "zone", "zone1", 2 }, { "zone", "zone2", 1 } },
      { { "zone", 1 } } },
    /* a node without the key reads as "" and joins a registered "" */
    { "node lacking the key counts toward a registered empty value",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { "node-a zone=", "node-b other=1" },
      { "p-b1 node-b foo=", "p-b2 node-b foo=", "p-a1 node-a bar=" },
      1,
      { { "zone", "", 2 } },
      { { "zone", 2 } } },
    { "terminating pods and other namespaces are not counted",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_X },
      { "p-a1 node-a foo= terminating", "p-a2 node-a foo= ns:other",
        "p-a3 node-a foo=", "p-x1 node-x bar=" },
      1,
      { { "zone", "zone1", 1 }, { "zone", "zone2", 0 } },
      { { "zone", 0 } } },
};

static struct kube_pod *incoming(struct arena *a, const char *labels,
                                 const char *spec)
{
    char buf[256];

    snprintf(buf, sizeof(buf), "p - %s", labels ? labels : "");
    return tf_pod(a, buf, spec);
}

static void check_state(const char *table, const struct state_case *tc)
{
    struct arena a;
    struct fx_cluster fc;
    struct pred_cycle cy;
    struct pred_result r;
    void *state;
    size_t n_pairs = 0, i;
    enum pred_code code;

    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    tf_add(&fc, tc->nodes, tc->pods);
    fx_cluster_build(&fc);
    code = tf_prefilter(PLUGIN, incoming(&a, tc->pod_labels, tc->pod_spec),
                        &fc.c, &a, &cy, &state, &r);
    if (code != PRED_FIT || !state)
        fail_msg("%s \"%s\": prefilter code %d (%s)", table, tc->name, code,
                 fx_reasons(&a, &r));
    if (pred_spread_state_constraints(state) != tc->constraints)
        fail_msg("%s \"%s\": %zu constraints, want %zu", table, tc->name,
                 pred_spread_state_constraints(state), tc->constraints);
    for (i = 0; i < MAX_PAIRS && tc->pairs[i].key; i++) {
        int64_t got;

        n_pairs++;
        if (!pred_spread_state_count(state, tc->pairs[i].key,
                                     tc->pairs[i].value, &got))
            fail_msg("%s \"%s\": pair %s=%s not registered", table, tc->name,
                     tc->pairs[i].key, tc->pairs[i].value);
        if (got != tc->pairs[i].count)
            fail_msg("%s \"%s\": pair %s=%s count %lld, want %lld", table,
                     tc->name, tc->pairs[i].key, tc->pairs[i].value,
                     (long long)got, (long long)tc->pairs[i].count);
    }
    if (pred_spread_state_pairs(state) != n_pairs)
        fail_msg("%s \"%s\": %zu pairs, want %zu", table, tc->name,
                 pred_spread_state_pairs(state), n_pairs);
    for (i = 0; i < MAX_KEYS && tc->mins[i].key; i++)
        if (pred_spread_state_min(state, tc->mins[i].key) != tc->mins[i].min)
            fail_msg("%s \"%s\": min for %s %lld, want %lld", table, tc->name,
                     tc->mins[i].key,
                     (long long)pred_spread_state_min(state, tc->mins[i].key),
                     (long long)tc->mins[i].min);
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

#define RUN_STATE_TABLE(t)                                                     \
    do {                                                                       \
        for (size_t i_ = 0; i_ < sizeof(t) / sizeof(t[0]); i_++)               \
            check_state(#t, &t[i_]);                                           \
    } while (0)

static void prefilter_should_count_matching_pods_per_domain(void **state)
{
    (void)state;
    RUN_STATE_TABLE(prefilter_state_cases);
}

static void prefilter_should_match_state_after_adding_a_pod(void **state)
{
    (void)state;
    RUN_STATE_TABLE(add_pod_cases);
}

static void prefilter_should_match_state_after_removing_a_pod(void **state)
{
    (void)state;
    RUN_STATE_TABLE(remove_pod_cases);
}

static void prefilter_should_keep_v1_22_counting_quirks(void **state)
{
    (void)state;
    RUN_STATE_TABLE(v122_state_cases);
}

struct filter_case {
    const char *name;
    const char *pod_labels;
    const char *pod_spec;
    const char *nodes[MAX_NODES];
    const char *pods[MAX_PODS];
    enum pred_code want[MAX_NODES]; /* per node, in order */
};

#define FIT   PRED_FIT
#define UNFIT PRED_UNFIT
#define UNRES PRED_UNFIT_UNRESOLVABLE

#define PODS_2_1_0_3                                                           \
    "p-a1 node-a foo=", "p-a2 node-a foo=", "p-b1 node-b foo=",                \
        "p-y1 node-y foo=", "p-y2 node-y foo=", "p-y3 node-y foo="

/* TestSingleConstraint (filtering_test.go) */
static const struct filter_case single_cases[] = {
    { "no existing pods",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { NULL },
      { FIT, FIT, FIT, FIT } },
    { "no existing pods, incoming pod doesn't match itself",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("bar"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { NULL },
      { FIT, FIT, FIT, FIT } },
    { "existing pods in a different namespace do not count",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo= ns:ns1", "p-b1 node-a foo= ns:ns2",
        "p-x1 node-x foo=", "p-y1 node-y foo=" },
      { FIT, FIT, UNFIT, UNFIT } },
    { "pods spread across zones as 3/3, all nodes fit",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { PODS_2_1_0_3 },
      { FIT, FIT, FIT, FIT } },
    { "pods spread across zones as 1/2 due to absence of label 'zone' on "
      "node-b",
      "foo=",
      SPREAD(HARD(1, "zone", EXISTS("foo"))),
      { NODE_A, "node-b zon=zone1 node=node-b", NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-b1 node-b foo=", "p-x1 node-x foo=",
        "p-y1 node-y foo=" },
      { FIT, UNRES, UNFIT, UNFIT } },
    { "pod cannot be scheduled as all nodes don't have label 'rack'",
      "foo=",
      SPREAD(HARD(1, "rack", EXISTS("foo"))),
      { NODE_A, NODE_X },
      { NULL },
      { UNRES, UNRES } },
    { "pods spread across nodes as 2/1/0/3, only node-x fits",
      "foo=",
      SPREAD(HARD(1, "node", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { PODS_2_1_0_3 },
      { UNFIT, UNFIT, FIT, UNFIT } },
    { "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x "
      "fit",
      "foo=",
      SPREAD(HARD(2, "node", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { PODS_2_1_0_3 },
      { UNFIT, FIT, FIT, UNFIT } },
    { "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
      "bar=",
      SPREAD(HARD(1, "node", EXISTS("foo"))),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { PODS_2_1_0_3 },
      { UNFIT, FIT, FIT, UNFIT } },
    /* upstream runs no NodeAffinity here either: node-b/x still fit */
    { "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence "
      "node-a fits",
      "foo=",
      SPREAD(HARD(1, "node", EXISTS("foo"))) "," NODE_AFFINITY(
          "In", "\"node-a\",\"node-y\""),
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { PODS_2_1_0_3 },
      { FIT, FIT, FIT, UNFIT } },
    { "terminating Pods should be excluded",
      "foo=",
      SPREAD(HARD(1, "node", EXISTS("foo"))),
      { "node-a node=node-a", "node-b node=node-b" },
      { "p-a node-a foo= terminating", "p-b node-b foo=" },
      { FIT, UNFIT } },
};

/* TestMultipleConstraints (filtering_test.go) */
static const struct filter_case multiple_cases[] = {
    { "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
      "foo=",
      ZONE_NODE_HARD,
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { PODS_2_1_0_3 },
      { UNFIT, UNFIT, FIT, UNFIT } },
    { "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
      "foo=",
      ZONE_NODE_HARD,
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { PODS_2_1_0_3, "p-y4 node-y foo=" },
      { UNFIT, UNFIT, UNFIT, UNFIT } },
    { "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
      "foo= bar=",
      ZONE_FOO_NODE_BAR,
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-y1 node-y bar=" },
      { UNFIT, UNFIT, FIT, UNFIT } },
    { "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
      "foo= bar=",
      ZONE_FOO_NODE_BAR,
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-x1 node-x bar=", "p-y1 node-y bar=" },
      { UNFIT, UNFIT, UNFIT, UNFIT } },
    { "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
      "foo= bar=",
      ZONE_FOO_NODE_BAR,
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-a2 node-a foo= bar=", "p-y1 node-y foo=",
        "p-y2 node-y foo= bar=", "p-y3 node-y foo=" },
      { UNFIT, FIT, UNFIT, UNFIT } },
    { "Constraints hold different labelSelectors but pod doesn't match "
      "itself on 'zone' constraint",
      "bar=",
      ZONE_FOO_NODE_BAR,
      { NODE_A, NODE_B, NODE_X, NODE_Y },
      { "p-a1 node-a foo=", "p-x1 node-x bar=", "p-y1 node-y bar=" },
      { FIT, FIT, UNFIT, UNFIT } },
    { "two Constraints on zone and node, absence of label 'node' on node-x, "
      "spreads = [1/1, 1/0/0/1]",
      "foo=",
      ZONE_NODE_HARD,
      { NODE_A, NODE_B, "node-x zone=zone2", NODE_Y },
      { "p-a1 node-a foo=", "p-y3 node-y foo=" },
      { UNFIT, FIT, UNRES, UNFIT } },
};

static const char *want_reason(enum pred_code code)
{
    if (code == PRED_UNFIT)
        return PRED_REASON_SPREAD;
    if (code == PRED_UNFIT_UNRESOLVABLE)
        return PRED_REASON_SPREAD_LABEL;
    return "";
}

static void check_filter(const char *table, const struct filter_case *tc)
{
    struct arena a;
    struct fx_cluster fc;
    struct kube_pod *pod;
    size_t i;

    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    tf_add(&fc, tc->nodes, tc->pods);
    fx_cluster_build(&fc);
    pod = incoming(&a, tc->pod_labels, tc->pod_spec);
    for (i = 0; i < fc.c.n_nodes; i++) {
        const char *node = fc.c.nodes[i].node->name;
        struct pred_result r;
        enum pred_code got =
            fx_run_filter(PLUGIN, NULL, NULL, pod, &fc.c, node, &a, &r);

        if (got != tc->want[i])
            fail_msg("%s \"%s\" [%s]: code %d, want %d (%s)", table, tc->name,
                     node, got, tc->want[i], fx_reasons(&a, &r));
        if (strcmp(fx_reasons(&a, &r), want_reason(got)))
            fail_msg("%s \"%s\" [%s]: reasons \"%s\"", table, tc->name, node,
                     fx_reasons(&a, &r));
    }
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

#define RUN_FILTER_TABLE(t)                                                    \
    do {                                                                       \
        for (size_t i_ = 0; i_ < sizeof(t) / sizeof(t[0]); i_++)               \
            check_filter(#t, &t[i_]);                                          \
    } while (0)

static void filter_should_enforce_single_constraint(void **state)
{
    (void)state;
    RUN_FILTER_TABLE(single_cases);
}

static void filter_should_enforce_multiple_constraints(void **state)
{
    (void)state;
    RUN_FILTER_TABLE(multiple_cases);
}

/* TestPreFilterDisabled: Filter without PreFilter state is an error. */
static void filter_should_fail_without_prefilter_state(void **state)
{
    const struct pred_plugin *impl = pred_plugin_find(PLUGIN);
    struct arena a;
    struct fx_cluster fc;
    struct pred_cycle cy;
    struct pred_result r;

    (void)state;
    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    fx_cluster_add_node(&fc, tf_node(&a, "n1"));
    fx_cluster_build(&fc);
    memset(&cy, 0, sizeof(cy));
    cy.pod = incoming(&a, "", NULL);
    cy.cluster = &fc.c;
    cy.arena = &a;
    pred_result_init(&r, &a);
    assert_non_null(impl);
    assert_int_equal(impl->filter(&cy, NULL, NULL, &fc.c.nodes[0], &r),
                     PRED_ERROR);
    assert_string_equal(fx_reasons(&a, &r),
                        "reading \"PreFilterPodTopologySpread\" from "
                        "cycleState: not found");
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

/* PreFilter's calPreFilterState error for an unconvertible selector. */
static void prefilter_should_reject_invalid_selector(void **state)
{
    struct arena a;
    struct fx_cluster fc;
    struct pred_cycle cy;
    struct pred_result r;
    struct kube_pod *pod;
    void *st;
    char want[512];

    (void)state;
    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    fx_cluster_add_node(&fc, tf_node(&a, NODE_A));
    fx_cluster_build(&fc);
    pod = incoming(&a, "foo=",
                   SPREAD(HARD(1, "zone",
                               "{\"matchExpressions\":[{\"key\":\"foo\","
                               "\"operator\":\"In\",\"values\":[]}]}")));
    assert_non_null(pod->spread_constraints[0].selector);
    assert_non_null(pod->spread_constraints[0].selector->invalid);
    snprintf(want, sizeof(want),
             "obtaining pod's hard topology spread constraints: %s",
             pod->spread_constraints[0].selector->invalid);
    assert_int_equal(tf_prefilter(PLUGIN, pod, &fc.c, &a, &cy, &st, &r),
                     PRED_ERROR);
    assert_string_equal(fx_reasons(&a, &r), want);
    /* the same selector in a soft constraint is never converted */
    pod = incoming(&a, "foo=",
                   SPREAD(SOFT(1, "zone",
                               "{\"matchExpressions\":[{\"key\":\"foo\","
                               "\"operator\":\"In\",\"values\":[]}]}")));
    assert_int_equal(tf_prefilter(PLUGIN, pod, &fc.c, &a, &cy, &st, &r),
                     PRED_FIT);
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

#define SCALE_NODES 5000
#define SCALE_ZONES 7

/* 5,000 nodes in 7 zones, 2 matching pods per node: exact sums. */
static void prefilter_should_scale_to_5000_nodes(void **state)
{
    struct arena a;
    struct fx_cluster fc;
    struct pred_cycle cy;
    struct pred_result r;
    struct kube_pod *pod;
    void *st;
    char spec[128];
    int64_t per_zone[SCALE_ZONES] = { 0 }, got, min = INT64_MAX;
    size_t i;

    (void)state;
    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    for (i = 0; i < SCALE_NODES; i++) {
        snprintf(spec, sizeof(spec), "n%zu zone=z%zu node=n%zu", i,
                 i % SCALE_ZONES, i);
        fx_cluster_add_node(&fc, tf_node(&a, spec));
        snprintf(spec, sizeof(spec), "p%zu n%zu app=web", i, i);
        fx_cluster_add_pod(&fc, tf_pod(&a, spec, NULL));
        snprintf(spec, sizeof(spec), "q%zu n%zu app=%s", i, i,
                 i % 3 ? "web" : "db");
        fx_cluster_add_pod(&fc, tf_pod(&a, spec, NULL));
        per_zone[i % SCALE_ZONES] += i % 3 ? 2 : 1;
    }
    fx_cluster_build(&fc);
    pod = incoming(&a, "app=web",
                   SPREAD(HARD(1, "zone", LABEL("app", "web")) "," HARD(
                       1, "node", LABEL("app", "web"))));
    assert_int_equal(tf_prefilter(PLUGIN, pod, &fc.c, &a, &cy, &st, &r),
                     PRED_FIT);
    assert_int_equal(pred_spread_state_pairs(st), SCALE_NODES + SCALE_ZONES);
    for (i = 0; i < SCALE_ZONES; i++) {
        snprintf(spec, sizeof(spec), "z%zu", i);
        assert_true(pred_spread_state_count(st, "zone", spec, &got));
        assert_int_equal(got, per_zone[i]);
        if (got < min)
            min = got;
    }
    assert_int_equal(pred_spread_state_min(st, "zone"), min);
    assert_int_equal(pred_spread_state_min(st, "node"), 1);
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prefilter_should_count_matching_pods_per_domain),
        cmocka_unit_test(prefilter_should_match_state_after_adding_a_pod),
        cmocka_unit_test(prefilter_should_match_state_after_removing_a_pod),
        cmocka_unit_test(prefilter_should_keep_v1_22_counting_quirks),
        cmocka_unit_test(filter_should_enforce_single_constraint),
        cmocka_unit_test(filter_should_enforce_multiple_constraints),
        cmocka_unit_test(filter_should_fail_without_prefilter_state),
        cmocka_unit_test(prefilter_should_reject_invalid_selector),
        cmocka_unit_test(prefilter_should_scale_to_5000_nodes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
