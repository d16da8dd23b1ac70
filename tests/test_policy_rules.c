/*
 * test_policy_rules.c: the labelRule and labelScoreRule arguments (issue
 * 17) in JSON and INI: every error with its exact message (file, path,
 * value), what loads, the INI and JSON writers round-tripping them, and
 * check showing the folded rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

#define HDR      "{\"kind\":\"Policy\",\"apiVersion\":\"v1\","
#define PREDS(x) HDR "\"predicates\":[" x "]}"
#define PRIOS(x) HDR "\"priorities\":[" x "]}"
#define LR(name, body)                                                         \
    "{\"name\":\"" name "\",\"argument\":{\"labelRule\":{" body "}}}"
#define LSR(name, body)                                                        \
    "{\"name\":\"" name                                                        \
    "\",\"weight\":1,\"argument\":{\"labelScoreRule\":{" body "}}}"
#define INI_HDR "[policy]\napiVersion = v1\n\n"

#define FORMS "write \"key\", \"!key\", \"key=value\" or \"key!=value\""
#define VALUE_MSG                                                              \
    "must be 63 characters or less, alphanumeric at both ends, with '-', "     \
    "'_' or '.' between"
#define QNAME_MSG                                                              \
    "name part must consist of alphanumeric characters, '-', '_' or '.', "     \
    "and must start and end with an alphanumeric character (e.g. "             \
    "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "    \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

struct rcase {
    const char *name;
    enum policy_format format;
    const char *doc;
    const char *want; /* exact error; NULL: must load */
};

