/*
 * test_extender_scores.c: what /prioritize answers in each deployment shape
 * (docs/protocol.md, "Scores"), the decision a verb hands to the holds, and the
 * split of one Policy into kube-scheduler's and the extender's halves.
 *
 * Expectations are derived from the raw v1.22 totals of the same request
 * (--score-scale raw), never written in by hand, so a change in a plugin
 * cannot hide a change in the scaling.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "server/extender/extender.h"
#include "engine/engine_state.h"

#define CLUSTER "deploy/demo/cluster.json"
#define NAMES   "[\"rdma-1\",\"rdma-2\",\"general-1\",\"gpu-1\",\"cordoned-1\"]"
#define POD_PLAIN                                                              \
    "{\"metadata\":{\"name\":\"plain\",\"namespace\":\"default\"},"            \
    "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"   \
    "{\"cpu\":\"500m\",\"memory\":\"256Mi\"}}}]}}"
#define POD_HIGH_COMM                                                          \
    "{\"metadata\":{\"name\":\"hc\",\"namespace\":\"default\",\"labels\":"     \
    "{\"high-comm\":\"true\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}"

/* Scores by node of one prioritize answer; -1 where absent. */
struct answer {
    char host[8][32];
    int64_t score[8];
    size_t n;
};

static struct app_state *load(struct app *app, const char *policy)
{
    static const char *clusters[] = { CLUSTER };
    struct err e = { "" };
    struct app_state *st;

    app_init(app, policy, clusters, 1, 0);
    if (app_load(app, &e) < 0)
        fail_msg("app_load %s: %s", policy, e.msg);
    st = app_acquire(app);
    assert_non_null(st);
    return st;
}

static void parse_answer(const char *out, struct answer *a)
{
    cJSON *root = cJSON_Parse(out), *it;

    assert_non_null(root);
    assert_true(cJSON_IsArray(root));
    memset(a, 0, sizeof(*a));
    cJSON_ArrayForEach(it, root)
    {
        assert_true(a->n < 8);
        snprintf(a->host[a->n], sizeof(a->host[0]), "%s",
                 cJSON_GetObjectItem(it, "Host")->valuestring);
        a->score[a->n++] =
            (int64_t)cJSON_GetObjectItem(it, "Score")->valuedouble;
    }
    cJSON_Delete(root);
}

static void prioritize(struct app_state *st, const char *pod,
                       enum ext_score_mode mode, bool single_top,
                       struct answer *a, struct ext_decision *dec,
                       struct arena *ar)
{
    struct ext_prio_opts o = { mode, single_top };
    struct err e = { "" };
    char body[1024];
    size_t len = 0;
    char *out;

    snprintf(body, sizeof(body), "{\"Pod\":%s,\"NodeNames\":%s}", pod, NAMES);
    out = ext_prioritize(&st->plans, &st->cluster->cluster, ar, body,
                         strlen(body), &o, &len, dec, &e);
    if (!out)
        fail_msg("prioritize: %s", e.msg);
    parse_answer(out, a);
    free(out);
}

static void rank_score_should_single_out_the_best(void **state)
{
    static const struct {
        int64_t t, lo, hi, want;
    } cases[] = {
        { 100, 0, 100, 10 },
        { 99, 0, 100, 9 },
        { 0, 0, 100, 0 },
        { 50, 0, 100, 5 },
        { 7, 7, 7, 10 },
        { 1000977, 977, 1000986, 9 },
        { 1000986, 977, 1000986, 10 },
        { 1000985, 1000984, 1000986, 5 },
        { 1000985, 0, 1000986, 9 },
        { -5, -10, 0, 5 },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t got = ext_rank_score(cases[i].t, cases[i].lo, cases[i].hi);

        if (got != cases[i].want)
            fail_msg("rank(%lld in [%lld,%lld]) = %lld, want %lld",
                     (long long)cases[i].t, (long long)cases[i].lo,
                     (long long)cases[i].hi, (long long)got,
                     (long long)cases[i].want);
    }
}

