/*
 * test_server_extender.c: the extender verbs over HTTP, in-process on an
 * ephemeral loopback port, on the bundled demo cluster: filter in both
 * modes (names and full objects echoed verbatim), PascalCase and lower
 * case keys, the seeds' scenario (a high-comm pod against RDMA and
 * non-RDMA nodes; a pod with spec.nodeName), malformed requests,
 * prioritize, preempt, GET /policy and policy reload.
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
#include <unistd.h>

#include "server/extender/extender_app.h"
#include "kube/base/json_parse.h"
#include "tests/support/server_harness.h"

#define POD_HIGH_COMM                                                          \
    "{\"metadata\":{\"name\":\"hc\",\"namespace\":\"default\","                \
    "\"labels\":{\"high-comm\":\"true\"}},\"spec\":{\"containers\":"           \
    "[{\"name\":\"c\",\"image\":\"x\"}]}}"
#define POD_PINNED                                                             \
    "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeName\":\"general-1\","     \
    "\"containers\":[{\"name\":\"c\"}]}}"
#define ALL_NAMES                                                              \
    "[\"rdma-1\",\"rdma-2\",\"general-1\",\"gpu-1\",\"cordoned-1\","           \
    "\"ghost\"]"

struct fixture {
    struct harness h;
    struct extender_app ctx;
    char policy[256];
    char dir[64];
};

static void copy_file(const char *from, const char *to)
{
    char buf[4096];
    size_t n;
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");

    assert_non_null(in);
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    struct err e = { "" };
    const char *args[] = { "--policy",
                           NULL,
                           "--cluster",
                           "deploy/demo/cluster.json",
                           "--policy-watch-interval",
                           "100",
                           NULL };

    strcpy(f->dir, "/tmp/kpe-extXXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->policy, sizeof(f->policy), "%s/policy.json", f->dir);
    copy_file("tests/data/extender/policy.json", f->policy);
    args[1] = f->policy;
    harness_new(&f->h, args);
    if (extender_app_init(&f->ctx, f->h.srv, &e) < 0)
        fail_msg("extender_app_init: %s", e.msg);
    harness_start(&f->h);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    extender_app_stop(&f->ctx);
    harness_free(&f->h);
    extender_app_destroy(&f->ctx);
    unlink(f->policy);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* POST body to /verb; returns the 200 body (caller frees via r). */
static void post(struct fixture *f, const char *verb, const char *body,
                 struct http_result *r)
{
    char url[192];

    snprintf(url, sizeof(url), "%s/%s", f->h.url, verb);
    assert_int_equal(http_once("POST", url, body, strlen(body), r), CURLE_OK);
}

static void expect_in(const struct http_result *r, const char *want)
{
    if (!strstr(r->body, want))
        fail_msg("response lacks %s:\n%s", want, r->body);
}

static void filter_names_should_keep_high_comm_on_rdma_nodes(void **state)
{
    struct fixture *f = *state;
    struct http_result r;

    post(f, "filter",
         "{\"Pod\":" POD_HIGH_COMM ",\"Nodes\":null,\"NodeNames\":" ALL_NAMES
         "}",
         &r);
    assert_int_equal(r.status, 200);
    expect_in(&r, "\"Nodes\":null,\"NodeNames\":[\"rdma-1\",\"rdma-2\"]");
    expect_in(&r, "\"general-1\":\"Node does not support RDMA\"");
    expect_in(&r, "\"gpu-1\":\"node(s) had taint {nvidia.com/gpu: present}, "
                  "that the pod didn't tolerate\"");
    expect_in(&r, "\"cordoned-1\":\"node(s) were unschedulable\"");
    expect_in(&r, "\"ghost\":\"node(s) not found in the extender's cluster "
                  "cache\"");
    /* HighCommPodFilter is resolvable; taints and cordons are not. */
    expect_in(&r, "\"FailedAndUnresolvableNodes\":{\"gpu-1\":");
    assert_null(
        strstr(strstr(r.body, "FailedAndUnresolvableNodes"), "general-1"));
    expect_in(&r, "\"Error\":\"\"}");
    http_result_free(&r);
}

static void filter_should_read_lower_case_keys(void **state)
{
    struct fixture *f = *state;
    struct http_result r;

    post(f, "filter",
         "{\"pod\":" POD_PINNED ",\"nodes\":null,\"nodenames\":" ALL_NAMES "}",
         &r);
    assert_int_equal(r.status, 200);
    expect_in(&r, "\"NodeNames\":[\"general-1\"]");
    expect_in(&r, "\"rdma-1\":\"node(s) didn't match the requested hostname\"");
    http_result_free(&r);
}

