/*
 * test_pred_inter_pod_affinity.c: MatchInterPodAffinity (InterPodAffinity
 * filter), tables ported from upstream
 * plugins/interpodaffinity/filtering_test.go with v1.22's statuses (two
 * reasons per failure, no Skip status).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "predicates/inter_pod_affinity.h"
#include "predicates/plugins.h"
#include "tests/support/pred_fixtures.h"
#include "tests/support/topo_fixtures.h"

#define PLUGIN "InterPodAffinity"

/* label selectors */
#define SEL(exprs) "{\"matchExpressions\":[" exprs "]}"
#define EXPR(k, op, vals)                                                      \
    "{\"key\":\"" k "\",\"operator\":\"" op "\",\"values\":[" vals "]}"
#define EXPR0(k, op)   "{\"key\":\"" k "\",\"operator\":\"" op "\"}"
#define IN(k, vals)    SEL(EXPR(k, "In", vals))
#define NOTIN(k, vals) SEL(EXPR(k, "NotIn", vals))
#define EXISTS(k)      SEL(EXPR0(k, "Exists"))
/* terms and affinity blocks (spec members) */
#define TERM(sel, key) "{\"labelSelector\":" sel ",\"topologyKey\":\"" key "\"}"
#define TERM_NSSEL(sel, nss, key)                                              \
    "{\"labelSelector\":" sel ",\"namespaceSelector\":" nss                    \
    ",\"topologyKey\":\"" key "\"}"
#define TERM_NS(sel, ns, key)                                                  \
    "{\"labelSelector\":" sel ",\"namespaces\":[" ns                           \
    "],\"topologyKey\":\"" key "\"}"
#define REQ(terms)                                                             \
    "{\"requiredDuringSchedulingIgnoredDuringExecution\":[" terms "]}"
#define AFF(terms)  "\"affinity\":{\"podAffinity\":" REQ(terms) "}"
#define ANTI(terms) "\"affinity\":{\"podAntiAffinity\":" REQ(terms) "}"
#define AFF_ANTI(a, b)                                                         \
    "\"affinity\":{\"podAffinity\":" REQ(a) ",\"podAntiAffinity\":" REQ(b) "}"

#define MAX_NODES 4
#define MAX_PODS  4

enum want {
    OK,    /* fits */
    AFF,   /* UnschedulableAndUnresolvable: affinity rules */
    ANTI,  /* Unschedulable: the pod's anti-affinity rules */
    EXIST, /* Unschedulable: existing pods' anti-affinity rules */
    PRE,   /* the prefilter rejects the pod (want_pre) */
};

struct pod_def {
    const char *spec; /* topo_fixtures pod spec */
    const char *json; /* extra spec members or NULL */
};

struct ipa_case {
    const char *name;
    struct pod_def pod;
    struct pod_def pods[MAX_PODS];
    const char *nodes[MAX_NODES];
    enum want want[MAX_NODES];
    const char *want_pre; /* PRE: the reason */
};

#define NODE1 "node1 region=r1 zone=z11"
#define POD_SECURITYSCAN                                                       \
    {                                                                          \
        "pod node1 service=securityscan", NULL                                 \
    }
#define SCAN_VALUE2 "\"securityscan\",\"value2\""
#define TEAM1       IN("team", "\"team1\"")
#define BAD_VALUE_REASON                                                       \
    "parsing pod: requiredAffinityTerms: values[0][service]: Invalid "         \
    "value: \"{{.bad-value.}}\": a valid label must be an empty string or "    \
    "consist of alphanumeric characters, '-', '_' or '.', and must start "     \
    "and end with an alphanumeric character (e.g. 'MyValue',  or "             \
    "'my_value',  or '12345', regex used for validation is "                   \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