/* Rank: exactly the nodes with the highest raw total get 10. */
static void rank_should_give_ten_to_exactly_v122s_best(void **state)
{
    struct app app;
    struct app_state *st = load(&app, "deploy/demo/policy.json");
    const char *pods[] = { POD_PLAIN, POD_HIGH_COMM };
    size_t p, i;

    (void)state;
    for (p = 0; p < 2; p++) {
        struct arena ar;
        struct answer raw, rank;
        int64_t best = -1;
        size_t n_best = 0, n_ten = 0;

        arena_init(&ar, 0);
        prioritize(st, pods[p], EXT_SCORE_RAW, false, &raw, NULL, &ar);
        prioritize(st, pods[p], EXT_SCORE_RANK, false, &rank, NULL, &ar);
        assert_int_equal(raw.n, rank.n);
        for (i = 0; i < raw.n; i++)
            best = raw.score[i] > best ? raw.score[i] : best;
        assert_true(best > 0);
        for (i = 0; i < raw.n; i++) {
            assert_string_equal(raw.host[i], rank.host[i]);
            assert_true(rank.score[i] >= 0 && rank.score[i] <= 10);
            if (raw.score[i] == best) {
                n_best++;
                assert_int_equal(rank.score[i], 10);
            } else {
                assert_true(rank.score[i] < 10);
            }
            n_ten += rank.score[i] == 10;
        }
        assert_int_equal(n_ten, n_best);
        arena_destroy(&ar);
    }
    app_release(st);
    app_destroy(&app);
}

/* Rank with a single top: one of the best alone gets 10, and it is the
 * decision the holds take (the pod outlives the verb's frame). */
static void single_top_should_be_one_of_the_best(void **state)
{
    struct app app;
    struct app_state *st = load(&app, "deploy/demo/policy.json");
    int round;

    (void)state;
    for (round = 0; round < 20; round++) {
        struct arena ar;
        struct answer raw, top;
        struct ext_decision dec = { 0 };
        int64_t best = -1;
        size_t i, n_ten = 0;

        arena_init(&ar, 0);
        prioritize(st, POD_PLAIN, EXT_SCORE_RAW, false, &raw, NULL, &ar);
        prioritize(st, POD_PLAIN, EXT_SCORE_RANK, true, &top, &dec, &ar);
        for (i = 0; i < raw.n; i++)
            best = raw.score[i] > best ? raw.score[i] : best;
        assert_non_null(dec.node);
        assert_non_null(dec.pod);
        assert_string_equal(dec.pod->name, "plain");
        assert_string_equal(dec.pod->namespace, "default");
        for (i = 0; i < top.n; i++) {
            if (top.score[i] != 10)
                continue;
            n_ten++;
            assert_string_equal(top.host[i], dec.node);
            assert_int_equal(raw.score[i], best);
        }
        assert_int_equal(n_ten, 1);
        arena_destroy(&ar);
    }
    app_release(st);
    app_destroy(&app);
}

/*
 * Proportional (the split shape): answer x weight x 10 equals the
 * in-process weighted score of the served priorities, up to one unit of
 * the answer (weight x 10), with weight = the sum of their weights.
 */
static void proportional_times_weight_should_match_in_process(void **state)
{
    const char *policies[] = { "deploy/demo/policy.json",
                               "tests/policies/high-comm-rdma.json" };
    size_t p, i, k;

    (void)state;
    for (p = 0; p < 2; p++) {
        struct app app;
        struct app_state *st = load(&app, policies[p]);
        int64_t w = 0;
        const char *pods[] = { POD_PLAIN, POD_HIGH_COMM };

        for (i = 0; i < st->policy->n_prios; i++)
            w += st->policy->prios[i].weight;
        for (k = 0; k < 2; k++) {
            struct arena ar;
            struct answer raw, prop;

            arena_init(&ar, 0);
            prioritize(st, pods[k], EXT_SCORE_RAW, false, &raw, NULL, &ar);
            prioritize(st, pods[k], EXT_SCORE_PROPORTIONAL, false, &prop, NULL,
                       &ar);
            for (i = 0; i < raw.n; i++) {
                int64_t ext = prop.score[i] * w * 10;

                if (!(ext <= raw.score[i] && raw.score[i] < ext + w * 10))
                    fail_msg("%s %s: %lld x %lld x 10 vs in-process %lld",
                             policies[p], raw.host[i], (long long)prop.score[i],
                             (long long)w, (long long)raw.score[i]);
            }
            arena_destroy(&ar);
        }
        app_release(st);
        app_destroy(&app);
    }
}