/*
 * Duplicate keys as kube-scheduler's Go decoder reads them (issue 29):
 * the last one wins, ignoring case for a field name, and two objects
 * under one key merge (encoding/json fills the struct or map in place).
 */
static void filter_should_read_duplicate_keys_as_go(void **state)
{
    static const struct {
        const char *name, *body, *want;
    } cases[] = {
        { "NodeNames twice",
          "{\"Pod\":" POD_HIGH_COMM ",\"NodeNames\":[\"rdma-1\"],"
          "\"NodeNames\":[\"general-1\"]}",
          "\"FailedNodes\":{\"general-1\":\"Node does not support RDMA\"}" },
        { "NodeNames then nodenames",
          "{\"Pod\":" POD_HIGH_COMM ",\"NodeNames\":[\"rdma-1\"],"
          "\"nodenames\":[\"general-1\"]}",
          "\"FailedNodes\":{\"general-1\":\"Node does not support RDMA\"}" },
        { "two Pod objects merge",
          "{\"Pod\":{\"metadata\":{\"name\":\"m\"},\"spec\":{\"containers\":"
          "[{\"name\":\"c\"}]}},\"Pod\":{\"metadata\":{\"labels\":"
          "{\"high-comm\":\"true\"}}},\"NodeNames\":[\"general-1\"]}",
          "\"FailedNodes\":{\"general-1\":\"Node does not support RDMA\"}" },
        { "two labels objects merge, the last value wins",
          "{\"Pod\":{\"metadata\":{\"name\":\"m\",\"labels\":{\"high-comm\":"
          "\"x\"},\"labels\":{\"app\":\"a\"}},\"spec\":{\"containers\":"
          "[{\"name\":\"c\"}]}},\"NodeNames\":[\"general-1\"]}",
          "\"FailedNodes\":{\"general-1\":\"Node does not support RDMA\"}" },
        { "merged Nodes objects cannot be echoed: refused",
          "{\"Pod\":" POD_HIGH_COMM ",\"Nodes\":{\"items\":[{\"metadata\":"
          "{\"name\":\"rdma-1\"}}]},\"nodes\":{\"kind\":\"NodeList\"}}",
          "duplicate Nodes keys that merge cannot be echoed" },
        { "a later null replaces",
          "{\"Pod\":" POD_HIGH_COMM ",\"NodeNames\":[\"general-1\"],"
          "\"NodeNames\":null,\"NodeNames\":[\"rdma-1\"]}",
          "\"NodeNames\":[\"rdma-1\"],\"FailedNodes\":{}" },
    };
    struct fixture *f = *state;
    struct http_result r;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        post(f, "filter", cases[i].body, &r);
        if (r.status != 200 || !strstr(r.body, cases[i].want))
            fail_msg("%s: want %s, got %ld %s", cases[i].name, cases[i].want,
                     r.status, r.body);
        http_result_free(&r);
    }
}

static void filter_full_should_echo_passing_nodes_verbatim(void **state)
{
    struct fixture *f = *state;
    struct http_result r;
    /* Odd spacing and escapes must come back byte for byte. */
    const char *n1 = "{ \"metadata\" : {\"name\":\"rdma-1\",\"labels\":"
                     "{\"node.kubernetes.io/rdma-enabled\":\"true\","
                     "\"note\":\"\\u00e9\\\"x\"}},\"status\":{\"allocatable\":"
                     "{\"pods\":\"10\"}} }";
    const char *n2 = "{\"metadata\":{\"name\":\"general-1\"}}";
    char body[2048];

    snprintf(body, sizeof(body),
             "{\"Pod\":" POD_HIGH_COMM ",\"Nodes\":{\"metadata\":{},"
             "\"items\":[%s,\n  %s]},\"NodeNames\":null}",
             n1, n2);
    post(f, "filter", body, &r);
    assert_int_equal(r.status, 200);
    if (!strstr(r.body, n1))
        fail_msg("node not echoed verbatim:\n%s", r.body);
    assert_null(strstr(r.body, n2));
    expect_in(&r, "\"NodeNames\":null");
    expect_in(&r, "\"general-1\":\"Node does not support RDMA\"");
    http_result_free(&r);
}

