/*
 * test_fuzz_regressions.c: every input a libFuzzer target (tests/fuzz/)
 * found to crash or to break one of its checks, inline, with the
 * behaviour the fix guarantees. Each case names the target that found it.
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

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/base/json_parse.h"
#include "kube/parse/parse.h"
#include "kube/cluster/snapshot_file.h"
#include "policy/policy.h"
#include "engine/evaluate.h"
#include "server/extender/extender.h"
#include "engine/engine_state.h"

/* Bytes of a string literal, without its terminating NUL. */
#define BYTES(s) s, sizeof(s) - 1

struct json_error_case {
    const char *name;
    const char *input;
    size_t len;
    const char *want; /* the error, the same copying and in situ */
};

/*
 * fuzz_json: in situ, a string decoded into the input buffer put an
 * escaped "\n" back as a real line feed, and a later syntax error was
 * reported on a later line than the input has.
 */
static const struct json_error_case situ_lines[] = {
    { "fuzz_json crash input",
      BYTES("{\"kin_\\\"\\\\\\\\\\nul\"predic\x97\x83ies\n"),
      "invalid JSON at byte 17 (line 1, column 18): expected ':' after "
      "object key near \"predic\"" },
    { "escaped \\n before a real line feed", BYTES("{\"a\\nb\":1,\n\"c\" 2}"),
      "invalid JSON at byte 15 (line 2, column 5): expected ':' after "
      "object key near \"2}\"" },
    { "\\u000a and \\u000A escapes", BYTES("[\"\\u000a\\u000A\",\n\n  x]"),
      "invalid JSON at byte 20 (line 3, column 3): expected value near "
      "\"x]\"" },
};

static void expect_error(const struct json_error_case *c, int in_situ)
{
    char *buf = malloc(c->len ? c->len : 1);
    struct arena a;
    struct cJSON *root = NULL;
    struct err e = { "" };
    int rc;

    assert_non_null(buf);
    memcpy(buf, c->input, c->len);
    arena_init(&a, 0);
    rc = in_situ ? json_arena_parse_in_situ(&a, buf, c->len, 0, &root, &e)
                 : json_arena_parse(&a, buf, c->len, 0, &root, &e);
    arena_destroy(&a);
    free(buf);
    if (rc != -1 || strcmp(e.msg, c->want) != 0)
        fail_msg("%s (%s): got %d \"%s\", want \"%s\"", c->name,
                 in_situ ? "in situ" : "copying", rc, e.msg, c->want);
}

static void json_in_situ_should_report_lines_of_the_input(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(situ_lines) / sizeof(situ_lines[0]); i++) {
        expect_error(&situ_lines[i], 0);
        expect_error(&situ_lines[i], 1);
    }
}

/* The decoded strings must not change with the fix. */
static void json_in_situ_should_still_decode_escaped_line_feeds(void **state)
{
    char buf[] = "[\"a\\nb\",\"\\u000ac\",\"plain\"]";
    struct arena a;
    struct cJSON *root = NULL;
    struct err e = { "" };
    const char *want[] = { "a\nb", "\nc", "plain" };
    const struct cJSON *el;
    size_t i = 0;

    (void)state;
    arena_init(&a, 0);
    if (json_arena_parse_in_situ(&a, buf, sizeof(buf) - 1, 0, &root, &e) != 0)
        fail_msg("parse failed: %s", e.msg);
    for (el = root->child; el; el = el->next) {
        assert_true(i < 3);
        if (strcmp(el->valuestring, want[i]) != 0)
            fail_msg("element %zu: got \"%s\"", i, el->valuestring);
        i++;
    }
    assert_int_equal(i, 3);
    arena_destroy(&a);
}

/*
 * fuzz_extender: NumPDBViolations was converted from a double with a cast,
 * undefined (UBSan float-cast-overflow) beyond int64. Go decodes it into
 * an int64, so a number that is not one is refused with an error.
 */
#define PREEMPT_POD                                                            \
    "{\"metadata\":{\"name\":\"ing2\"},\"spec\":{\"containers\":[{"            \
    "\"name\":\"c\"}]}}"
#define PREEMPT_BODY(pdb)                                                      \
    "{\"Pod\":" PREEMPT_POD ",\"NodeNameToMetaVictims\":{\"general-1\":{"      \
    "\"Pods\":[{\"UID\":\"bceb88c6-1020-37a6-ad0c-b10af6cd8fe7\"}],"           \
    "\"NumPDBViolations\":" pdb "}}}"

