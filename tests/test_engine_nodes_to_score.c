/*
 * test_engine_nodes_to_score.c: percentageOfNodesToScore in the standalone
 * scheduler, after kube-scheduler v1.22's generic_scheduler.go: how many
 * feasible nodes end the search (numFeasibleNodesToFind) and the search
 * itself (findNodesThatPassFilters), which starts where the previous pod
 * stopped and advances by the nodes it tried.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "engine/engine_fit_error.h"
#include "engine/engine_nodes_to_score.h"
#include "server/scheduler/scheduler.h"
#include "tests/support/pred_fixtures.h"

/* ---- numFeasibleNodesToFind ---- */

/* TestNumFeasibleNodesToFind (v1.22 pkg/scheduler/core/
 * generic_scheduler_test.go), then rows of ours for the edges. */
static const struct {
    const char *name;
    int percentage;
    size_t n_all;
    size_t want;
} num_cases[] = {
    { "not set percentageOfNodesToScore and nodes number not more than 50", 0,
      10, 10 },
    { "set percentageOfNodesToScore and nodes number not more than 50", 40, 10,
      10 },
    { "not set percentageOfNodesToScore and nodes number more than 50", 0, 1000,
      420 },
    { "set percentageOfNodesToScore and nodes number more than 50", 40, 1000,
      400 },
    { "not set percentageOfNodesToScore and nodes number more than 50*125", 0,
      6000, 300 },
    { "set percentageOfNodesToScore and nodes number more than 50*125", 40,
      6000, 2400 },
    /* Ours. */
    { "99 nodes: below the minimum, every node", 0, 99, 99 },
    { "100 nodes adaptive: 50% is 50, raised to the minimum 100", 0, 100, 100 },
    { "5000 nodes adaptive: 50 - 40 = 10%", 0, 5000, 500 },
    { "6249 nodes adaptive: 50 - 49 = 1%, floored at 5%", 0, 6249, 312 },
    { "100000 nodes adaptive: 5%", 0, 100000, 5000 },
    { "100 percent: every node", 100, 5000, 5000 },
    { "5 percent of 1000 is 50, raised to 100", 5, 1000, 100 },
    { "a negative percentage adapts like 0", -1, 1000, 420 },
};

static void num_feasible_nodes_to_find_should_follow_v1_22(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(num_cases) / sizeof(num_cases[0]); i++) {
        size_t got = engine_num_feasible_nodes_to_find(num_cases[i].percentage,
                                                       num_cases[i].n_all);

        if (got != num_cases[i].want)
            fail_msg("%s: got %zu, want %zu", num_cases[i].name, got,
                     num_cases[i].want);
    }
}

/* ---- findNodesThatPassFilters ---- */

