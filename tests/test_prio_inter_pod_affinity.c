/*
 * test_prio_inter_pod_affinity.c: InterPodAffinity scoring
 * (InterPodAffinityPriority), ported from v1.22
 * plugins/interpodaffinity/scoring_test.go. Upstream's objects mostly
 * have no namespace (""); they keep it here.
 *
 * Later upstream versions return Skip from PreScore where v1.22 scored
 * every node 0 (no topology score at all); those rows expect 0s here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>

#include "priorities/plugins.h"
#include "priorities/priorities.h"
#include "tests/support/prio_topo_fixtures.h"

#define S1J "{\"security\":\"S1\"}"
#define S2J "{\"security\":\"S2\"}"
#define EXPR(key, op, vals)                                                    \
    "{\"key\":\"" key "\",\"operator\":\"" op "\",\"values\":[" vals "]}"
#define EXISTS(key, op) "{\"key\":\"" key "\",\"operator\":\"" op "\"}"
#define SEL(x)          "{\"matchExpressions\":[" x "]}"
#define TERM(sel, key)  "{\"labelSelector\":" sel ",\"topologyKey\":\"" key "\"}"
#define WTERM(w, term)  "{\"weight\":" #w ",\"podAffinityTerm\":" term "}"
#define PREF(x)         "{\"preferredDuringSchedulingIgnoredDuringExecution\":[" x "]}"
#define REQ(x)          "{\"requiredDuringSchedulingIgnoredDuringExecution\":[" x "]}"
#define AFF(x)          "{\"podAffinity\":" x "}"
#define ANTI(x)         "{\"podAntiAffinity\":" x "}"
#define TEAM1           SEL(EXPR("team", "In", "\"team1\""))

#define STAY_S1_REGION                                                         \
    AFF(PREF(WTERM(5, TERM(SEL(EXPR("security", "In", "\"S1\"")), "region"))))
#define STAY_S2_REGION                                                         \
    AFF(PREF(WTERM(6, TERM(SEL(EXPR("security", "In", "\"S2\"")), "region"))))
#define AFFINITY3                                                              \
    AFF(PREF(WTERM(                                                            \
        8, TERM(SEL(EXPR("security", "NotIn",                                  \
                         "\"S1\"") "," EXPR("security", "In", "\"S2\"")),      \
                "region")) "," WTERM(2,                                        \
                                     TERM(SEL(EXISTS(                          \
                                              "security",                      \
                                              "Exists") "," EXISTS("wrongkey", \
                                                                   "DoesNotEx" \
                                                                   "ist")),    \
                                          "region"))))
#define HARD_AFFINITY                                                          \
    AFF(REQ(TERM(                                                              \
        SEL(EXPR("security", "In", "\"S1\",\"value2\"")),                      \
        "region") "," TERM(SEL(EXISTS("security",                              \
                                      "Exists") "," EXISTS("wrongkey",         \
                                                           "DoesNotExist")),   \
                           "region")))
#define AWAY_S1_AZ                                                             \
    ANTI(PREF(WTERM(5, TERM(SEL(EXPR("security", "In", "\"S1\"")), "az"))))
#define AWAY_S2_AZ                                                             \
    ANTI(PREF(WTERM(5, TERM(SEL(EXPR("security", "In", "\"S2\"")), "az"))))
#define STAY_S1_AWAY_S2                                                        \
    "{\"podAffinity\":" PREF(WTERM(                                            \
        8,                                                                     \
        TERM(                                                                  \
            SEL(EXPR("security", "In", "\"S1\"")),                             \
            "region"))) ",\"podAntiAffinity\":" PREF(WTERM(5,                  \
                                                           TERM(               \
                                                               SEL(EXPR(       \
                                                                   "security", \
                                                                   "In",       \
                                                                   "\"S2\"")), \
                                                               "az"))) "}"
#define NS_TERM                                                                \
    "{\"labelSelector\":" SEL(EXPR(                                            \
        "security", "In", "\"S1\"")) ","                                       \
                                     "\"topologyKey\":\"region\","             \
                                     "\"namespaces\":[\"subteam2.team2\"],"    \
                                     "\"namespaceSelector\":" TEAM1 "}"
#define AFF_NS_SELECTOR  AFF(PREF(WTERM(5, NS_TERM)))
#define ANTI_NS_SELECTOR ANTI(PREF(WTERM(5, NS_TERM)))
#define BAD_SEL          SEL(EXPR("security", "In", "\"{{.bad-value.}}\""))
#define INVALID_AFF      AFF(PREF(WTERM(8, TERM(BAD_SEL, "region"))))
#define INVALID_ANTI     ANTI(PREF(WTERM(5, TERM(BAD_SEL, "az"))))

/* The incoming pod and an existing pod with affinity. */
#define IPOD(ns, labels, aff)                                                  \
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"" ns                        \
    "\",\"labels\":" labels "},\"spec\":{\"affinity\":" aff "}}"