static const struct preempt_case {
    const char *name;
    const char *body;
    const char *want_error; /* NULL: answered */
    const char *want_answer;
} preempt_cases[] = {
    { "fuzz_extender crash: 46 digits",
      PREEMPT_BODY("4444444444444444444444444444444444444444444441"),
      "NodeNameToMetaVictims.general-1.NumPDBViolations: integer "
      "4444444444444444444444444444444444444444444441 out of range for int64",
      NULL },
    { "below int64", PREEMPT_BODY("-1e300"),
      "NodeNameToMetaVictims.general-1.NumPDBViolations: integer -1e300 "
      "out of range for int64",
      NULL },
    { "not an integer", PREEMPT_BODY("1.5"),
      "NodeNameToMetaVictims.general-1.NumPDBViolations: expected an "
      "integer, got number 1.5",
      NULL },
    /* Issue 29: exact, as Go's strconv.ParseInt; named as written. */
    { "INT64_MAX is an int64", PREEMPT_BODY("9223372036854775807"), NULL,
      "{\"NodeNameToMetaVictims\":{\"general-1\":{\"Pods\":[{\"UID\":"
      "\"bceb88c6-1020-37a6-ad0c-b10af6cd8fe7\"}],\"NumPDBViolations\":"
      "9223372036854775807}}}" },
    { "one above INT64_MAX", PREEMPT_BODY("9223372036854775808"),
      "NodeNameToMetaVictims.general-1.NumPDBViolations: integer "
      "9223372036854775808 out of range for int64",
      NULL },
    { "INT64_MIN is an int64", PREEMPT_BODY("-9223372036854775808"), NULL,
      "{\"NodeNameToMetaVictims\":{\"general-1\":{\"Pods\":[{\"UID\":"
      "\"bceb88c6-1020-37a6-ad0c-b10af6cd8fe7\"}],\"NumPDBViolations\":"
      "-9223372036854775808}}}" },
    { "one below INT64_MIN", PREEMPT_BODY("-9223372036854775809"),
      "NodeNameToMetaVictims.general-1.NumPDBViolations: integer "
      "-9223372036854775809 out of range for int64",
      NULL },
    { "1e309 is not echoed as another number", PREEMPT_BODY("1e309"),
      "NodeNameToMetaVictims.general-1.NumPDBViolations: expected an "
      "integer, got number 1e309",
      NULL },
    { "an int64 is echoed", PREEMPT_BODY("7"), NULL,
      "{\"NodeNameToMetaVictims\":{\"general-1\":{\"Pods\":[{\"UID\":"
      "\"bceb88c6-1020-37a6-ad0c-b10af6cd8fe7\"}],\"NumPDBViolations\":7}}}" },
};

static void preempt_should_refuse_pdb_counts_beyond_int64(void **state)
{
    const char *cluster = "deploy/demo/cluster.json";
    struct app app;
    struct app_state *st;
    struct err e = { "" };

    (void)state;
    app_init(&app, "deploy/demo/policy.json", &cluster, 1, 0);
    if (app_load(&app, &e) < 0)
        fail_msg("loading the demo: %s", e.msg);
    st = app_acquire(&app);
    for (size_t i = 0; i < sizeof(preempt_cases) / sizeof(preempt_cases[0]);
         i++) {
        const struct preempt_case *c = &preempt_cases[i];
        size_t len = strlen(c->body), out_len = 0;
        char *body = malloc(len);
        struct arena a;
        char *out;

        assert_non_null(body);
        memcpy(body, c->body, len);
        arena_init(&a, 0);
        e.msg[0] = '\0';
        out = ext_preempt(&st->plans, &st->cluster->cluster, &a, body, len,
                          &out_len, &e);
        if (c->want_error && (out || strcmp(e.msg, c->want_error) != 0))
            fail_msg("%s: got %s / \"%s\", want error \"%s\"", c->name,
                     out ? out : "NULL", e.msg, c->want_error);
        if (!c->want_error &&
            (!out || strncmp(out, c->want_answer, out_len) != 0 ||
             strlen(c->want_answer) != out_len))
            fail_msg("%s: got %.*s (%s), want %s", c->name, (int)out_len,
                     out ? out : "", e.msg, c->want_answer);
        free(out);
        arena_destroy(&a);
        free(body);
    }
    app_release(st);
    app_destroy(&app);
}

/*
 * fuzz_policy: a requestedToCapacityRatioArguments resource without a
 * name kept a NULL name, which scoring passed to strcmp. In Go the field
 * is the zero value "", which scores like any unknown resource; a null
 * item is a zero ResourceSpec, refused for its weight.
 */