/* A filter that passes one node hands that node to the holds; two do not. */
static void filter_should_decide_only_a_single_node(void **state)
{
    struct app app;
    struct app_state *st = load(&app, "deploy/demo/policy.json");
    const char *lists[] = { "[\"rdma-1\",\"general-1\"]",
                            "[\"rdma-1\",\"rdma-2\",\"general-1\"]" };
    const char *want[] = { "rdma-1", NULL };
    size_t i;

    (void)state;
    for (i = 0; i < 2; i++) {
        struct arena ar;
        struct ext_decision dec = { 0 };
        char body[1024];
        size_t len = 0;
        char *out;

        arena_init(&ar, 0);
        snprintf(body, sizeof(body), "{\"Pod\":%s,\"NodeNames\":%s}",
                 POD_HIGH_COMM, lists[i]);
        out = ext_filter(&st->plans, &st->cluster->cluster, &ar, body,
                         strlen(body), &len, NULL, &dec);
        assert_non_null(out);
        assert_non_null(strstr(out, "\"Error\":\"\""));
        assert_non_null(dec.pod);
        assert_string_equal(dec.pod->name, "hc");
        if (want[i])
            assert_string_equal(dec.node, want[i]);
        else
            assert_null(dec.node);
        free(out);
        arena_destroy(&ar);
    }
    app_release(st);
    app_destroy(&app);
}

static bool doc_has(const char *json, const char *name)
{
    char needle[128];

    snprintf(needle, sizeof(needle), "\"name\": \"%s\"", name);
    return strstr(json, needle) != NULL;
}

/* The split: every name lands on exactly one side; the extender's weight
 * is the sum of its priorities' weights; its half loads as a split-shape
 * Policy that reads no pods. */
static void split_should_send_each_name_to_one_side(void **state)
{
    struct policy_load_opts o = { 0 };
    struct policy_split_opts so = { "http://x:8888", 5000000000LL, true };
    struct policy *p = NULL, *q = NULL;
    struct policy_doc sd, xd;
    struct policy_role role;
    struct err e = { "" };
    int64_t w = 0;
    char *sj, *xj;
    size_t i;

    (void)state;
    if (policy_load_file("deploy/demo/policy.json", &o, &p, &e))
        fail_msg("%s", e.msg);
    policy_extender_role(p, &role);
    assert_true(role.sole);
    assert_true(role.n_pod_dependent > 0);
    assert_int_equal(policy_split(p, &p->arena, &so, &sd, &xd, &w, &e), 0);
    assert_int_equal(w, 5);
    sj = policy_write_json(&sd, &p->arena, &e);
    xj = policy_write_json(&xd, &p->arena, &e);
    assert_non_null(sj);
    assert_non_null(xj);
    for (i = 0; i < p->doc.n_preds; i++) {
        const char *n = p->doc.preds[i].name;
        bool ours = !pred_lookup(n)->plugins[0];

        assert_int_equal(doc_has(sj, n), !ours);
        assert_int_equal(doc_has(xj, n), ours);
    }
    for (i = 0; i < p->doc.n_prios; i++) {
        const char *n = p->doc.prios[i].name;
        bool ours = !prio_lookup(n)->plugins[0];

        assert_int_equal(doc_has(sj, n), !ours);
        assert_int_equal(doc_has(xj, n), ours);
    }
    assert_int_equal(sd.n_extenders, 1);
    assert_string_equal(sd.extenders[0].url_prefix, "http://x:8888");
    assert_string_equal(sd.extenders[0].filter_verb, "filter");
    assert_string_equal(sd.extenders[0].prioritize_verb, "prioritize");
    assert_string_equal(sd.extenders[0].preempt_verb, "preempt");
    assert_int_equal(sd.extenders[0].weight, 5);
    assert_int_equal(sd.extenders[0].http_timeout_ns, 5000000000LL);
    assert_true(sd.extenders[0].node_cache_capable);
    if (policy_load_buffer("ext.json", xj, strlen(xj), &o, &q, &e))
        fail_msg("the extender's half does not load: %s", e.msg);
    policy_extender_role(q, &role);
    assert_false(role.sole);
    assert_int_equal(role.n_pod_dependent, 0);
    policy_free(q);
    q = NULL;
    if (policy_load_buffer("sched.json", sj, strlen(sj), &o, &q, &e))
        fail_msg("kube-scheduler's half does not load: %s", e.msg);
    policy_free(q);
    policy_free(p);
}