#define XPOD(name, node, labels, aff)                                          \
    "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"" name "\",\"namespace\":"     \
    "\"\",\"labels\":" labels "},\"spec\":{\"nodeName\":\"" node "\","         \
    "\"affinity\":" aff "}}"
#define NSOBJ(name, team)                                                      \
    "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" name "\",\"labels\":"  \
    "{\"team\":\"" team "\"}}}"
#define NAMESPACES                                                             \
    NSOBJ("subteam1.team1", "team1"), NSOBJ("subteam2.team1", "team1"),        \
        NSOBJ("subteam1.team2", "team2"), NSOBJ("subteam2.team2", "team2")

#define CHINA       "region=China"
#define INDIA       "region=India"
#define AZ1         "az=az1"
#define AZ2         "az=az2"
#define N3(a, b, c) "node1:" a ";node2:" b ";node3:" c

/* TestPreferredAffinity (scoring_test.go). */
static const struct ptf_case cases[] = {
    { "all nodes are same priority as Affinity is nil",
      IPOD("", S1J, "{}"),
      N3(CHINA, INDIA, AZ1),
      NULL,
      NULL,
      { NAMESPACES, NULL },
      { 0, 0, 0 } },
    { "Affinity: pod that matches topology key & pods in nodes will get high "
      "score comparing to others which doesn't match either pods in nodes or "
      "in topology key",
      IPOD("", S1J, STAY_S1_REGION),
      N3(CHINA, INDIA, AZ1),
      NULL,
      "/a@node1:security=S1;/b@node2:security=S2;/c@node3:security=S1",
      { NAMESPACES, NULL },
      { 100, 0, 0 } },
    { "All the nodes that have the same topology key & label value with one "
      "of them has an existing pod that match the affinity rules, have the "
      "same score",
      IPOD("", "{}", STAY_S1_REGION),
      N3(CHINA, CHINA "," AZ1, INDIA),
      NULL,
      "/a@node1:security=S1",
      { NAMESPACES, NULL },
      { 100, 100, 0 } },
    { "Affinity: nodes in one region has more matching pods comparing to "
      "other region, so the region which has more matches will get high "
      "score",
      IPOD("", S1J, STAY_S2_REGION),
      "node1:" CHINA ";node2:" INDIA ";node3:" CHINA ";node4:" CHINA
      ";node5:" INDIA,
      NULL,
      "/a@node1:security=S2;/b@node1:security=S2;/c@node2:security=S2;"
      "/d@node3:security=S2;/e@node4:security=S2;/f@node5:security=S2",
      { NAMESPACES, NULL },
      { 100, 0, 100, 100, 0 } },
    { "Affinity: different Label operators and values for pod affinity "
      "scheduling preference, including some match failures",
      IPOD("", S1J, AFFINITY3),
      N3(CHINA, INDIA, AZ1),
      NULL,
      "/a@node1:security=S1;/b@node2:security=S2;/c@node3:security=S1",
      { NAMESPACES, NULL },
      { 20, 100, 0 } },
    { "Affinity symmetry: considered only the "
      "preferredDuringSchedulingIgnoredDuringExecution in pod affinity "
      "symmetry",
      IPOD("", S2J, "{}"),
      N3(CHINA, INDIA, AZ1),
      NULL,
      NULL,
      { NAMESPACES, XPOD("a", "node1", S1J, STAY_S1_REGION),
        XPOD("b", "node2", S2J, STAY_S2_REGION), NULL },
      { 0, 100, 0 } },
    { "Affinity symmetry with namespace selector",
      IPOD("subteam1.team1", S1J, "{}"),
      N3(CHINA, INDIA, AZ1),
      NULL,
      NULL,
      { NAMESPACES, XPOD("a", "node1", S1J, AFF_NS_SELECTOR),
        XPOD("b", "node2", S2J, STAY_S2_REGION), NULL },
      { 100, 0, 0 } },
    { "AntiAffinity symmetry with namespace selector",
      IPOD("subteam1.team1", S1J, "{}"),
      N3(CHINA, INDIA, AZ1),
      NULL,
      NULL,
      { NAMESPACES, XPOD("a", "node1", S1J, ANTI_NS_SELECTOR),
        XPOD("b", "node2", S2J, STAY_S2_REGION), NULL },
      { 0, 100, 100 } },
    { "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuring"
      "Execution in pod affinity symmetry",
      IPOD("", S1J, "{}"),
      N3(CHINA, INDIA, AZ1),
      NULL,
      NULL,
      { NAMESPACES, XPOD("a", "node1", S1J, HARD_AFFINITY),
        XPOD("b", "node2", S2J, HARD_AFFINITY), NULL },
      { 100, 100, 0 } },
    { "Anti Affinity: pod that does not match existing pods in node will get "
      "high score",
      IPOD("", S1J, AWAY_S1_AZ),
      "node1:" AZ1 ";node2:" CHINA,
      NULL,
      "/a@node1:security=S1;/b@node2:security=S2",
      { NAMESPACES, NULL },
      { 0, 100 } },
    { "Anti Affinity: pod that does not match topology key & match the pods "
      "in nodes will get higher score comparing to others",
      IPOD("", S1J, AWAY_S1_AZ),
      "node1:" AZ1 ";node2:" CHINA,
      NULL,
      "/a@node1:security=S1;/b@node2:security=S1",
      { NAMESPACES, NULL },
      { 0, 100 } },
    { "Anti Affinity: one node has more matching pods comparing to other "
      "node, so the node which has more unmatches will get high score",
      IPOD("", S1J, AWAY_S1_AZ),
      "node1:" AZ1 ";node2:" INDIA,
      NULL,
      "/a@node1:security=S1;/b@node1:security=S1;/c@node2:security=S2",
      { NAMESPACES, NULL },
      { 0, 100 } },
    { "Anti Affinity symmetry: the existing pods in node which has anti "
      "affinity match will get high score",
      IPOD("", S2J, "{}"),
      "node1:" AZ1 ";node2:" AZ2,
      NULL,
      NULL,
      { NAMESPACES, XPOD("a", "node1", S1J, AWAY_S2_AZ),
        XPOD("b", "node2", S2J, AWAY_S1_AZ), NULL },
      { 0, 100 } },
    { "Affinity and Anti Affinity: considered only preferredDuringScheduling"
      "IgnoredDuringExecution in both pod affinity & anti affinity",
      IPOD("", S1J, STAY_S1_AWAY_S2),
      "node1:" CHINA ";node2:" AZ1,
      NULL,
      "/a@node1:security=S1;/b@node2:security=S1",
      { NAMESPACES, NULL },
      { 100, 0 } },
    { "Affinity and Anti Affinity: considering both affinity and "
      "anti-affinity, the pod to schedule and existing pods have the same "
      "labels",
      IPOD("", S1J, STAY_S1_AWAY_S2),
      "node1:" CHINA "," AZ1 ";node2:" INDIA ";node3:" CHINA ";node4:" CHINA
      ";node5:" INDIA,
      NULL,
      "/a@node1:security=S1;/b@node1:security=S1;/c@node2:security=S1;"
      "/d@node3:security=S1;/e@node3:security=S1;/f@node4:security=S1;"
      "/g@node5:security=S1",
      { NAMESPACES, NULL },
      { 100, 0, 100, 100, 0 } },
    { "Affinity and Anti Affinity and symmetry: considered only preferred"
      "DuringSchedulingIgnoredDuringExecution in both pod affinity & anti "
      "affinity & symmetry",
      IPOD("", S1J, STAY_S1_AWAY_S2),
      "node1:" CHINA ";node2:" AZ1 ";node3:" INDIA ";node4:" AZ2,
      NULL,
      "/a@node1:security=S1;/b@node2:security=S2",
      { NAMESPACES, XPOD("c", "node3", "{}", STAY_S1_AWAY_S2),
        XPOD("d", "node4", "{}", AWAY_S1_AZ), NULL },
      { 100, 0, 100, 0 } },
    { "Avoid panic when partial nodes in a topology don't have pods with "
      "affinity",
      IPOD("", S1J, "{}"),
      "node1:" CHINA ";node2:" CHINA,
      NULL,
      "/a@node1:security=S1",
      { NAMESPACES, XPOD("b", "node2", "{}", STAY_S1_AWAY_S2), NULL },
      { 0, 0 } },
    { "Affinity with pods matching NamespaceSelector",
      IPOD("subteam1.team1", S1J, AFF_NS_SELECTOR),
      "node1:" CHINA ";node2:" INDIA,
      NULL,
      "subteam1.team1/a@node1:security=S1;subteam1.team1/b@node1:security=S1;"
      "subteam1.team2/c@node1:security=S1;subteam2.team1/d@node2:security=S1",
      { NAMESPACES, NULL },
      { 100, 0 } },
    { "Affinity with pods matching both NamespaceSelector and Namespaces "
      "fields",
      IPOD("subteam1.team1", S1J, AFF_NS_SELECTOR),
      "node1:" CHINA ";node2:" INDIA,
      NULL,
      "subteam1.team1/a@node1:security=S1;subteam1.team1/b@node1:security=S1;"
      "subteam2.team2/c@node1:security=S1;subteam2.team1/d@node2:security=S1",
      { NAMESPACES, NULL },
      { 100, 0 } },
    { "Anti affinity with pods matching NamespaceSelector",
      IPOD("subteam1.team1", S1J, ANTI_NS_SELECTOR),
      "node1:" CHINA ";node2:" INDIA,
      NULL,
      "subteam1.team1/a@node1:security=S1;subteam1.team1/b@node1:security=S1;"
      "subteam1.team2/c@node1:security=S1;subteam2.team1/d@node2:security=S1",
      { NAMESPACES, NULL },
      { 0, 100 } },
    { "Anti affinity with pods matching both NamespaceSelector and "
      "Namespaces fields",
      IPOD("subteam1.team1", S1J, ANTI_NS_SELECTOR),
      "node1:" CHINA ";node2:" INDIA,
      NULL,
      "subteam1.team1/a@node1:security=S1;subteam1.team1/b@node1:security=S1;"
      "subteam2.team2/c@node1:security=S1;subteam2.team1/d@node2:security=S1",
      { NAMESPACES, NULL },
      { 0, 100 } },
    { "Do not ignore preferred terms of existing pods",
      IPOD("", S2J, "{}"),
      "node1:" CHINA ";node2:" INDIA,
      NULL,
      NULL,
      { NAMESPACES, XPOD("a", "node1", S1J, STAY_S1_AWAY_S2),
        XPOD("b", "node2", S2J, STAY_S2_REGION), NULL },
      { 0, 100 } },
    { "No nodes to score",
      IPOD("", S2J, "{}"),
      "",
      NULL,
      NULL,
      { NAMESPACES, NULL },
      { 0 } },
};