static const struct rcase cases[] = {
    { "a rule in every selector form loads", POLICY_FORMAT_JSON,
      PREDS(LR("R", "\"podSelector\":[\"a\",\"!b\",\"c=d\",\"e!=f\"],"
                    "\"nodeSelector\":[\"x.io/g\",\"!h\",\"i=\",\"j!=k\"],"
                    "\"reason\":\"r\"")),
      NULL },
    { "bad label key, second item, third entry", POLICY_FORMAT_JSON,
      PREDS("{\"name\":\"HighCommPodFilter\"}," LR(
          "A", "\"nodeSelector\":"
               "[\"a\"],\"reason\":"
               "\"r\"") "," LR("B", "\"podSelector\":[\"high-comm\",\"-bad=x\"]"
                                    ",\"nodeSelector\":"
                                    "[\"a\"],\"reason\":\"r\"")),
      "t: predicates[2].argument: labelRule.podSelector[1]: invalid label "
      "key \"-bad\" in \"-bad=x\": " QNAME_MSG "; " FORMS },
    { "bad label value", POLICY_FORMAT_JSON,
      PREDS(LR("R", "\"nodeSelector\":[\"zone=a b\"],\"reason\":\"r\"")),
      "t: predicates[0].argument: labelRule.nodeSelector[0]: invalid label "
      "value \"a b\" in \"zone=a b\": " VALUE_MSG },
    { "empty requirement", POLICY_FORMAT_JSON,
      PREDS(LR("R", "\"nodeSelector\":[\"\"],\"reason\":\"r\"")),
      "t: predicates[0].argument: labelRule.nodeSelector[0]: empty "
      "requirement: " FORMS },
    { "\"!\" alone", POLICY_FORMAT_JSON,
      PREDS(LR("R", "\"nodeSelector\":[\"!\"],\"reason\":\"r\"")),
      "t: predicates[0].argument: labelRule.nodeSelector[0]: invalid label "
      "key \"\" in \"!\": name part must be non-empty; " FORMS },
    { "nodeSelector missing", POLICY_FORMAT_JSON,
      PREDS(LR("R", "\"podSelector\":[\"a\"],\"reason\":\"r\"")),
      "t: predicates[0].argument: labelRule.nodeSelector: required: at "
      "least one requirement the nodes must meet" },
    { "nodeSelector empty", POLICY_FORMAT_JSON,
      PREDS(LR("R", "\"nodeSelector\":[],\"reason\":\"r\"")),
      "t: predicates[0].argument: labelRule.nodeSelector: required: at "
      "least one requirement the nodes must meet" },
    { "reason missing", POLICY_FORMAT_JSON,
      PREDS(LR("R", "\"nodeSelector\":[\"a\"]")),
      "t: predicates[0].argument: labelRule.reason: required: the reason "
      "the nodes that fail the rule give" },
    { "LabelRule without an argument loads (no rules: every pod fits)",
      POLICY_FORMAT_JSON, PREDS("{\"name\":\"LabelRule\"}"), NULL },
    { "LabelRule with another argument", POLICY_FORMAT_JSON,
      PREDS("{\"name\":\"LabelRule\",\"argument\":{\"highComm\":{}}}"),
      "t: predicates[0].argument: LabelRule takes a labelRule argument" },
    { "selector not a list", POLICY_FORMAT_JSON,
      PREDS(LR("R", "\"nodeSelector\":\"a\",\"reason\":\"r\"")),
      "t: predicates[0].argument.labelRule.nodeSelector: expected an array "
      "of strings, got string \"a\"" },
    { "score rule with every field left out loads", POLICY_FORMAT_JSON,
      PRIOS(LSR("S", "")), NULL },
    { "score 0 and 10 load", POLICY_FORMAT_JSON,
      PRIOS(LSR("S", "\"score\":0") "," LSR("T", "\"score\":10")), NULL },
    { "score above 10", POLICY_FORMAT_JSON,
      PRIOS("{\"name\":\"EqualPriority\",\"weight\":1}," LSR(
          "S", "\"podSelector\":[\"a\"],\"score\":11")),
      "t: priorities[1].argument: labelScoreRule.score: Invalid value: 11: "
      "not in valid range [0, 10]" },
    { "score below 0", POLICY_FORMAT_JSON, PRIOS(LSR("S", "\"score\":-1")),
      "t: priorities[0].argument: labelScoreRule.score: Invalid value: -1: "
      "not in valid range [0, 10]" },
    { "score not an integer", POLICY_FORMAT_JSON,
      PRIOS(LSR("S", "\"score\":\"10\"")),
      "t: priorities[0].argument.labelScoreRule.score: expected an int32 "
      "number, got string \"10\"" },
    { "score rule: bad value after \"!=\"", POLICY_FORMAT_JSON,
      PRIOS(LSR("S", "\"podSelector\":[\"a!=-x\"],\"score\":1")),
      "t: priorities[0].argument: labelScoreRule.podSelector[0]: invalid "
      "label value \"-x\" in \"a!=-x\": " VALUE_MSG },
    { "score rule: bad key in nodeSelector", POLICY_FORMAT_JSON,
      PRIOS(LSR("S", "\"nodeSelector\":[\"ok\",\"a/b/c\"],\"score\":1")),
      "t: priorities[0].argument: labelScoreRule.nodeSelector[1]: invalid "
      "label key \"a/b/c\" in \"a/b/c\": a qualified name must consist of "
      "alphanumeric characters, '-', '_' or '.', and must start and end "
      "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
      "'123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
      "subdomain prefix and '/' (e.g. 'example.com/MyName'); " FORMS },
    { "LabelScoreRule without an argument loads (no rules: 0 everywhere)",
      POLICY_FORMAT_JSON, PRIOS("{\"name\":\"LabelScoreRule\",\"weight\":1}"),
      NULL },
    /* INI: one line per list item; errors name the entry's line. */
    { "INI: a rule loads", POLICY_FORMAT_INI,
      INI_HDR "[predicate \"R\"]\nargument = labelRule\n"
              "labelRule.podSelector = high-comm\n"
              "labelRule.podSelector = !batch\n"
              "labelRule.nodeSelector = rdma=true\n"
              "labelRule.reason = no RDMA\n",
      NULL },
    { "INI: bad label key", POLICY_FORMAT_INI,
      INI_HDR "[predicate \"R\"]\nargument = labelRule\n"
              "labelRule.podSelector = high-comm\n"
              "labelRule.podSelector = -bad=x\n"
              "labelRule.nodeSelector = a\nlabelRule.reason = r\n",
      "t:4: argument: labelRule.podSelector[1]: invalid label key \"-bad\" "
      "in \"-bad=x\": " QNAME_MSG "; " FORMS },
    { "INI: reason missing", POLICY_FORMAT_INI,
      INI_HDR "[predicate \"R\"]\nargument = labelRule\n"
              "labelRule.nodeSelector = a\n",
      "t:4: argument: labelRule.reason: required: the reason the nodes that "
      "fail the rule give" },
    { "INI: score out of range", POLICY_FORMAT_INI,
      INI_HDR "[priority \"S\"]\nweight = 1\nargument = labelScoreRule\n"
              "labelScoreRule.score = 12\n",
      "t:4: argument: labelScoreRule.score: Invalid value: 12: not in valid "
      "range [0, 10]" },
};

static void rules_should_report_path_and_value(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct rcase *c = &cases[i];
        struct policy_load_opts o = { .format = c->format };
        struct policy *p = NULL;
        struct err e;
        int rc;

        err_clear(&e);
        rc = policy_load_buffer("t", c->doc, strlen(c->doc), &o, &p, &e);
        if (!c->want && rc) {
            print_error("%s: want success, got: %s\n", c->name, e.msg);
            bad++;
        } else if (c->want && !rc) {
            print_error("%s: want error %s, it loaded\n", c->name, c->want);
            bad++;
        } else if (c->want && strcmp(e.msg, c->want)) {
            print_error("%s:\n  got  %s\n  want %s\n", c->name, e.msg, c->want);
            bad++;
        }
        policy_free(p);
    }
    if (bad)
        fail_msg("%d case(s) failed", bad);
}