static void filter_should_answer_bad_requests_with_error(void **state)
{
    struct fixture *f = *state;
    struct http_result r;

    post(f, "filter", "{\"Pod\": {\"metadata\": }", &r);
    assert_int_equal(r.status, 200);
    expect_in(&r, "\"Error\":\"request body: invalid JSON at byte 21");
    http_result_free(&r);
    post(f, "filter", "{\"NodeNames\":[\"a\"]}", &r);
    expect_in(&r, "\"Error\":\"Pod: missing");
    http_result_free(&r);
    post(f, "filter",
         "{\"Pod\":{\"metadata\":{\"name\":\"x\"},\"spec\":{\"containers\":[{"
         "\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1.5.3\"}}}]}},"
         "\"NodeNames\":[\"a\"]}",
         &r);
    expect_in(&r, "Pod.spec.containers[0].resources.requests.cpu: invalid "
                  "quantity \\\"1.5.3\\\"");
    http_result_free(&r);
    post(f, "filter", "{\"Pod\":" POD_PINNED ",\"NodeNames\":[1]}", &r);
    expect_in(&r, "\"Error\":\"NodeNames[0]: expected a string\"");
    http_result_free(&r);
}

/* The answer is valid JSON: a body in strict UTF-8 with no escapes left
 * unbalanced (cJSON accepts what the scheduler's decoder accepts). */
static void expect_valid_json(const struct http_result *r)
{
    cJSON *v = cJSON_ParseWithLength(r->body, r->len);

    if (!v || json_utf8_invalid_at(r->body, r->len) != r->len)
        fail_msg("answer is not valid JSON:\n%s", r->body);
    cJSON_Delete(v);
}

/* Issue 19: strings the API server would refuse are refused by name and
 * place, never cut short or echoed as bytes that are not JSON. */
static void filter_should_refuse_nul_bad_utf8_and_negative_amounts(void **state)
{
    struct fixture *f = *state;
    struct http_result r;
    char body[2048];

    post(f, "filter",
         "{\"Pod\":" POD_PINNED ",\"NodeNames\":[\"rdma-1\\u0000evil\"]}", &r);
    expect_in(&r, "\"Error\":\"request body: invalid JSON at byte ");
    expect_in(&r, "(NUL) in string");
    assert_null(strstr(r.body, "\"NodeNames\":[\"rdma-1\"]"));
    expect_valid_json(&r);
    http_result_free(&r);
    post(f, "filter", "{\"Pod\":" POD_PINNED ",\"NodeNames\":[\"ab\xff\xfe\"]}",
         &r);
    expect_in(&r, "\"Error\":\"NodeNames[0]: invalid node name");
    expect_valid_json(&r);
    http_result_free(&r);
    snprintf(body, sizeof(body),
             "{\"Pod\":" POD_HIGH_COMM ",\"Nodes\":{\"items\":[{\"metadata\":"
             "{\"name\":\"rdma-1\",\"labels\":{\"node.kubernetes.io/"
             "rdma-enabled\":\"true\",\"note\":\"\xc3\x28\"}}}]}}");
    post(f, "filter", body, &r);
    expect_in(&r, "\"Error\":\"Nodes.items[0]: invalid UTF-8 at byte ");
    expect_valid_json(&r);
    http_result_free(&r);
    post(f, "filter",
         "{\"Pod\":{\"metadata\":{\"name\":\"x\"},\"spec\":{\"containers\":[{"
         "\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"-1\"}}}]}},"
         "\"NodeNames\":[\"rdma-1\"]}",
         &r);
    expect_in(&r, "\"Error\":\"Pod.spec.containers[0].resources.requests.cpu: "
                  "invalid quantity \\\"-1\\\": must be greater than or "
                  "equal to 0\"");
    http_result_free(&r);
}

static void prioritize_should_score_every_listed_node(void **state)
{
    struct fixture *f = *state;
    struct http_result r;

    post(f, "prioritize",
         "{\"Pod\":" POD_HIGH_COMM
         ",\"NodeNames\":[\"rdma-1\",\"rdma-2\"],\"Nodes\":null}",
         &r);
    assert_int_equal(r.status, 200);
    /* No priorities configured: nothing to add to kube-scheduler's own
     * scores. */
    assert_string_equal(r.body, "[{\"Host\":\"rdma-1\",\"Score\":0},"
                                "{\"Host\":\"rdma-2\",\"Score\":0}]");
    http_result_free(&r);
}

/* A prioritize that cannot be scored answers what kube-scheduler decodes:
 * an empty HostPriorityList with 200, the cause counted in /metrics. */