static void inter_pod_affinity_should_match_upstream_table(void **state)
{
    static const struct prio_inter_pod_arg one = { 1 };
    const struct prio_args args = { .value = &one };
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        bad += ptf_run_case("InterPodAffinity", &args, &cases[i]);
    assert_int_equal(bad, 0);
}

/*
 * v1.20.2's TestPreferredAffinity (the local tree) has the rows above but
 * those with a namespaceSelector (the field came in v1.21) and expects
 * these where its NormalizeScore starts min and max at 0 (D7; #98096,
 * CHANGELOG-1.21 v1.21.0, made them differ).
 */
static const struct {
    const char *prefix;
    int64_t want[8];
} v120_wants[] = {
    { "Affinity: nodes in one region has more matching pods",
      { 100, 50, 100, 100, 50 } },
    { "Affinity and Anti Affinity: considering both affinity and",
      { 100, 40, 100, 100, 40 } },
    { "Avoid panic when partial nodes in a topology", { 100, 100 } },
};

static bool has_namespace_selector(const struct ptf_case *c)
{
    return strstr(c->name, "amespace") != NULL &&
           strstr(c->name, "elector") != NULL;
}

static void inter_pod_affinity_should_match_v120_and_v121(void **state)
{
    static const struct prio_inter_pod_arg one = { 1 };
    const struct prio_args args = { .value = &one };
    size_t i, k;
    int bad = 0, overridden = 0;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ptf_case c = cases[i];

        if (has_namespace_selector(&c))
            continue;
        bad += ptf_run_case_as(KPE_SEM_1_21, "InterPodAffinity", &args, &c);
        for (k = 0; k < sizeof(v120_wants) / sizeof(v120_wants[0]); k++) {
            if (!strncmp(c.name, v120_wants[k].prefix,
                         strlen(v120_wants[k].prefix))) {
                memcpy(c.want, v120_wants[k].want, sizeof(c.want));
                overridden++;
            }
        }
        bad += ptf_run_case_as(KPE_SEM_1_20, "InterPodAffinity", &args, &c);
    }
    assert_int_equal(overridden, 3);
    assert_int_equal(bad, 0);
}

