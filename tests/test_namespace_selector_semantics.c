/*
 * test_namespace_selector_semantics.c: the namespaceSelector of pod
 * (anti-)affinity terms per --semantics (docs/VERSION-SEMANTICS.md D11).
 * v1.20 has no such field and v1.21's PodAffinityNamespaceSelector gate
 * is alpha and off, so their API servers drop it (the term then means
 * its namespaces, or its own pod's); v1.22 turns the gate on (beta,
 * #101496) and the term scopes the namespaces the selector matches.
 * Each row is a case where the two readings disagree, for the filter
 * (the incoming pod's term, an existing pod's term) and the score (the
 * same two sides), so every place that reads the field is covered.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "policy/policy.h"
#include "priorities/priorities.h"
#include "tests/support/pred_fixtures.h"

#define NS(name, team)                                                         \
    "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" name                   \
    "\",\"labels\":{\"team\":\"" team "\"}}}"
#define NODE(name, zone)                                                       \
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"" name                        \
    "\",\"labels\":{\"zone\":\"" zone "\"}},\"status\":{\"allocatable\":{"     \
    "\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"10\"}}}"
/* a pod named n in namespace ns with label app=app on node (or pending) */
#define POD(n, ns, app, node, affinity)                                        \
    "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"" n "\",\"namespace\":\"" ns   \
    "\",\"labels\":{\"app\":\"" app "\"}},\"spec\":{\"nodeName\":\"" node      \
    "\",\"containers\":[{\"name\":\"c\"}]" affinity "}}"
#define TERM(app, nss)                                                         \
    "{\"labelSelector\":{\"matchLabels\":{\"app\":\"" app "\"}},"              \
    "\"namespaceSelector\":" nss ",\"topologyKey\":\"zone\"}"
#define REQ(kind, term)                                                        \
    ",\"affinity\":{\"" kind "\":{"                                            \
    "\"requiredDuringSchedulingIgnoredDuringExecution\":[" term "]}}"
#define PREF(kind, term)                                                       \
    ",\"affinity\":{\"" kind "\":{"                                            \
    "\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":10,"     \
    "\"podAffinityTerm\":" term "}]}}"
#define TEAM_B "{\"matchLabels\":{\"team\":\"b\"}}"

/* ns1 (team a) and ns2 (team b); n1 in zone a, n2 in zone b. */
static void cluster(struct fx_cluster *fc, struct arena *a, const char *pod)
{
    fx_cluster_init(fc, a);
    fx_cluster_add(fc, NS("ns1", "a"));
    fx_cluster_add(fc, NS("ns2", "b"));
    fx_cluster_add(fc, NODE("n1", "a"));
    fx_cluster_add(fc, NODE("n2", "b"));
    fx_cluster_add(fc, pod);
    fx_cluster_build(fc);
}

static const enum kpe_semantics sems[] = { KPE_SEM_1_20, KPE_SEM_1_21,
                                           KPE_SEM_1_22 };

/* Filter on n1: fits as 1.20, 1.21, 1.22. */
static const struct {
    const char *name, *existing, *incoming;
    bool fits[3];
} filter_cases[] = {
    /* 1.22: the term scopes ns2, where db runs on n1; 1.20/1.21: it scopes
     * the pod's own ns1, where nothing matches */
    { "incoming required affinity with a namespaceSelector",
      POD("db", "ns2", "db", "n1", ""),
      POD("p", "ns1", "web", "", REQ("podAffinity", TERM("db", TEAM_B))),
      { false, false, true } },
    /* 1.22: x's term ({} = every namespace) matches p in ns1; 1.20/1.21:
     * it means x's own ns2 */
    { "existing required anti-affinity with a namespaceSelector",
      POD("x", "ns2", "x", "n1", REQ("podAntiAffinity", TERM("web", "{}"))),
      POD("p", "ns1", "web", "", ""),
      { true, true, false } },
};

static void filter_should_read_the_selector_per_semantics(void **state)
{
    size_t i, k;

    (void)state;
    for (i = 0; i < sizeof(filter_cases) / sizeof(filter_cases[0]); i++) {
        for (k = 0; k < 3; k++) {
            struct policy policy;
            struct pred_result r;
            struct fx_cluster fc;
            struct arena a;
            enum pred_code code;

            memset(&policy, 0, sizeof(policy));
            policy.semantics = sems[k];
            arena_init(&a, 0);
            cluster(&fc, &a, filter_cases[i].existing);
            code = fx_run_filter("InterPodAffinity", NULL, &policy,
                                 fx_pod(&a, filter_cases[i].incoming), &fc.c,
                                 "n1", &a, &r);
            if ((code == PRED_FIT) != filter_cases[i].fits[k])
                fail_msg("%s as %s: %s (%s)", filter_cases[i].name,
                         kpe_semantics_name(sems[k]),
                         code == PRED_FIT ? "fits" : "does not fit",
                         fx_reasons(&a, &r));
            fx_cluster_free(&fc);
            arena_destroy(&a);
        }
    }
}

/* Scores of n1 and n2 as 1.20, 1.21, 1.22. */
static const struct {
    const char *name, *existing, *incoming;
    int64_t want[3][2];
} score_cases[] = {
    { "incoming preferred affinity with a namespaceSelector",
      POD("db", "ns2", "db", "n1", ""),
      POD("p", "ns1", "web", "", PREF("podAffinity", TERM("db", TEAM_B))),
      { { 0, 0 }, { 0, 0 }, { 100, 0 } } },
    /* x in ns1 selects team b (ns2): 1.22 leaves p (ns1) out; 1.20/1.21
     * read the term as x's own ns1, which holds p */
    { "existing preferred affinity with a namespaceSelector",
      POD("x", "ns1", "x", "n1", PREF("podAffinity", TERM("web", TEAM_B))),
      POD("p", "ns1", "web", "", ""),
      { { 100, 0 }, { 100, 0 }, { 0, 0 } } },
};

static void score_should_read_the_selector_per_semantics(void **state)
{
    static const struct prio_inter_pod_arg one = { 1 };
    const struct prio_args args = { .value = &one };
    const char *names[] = { "n1", "n2" };
    size_t i, k;

    (void)state;
    for (i = 0; i < sizeof(score_cases) / sizeof(score_cases[0]); i++) {
        for (k = 0; k < 3; k++) {
            struct fx_cluster fc;
            struct arena a;
            int64_t got[2];
            struct err e;

            err_clear(&e);
            arena_init(&a, 0);
            cluster(&fc, &a, score_cases[i].existing);
            if (fx_run_score_as(sems[k], "InterPodAffinity", &args,
                                fx_pod(&a, score_cases[i].incoming), &fc.c,
                                names, 2, &a, got, &e) < 0)
                fail_msg("%s as %s: %s", score_cases[i].name,
                         kpe_semantics_name(sems[k]), e.msg);
            if (got[0] != score_cases[i].want[k][0] ||
                got[1] != score_cases[i].want[k][1])
                fail_msg("%s as %s: %lld %lld, want %lld %lld",
                         score_cases[i].name, kpe_semantics_name(sems[k]),
                         (long long)got[0], (long long)got[1],
                         (long long)score_cases[i].want[k][0],
                         (long long)score_cases[i].want[k][1]);
            fx_cluster_free(&fc);
            arena_destroy(&a);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(filter_should_read_the_selector_per_semantics),
        cmocka_unit_test(score_should_read_the_selector_per_semantics),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