/* TestRequiredAffinitySingleNode (filtering_test.go) */
static const struct ipa_case single_cases[] = {
    { "A pod that has no required pod affinity scheduling rules can schedule "
      "onto a node with no existing pods",
      { "p -", NULL },
      { { NULL, NULL } },
      { NODE1 },
      { OK },
      NULL },
    { "satisfies with requiredDuringSchedulingIgnoredDuringExecution in "
      "PodAffinity using In operator that matches the existing pod",
      { "p - security=S1", AFF(TERM(IN("service", SCAN_VALUE2), "region")) },
      { POD_SECURITYSCAN },
      { NODE1 },
      { OK },
      NULL },
    { "satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution "
      "in PodAffinity using not in operator in labelSelector that matches "
      "the existing pod",
      { "p - security=S1",
        AFF(TERM(NOTIN("service", "\"securityscan3\",\"value3\""), "region")) },
      { POD_SECURITYSCAN },
      { NODE1 },
      { OK },
      NULL },
    { "Does not satisfy the PodAffinity with labelSelector because of diff "
      "Namespace",
      { "p - security=S1",
        AFF(TERM_NS(IN("service", SCAN_VALUE2), "\"DiffNameSpace\"", "")) },
      { { "pod node1 service=securityscan ns:ns", NULL } },
      { NODE1 },
      { AFF },
      NULL },
    { "Doesn't satisfy the PodAffinity because of unmatching labelSelector "
      "with the existing pod",
      { "p - service=securityscan",
        AFF(TERM(IN("service", "\"antivirusscan\",\"value2\""), "")) },
      { POD_SECURITYSCAN },
      { NODE1 },
      { AFF },
      NULL },
    { "satisfies the PodAffinity with different label Operators in multiple "
      "RequiredDuringSchedulingIgnoredDuringExecution ",
      { "p - security=S1",
        AFF(TERM(
            SEL(EXPR0("service", "Exists") "," EXPR0("wrongkey",
                                                     "DoesNotExist")),
            "region") "," TERM(SEL(EXPR("service", "In",
                                        "\"securityscan\"") "," EXPR("service",
                                                                     "NotIn",
                                                                     "\"WrongVa"
                                                                     "lue\"")),
                               "region")) },
      { POD_SECURITYSCAN },
      { NODE1 },
      { OK },
      NULL },
    { "The labelSelector requirements(items of matchExpressions) are ANDed, "
      "the pod cannot schedule onto the node because one of the "
      "matchExpression item don't match.",
      { "p - security=S1",
        AFF(TERM(
            SEL(EXPR0("service", "Exists") "," EXPR0("wrongkey",
                                                     "DoesNotExist")),
            "region") "," TERM(SEL(EXPR("service", "In",
                                        "\"securityscan2\"") "," EXPR("service",
                                                                      "NotIn",
                                                                      "\"WrongV"
                                                                      "alue"
                                                                      "\"")),
                               "region")) },
      { POD_SECURITYSCAN },
      { NODE1 },
      { AFF },
      NULL },
    { "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
      { "p - security=S1",
        AFF_ANTI(TERM(IN("service", SCAN_VALUE2), "region"),
                 TERM(IN("service", "\"antivirusscan\",\"value2\""), "node")) },
      { POD_SECURITYSCAN },
      { NODE1 },
      { OK },
      NULL },
    { "satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity "
      "symmetry with the existing pod",
      { "p - security=S1",
        AFF_ANTI(TERM(IN("service", SCAN_VALUE2), "region"),
                 TERM(IN("service", "\"antivirusscan\",\"value2\""), "node")) },
      { { "pod node1 service=securityscan",
          ANTI(TERM(IN("service", "\"antivirusscan\",\"value2\""), "node")) } },
      { NODE1 },
      { OK },
      NULL },
    { "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity "
      "with the existing pod",
      { "p - security=S1", AFF_ANTI(TERM(IN("service", SCAN_VALUE2), "region"),
                                    TERM(IN("service", SCAN_VALUE2), "zone")) },
      { POD_SECURITYSCAN },
      { NODE1 },
      { ANTI },
      NULL },
    { "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy "
      "PodAntiAffinity symmetry with the existing pod",
      { "p - service=securityscan",
        AFF_ANTI(TERM(IN("service", SCAN_VALUE2), "region"),
                 TERM(IN("service", "\"antivirusscan\",\"value2\""), "node")) },
      { { "pod node1 service=securityscan",
          ANTI(TERM(IN("service", SCAN_VALUE2), "zone")) } },
      { NODE1 },
      { EXIST },
      NULL },
    { "pod matches its own Label in PodAffinity and that matches the "
      "existing pod Labels",
      { "p - service=securityscan",
        AFF(TERM(NOTIN("service", SCAN_VALUE2), "region")) },
      { { "pod node2 service=securityscan", NULL } },
      { NODE1 },
      { AFF },
      NULL },
    { "verify that PodAntiAffinity from existing pod is respected when pod "
      "has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity "
      "symmetry with the existing pod",
      { "p - service=securityscan", NULL },
      { { "pod node1 service=securityscan",
          ANTI(TERM(IN("service", SCAN_VALUE2), "zone")) } },
      { NODE1 },
      { EXIST },
      NULL },
    { "verify that PodAntiAffinity from existing pod is respected when pod "
      "has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with "
      "the existing pod",
      { "p - service=securityscan", NULL },
      { { "pod node1 service=securityscan",
          ANTI(TERM(NOTIN("service", SCAN_VALUE2), "zone")) } },
      { NODE1 },
      { OK },
      NULL },
    { "satisfies the PodAntiAffinity with existing pod but doesn't satisfy "
      "PodAntiAffinity symmetry with incoming pod",
      { "p - service=securityscan",
        ANTI(TERM(EXISTS("service"), "region") "," TERM(EXISTS("security"),
                                                        "region")) },
      { { "pod node1 security=S1", ANTI(TERM(EXISTS("security"), "zone")) } },
      { NODE1 },
      { ANTI },
      NULL },
    { "PodAntiAffinity symmetry check a1: incoming pod and existing pod "
      "partially match each other on AffinityTerms",
      { "p - service=securityscan",
        ANTI(TERM(EXISTS("service"), "zone") "," TERM(EXISTS("security"),
                                                      "zone")) },
      { { "pod node1 security=S1", ANTI(TERM(EXISTS("security"), "zone")) } },
      { NODE1 },
      { ANTI },
      NULL },
    { "PodAntiAffinity symmetry check a2: incoming pod and existing pod "
      "partially match each other on AffinityTerms",
      { "p - security=S1", ANTI(TERM(EXISTS("security"), "zone")) },
      { { "pod node1 service=securityscan",
          ANTI(TERM(EXISTS("service"), "zone") "," TERM(EXISTS("security"),
                                                        "zone")) } },
      { NODE1 },
      { EXIST },
      NULL },
    { "PodAntiAffinity symmetry check b1: incoming pod and existing pod "
      "partially match each other on AffinityTerms",
      { "p - abc= xyz=",
        ANTI(TERM(EXISTS("abc"), "zone") "," TERM(EXISTS("def"), "zone")) },
      { { "pod node1 def= xyz=",
          ANTI(TERM(EXISTS("abc"), "zone") "," TERM(EXISTS("def"), "zone")) } },
      { NODE1 },
      { ANTI },
      NULL },
    { "PodAntiAffinity symmetry check b2: incoming pod and existing pod "
      "partially match each other on AffinityTerms",
      { "p - def= xyz=",
        ANTI(TERM(EXISTS("abc"), "zone") "," TERM(EXISTS("def"), "zone")) },
      { { "pod node1 abc= xyz=",
          ANTI(TERM(EXISTS("abc"), "zone") "," TERM(EXISTS("def"), "zone")) } },
      { NODE1 },
      { ANTI },
      NULL },
    { "PodAffinity fails PreFilter with an invalid affinity label syntax",
      { "p - service=securityscan",
        AFF(TERM(IN("service", "\"{{.bad-value.}}\""), "region") "," TERM(
            IN("service", "\"antivirusscan\",\"value2\""), "node")) },
      { { NULL, NULL } },
      { NODE1 },
      { PRE },
      BAD_VALUE_REASON },
    { "PodAntiAffinity fails PreFilter with an invalid antiaffinity label "
      "syntax",
      { "p - service=securityscan",
        AFF(TERM(IN("service", "\"foo\""), "region") "," TERM(
            IN("service", "\"{{.bad-value.}}\""), "node")) },
      { { NULL, NULL } },
      { NODE1 },
      { PRE },
      BAD_VALUE_REASON },
    { "affinity with NamespaceSelector",
      { "p - security=S1",
        AFF(TERM_NSSEL(IN("service", SCAN_VALUE2), TEAM1, "region")) },
      { { "pod node1 service=securityscan ns:subteam1.team1", NULL } },
      { NODE1 },
      { OK },
      NULL },
    { "affinity with non-matching NamespaceSelector",
      { "p - security=S1",
        AFF(TERM_NSSEL(IN("service", SCAN_VALUE2), TEAM1, "region")) },
      { { "pod node1 service=securityscan ns:subteam1.team2", NULL } },
      { NODE1 },
      { AFF },
      NULL },
    { "anti-affinity with matching NamespaceSelector",
      { "p - security=S1 ns:subteam1.team1",
        ANTI(TERM_NSSEL(IN("service", SCAN_VALUE2), TEAM1, "zone")) },
      { { "pod node1 service=securityscan ns:subteam2.team1", NULL } },
      { NODE1 },
      { ANTI },
      NULL },
    { "anti-affinity with matching all NamespaceSelector",
      { "p - security=S1 ns:subteam1.team1",
        ANTI(TERM_NSSEL(IN("service", SCAN_VALUE2), "{}", "zone")) },
      { { "pod node1 service=securityscan ns:subteam2.team1", NULL } },
      { NODE1 },
      { ANTI },
      NULL },
    { "anti-affinity with non-matching NamespaceSelector",
      { "p - security=S1 ns:subteam1.team1",
        ANTI(TERM_NSSEL(IN("service", SCAN_VALUE2), TEAM1, "zone")) },
      { { "pod node1 service=securityscan ns:subteam1.team2", NULL } },
      { NODE1 },
      { OK },
      NULL },
};