/* TestPreferredAffinity's "invalid ... fails PreScore" rows. */
static void inter_pod_affinity_should_fail_on_invalid_terms(void **state)
{
    static const char *const pods[] = { IPOD("", "{}", INVALID_AFF),
                                        IPOD("", "{}", INVALID_ANTI) };
    size_t i;

    (void)state;
    for (i = 0; i < 2; i++) {
        const char *names[] = { "node1", "node2" };
        struct fx_cluster fc;
        struct arena a;
        int64_t scores[2];
        struct err e;

        arena_init(&a, 0);
        fx_cluster_init(&fc, &a);
        ptf_add_nodes(&fc, "node1:" CHINA ";node2:" CHINA, NULL, NULL);
        fx_cluster_build(&fc);
        if (fx_run_score("InterPodAffinity", NULL, fx_pod(&a, pods[i]), &fc.c,
                         names, 2, &a, scores, &e) == 0)
            fail_msg("invalid term %zu: PreScore did not fail", i);
        /* Upstream wants the message to name the value. */
        if (!strstr(e.msg, "{{.bad-value.}}"))
            fail_msg("invalid term %zu: message \"%s\"", i, e.msg);
        fx_cluster_free(&fc);
        arena_destroy(&a);
    }
}

#define SERVICE_S1 "{\"service\":\"S1\"}"
#define HARD_POD_AFFINITY                                                      \
    AFF(REQ("{\"labelSelector\":" SEL(EXPR(                                    \
        "service", "In", "\"S1\"")) ","                                        \
                                    "\"namespaces\":[\"\",\"subteam2.team2\"]" \
                                    ",\"namespaceSelector\":" TEAM1            \
                                    ",\"topologyKey\":\"region\"}"))