static const char both[] = HDR "\"predicates\":[" LR(
    "RdmaOnly",
    "\"podSelector\":[\"high-comm\"],"
    "\"nodeSelector\":[\"rdma=true\"],"
    "\"reason\":\"Node does not support "
    "RDMA\"") "," LR("Ml",
                     "\"podSelector\":["
                     "\"team=ml\",\"!"
                     "batch\"],"
                     "\"nodeSelector\":["
                     "\"gpu\",\"zone!="
                     "edge\"],"
                     "\"reason\":\"no "
                     "GPU\"") "],"
                              "\"prioriti"
                              "es\":"
                              "[" LSR("Rdma",
                                      "\"podS"
                                      "electo"
                                      "r\":["
                                      "\"high"
                                      "-comm"
                                      "\"],"
                                      "\"node"
                                      "Select"
                                      "or\":["
                                      "\"rdma"
                                      "=true"
                                      "\"],"
                                      "\"scor"
                                      "e\":"
                                      "10") "," LSR("Free",
                                                    "\"podSelector\":[\"!high-"
                                                    "comm\"],"
                                                    "\"nodeSelector\":[\"rdma!="
                                                    "true\"],\"score\":7") "]}";

/* Load buf; the policy or a failed test. */
static struct policy *load(const char *buf, enum policy_format f)
{
    struct policy_load_opts o = { .format = f };
    struct policy *p = NULL;
    struct err e;

    err_clear(&e);
    if (policy_load_buffer("t", buf, strlen(buf), &o, &p, &e))
        fail_msg("load: %s", e.msg);
    return p;
}

/* JSON -> INI -> JSON gives the same canonical JSON. */
static void rules_should_round_trip_through_ini(void **state)
{
    struct policy *p = load(both, POLICY_FORMAT_JSON), *q;
    struct arena a;
    struct err e;
    char *json, *ini, *json2;

    (void)state;
    arena_init(&a, 0);
    err_clear(&e);
    json = policy_write_json(&p->doc, &a, &e);
    ini = policy_write_ini(&p->doc, &a, &e);
    assert_non_null(json);
    assert_non_null(ini);
    assert_non_null(strstr(ini, "labelRule.podSelector = team=ml\n"
                                "labelRule.podSelector = !batch\n"));
    assert_non_null(strstr(ini, "labelScoreRule.nodeSelector = rdma!=true\n"
                                "labelScoreRule.score = 7\n"));
    q = load(ini, POLICY_FORMAT_INI);
    json2 = policy_write_json(&q->doc, &a, &e);
    assert_non_null(json2);
    assert_string_equal(json, json2);
    policy_free(q);
    policy_free(p);
    arena_destroy(&a);
}

/* check shows every entry's rule under the one plugin, in Policy order. */
static void check_should_show_the_folded_rules(void **state)
{
    struct policy *p = load(both, POLICY_FORMAT_JSON);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    (void)state;
    assert_non_null(f);
    assert_int_equal(policy_print_check(f, p, 0), 0);
    fclose(f);
    assert_non_null(strstr(buf, "LabelRule [file] from [RdmaOnly, Ml]\n"));
    assert_non_null(strstr(
        buf, "args: rules=[[high-comm]:[rdma=true]:Node does not support "
             "RDMA, [team=ml, !batch]:[gpu, zone!=edge]:no GPU]\n"));
    assert_non_null(strstr(buf, "LabelScoreRule weight 1 [file] from [Rdma, "
                                "Free]\n"));
    assert_non_null(strstr(buf, "args: rules=[[high-comm]:[rdma=true]:10, "
                                "[!high-comm]:[rdma!=true]:7]\n"));
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    assert_int_equal(policy_print_check(f, p, 1), 0);
    fclose(f);
    assert_non_null(
        strstr(buf, "{\"rules\": [{\"podSelector\": [\"high-comm\"], "
                    "\"nodeSelector\": [\"rdma=true\"], \"score\": 10}, "
                    "{\"podSelector\": [\"!high-comm\"], \"nodeSelector\": "
                    "[\"rdma!=true\"], \"score\": 7}]}"));
    free(buf);
    policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rules_should_report_path_and_value),
        cmocka_unit_test(rules_should_round_trip_through_ini),
        cmocka_unit_test(check_should_show_the_folded_rules),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