static void prioritize_errors_should_answer_an_empty_list(void **state)
{
    static const char *const bodies[] = {
        "{\"Pod\": {\"metadata\": }",
        "{\"NodeNames\":[\"rdma-1\"]}",
        "{\"Pod\":" POD_PINNED ",\"NodeNames\":[1]}",
    };
    struct fixture *f = *state;
    struct http_result r;
    char url[192], want[96];
    size_t i;

    for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        post(f, "prioritize", bodies[i], &r);
        assert_int_equal(r.status, 200);
        assert_string_equal(r.body, "[]");
        http_result_free(&r);
    }
    snprintf(url, sizeof(url), "%s/metrics", f->h.url);
    assert_int_equal(http_once("GET", url, NULL, 0, &r), CURLE_OK);
    snprintf(want, sizeof(want), "kpe_prioritize_errors_total %zu\n", i);
    expect_in(&r, want);
    http_result_free(&r);
}

static void preempt_should_keep_nodes_freed_by_their_victims(void **state)
{
    struct fixture *f = *state;
    struct http_result r;
    /* Wants hostPort 8080 on general-1, where ingress-proxy holds it. */
    const char *pod =
        "{\"metadata\":{\"name\":\"ing2\"},\"spec\":{"
        "\"nodeSelector\":{\"kubernetes.io/hostname\":"
        "\"general-1\"},\"containers\":[{\"name\":\"c\","
        "\"ports\":[{\"containerPort\":80,\"hostPort\":8080}]}]}}";
    char body[2048];

    snprintf(body, sizeof(body),
             "{\"Pod\":%s,\"NodeNameToVictims\":null,"
             "\"NodeNameToMetaVictims\":{"
             "\"general-1\":{\"Pods\":[{\"UID\":"
             "\"bceb88c6-1020-37a6-ad0c-b10af6cd8fe7\"}],"
             "\"NumPDBViolations\":1},"
             "\"rdma-1\":{\"Pods\":[{\"UID\":"
             "\"85b18fc0-7292-e49a-0ef3-69aaf3f9ef15\"}],"
             "\"NumPDBViolations\":0},"
             "\"rdma-2\":{\"Pods\":[],\"NumPDBViolations\":0}}}",
             pod);
    post(f, "preempt", body, &r);
    assert_int_equal(r.status, 200);
    /* rdma-1 fails the node selector even without its victim; rdma-2 has
     * no victims, so it is never offered. */
    assert_string_equal(r.body,
                        "{\"NodeNameToMetaVictims\":{\"general-1\":{\"Pods\":"
                        "[{\"UID\":\"bceb88c6-1020-37a6-ad0c-b10af6cd8fe7\"}],"
                        "\"NumPDBViolations\":1}}}");
    http_result_free(&r);
    /* Evicting the wrong pod does not free the port. */
    snprintf(
        body, sizeof(body),
        "{\"Pod\":%s,\"NodeNameToVictims\":{\"general-1\":{\"Pods\":"
        "[{\"metadata\":{\"uid\":\"100fe4c3-f3cd-941e-471b-e1151aca0c7f\"}}"
        "],\"NumPDBViolations\":0}}}",
        pod);
    post(f, "preempt", body, &r);
    assert_string_equal(r.body, "{\"NodeNameToMetaVictims\":{}}");
    http_result_free(&r);
    /* A node named twice with victims: Go would keep the last entry, a
     * merge would not; refused (issue 29). After a null, the last wins. */
    snprintf(body, sizeof(body),
             "{\"Pod\":%s,\"NodeNameToMetaVictims\":{"
             "\"general-1\":{\"Pods\":[],\"NumPDBViolations\":0},"
             "\"general-1\":{\"Pods\":[{\"UID\":"
             "\"bceb88c6-1020-37a6-ad0c-b10af6cd8fe7\"}],"
             "\"NumPDBViolations\":1}}}",
             pod);
    post(f, "preempt", body, &r);
    expect_in(&r, "NodeNameToMetaVictims: node \\\"general-1\\\" named twice");
    http_result_free(&r);
    snprintf(body, sizeof(body),
             "{\"Pod\":%s,\"NodeNameToMetaVictims\":{\"general-1\":null},"
             "\"nodeNameToMetaVictims\":{"
             "\"general-1\":{\"Pods\":[{\"UID\":"
             "\"bceb88c6-1020-37a6-ad0c-b10af6cd8fe7\"}],"
             "\"NumPDBViolations\":1}}}",
             pod);
    post(f, "preempt", body, &r);
    assert_string_equal(r.body,
                        "{\"NodeNameToMetaVictims\":{\"general-1\":{\"Pods\":"
                        "[{\"UID\":\"bceb88c6-1020-37a6-ad0c-b10af6cd8fe7\"}],"
                        "\"NumPDBViolations\":1}}}");
    http_result_free(&r);
}