struct hard_case {
    int32_t weight; /* -1: no args (the default, 1) */
    struct ptf_case c;
};

/* TestPreferredAffinityWithHardPodAffinitySymmetricWeight. */
static const struct hard_case hard_cases[] = {
    { 1,
      { "with default weight",
        IPOD("", SERVICE_S1, "{}"),
        N3(CHINA, INDIA, AZ1),
        NULL,
        NULL,
        { NAMESPACES, XPOD("a", "node1", "{}", HARD_POD_AFFINITY),
          XPOD("b", "node2", "{}", HARD_POD_AFFINITY), NULL },
        { 100, 100, 0 } } },
    { -1,
      { "without args, the weight defaults to 1",
        IPOD("", SERVICE_S1, "{}"),
        N3(CHINA, INDIA, AZ1),
        NULL,
        NULL,
        { NAMESPACES, XPOD("a", "node1", "{}", HARD_POD_AFFINITY),
          XPOD("b", "node2", "{}", HARD_POD_AFFINITY), NULL },
        { 100, 100, 0 } } },
    { 0,
      { "with zero weight",
        IPOD("", SERVICE_S1, "{}"),
        N3(CHINA, INDIA, AZ1),
        NULL,
        NULL,
        { NAMESPACES, XPOD("a", "node1", "{}", HARD_POD_AFFINITY),
          XPOD("b", "node2", "{}", HARD_POD_AFFINITY), NULL },
        { 0, 0, 0 } } },
    { 1,
      { "with no matching namespace",
        IPOD("subteam1.team2", SERVICE_S1, "{}"),
        N3(CHINA, INDIA, AZ1),
        NULL,
        NULL,
        { NAMESPACES, XPOD("a", "node1", "{}", HARD_POD_AFFINITY),
          XPOD("b", "node2", "{}", HARD_POD_AFFINITY), NULL },
        { 0, 0, 0 } } },
    { 1,
      { "with matching NamespaceSelector",
        IPOD("subteam1.team1", SERVICE_S1, "{}"),
        N3(CHINA, INDIA, AZ1),
        NULL,
        NULL,
        { NAMESPACES, XPOD("a", "node1", "{}", HARD_POD_AFFINITY),
          XPOD("b", "node2", "{}", HARD_POD_AFFINITY), NULL },
        { 100, 100, 0 } } },
    { 1,
      { "with matching Namespaces",
        IPOD("subteam2.team2", SERVICE_S1, "{}"),
        N3(CHINA, INDIA, AZ1),
        NULL,
        NULL,
        { NAMESPACES, XPOD("a", "node1", "{}", HARD_POD_AFFINITY),
          XPOD("b", "node2", "{}", HARD_POD_AFFINITY), NULL },
        { 100, 100, 0 } } },
    /* Beyond upstream: the weight scales against preferred terms. Node1
     * gets 5 (hard) + 0, node2 the preferred 3: 100, 60, 0. */
    { 5,
      { "hard weight adds up with preferred symmetric terms",
        IPOD("", SERVICE_S1, "{}"),
        N3(CHINA, INDIA, AZ1),
        NULL,
        NULL,
        { NAMESPACES, XPOD("a", "node1", "{}", HARD_POD_AFFINITY),
          XPOD("b", "node2", "{}",
               AFF(PREF(WTERM(
                   3, TERM(SEL(EXPR("service", "In", "\"S1\"")), "region"))))),
          NULL },
        { 100, 60, 0 } } },
};