#define RG_CHINA(n)     n " region=China"
#define RG_CHINA_AZ1(n) n " region=China az=az1"
#define RG_INDIA(n)     n " region=India"
#define R1Z1(n)         n " region=r1 zone=z1 hostname=" n
#define R1Z2(n)         n " region=r1 zone=z2 hostname=" n

/* TestRequiredAffinityMultipleNodes (filtering_test.go) */
static const struct ipa_case multiple_cases[] = {
    { "A pod can be scheduled onto all the nodes that have the same topology "
      "key & label value with one of them has an existing pod that matches "
      "the affinity rules",
      { "p -", AFF(TERM(IN("foo", "\"bar\""), "region")) },
      { { "p1 node1 foo=bar", NULL } },
      { RG_CHINA("node1"), RG_CHINA_AZ1("node2"), RG_INDIA("node3") },
      { OK, OK, AFF },
      NULL },
    { "The affinity rule is to schedule all of the pods of this collection "
      "to the same zone. The first pod of the collection should not be "
      "blocked from being scheduled onto any node, even there's no existing "
      "pod that matches the rule anywhere.",
      { "p - foo=bar service=securityscan",
        AFF(TERM(IN("foo", "\"bar\""),
                 "zone") "," TERM(IN("service", "\"securityscan\""), "zone")) },
      { { "p1 nodeA foo=bar", NULL } },
      { "nodeA zone=az1 hostname=h1", "nodeB zone=az2 hostname=h2" },
      { OK, OK },
      NULL },
    { "The first pod of the collection can only be scheduled on nodes "
      "labelled with the requested topology keys",
      { "p - foo=bar service=securityscan",
        AFF(TERM(IN("foo", "\"bar\""),
                 "zone") "," TERM(IN("service", "\"securityscan\""), "zone")) },
      { { "p1 nodeA foo=bar", NULL } },
      { "nodeA zoneLabel=az1 hostname=h1", "nodeB zoneLabel=az2 hostname=h2" },
      { AFF, AFF },
      NULL },
    { "NodeA and nodeB have same topologyKey and label value. NodeA has an "
      "existing pod that matches the inter pod affinity rule. The pod can "
      "not be scheduled onto nodeA and nodeB.",
      { "p -", ANTI(TERM(IN("foo", "\"abc\""), "region")) },
      { { "x nodeA foo=abc", NULL } },
      { "nodeA region=r1 hostname=nodeA", "nodeB region=r1 hostname=nodeB" },
      { ANTI, ANTI },
      NULL },
    { "This test ensures that anti-affinity matches a pod when any term of "
      "the anti-affinity rule matches a pod.",
      { "p -", ANTI(TERM(IN("foo", "\"abc\""), "region") "," TERM(
                   IN("service", "\"securityscan\""), "zone")) },
      { { "x nodeA foo=abc service=securityscan", NULL } },
      { "nodeA region=r1 zone=z1 hostname=nodeA",
        "nodeB region=r1 zone=z2 hostname=nodeB" },
      { ANTI, ANTI },
      NULL },
    { "NodeA and nodeB have same topologyKey and label value. NodeA has an "
      "existing pod that matches the inter pod affinity rule. The pod can "
      "not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
      { "p -", ANTI(TERM(IN("foo", "\"abc\""), "region")) },
      { { "x nodeA foo=abc", NULL } },
      { RG_CHINA("nodeA"), RG_CHINA_AZ1("nodeB"), RG_INDIA("nodeC") },
      { ANTI, ANTI, OK },
      NULL },
    { "NodeA and nodeB have same topologyKey and label value. NodeA has an "
      "existing pod that matches the inter pod affinity rule. The pod can "
      "not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC "
      "(NodeC has an existing pod that match the inter pod affinity rule but "
      "in different namespace)",
      { "p - foo=123 ns:NS1", ANTI(TERM(IN("foo", "\"bar\""), "region")) },
      { { "x nodeA foo=bar ns:NS1", NULL },
        { "y nodeC ns:NS2", ANTI(TERM(IN("foo", "\"123\""), "region")) } },
      { RG_CHINA("nodeA"), RG_CHINA_AZ1("nodeB"), RG_INDIA("nodeC") },
      { ANTI, ANTI, OK },
      NULL },
    { "Test existing pod's anti-affinity: if an existing pod has a term with "
      "invalid topologyKey, labelSelector of the term is firstly checked, "
      "and then topologyKey of the term is also checked",
      { "p - foo=", NULL },
      { { "x nodeA", ANTI(TERM(EXISTS("foo"), "invalid-node-label")) } },
      { R1Z1("nodeA"), "nodeB region=r1 zone=z1 hostname=nodeB" },
      { OK, OK },
      NULL },
    { "Test incoming pod's anti-affinity: even if labelSelector matches, we "
      "still check if topologyKey matches",
      { "p nodeA", ANTI(TERM(EXISTS("foo"), "invalid-node-label")) },
      { { "x nodeA foo=", NULL } },
      { R1Z1("nodeA"), "nodeB region=r1 zone=z1 hostname=nodeB" },
      { OK, OK },
      NULL },
    { "Test existing pod's anti-affinity: incoming pod wouldn't considered "
      "as a fit as it violates each existingPod's terms on all nodes",
      { "p - foo= bar=", NULL },
      { { "x nodeA", ANTI(TERM(EXISTS("foo"), "zone")) },
        { "y nodeA", ANTI(TERM(EXISTS("bar"), "region")) } },
      { R1Z1("nodeA"), R1Z2("nodeB") },
      { EXIST, EXIST },
      NULL },
    { "Test incoming pod's anti-affinity: incoming pod wouldn't considered "
      "as a fit as it at least violates one anti-affinity rule of "
      "existingPod",
      { "p -",
        ANTI(TERM(EXISTS("foo"), "zone") "," TERM(EXISTS("bar"), "region")) },
      { { "x nodeA foo=", NULL }, { "y nodeB bar=", NULL } },
      { R1Z1("nodeA"), R1Z2("nodeB") },
      { ANTI, ANTI },
      NULL },
    { "Test existing pod's anti-affinity: only when labelSelector and "
      "topologyKey both match, it's counted as a single term match - case "
      "when one term has invalid topologyKey",
      { "p - foo= bar=", NULL },
      { { "x nodeA", ANTI(TERM(EXISTS("foo"), "invalid-node-label") "," TERM(
                         EXISTS("bar"), "zone")) } },
      { R1Z1("nodeA"), R1Z2("nodeB") },
      { EXIST, OK },
      NULL },
    { "Test incoming pod's anti-affinity: only when labelSelector and "
      "topologyKey both match, it's counted as a single term match - case "
      "when one term has invalid topologyKey",
      { "p -", ANTI(TERM(EXISTS("foo"), "invalid-node-label") "," TERM(
                   EXISTS("bar"), "zone")) },
      { { "podA nodeA foo= bar=", NULL } },
      { R1Z1("nodeA"), R1Z2("nodeB") },
      { ANTI, OK },
      NULL },
    { "Test existing pod's anti-affinity: only when labelSelector and "
      "topologyKey both match, it's counted as a single term match - case "
      "when all terms have valid topologyKey",
      { "p - foo= bar=", NULL },
      { { "x nodeA", ANTI(TERM(EXISTS("foo"), "region") "," TERM(EXISTS("bar"),
                                                                 "zone")) } },
      { R1Z1("nodeA"), R1Z2("nodeB") },
      { EXIST, EXIST },
      NULL },
    { "Test incoming pod's anti-affinity: only when labelSelector and "
      "topologyKey both match, it's counted as a single term match - case "
      "when all terms have valid topologyKey",
      { "p -",
        ANTI(TERM(EXISTS("foo"), "region") "," TERM(EXISTS("bar"), "zone")) },
      { { "x nodeA foo= bar=", NULL } },
      { R1Z1("nodeA"), R1Z2("nodeB") },
      { ANTI, ANTI },
      NULL },
    { "Test existing pod's anti-affinity: existingPod on nodeA and nodeB has "
      "at least one anti-affinity term matches incoming pod, so incoming pod "
      "can only be scheduled to nodeC",
      { "p - foo= bar=", NULL },
      { { "x nodeA", ANTI(TERM(EXISTS("foo"), "zone") "," TERM(EXISTS("labelA"),
                                                               "zone")) },
        { "y nodeB", ANTI(TERM(EXISTS("bar"), "zone") "," TERM(EXISTS("labelB"),
                                                               "zone")) } },
      { R1Z1("nodeA"), R1Z2("nodeB"),
        "nodeC region=r1 zone=z3 hostname=nodeC" },
      { EXIST, EXIST, OK },
      NULL },
    { "Test incoming pod's affinity: firstly check if all affinityTerms "
      "match, and then check if all topologyKeys match",
      { "p -",
        AFF(TERM(EXISTS("foo"), "region") "," TERM(EXISTS("bar"), "zone")) },
      { { "pod1 nodeA foo= bar=", NULL } },
      { R1Z1("nodeA"), "nodeB region=r1 zone=z1 hostname=nodeB" },
      { OK, OK },
      NULL },
    { "Test incoming pod's affinity: firstly check if all affinityTerms "
      "match, and then check if all topologyKeys match, and the match logic "
      "should be satisfied on the same pod",
      { "p -",
        AFF(TERM(EXISTS("foo"), "region") "," TERM(EXISTS("bar"), "zone")) },
      { { "pod1 nodeA foo=", NULL }, { "pod2 nodeB bar=", NULL } },
      { R1Z1("nodeA"), R1Z2("nodeB") },
      { AFF, AFF },
      NULL },
};