#define POLICY                                                                 \
    "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":["              \
    "{\"name\":\"PodToleratesNodeTaints\"},"                                   \
    "{\"name\":\"CheckVolumeBinding\"}],\"priorities\":["                      \
    "{\"name\":\"LeastRequestedPriority\",\"weight\":1}]}"

#define TAINT_REASON "node(s) had taint {k: v}, that the pod didn't tolerate"

struct fixture {
    struct arena a;
    struct fx_cluster fc;
    struct policy *policy;
    struct eval_plans plans;
    const struct node_info **nodes;
    size_t n;
};

/* n nodes "n000", "n001", ...; node i is tainted (k=v:NoSchedule) when
 * tainted(i) says so. */
static void fixture_up(struct fixture *f, size_t n, bool (*tainted)(size_t))
{
    struct err e = { "" };
    size_t i;

    memset(f, 0, sizeof(*f));
    arena_init(&f->a, 0);
    fx_cluster_init(&f->fc, &f->a);
    for (i = 0; i < n; i++) {
        char json[512];

        snprintf(json, sizeof(json),
                 "{\"metadata\":{\"name\":\"n%03zu\"},\"spec\":{%s},"
                 "\"status\":{\"allocatable\":{\"cpu\":\"4\","
                 "\"memory\":\"8Gi\",\"pods\":\"110\"}}}",
                 i,
                 tainted && tainted(i) ? "\"taints\":[{\"key\":\"k\","
                                         "\"value\":\"v\",\"effect\":"
                                         "\"NoSchedule\"}]"
                                       : "");
        fx_cluster_add_node(&f->fc, fx_node(&f->a, json));
    }
    fx_cluster_build(&f->fc);
    if (policy_load_buffer("policy.json", POLICY, strlen(POLICY), NULL,
                           &f->policy, &e) < 0 ||
        eval_plans_build(f->policy, &f->plans, &e) < 0)
        fail_msg("policy: %s", e.msg);
    f->n = f->fc.c.n_nodes;
    f->nodes = arena_calloc(&f->a, f->n, sizeof(*f->nodes));
    assert_non_null(f->nodes);
    for (i = 0; i < f->n; i++)
        f->nodes[i] = &f->fc.c.nodes[i];
}

static void fixture_down(struct fixture *f)
{
    policy_free(f->policy);
    fx_cluster_free(&f->fc);
    arena_destroy(&f->a);
}

static const char *const plain_pod =
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},"
    "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";

static void find(struct fixture *f, const char *pod_json, int percentage,
                 size_t *next, struct eval_result *out)
{
    struct err e = { "" };

    if (engine_find_feasible(&f->plans.pred, fx_pod(&f->a, pod_json), &f->fc.c,
                             f->nodes, f->n, percentage, next, NULL, &f->a, out,
                             &e) < 0)
        fail_msg("engine_find_feasible: %s", e.msg);
}

/* TestFairEvaluationForNodes (v1.22 generic_scheduler_test.go): 500
 * nodes that all fit, 30%: every pod gets 150 nodes, and the start moves
 * on by 150 each time, around the list more than twice. */
static void find_feasible_should_rotate_fairly_over_all_nodes(void **state)
{
    struct fixture f;
    size_t next = 0, i, to_find;

    (void)state;
    fixture_up(&f, 500, NULL);
    to_find = engine_num_feasible_nodes_to_find(30, f.n);
    assert_int_equal(to_find, 150);
    for (i = 0; i < 2 * (f.n / to_find + 1); i++) {
        struct eval_result r;

        find(&f, plain_pod, 30, &next, &r);
        if (r.n_feasible != to_find)
            fail_msg("pod %zu: %zu nodes fit, want %zu", i, r.n_feasible,
                     to_find);
        if (next != (i + 1) * to_find % f.n)
            fail_msg("pod %zu: next start %zu, want %zu", i, next,
                     (i + 1) * to_find % f.n);
    }
    fixture_down(&f);
}

static bool every_third(size_t i)
{
    return i % 3 == 0;
}

/* Ours: nodes that fail count among the nodes tried, the feasible list
 * keeps the order tried, and the search wraps around. 300 nodes, one in
 * three tainted; adaptive 48% of 300 is 144 feasible nodes, found over
 * 216 nodes. */
static void find_feasible_should_count_failed_nodes_and_wrap(void **state)
{
    static const struct {
        const char *name;
        size_t start, want_tried, want_next, want_first;
    } steps[] = {
        { "from 0", 0, 216, 216, 1 },
        { "from 216: 84 nodes, then 132 from 0", 216, 216, 132, 217 },
        { "a stale start (1000 of 300) wraps from 100", 1000, 215, 15, 100 },
    };
    struct fixture f;
    size_t s;

    (void)state;
    fixture_up(&f, 300, every_third);
    for (s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
        size_t next = steps[s].start, i, fit = 0;
        struct eval_result r;

        find(&f, plain_pod, 0, &next, &r);
        if (r.n_feasible != 144 || r.n_nodes != steps[s].want_tried ||
            next != steps[s].want_next)
            fail_msg("%s: %zu fit of %zu tried, next %zu; want 144 of %zu, "
                     "next %zu",
                     steps[s].name, r.n_feasible, r.n_nodes, next,
                     steps[s].want_tried, steps[s].want_next);
        if (r.feasible[0]->index != steps[s].want_first)
            fail_msg("%s: first feasible node %zu, want %zu", steps[s].name,
                     r.feasible[0]->index, steps[s].want_first);
        for (i = 0; i < r.n_nodes; i++) {
            const struct eval_node *en = &r.nodes[i];

            if (en->feasible == every_third(en->ni->index))
                fail_msg("%s: node %zu feasible=%d", steps[s].name,
                         en->ni->index, en->feasible);
            if (en->feasible && r.feasible[fit++] != en->ni)
                fail_msg("%s: feasible list out of order at %zu", steps[s].name,
                         fit - 1);
        }
    }
    fixture_down(&f);
}

static bool all(size_t i)
{
    (void)i;
    return true;
}

/* Ours: when nothing fits every node is tried, so FitError counts all of
 * them (NumAllNodes and one status per node), and the start comes back
 * to where it was. */
static void find_feasible_should_try_every_node_when_none_fits(void **state)
{
    struct fixture f;
    struct eval_result r;
    size_t next = 37;
    char *msg;

    (void)state;
    fixture_up(&f, 150, all);
    find(&f, plain_pod, 0, &next, &r);
    assert_int_equal(r.n_feasible, 0);
    assert_int_equal(r.n_nodes, 150);
    assert_int_equal(next, 37);
    msg = engine_fit_error(&f.a, &r);
    assert_non_null(msg);
    assert_string_equal(msg,
                        "0/150 nodes are available: 150 " TAINT_REASON ".");
    fixture_down(&f);
}

/* Ours, after findNodesThatFitPod: a PreFilter rejection is every node's
 * status and no node is tried, so the start stays. */
static void find_feasible_should_keep_the_start_on_prefilter_reject(void **s)
{
    static const char *const pod =
        "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},"
        "\"spec\":{\"containers\":[{\"name\":\"c\"}],\"volumes\":[{\"name\":"
        "\"v\",\"persistentVolumeClaim\":{\"claimName\":\"missing\"}}]}}";
    struct fixture f;
    struct eval_result r;
    size_t next = 12;
    char *msg;

    (void)s;
    fixture_up(&f, 120, NULL);
    find(&f, pod, 0, &next, &r);
    assert_int_equal(r.n_feasible, 0);
    assert_int_equal(r.n_nodes, 120);
    assert_int_equal(next, 12);
    msg = engine_fit_error(&f.a, &r);
    assert_non_null(msg);
    assert_string_equal(msg, "0/120 nodes are available: 120 "
                             "persistentvolumeclaim \"missing\" not found.");
    fixture_down(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(num_feasible_nodes_to_find_should_follow_v1_22),
        cmocka_unit_test(find_feasible_should_rotate_fairly_over_all_nodes),
        cmocka_unit_test(find_feasible_should_count_failed_nodes_and_wrap),
        cmocka_unit_test(find_feasible_should_try_every_node_when_none_fits),
        cmocka_unit_test(
            find_feasible_should_keep_the_start_on_prefilter_reject),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