static void
inter_pod_affinity_should_weigh_hard_terms_of_existing_pods(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(hard_cases) / sizeof(hard_cases[0]); i++) {
        struct prio_inter_pod_arg hard = { hard_cases[i].weight };
        struct prio_args args = { .value = &hard };

        bad += ptf_run_case("InterPodAffinity",
                            hard_cases[i].weight < 0 ? NULL : &args,
                            &hard_cases[i].c);
    }
    assert_int_equal(bad, 0);
}

/* priorities.md 3.8 examples: positive, negative and flat raw scores. */
static const struct ptf_case reference_cases[] = {
    { "preferred affinity weight 50 to app=db in zone a",
      IPOD(
          "default", "{}",
          AFF(PREF(WTERM(50, TERM(SEL(EXPR("app", "In", "\"db\"")), "zone"))))),
      "n1:zone=a;n2:zone=b",
      NULL,
      "default/db@n1:app=db",
      { NULL },
      { 100, 0 } },
    { "preferred anti-affinity weight 30 to app=web in zone a",
      IPOD("default", "{}",
           ANTI(PREF(
               WTERM(30, TERM(SEL(EXPR("app", "In", "\"web\"")), "zone"))))),
      "n1:zone=a;n2:zone=b",
      NULL,
      "default/web@n1:app=web",
      { NULL },
      { 0, 100 } },
    { "all raw scores equal (every node in the one zone)",
      IPOD(
          "default", "{}",
          AFF(PREF(WTERM(50, TERM(SEL(EXPR("app", "In", "\"db\"")), "zone"))))),
      "n1:zone=a;n2:zone=a",
      NULL,
      "default/db@n1:app=db",
      { NULL },
      { 0, 0 } },
    /* Min-max over true extremes: raws 30, 40, 50 give 0, 50, 100 (a
     * minimum starting at 0, as before v1.21, would give 60, 80, 100). */
    { "the minimum is the lowest raw score, not 0",
      IPOD("default", "{}",
           AFF(PREF(
               WTERM(10, TERM(SEL(EXPR("app", "In", "\"db\"")),
                              "zone")) "," WTERM(10, TERM(SEL(EXPR("app", "In",
                                                                   "\"db\"")),
                                                          "rack"))))),
      "n1:zone=a,rack=r1;n2:zone=a,rack=r2;n3:zone=a,rack=r3",
      NULL,
      "default/d1@n2:app=db;default/d2@n3:app=db;default/d3@n3:app=db",
      { NULL },
      { 0, 50, 100 } },
};

static void inter_pod_affinity_should_match_reference_examples(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(reference_cases) / sizeof(reference_cases[0]); i++)
        bad += ptf_run_case("InterPodAffinity", NULL, &reference_cases[i]);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inter_pod_affinity_should_match_upstream_table),
        cmocka_unit_test(inter_pod_affinity_should_fail_on_invalid_terms),
        cmocka_unit_test(inter_pod_affinity_should_match_v120_and_v121),
        cmocka_unit_test(
            inter_pod_affinity_should_weigh_hard_terms_of_existing_pods),
        cmocka_unit_test(inter_pod_affinity_should_match_reference_examples),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