/* The Namespaces upstream's tests register (scoring_test.go). */
static const char namespaces_doc[] =
    "{\"kind\":\"List\",\"items\":["
    "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"subteam1.team1\","
    "\"labels\":{\"team\":\"team1\"}}},"
    "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"subteam2.team1\","
    "\"labels\":{\"team\":\"team1\"}}},"
    "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"subteam1.team2\","
    "\"labels\":{\"team\":\"team2\"}}},"
    "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"subteam2.team2\","
    "\"labels\":{\"team\":\"team2\"}}},"
    "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"NS1\"}}]}";

/* Nodes, namespaces, then pods, into fc (built). */
static void build(struct fx_cluster *fc, const char *const *nodes,
                  const struct pod_def *pods, size_t n_pods)
{
    size_t i;

    fx_cluster_add(fc, namespaces_doc);
    tf_add(fc, nodes, NULL);
    for (i = 0; i < n_pods && pods[i].spec; i++)
        fx_cluster_add_pod(fc, tf_pod(fc->a, pods[i].spec, pods[i].json));
    fx_cluster_build(fc);
}

static const char *want_reasons(enum want w)
{
    switch (w) {
    case AFF:
        return PRED_REASON_AFFINITY_NOT_MATCH "|" PRED_REASON_AFFINITY_RULES;
    case ANTI:
        return PRED_REASON_AFFINITY_NOT_MATCH
            "|" PRED_REASON_ANTI_AFFINITY_RULES;
    case EXIST:
        return PRED_REASON_AFFINITY_NOT_MATCH
            "|" PRED_REASON_EXISTING_ANTI_AFFINITY;
    default:
        return "";
    }
}