static void metrics_should_count_predicate_failures(void **state)
{
    struct fixture *f = *state;
    struct http_result r;
    char url[192];

    post(f, "filter",
         "{\"Pod\":" POD_HIGH_COMM ",\"NodeNames\":[\"rdma-1\",\"general-1\"]}",
         &r);
    http_result_free(&r);
    snprintf(url, sizeof(url), "%s/metrics", f->h.url);
    assert_int_equal(http_once("GET", url, NULL, 0, &r), CURLE_OK);
    expect_in(&r,
              "kpe_predicate_failures_total{predicate=\"HighCommPodFilter\"}");
    expect_in(&r, "kpe_filter_nodes_total{result=\"evaluated\"}");
    expect_in(&r, "kpe_policy_reloads_total{result=\"success\"} 1");
    http_result_free(&r);
}

static void policy_route_and_reload_should_keep_the_good_policy(void **state)
{
    struct fixture *f = *state;
    struct http_result r;
    char url[192];

    snprintf(url, sizeof(url), "%s/policy", f->h.url);
    assert_int_equal(http_once("GET", url, NULL, 0, &r), CURLE_OK);
    assert_int_equal(r.status, 200);
    expect_in(&r, "HighCommPodFilter");
    http_result_free(&r);

    /* A bad policy is refused; the running one keeps answering. */
    copy_file("tests/data/extender/bad-policy.json", f->policy);
    assert_int_equal(f->h.srv->reload(f->h.srv, f->h.srv->reload_arg), -1);
    post(f, "filter",
         "{\"Pod\":" POD_PINNED ",\"NodeNames\":[\"rdma-1\",\"general-1\"]}",
         &r);
    expect_in(&r, "\"NodeNames\":[\"general-1\"]");
    http_result_free(&r);

    /* A good one replaces it. */
    copy_file("tests/data/extender/policy.json", f->policy);
    assert_int_equal(f->h.srv->reload(f->h.srv, f->h.srv->reload_arg), 0);
}

/* Replace the policy file's content the way editors and ConfigMaps do:
 * write a new file and rename it over the old one. */
static void replace_policy(struct fixture *f, const char *json)
{
    char tmp[300];
    FILE *out;

    snprintf(tmp, sizeof(tmp), "%s.new", f->policy);
    out = fopen(tmp, "w");
    assert_non_null(out);
    fputs(json, out);
    fclose(out);
    assert_int_equal(rename(tmp, f->policy), 0);
}

static void policy_file_change_should_reload_without_a_signal(void **state)
{
    struct fixture *f = *state;
    struct http_result r;
    const char *body =
        "{\"Pod\":" POD_HIGH_COMM ",\"NodeNames\":[\"rdma-1\",\"general-1\"]}";
    int i, reloaded = 0;

    /* Without HighCommPodFilter, general-1 takes the high-comm pod. */
    replace_policy(f, "{\"kind\":\"Policy\",\"apiVersion\":\"v1\","
                      "\"predicates\":[],\"priorities\":[]}");
    for (i = 0; i < 50 && !reloaded; i++) {
        usleep(100 * 1000);
        post(f, "filter", body, &r);
        reloaded =
            strstr(r.body, "\"NodeNames\":[\"rdma-1\",\"general-1\"]") != NULL;
        http_result_free(&r);
    }
    assert_true(reloaded);
    /* Put the original back for the tests that follow. */
    copy_file("tests/data/extender/policy.json", f->policy);
    for (i = 0, reloaded = 0; i < 50 && !reloaded; i++) {
        usleep(100 * 1000);
        post(f, "filter", body, &r);
        reloaded = strstr(r.body, "\"NodeNames\":[\"rdma-1\"]") != NULL;
        http_result_free(&r);
    }
    assert_true(reloaded);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(filter_names_should_keep_high_comm_on_rdma_nodes),
        cmocka_unit_test(filter_should_read_lower_case_keys),
        cmocka_unit_test(filter_should_read_duplicate_keys_as_go),
        cmocka_unit_test(filter_full_should_echo_passing_nodes_verbatim),
        cmocka_unit_test(filter_should_answer_bad_requests_with_error),
        cmocka_unit_test(
            filter_should_refuse_nul_bad_utf8_and_negative_amounts),
        cmocka_unit_test(prioritize_should_score_every_listed_node),
        cmocka_unit_test(prioritize_errors_should_answer_an_empty_list),
        cmocka_unit_test(preempt_should_keep_nodes_freed_by_their_victims),
        cmocka_unit_test(metrics_should_count_predicate_failures),
        cmocka_unit_test(policy_route_and_reload_should_keep_the_good_policy),
        cmocka_unit_test(policy_file_change_should_reload_without_a_signal),
    };

    curl_global_init(CURL_GLOBAL_DEFAULT);
    return cmocka_run_group_tests(tests, setup, teardown);
}