#define RTCR_POLICY(res)                                                       \
    "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"priorities\":[{\"name\":"    \
    "\"RequestedToCapacityRatioPriority\",\"weight\":2,\"argument\":{"         \
    "\"requestedToCapacityRatioArguments\":{\"shape\":[{\"utilization\":0,"    \
    "\"score\":0},{\"utilization\":100,\"score\":10}],\"resources\":[{"        \
    "\"name\":\"cpu\",\"weight\":1}," res "]}}}]}"

static void rtcr_should_score_a_resource_without_a_name_as_empty(void **state)
{
    static const char text[] = RTCR_POLICY("{\"weight\":3}");
    const char *cluster_path = "deploy/demo/cluster.json";
    struct cluster_ref *c;
    const struct node_info **nodes;
    struct policy *p = NULL;
    struct eval_plans plans;
    struct eval_result res;
    struct kube_pod pod;
    struct arena a;
    struct err e = { "" };
    const struct prio_resources_arg *rtcr;
    const struct policy_resource *r;
    char *buf;
    size_t len;

    (void)state;
    if (policy_load_buffer("rtcr.json", text, sizeof(text) - 1, NULL, &p, &e) <
        0)
        fail_msg("load: %s", e.msg);
    assert_int_equal(p->n_prios, 1);
    rtcr = p->prios[0].args.value;
    assert_int_equal(rtcr->n_resources, 2);
    r = rtcr->resources;
    assert_non_null(r[1].name);
    assert_string_equal(r[1].name, "");
    assert_int_equal(r[1].weight, 3);
    /* Scoring reads the names: the demo pod on the demo cluster. */
    c = cluster_ref_load(&cluster_path, 1, &e);
    if (!c)
        fail_msg("cluster: %s", e.msg);
    arena_init(&a, 0);
    buf = kube_read_file(&a, "deploy/demo/pods/web.json", 1 << 20, &len, &e);
    assert_non_null(buf);
    assert_int_equal(kube_parse_pod(&a, buf, len, &pod, &e), 0);
    nodes = arena_calloc(&a, c->cluster.n_nodes, sizeof(*nodes));
    assert_non_null(nodes);
    for (size_t i = 0; i < c->cluster.n_nodes; i++)
        nodes[i] = &c->cluster.nodes[i];
    assert_int_equal(eval_plans_build(p, &plans, &e), 0);
    if (evaluate_pod(&plans, &pod, &c->cluster, nodes, c->cluster.n_nodes,
                     EVAL_FILTER | EVAL_SCORE, &a, &res, &e) < 0)
        fail_msg("evaluate: %s", e.msg);
    assert_true(res.scored);
    arena_destroy(&a);
    cluster_ref_release(c);
    policy_free(p);
}

static void rtcr_should_refuse_a_null_resource_by_its_weight(void **state)
{
    static const char text[] = RTCR_POLICY("null");
    struct policy *p = NULL;
    struct err e = { "" };

    (void)state;
    assert_int_equal(
        policy_load_buffer("rtcr.json", text, sizeof(text) - 1, NULL, &p, &e),
        -1);
    assert_string_equal(e.msg,
                        "rtcr.json: priorities[0].argument: "
                        "RequestedToCapacityRatio args: resources[1].weight: "
                        "Invalid value: 0: resource weight of  not in valid "
                        "range [1, inf)");
}

/*
 * fuzz_parse: a byte-order mark before a document with a NUL byte; the
 * streamed path counted the mark in the offset, the tree path did not.
 */
static void parse_should_count_offsets_after_a_bom_both_ways(void **state)
{
    static const char doc[] = "\xEF\xBB\xBF{\"kind\":\"Pod\",\"a\":\"x\0\"}";
    struct kube_objects o1, o2;
    struct err e1 = { "" }, e2 = { "" };
    struct arena a;

    (void)state;
    arena_init(&a, 0);
    memset(&o1, 0, sizeof(o1));
    memset(&o2, 0, sizeof(o2));
    assert_int_equal(kube_parse_document(&a, doc, sizeof(doc) - 1, &o1, &e1),
                     -1);
    assert_int_equal(
        kube_parse_document_tree(&a, doc, sizeof(doc) - 1, &o2, &e2), -1);
    assert_non_null(strstr(e1.msg, "NUL byte at byte offset 20"));
    assert_string_equal(e1.msg, e2.msg);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_should_count_offsets_after_a_bom_both_ways),
        cmocka_unit_test(json_in_situ_should_report_lines_of_the_input),
        cmocka_unit_test(json_in_situ_should_still_decode_escaped_line_feeds),
        cmocka_unit_test(preempt_should_refuse_pdb_counts_beyond_int64),
        cmocka_unit_test(rtcr_should_score_a_resource_without_a_name_as_empty),
        cmocka_unit_test(rtcr_should_refuse_a_null_resource_by_its_weight),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