static enum pred_code want_code(enum want w)
{
    switch (w) {
    case AFF:
    case PRE:
        return PRED_UNFIT_UNRESOLVABLE;
    case ANTI:
    case EXIST:
        return PRED_UNFIT;
    default:
        return PRED_FIT;
    }
}

static void check_case(const char *table, const struct ipa_case *tc)
{
    struct arena a;
    struct fx_cluster fc;
    struct kube_pod *pod;
    size_t i;

    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    build(&fc, tc->nodes, tc->pods, MAX_PODS);
    pod = tf_pod(&a, tc->pod.spec, tc->pod.json);
    for (i = 0; i < fc.c.n_nodes; i++) {
        const char *node = fc.c.nodes[i].node->name;
        const char *want =
            tc->want[i] == PRE ? tc->want_pre : want_reasons(tc->want[i]);
        struct pred_result r;
        enum pred_code got =
            fx_run_filter(PLUGIN, NULL, NULL, pod, &fc.c, node, &a, &r);

        if (got != want_code(tc->want[i]))
            fail_msg("%s \"%s\" [%s]: code %d, want %d (%s)", table, tc->name,
                     node, got, want_code(tc->want[i]), fx_reasons(&a, &r));
        if (strcmp(fx_reasons(&a, &r), want))
            fail_msg("%s \"%s\" [%s]: reasons \"%s\", want \"%s\"", table,
                     tc->name, node, fx_reasons(&a, &r), want);
    }
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

#define RUN_TABLE(t)                                                           \
    do {                                                                       \
        for (size_t i_ = 0; i_ < sizeof(t) / sizeof(t[0]); i_++)               \
            check_case(#t, &t[i_]);                                            \
    } while (0)

static void filter_should_match_single_node_table(void **state)
{
    (void)state;
    RUN_TABLE(single_cases);
}

static void filter_should_match_multiple_nodes_table(void **state)
{
    (void)state;
    RUN_TABLE(multiple_cases);
}

#define UNCHECKED SIZE_MAX
#define E_        PRED_IPA_EXISTING_ANTI
#define A_        PRED_IPA_AFFINITY
#define N_        PRED_IPA_ANTI_AFFINITY

struct count_want {
    enum pred_ipa_counts which;
    const char *key; /* NULL ends the list */
    const char *value;
    int64_t count;
};

struct state_case {
    const char *name;
    struct pod_def pod;
    struct pod_def pods[MAX_PODS];
    const char *nodes[MAX_NODES];
    size_t pairs[3]; /* per map (E, A, N); UNCHECKED to skip */
    struct count_want counts[6];
};

#define HOST_A "nodeA hostname=nodeA"

/*
 * TestGetTPMapMatchingIncomingAffinityAntiAffinity (filtering_test.go):
 * the affinity (A) and anti-affinity (N) maps PreFilter computes.
 */
static const struct state_case incoming_counts_cases[] = {
    { "nil test",
      { "aaa-normal -", NULL },
      { { NULL, NULL } },
      { HOST_A },
      { 0, 0, 0 },
      { { A_, NULL, NULL, 0 } } },
    { "incoming pod without affinity/anti-affinity causes a no-op",
      { "aaa-normal -", NULL },
      { { "normal nodeA aaa=", NULL } },
      { HOST_A },
      { 0, 0, 0 },
      { { A_, NULL, NULL, 0 } } },
    { "no pod has label that violates incoming pod's affinity and "
      "anti-affinity",
      { "aaa-anti -", AFF_ANTI(TERM(EXISTS("aaa"), "hostname"),
                               TERM(EXISTS("aaa"), "hostname")) },
      { { "normal nodeA bbb=", NULL } },
      { HOST_A },
      { 0, 0, 0 },
      { { A_, NULL, NULL, 0 } } },
    { "existing pod matches incoming pod's affinity and anti-affinity - "
      "single term case",
      { "affi-antiaffi -", AFF_ANTI(TERM(EXISTS("aaa"), "hostname"),
                                    TERM(EXISTS("aaa"), "hostname")) },
      { { "normal nodeA aaa=", NULL } },
      { HOST_A },
      { 0, 1, 1 },
      { { A_, "hostname", "nodeA", 1 }, { N_, "hostname", "nodeA", 1 } } },
    { "existing pod matches incoming pod's affinity and anti-affinity - "
      "multiple terms case",
      { "affi-antiaffi -", AFF_ANTI(TERM(EXISTS("aaa"), "hostname") "," TERM(
                                        EXISTS("bbb"), "hostname"),
                                    TERM(EXISTS("aaa"), "hostname")) },
      { { "normal nodeA aaa= bbb=", NULL } },
      { HOST_A },
      { 0, 1, 1 },
      { { A_, "hostname", "nodeA", 2 }, { N_, "hostname", "nodeA", 1 } } },
    { "existing pod not match incoming pod's affinity but matches "
      "anti-affinity",
      { "affi-antiaffi -", AFF_ANTI(TERM(EXISTS("aaa"), "hostname") "," TERM(
                                        EXISTS("bbb"), "hostname"),
                                    TERM(EXISTS("aaa"), "hostname") "," TERM(
                                        EXISTS("bbb"), "hostname")) },
      { { "normal nodeA aaa=", NULL } },
      { HOST_A },
      { 0, 0, 1 },
      { { N_, "hostname", "nodeA", 1 } } },
    { "incoming pod's anti-affinity has more than one term - existing pod "
      "violates partial term - case 1",
      { "anaffi-antiaffiti -",
        AFF_ANTI(
            TERM(EXISTS("aaa"), "hostname") "," TERM(EXISTS("ccc"), "hostname"),
            TERM(EXISTS("aaa"), "hostname") "," TERM(EXISTS("ccc"),
                                                     "hostname")) },
      { { "normal nodeA aaa= bbb=", NULL } },
      { HOST_A },
      { 0, 0, 1 },
      { { N_, "hostname", "nodeA", 1 } } },
    { "incoming pod's anti-affinity has more than one term - existing pod "
      "violates partial term - case 2",
      { "affi-antiaffi -", AFF_ANTI(TERM(EXISTS("aaa"), "hostname") "," TERM(
                                        EXISTS("bbb"), "hostname"),
                                    TERM(EXISTS("aaa"), "hostname") "," TERM(
                                        EXISTS("bbb"), "hostname")) },
      { { "normal nodeA bbb=", NULL } },
      { HOST_A },
      { 0, 0, 1 },
      { { N_, "hostname", "nodeA", 1 } } },
};

#define FOO_BAR_REGION TERM(IN("foo", "\"bar\""), "region")
#define COMPLEX                                                                \
    TERM(IN("foo", "\"bar\",\"buzz\""), "region")                              \
    "," TERM(NOTIN("service", "\"bar\",\"security\",\"test\""), "zone")
#define L1(n) n " region=r1 zone=z11"
#define L2(n) n " region=r1 zone=z12"
#define L3(n) n " region=r2 zone=z21"

/*
 * TestPreFilterStateAddRemovePod (filtering_test.go): upstream checks
 * that AddPod yields the state PreFilter computes with the added pod in
 * the cluster; each row is that cluster (existing pods, then the added
 * pod) and upstream's expected anti-affinity and affinity maps.
 */
static const struct state_case add_remove_cases[] = {
    { "preFilterState anti-affinity terms are updated correctly after "
      "adding and removing a pod",
      { "pending - foo=bar", ANTI(FOO_BAR_REGION) },
      { { "p1 nodeA foo=bar", NULL },
        { "p2 nodeC", ANTI(FOO_BAR_REGION) },
        { "addedPod nodeB foo=bar", ANTI(FOO_BAR_REGION) } },
      { L1("nodeA"), L2("nodeB"), L3("nodeC") },
      { UNCHECKED, 0, 1 },
      { { N_, "region", "r1", 2 } } },
    { "preFilterState anti-affinity terms are updated correctly after "
      "adding and removing a pod (complex)",
      { "pending - foo=bar", ANTI(COMPLEX) },
      { { "p1 nodeA foo=bar", NULL },
        { "p2 nodeC", ANTI(FOO_BAR_REGION) },
        { "addedPod nodeA foo=bar", ANTI(COMPLEX) } },
      { L1("nodeA"), L2("nodeB"), L3("nodeC") },
      { UNCHECKED, 0, 3 },
      { { N_, "region", "r1", 2 },
        { N_, "zone", "z11", 2 },
        { N_, "zone", "z21", 1 } } },
    { "preFilterState matching pod affinity and anti-affinity are updated "
      "correctly after adding and removing a pod",
      { "pending - foo=bar", AFF(COMPLEX) },
      { { "p1 nodeA foo=bar", NULL },
        { "p2 nodeC",
          "\"affinity\":{\"podAffinity\":" REQ(
              COMPLEX) ",\"podAntiAffinity\":" REQ(FOO_BAR_REGION) "}" },
        { "addedPod nodeA foo=bar", ANTI(COMPLEX) } },
      { L1("nodeA"), L2("nodeB"), L3("nodeC") },
      { UNCHECKED, 2, 0 },
      { { A_, "region", "r1", 2 }, { A_, "zone", "z11", 2 } } },
};

/* Ours: the existing-pods map (E) and how v1.22 scopes its terms. */
static const struct state_case existing_cases[] = {
    /* namespaceSelector of an existing term: the incoming pod's namespace
     * labels; a term list with an invalid selector is dropped entirely */
    { "existing anti-affinity scoped by the incoming namespace's labels",
      { "p - app=web ns:subteam1.team1", NULL },
      { { "x nodeA ns:other",
          ANTI(TERM_NSSEL(IN("app", "\"web\""), TEAM1, "hostname")) },
        { "y nodeB ns:other",
          ANTI(TERM_NSSEL(IN("app", "\"web\""), IN("team", "\"team2\""),
                          "hostname")) },
        { "z nodeB ns:other",
          ANTI(TERM_NSSEL(IN("app", "\"web\""), "{}", "hostname") "," TERM(
              IN("app", "\"{{bad}}\""), "hostname")) } },
      { HOST_A, "nodeB hostname=nodeB" },
      { 1, 0, 0 },
      { { E_, "hostname", "nodeA", 1 } } },
    /* no namespaces, no namespaceSelector: the owner's namespace only */
    { "existing anti-affinity defaults to its owner's namespace",
      { "p - app=web ns:ns1", NULL },
      { { "x nodeA ns:ns1", ANTI(TERM(EXISTS("app"), "hostname")) },
        { "y nodeA ns:ns2", ANTI(TERM(EXISTS("app"), "hostname")) },
        { "z nodeA ns:ns3",
          ANTI(TERM_NS(EXISTS("app"), "\"ns1\"", "hostname")) } },
      { HOST_A },
      { 1, 0, 0 },
      { { E_, "hostname", "nodeA", 2 } } },
};

static const char *const map_names[] = { "E", "A", "N" };

/* The PreFilter state of tc's pod on c, checked against tc's wants. */
static void check_state_on(const char *table, const char *how,
                           const struct state_case *tc, const struct cluster *c,
                           struct arena *a)
{
    struct pred_cycle cy;
    struct pred_result r;
    void *st;
    size_t i;
    enum pred_code code;

    code = tf_prefilter(PLUGIN, tf_pod(a, tc->pod.spec, tc->pod.json), c, a,
                        &cy, &st, &r);
    if (code != PRED_FIT || !st)
        fail_msg("%s \"%s\" (%s): prefilter code %d (%s)", table, tc->name, how,
                 code, fx_reasons(a, &r));
    for (i = 0; i < 3; i++)
        if (tc->pairs[i] != UNCHECKED &&
            pred_ipa_state_pairs(st, (enum pred_ipa_counts)i) != tc->pairs[i])
            fail_msg("%s \"%s\" (%s): map %s has %zu pairs, want %zu", table,
                     tc->name, how, map_names[i],
                     pred_ipa_state_pairs(st, (enum pred_ipa_counts)i),
                     tc->pairs[i]);
    for (i = 0; i < 6 && tc->counts[i].key; i++) {
        const struct count_want *w = &tc->counts[i];
        int64_t got = pred_ipa_state_count(st, w->which, w->key, w->value);

        if (got != w->count)
            fail_msg("%s \"%s\" (%s): %s[%s=%s] = %lld, want %lld", table,
                     tc->name, how, map_names[w->which], w->key, w->value,
                     (long long)got, (long long)w->count);
    }
}

/*
 * Each row twice: on the cluster, where the existing pods' anti-affinity
 * (E) comes from the nodes' interned term entries, and on a view whose
 * every node drops its pods and adds them back; added pods bring no
 * entries, so there E comes from reading the pods. Both must agree with
 * the row.
 */
static void check_state(const char *table, const struct state_case *tc)
{
    struct arena a;
    struct fx_cluster fc;
    struct cluster view;
    size_t i;

    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    build(&fc, tc->nodes, tc->pods, MAX_PODS);
    check_state_on(table, "term entries", tc, &fc.c, &a);
    assert_int_equal(cluster_view_begin(&a, &fc.c, &view), 0);
    for (i = 0; i < fc.c.n_nodes; i++) {
        const struct node_info *ni = &fc.c.nodes[i];
        struct cluster_view_change ch = { 0 };

        ch.drop = ni->pods;
        ch.n_drop = ni->n_pods;
        ch.add = ni->pods;
        ch.n_add = ni->n_pods;
        assert_int_equal(cluster_view_set_node(&a, &fc.c, &view, i, &ch), 0);
        if (ni->n_pods && !view.nodes[i].entries_partial)
            fail_msg("%s \"%s\": a view node with pods added must read its "
                     "pods",
                     table, tc->name);
    }
    check_state_on(table, "pods of a view", tc, &view, &a);
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

#define RUN_STATE_TABLE(t)                                                     \
    do {                                                                       \
        for (size_t i_ = 0; i_ < sizeof(t) / sizeof(t[0]); i_++)               \
            check_state(#t, &t[i_]);                                           \
    } while (0)

static void prefilter_should_count_incoming_matches(void **state)
{
    (void)state;
    RUN_STATE_TABLE(incoming_counts_cases);
}

static void prefilter_should_match_state_after_adding_a_pod(void **state)
{
    (void)state;
    RUN_STATE_TABLE(add_remove_cases);
}

static void prefilter_should_count_existing_anti_affinity(void **state)
{
    (void)state;
    RUN_STATE_TABLE(existing_cases);
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
    cy.pod = tf_pod(&a, "p -", NULL);
    cy.cluster = &fc.c;
    cy.arena = &a;
    pred_result_init(&r, &a);
    assert_non_null(impl);
    assert_int_equal(impl->filter(&cy, NULL, NULL, &fc.c.nodes[0], &r),
                     PRED_ERROR);
    assert_string_equal(fx_reasons(&a, &r),
                        "error reading \"PreFilterInterPodAffinity\" from "
                        "cycleState: not found");
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

/* Ours: PodInfo.ParseError aggregates one error per term list. */
static void prefilter_should_aggregate_parse_errors(void **state)
{
    struct arena a;
    struct fx_cluster fc;
    struct pred_cycle cy;
    struct pred_result r;
    struct kube_pod *pod;
    void *st;
    char want[1024];

    (void)state;
    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    fx_cluster_add_node(&fc, tf_node(&a, "n1 zone=z"));
    fx_cluster_build(&fc);
    pod = tf_pod(
        &a, "p -",
        "\"affinity\":{\"podAntiAffinity\":" REQ(TERM_NSSEL(
            EXISTS("a"), SEL(EXPR("team", "In", "")),
            "zone")) ",\"podAffinity\":{"
                     "\"preferredDuringSchedulingIgnoredDuringExecution\":[{"
                     "\"weight\":1,\"podAffinityTerm\":" TERM(
                         IN("b", "\"{{x}}\""), "zone") "}]}}");
    snprintf(
        want, sizeof(want),
        "parsing pod: [requiredAntiAffinityTerms: %s, "
        "preferredAffinityTerms: %s]",
        pod->affinity.pod_anti_affinity.required[0].namespace_selector->invalid,
        pod->affinity.pod_affinity.preferred[0].term.selector->invalid);
    assert_int_equal(tf_prefilter(PLUGIN, pod, &fc.c, &a, &cy, &st, &r),
                     PRED_UNFIT_UNRESOLVABLE);
    assert_string_equal(fx_reasons(&a, &r), want);
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(filter_should_match_single_node_table),
        cmocka_unit_test(filter_should_match_multiple_nodes_table),
        cmocka_unit_test(prefilter_should_count_incoming_matches),
        cmocka_unit_test(prefilter_should_match_state_after_adding_a_pod),
        cmocka_unit_test(prefilter_should_count_existing_anti_affinity),
        cmocka_unit_test(filter_should_fail_without_prefilter_state),
        cmocka_unit_test(prefilter_should_aggregate_parse_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