/* Defaults (no predicates/priorities keys) stay kube-scheduler's; a Policy
 * with nothing to delegate gets no extender entry. */
static void split_should_leave_defaults_to_kube_scheduler(void **state)
{
    static const char doc[] = "{\"kind\":\"Policy\",\"apiVersion\":\"v1\"}";
    struct policy_load_opts o = { 0 };
    struct policy_split_opts so = { "http://x:8888", 1, false };
    struct policy *p = NULL;
    struct policy_doc sd, xd;
    struct err e = { "" };
    int64_t w = -1;

    (void)state;
    if (policy_load_buffer("d.json", doc, sizeof(doc) - 1, &o, &p, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(policy_split(p, &p->arena, &so, &sd, &xd, &w, &e), 0);
    assert_int_equal(sd.predicates_mode, POLICY_LIST_DEFAULT);
    assert_int_equal(sd.priorities_mode, POLICY_LIST_DEFAULT);
    assert_int_equal(xd.predicates_mode, POLICY_LIST_LISTED);
    assert_int_equal(xd.n_preds, 0);
    assert_int_equal(xd.n_prios, 0);
    assert_int_equal(sd.n_extenders, 0);
    assert_int_equal(w, 0);
    policy_free(p);
}

/* Custom names that resolve through an argument (labelsPresence,
 * serviceAffinity, labelPreference, RequestedToCapacityRatio) are
 * kube-scheduler's own: nothing of this Policy goes to the extender. */
static void split_should_keep_argument_names_in_kube_scheduler(void **state)
{
    struct policy_load_opts o = { 0 };
    struct policy_split_opts so = { "http://x:8888", 1, true };
    struct policy *p = NULL;
    struct policy_doc sd, xd;
    struct err e = { "" };
    int64_t w = -1;

    (void)state;
    if (policy_load_file("tests/policies/reference-10.2-custom.json", &o, &p,
                         &e))
        fail_msg("%s", e.msg);
    assert_int_equal(policy_split(p, &p->arena, &so, &sd, &xd, &w, &e), 0);
    assert_int_equal(sd.n_preds, p->doc.n_preds);
    assert_int_equal(sd.n_prios, p->doc.n_prios);
    assert_int_equal(xd.n_preds, 0);
    assert_int_equal(xd.n_prios, 0);
    assert_int_equal(sd.n_extenders, p->doc.n_extenders);
    assert_int_equal(w, 0);
    policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rank_score_should_single_out_the_best),
        cmocka_unit_test(rank_should_give_ten_to_exactly_v122s_best),
        cmocka_unit_test(single_top_should_be_one_of_the_best),
        cmocka_unit_test(proportional_times_weight_should_match_in_process),
        cmocka_unit_test(filter_should_decide_only_a_single_node),
        cmocka_unit_test(split_should_send_each_name_to_one_side),
        cmocka_unit_test(split_should_leave_defaults_to_kube_scheduler),
        cmocka_unit_test(split_should_keep_argument_names_in_kube_scheduler),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
