/*
 * test_policy_validate.c: every rule a Policy is checked against, with the
 * exact message (v1.22's text, plus file and JSON path), and what loads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"

#define HDR      "{\"kind\":\"Policy\",\"apiVersion\":\"v1\","
#define PRIOS(x) HDR "\"priorities\":[" x "]}"
#define PREDS(x) HDR "\"predicates\":[" x "]}"
#define EXTS(x)  HDR "\"extenders\":[" x "]}"

struct vcase {
    const char *name;
    const char *json;
    unsigned compat;
    const char *want; /* exact error; NULL: must load */
};

static void run_cases(const struct vcase *c, size_t n)
{
    size_t i;
    int bad = 0;

    for (i = 0; i < n; i++) {
        struct policy_load_opts o = { .compat = c[i].compat,
                                      .format = POLICY_FORMAT_JSON,
                                      .warnings = NULL };
        struct policy *p = NULL;
        struct err e;
        int rc;

        err_clear(&e);
        rc = policy_load_buffer("t.json", c[i].json, strlen(c[i].json), &o, &p,
                                &e);
        if (!c[i].want && rc) {
            print_error("%s: want success, got: %s\n", c[i].name, e.msg);
            bad++;
        } else if (c[i].want && !rc) {
            print_error("%s: want error %s, it loaded\n", c[i].name, c[i].want);
            bad++;
        } else if (c[i].want && strcmp(e.msg, c[i].want)) {
            print_error("%s:\n  got  %s\n  want %s\n", c[i].name, e.msg,
                        c[i].want);
            bad++;
        } else if (c[i].want && p) {
            print_error("%s: failed load left a policy\n", c[i].name);
            bad++;
        }
        policy_free(p);
    }
    if (bad)
        fail_msg("%d case(s) failed", bad);
}

#define MAXW "922337203685477580"

/* TestValidatePolicy (validation_test.go), ported; names resolve here, so
 * the "valid" rows use registered names. */
static const struct vcase validate_policy_cases[] = {
    { "no weight defined in policy", PRIOS("{\"name\":\"NoWeightPriority\"}"),
      0,
      "t.json: priorities[0].weight: priority NoWeightPriority should have a "
      "positive weight applied to it or it has overflown" },
    { "policy weight is not positive",
      PRIOS("{\"name\":\"NoWeightPriority\",\"weight\":0}"), 0,
      "t.json: priorities[0].weight: priority NoWeightPriority should have a "
      "positive weight applied to it or it has overflown" },
    { "valid weight priority",
      PRIOS("{\"name\":\"LeastRequestedPriority\",\"weight\":2}"), 0, NULL },
    { "invalid negative weight policy",
      PRIOS("{\"name\":\"WeightPriority\",\"weight\":-2}"), 0,
      "t.json: priorities[0].weight: priority WeightPriority should have a "
      "positive weight applied to it or it has overflown" },
    { "policy weight exceeds maximum",
      PRIOS("{\"name\":\"WeightPriority\",\"weight\":" MAXW "}"), 0,
      "t.json: priorities[0].weight: priority WeightPriority should have a "
      "positive weight applied to it or it has overflown" },
    { "valid weight in policy extender config",
      EXTS("{\"urlPrefix\":\"http://127.0.0.1:8081/extender\","
           "\"prioritizeVerb\":\"prioritize\",\"weight\":2}"),
      0, NULL },
    { "invalid negative weight in policy extender config",
      EXTS("{\"urlPrefix\":\"http://127.0.0.1:8081/extender\","
           "\"prioritizeVerb\":\"prioritize\",\"weight\":-2}"),
      0,
      "t.json: extenders[0].weight: Invalid value: -2: must have a positive "
      "weight applied to it" },
    { "valid filter verb and url prefix",
      EXTS("{\"urlPrefix\":\"http://127.0.0.1:8081/extender\","
           "\"filterVerb\":\"filter\"}"),
      0, NULL },
    { "valid preempt verb and urlprefix",
      EXTS("{\"urlPrefix\":\"http://127.0.0.1:8081/extender\","
           "\"preemptVerb\":\"preempt\"}"),
      0, NULL },
    { "invalid multiple extenders",
      EXTS("{\"urlPrefix\":\"http://127.0.0.1:8081/extender\","
           "\"bindVerb\":\"bind\"},{\"urlPrefix\":"
           "\"http://127.0.0.1:8082/extender\",\"bindVerb\":\"bind\"}"),
      0,
      "t.json: extenders: Invalid value: \"found 2 extenders implementing "
      "bind\": only one extender can implement bind" },
    { "invalid duplicate extender resource name",
      EXTS("{\"urlPrefix\":\"http://127.0.0.1:8081/extender\","
           "\"managedResources\":[{\"name\":\"foo.com/bar\"}]},"
           "{\"urlPrefix\":\"http://127.0.0.1:8082/extender\",\"bindVerb\":"
           "\"bind\",\"managedResources\":[{\"name\":\"foo.com/bar\"}]}"),
      0,
      "t.json: extenders[1].managedResources[0].name: Invalid value: "
      "\"foo.com/bar\": duplicate extender managed resource name" },
    { "invalid extended resource name",
      EXTS("{\"urlPrefix\":\"http://127.0.0.1:8081/extender\","
           "\"managedResources\":[{\"name\":\"kubernetes.io/foo\"}]}"),
      0,
      "t.json: extenders[0].managedResources[0].name: Invalid value: "
      "\"kubernetes.io/foo\": is an invalid extended resource name" },
    { "invalid redeclared RequestedToCapacityRatio custom priority",
      PRIOS("{\"name\":\"customPriority1\",\"weight\":1,\"argument\":{"
            "\"requestedToCapacityRatioArguments\":{}}},{\"name\":"
            "\"customPriority2\",\"weight\":1,\"argument\":{"
            "\"requestedToCapacityRatioArguments\":{}}}"),
      0,
      "t.json: priorities[1].argument: priority \"customPriority2\" "
      "redeclares custom priority \"RequestedToCapacityRatio\", from: "
      "\"customPriority1\"" },
    { "different weights for LabelPreference custom priority",
      PRIOS("{\"name\":\"customPriority1\",\"weight\":1,\"argument\":{"
            "\"labelPreference\":{}}},{\"name\":\"customPriority2\","
            "\"weight\":2,\"argument\":{\"labelPreference\":{}}}"),
      0,
      "t.json: priorities[1].weight: LabelPreference  priority "
      "\"customPriority2\" has a different weight with \"customPriority1\"" },
    { "different weights for ServiceAntiAffinity custom priority",
      PRIOS("{\"name\":\"customPriority1\",\"weight\":1,\"argument\":{"
            "\"serviceAntiAffinity\":{}}},{\"name\":\"customPriority2\","
            "\"weight\":2,\"argument\":{\"serviceAntiAffinity\":{}}}"),
      0,
      "t.json: priorities[1].weight: ServiceAntiAffinity  priority "
      "\"customPriority2\" has a different weight with \"customPriority1\"" },
    { "invalid hardPodAffinitySymmetricWeight, above the range",
      HDR "\"hardPodAffinitySymmetricWeight\":101}", 0,
      "t.json: hardPodAffinitySymmetricWeight: Invalid value: 101: not in "
      "valid range [0-100]" },
    { "invalid hardPodAffinitySymmetricWeight, below the range",
      HDR "\"hardPodAffinitySymmetricWeight\":-1}", 0,
      "t.json: hardPodAffinitySymmetricWeight: Invalid value: -1: not in "
      "valid range [0-100]" },
    /* Beyond the upstream table: aggregation and the remaining rules. */
    { "errors are aggregated, duplicates once",
      HDR "\"priorities\":[{\"name\":\"A\"},{\"name\":\"A\"}],"
          "\"hardPodAffinitySymmetricWeight\":101}",
      0,
      "t.json: [priorities[0].weight: priority A should have a positive "
      "weight applied to it or it has overflown, "
      "hardPodAffinitySymmetricWeight: Invalid value: 101: not in valid "
      "range [0-100]]" },
    { "argument without members",
      PRIOS("{\"name\":\"X\",\"weight\":1,"
            "\"argument\":{}}"),
      0,
      "t.json: priorities[0].argument: no priority arguments set for "
      "priority X" },
    { "managed resource with two slashes",
      EXTS("{\"urlPrefix\":\"u\",\"managedResources\":[{\"name\":"
           "\"a/b/c\"}]}"),
      0,
      "t.json: extenders[0].managedResources[0].name: Invalid value: "
      "\"a/b/c\": a qualified name must consist of alphanumeric characters, "
      "'-', '_' or '.', and must start and end with an alphanumeric "
      "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
      "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
      "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')" },
    { "native resource is not an extended resource",
      EXTS("{\"urlPrefix\":\"u\",\"managedResources\":[{\"name\":"
           "\"cpu\"}]}"),
      0,
      "t.json: extenders[0].managedResources[0].name: Invalid value: "
      "\"cpu\": is an invalid extended resource name" },
    { "prioritizeVerb without weight",
      EXTS("{\"urlPrefix\":\"u\",\"prioritizeVerb\":\"p\"}"), 0,
      "t.json: extenders[0].weight: Invalid value: 0: must have a positive "
      "weight applied to it" },
};

static void validate_policy_should_match_v122(void **state)
{
    (void)state;
    run_cases(validate_policy_cases,
              sizeof(validate_policy_cases) / sizeof(validate_policy_cases[0]));
}

/* ProcessPredicatePolicy / ProcessPriorityPolicy (legacy_registry.go)
 * and our refusals where v1.22 would crash or wrap. */
static const struct vcase resolve_cases[] = {
    { "unknown predicate with a suggestion",
      PREDS("{\"name\":\"PodFitsResources\"},{\"name\":\"HostName\"},"
            "{\"name\":\"NoDiskConflict\"},{\"name\":\"PodFitsHostNw\"}"),
      0,
      "t.json: predicates[3].name: predicate type not found for "
      "\"PodFitsHostNw\"; did you mean \"PodFitsHostNew\"?" },
    { "unknown priority with a suggestion",
      PRIOS("{\"name\":\"LeastRequestedPriorty\",\"weight\":1}"), 0,
      "t.json: priorities[0].name: priority type not found for "
      "\"LeastRequestedPriorty\"; did you mean \"LeastRequestedPriority\"?" },
    { "unknown predicate, nothing close", PREDS("{\"name\":\"Zzzz\"}"), 0,
      "t.json: predicates[0].name: predicate type not found for \"Zzzz\"" },
    { "RequestedToCapacityRatioPriority needs its argument",
      PRIOS("{\"name\":\"RequestedToCapacityRatioPriority\",\"weight\":1}"), 0,
      "t.json: priorities[0].name: priority type not found for "
      "\"RequestedToCapacityRatioPriority\" (it needs a "
      "requestedToCapacityRatioArguments argument)" },
    { "two predicate arguments",
      PREDS("{\"name\":\"X\",\"argument\":{\"serviceAffinity\":{\"labels\":"
            "[\"a\"]},\"labelsPresence\":{\"labels\":[\"b\"]}}}"),
      0,
      "t.json: predicates[0].argument: exactly 1 predicate argument is "
      "required, numArgs: 2, predicate {X <argument>}" },
    { "empty predicate argument", PREDS("{\"name\":\"X\",\"argument\":{}}"), 0,
      "t.json: predicates[0].argument: exactly 1 predicate argument is "
      "required, numArgs: 0, predicate {X <argument>}" },
    { "two priority arguments",
      PRIOS("{\"name\":\"X\",\"weight\":1,\"argument\":{\"labelPreference\":"
            "{\"label\":\"a\"},\"serviceAntiAffinity\":{\"label\":\"b\"}}}"),
      0,
      "t.json: priorities[0].argument: exactly 1 priority argument is "
      "required, numArgs: 2, priority {X 1 <argument>}" },
    { "predicate argument without a name needs one",
      PREDS("{\"argument\":null}"), 0,
      "t.json: predicates[0].name: predicate type not found for \"\"" },
    { "internal predicate key with an argument",
      PREDS("{\"name\":\"CheckNodeLabelPresence\",\"argument\":{"
            "\"labelsPresence\":{\"labels\":[\"a\"],\"presence\":true}}}"),
      0,
      "t.json: predicates[0].name: \"CheckNodeLabelPresence\" is v1.22's "
      "internal key: v1.22 drops this entry's argument and then fails to "
      "start; give the entry a name of its own (e.g. "
      "\"MyCheckNodeLabelPresence\")" },
    { "internal priority key with an argument",
      PRIOS("{\"name\":\"NodeLabel\",\"weight\":1,\"argument\":{"
            "\"labelPreference\":{\"label\":\"a\",\"presence\":true}}}"),
      0,
      "t.json: priorities[0].name: \"NodeLabel\" is v1.22's internal key: "
      "v1.22 drops this entry's argument and then crashes or fails to "
      "start; give the entry a name of its own (e.g. \"MyNodeLabel\")" },
    { "bare internal priority key without args anywhere",
      PRIOS("{\"name\":\"ServiceAffinity\",\"weight\":1}"), 0,
      "t.json: priorities[0].name: priority \"ServiceAffinity\" has no "
      "serviceAntiAffinity argument anywhere in the policy: v1.22 would "
      "build its plugin without arguments and fail to start; use a custom "
      "name with an argument" },
    { "bare internal priority key with args from a predicate",
      HDR "\"predicates\":[{\"name\":\"Z\",\"argument\":{\"labelsPresence\":"
          "{\"labels\":[\"z\"],\"presence\":true}}}],\"priorities\":[{"
          "\"name\":\"NodeLabel\",\"weight\":1}]}",
      0, NULL },
    { "bare internal predicate key",
      PREDS("{\"name\":\"CheckServiceAffinity\"}"), 0,
      "t.json: predicates[0].name: predicate \"CheckServiceAffinity\" has "
      "no serviceAffinity argument anywhere in the policy: v1.22 would "
      "build its plugin without arguments and fail to start; use a custom "
      "name with an argument" },
    { "weight above int32 is refused",
      PRIOS("{\"name\":\"LeastRequestedPriority\",\"weight\":4294967297}"), 0,
      "t.json: priorities[0].weight: priority LeastRequestedPriority weight "
      "4294967297 is above 2147483647: v1.22 passes it but truncates plugin "
      "weights to int32 (it would run with weight 1); use a smaller weight" },
    { "EqualPriority weight above int32 is harmless",
      PRIOS("{\"name\":\"EqualPriority\",\"weight\":4294967297}"), 0, NULL },
    { "label count multiplication overflow",
      PRIOS("{\"name\":\"A\",\"weight\":1073741824,\"argument\":{"
            "\"labelPreference\":{\"label\":\"a\"}}},{\"name\":\"B\","
            "\"weight\":1073741824,\"argument\":{\"labelPreference\":{"
            "\"label\":\"b\"}}}"),
      0,
      "t.json: priorities[0].name: weight 1073741824 x 2 custom entries = "
      "2147483648 is above 2147483647: v1.22 would wrap the plugin weight; "
      "use a smaller weight" },
    { "dropped predicate without compat",
      PREDS("{\"name\":\"CheckNodeCondition\"}"), 0,
      "t.json: predicates[0].name: predicate type not found for "
      "\"CheckNodeCondition\" (v1.22 dropped it; load with `--compat legacy` "
      "to accept policies written for older clusters)" },
    { "dropped predicate with compat",
      PREDS("{\"name\":\"CheckNodeCondition\"}"), POLICY_COMPAT_LEGACY, NULL },
    { "dropped priority without compat",
      PRIOS("{\"name\":\"ResourceLimitsPriority\",\"weight\":1}"), 0,
      "t.json: priorities[0].name: priority type not found for "
      "\"ResourceLimitsPriority\" (v1.22 dropped it; load with `--compat "
      "legacy` to accept policies written for older clusters)" },
    { "dropped priority with compat",
      PRIOS("{\"name\":\"ResourceLimitsPriority\",\"weight\":1}"),
      POLICY_COMPAT_LEGACY, NULL },
    { "label both present and absent (predicates)",
      PREDS("{\"name\":\"A\",\"argument\":{\"labelsPresence\":{\"labels\":"
            "[\"x\",\"foo\"],\"presence\":true}}},{\"name\":\"B\","
            "\"argument\":{\"labelsPresence\":{\"labels\":[\"foo\"],"
            "\"presence\":false}}}"),
      0,
      "t.json: NodeLabel args: presentLabels[1]: Invalid value: \"foo\": "
      "conflict with absentLabels[0]" },
    { "label preferred both ways",
      PRIOS("{\"name\":\"A\",\"weight\":1,\"argument\":{\"labelPreference\":"
            "{\"label\":\"s\",\"presence\":true}}},{\"name\":\"B\","
            "\"weight\":1,\"argument\":{\"labelPreference\":{\"label\":\"s\","
            "\"presence\":false}}}"),
      0,
      "t.json: NodeLabel args: presentLabelsPreference[0]: Invalid value: "
      "\"s\": conflict with absentLabelsPreference[0]" },
    { "required present and preferred absent is fine",
      HDR "\"predicates\":[{\"name\":\"A\",\"argument\":{\"labelsPresence\":"
          "{\"labels\":[\"s\"],\"presence\":true}}}],\"priorities\":[{"
          "\"name\":\"B\",\"weight\":1,\"argument\":{\"labelPreference\":{"
          "\"label\":\"s\",\"presence\":false}}}]}",
      0, NULL },
    { "RTCR without shape",
      PRIOS("{\"name\":\"R\",\"weight\":1,\"argument\":{"
            "\"requestedToCapacityRatioArguments\":{}}}"),
      0,
      "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
      "shape: Required value: at least one point must be specified" },
    { "RTCR shape unsorted, out of range, weight 0",
      PRIOS("{\"name\":\"R\",\"weight\":1,\"argument\":{"
            "\"requestedToCapacityRatioArguments\":{\"shape\":[{"
            "\"utilization\":50,\"score\":11},{\"utilization\":50,"
            "\"score\":0}],\"resources\":[{\"name\":\"cpu\"}]}}}"),
      0,
      "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
      "[shape[1].utilization: Invalid value: 50: utilization values must be "
      "sorted in increasing order, shape[0].score: Invalid value: 11: not in "
      "valid range [0, 10], resources[0].weight: Invalid value: 0: resource "
      "weight of cpu not in valid range [1, inf)]" },
    { "RTCR utilization above 100",
      PRIOS("{\"name\":\"R\",\"weight\":1,\"argument\":{"
            "\"requestedToCapacityRatioArguments\":{\"shape\":[{"
            "\"utilization\":101,\"score\":1}]}}}"),
      0,
      "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
      "shape[0].utilization: Invalid value: 101: not in valid range [0, "
      "100]" },
    { "ignoredByScheduler without NodeResourcesFit",
      HDR "\"predicates\":[],\"extenders\":[{\"urlPrefix\":\"u\","
          "\"managedResources\":[{\"name\":\"example.com/foo\","
          "\"ignoredByScheduler\":true}]}]}",
      0,
      "t.json: extenders[0].managedResources[0].ignoredByScheduler: can't "
      "find NodeResourcesFitArgs in plugin config (v1.22 refuses "
      "ignoredByScheduler when neither GeneralPredicates nor "
      "PodFitsResources is enabled)" },
    { "ignoredByScheduler with the default predicates",
      EXTS("{\"urlPrefix\":\"u\",\"managedResources\":[{\"name\":"
           "\"example.com/foo\",\"ignoredByScheduler\":true}]}"),
      0, NULL },
    { "highComm with a bad label key",
      PREDS("{\"name\":\"HighCommPodFilter\",\"argument\":{\"highComm\":{"
            "\"nodeLabel\":\"-bad\"}}}"),
      0,
      "t.json: predicates[0].argument: highComm.nodeLabel: invalid label "
      "key \"-bad\": name part must consist of alphanumeric characters, "
      "'-', '_' or '.', and must start and end with an alphanumeric "
      "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
      "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')" },
    { "conflicting highComm arguments",
      PREDS("{\"name\":\"HighCommPodFilter\"},{\"name\":\"Mine\","
            "\"argument\":{\"highComm\":{\"podLabel\":\"x\"}}}"),
      0,
      "t.json: predicates[1].argument: highComm: conflicts with the "
      "highComm argument of an earlier entry; one plugin can have one set "
      "of arguments" },
    { "HighCommPodFilter with another argument",
      PREDS("{\"name\":\"HighCommPodFilter\",\"argument\":{"
            "\"serviceAffinity\":{\"labels\":[\"a\"]}}}"),
      0,
      "t.json: predicates[0].argument: HighCommPodFilter takes a highComm "
      "argument" },
};

static void resolution_should_match_v122(void **state)
{
    (void)state;
    run_cases(resolve_cases, sizeof(resolve_cases) / sizeof(resolve_cases[0]));
}

/* Decoding: types, header, syntax. */
static const struct vcase decode_cases[] = {
    { "weight as a string", PRIOS("{\"name\":\"A\",\"weight\":\"1\"}"), 0,
      "t.json: priorities[0].weight: expected an int64 number, got string "
      "\"1\"" },
    { "fractional weight", PRIOS("{\"name\":\"A\",\"weight\":1.5}"), 0,
      "t.json: priorities[0].weight: expected an integer, got number 1.5" },
    { "httpTimeout as a duration string",
      EXTS("{\"urlPrefix\":\"u\",\"httpTimeout\":\"5s\"}"), 0,
      "t.json: extenders[0].httpTimeout: expected an integer number of "
      "nanoseconds (a Go time.Duration), got string \"5s\"; write "
      "5000000000 for 5s" },
    { "hardPodAffinitySymmetricWeight beyond int32",
      HDR "\"hardPodAffinitySymmetricWeight\":3000000000}", 0,
      "t.json: hardPodAffinitySymmetricWeight: number 3000000000 overflows "
      "int32" },
    { "predicates not a list", HDR "\"predicates\":{}}", 0,
      "t.json: predicates: expected an array, got an object" },
    { "labels not strings",
      PREDS("{\"name\":\"A\",\"argument\":{\"serviceAffinity\":{\"labels\":"
            "[1]}}}"),
      0,
      "t.json: predicates[0].argument.serviceAffinity.labels[0]: expected a "
      "string, got number 1" },
    { "bad base64",
      EXTS("{\"urlPrefix\":\"u\",\"tlsConfig\":{\"caData\":"
           "\"!!\"}}"),
      0,
      "t.json: extenders[0].tlsConfig.caData: expected base64 data, got "
      "\"!!\"" },
    { "missing kind", "{\"apiVersion\":\"v1\"}", 0,
      "t.json: kind: missing; a Policy needs \"kind\": \"Policy\" (v1.22's "
      "decoder refuses it without)" },
    { "wrong apiVersion", "{\"kind\":\"Policy\",\"apiVersion\":\"v2\"}", 0,
      "t.json: apiVersion: expected \"v1\" or "
      "\"kubescheduler.config.k8s.io/v1\", got \"v2\"" },
    { "group apiVersion",
      "{\"kind\":\"Policy\",\"apiVersion\":"
      "\"kubescheduler.config.k8s.io/v1\"}",
      0, NULL },
    { "syntax error", "{\"kind\":\"Policy\",\n \"apiVersion\": v1}", 0,
      "t.json: invalid JSON at byte 33 (line 2, column 16): expected "
      "value near \"v1}\"" },
    { "trailing comma",
      "{\"kind\":\"Policy\",\n \"predicates\": [\n  {\"name\": \"A\"},\n ],\n}",
      0,
      "t.json: invalid JSON at byte 53 (line 4, column 2): trailing "
      "comma in array near \"],\"" },
    { "trailing comma in an object",
      "{\"kind\":\"Policy\",\n \"apiVersion\": \"v1\",\n}", 0,
      "t.json: invalid JSON at byte 39 (line 3, column 1): trailing "
      "comma in object near \"}\"" },
    { "missing colon", "{\"kind\" \"Policy\"}", 0,
      "t.json: invalid JSON at byte 8 (line 1, column 9): expected ':' "
      "after object key near \"\\\"Policy\\\"}\"" },
    { "a repeated key (v1.20.2 refuses it: strict decoding)",
      "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":"
      "\"PodFitsResources\",\"argument\":null,\"name\":\"HostName\"}]}",
      0,
      "t.json: predicates[0].name: key \"name\" already set in map (v1.22's "
      "strict decoder refuses a Policy with a repeated key)" },
    { "a repeated unknown key", "{\"kind\":\"Policy\",\"x\":1,\"x\":2}", 0,
      "t.json: x: key \"x\" already set in map (v1.22's strict decoder "
      "refuses a Policy with a repeated key)" },
    { "unterminated string", "{\"kind\": \"Policy}", 0,
      "t.json: invalid JSON at byte 9 (line 1, column 10): unterminated "
      "string (no closing quote) near \"\\\"Policy}\"" },
    { "not an object", "[]", 0,
      "t.json: (document): expected an object, got an array" },
    { "null lists mean defaults",
      HDR "\"predicates\":null,\"priorities\":null,\"extenders\":null}", 0,
      NULL },
};

static void decoding_should_report_paths(void **state)
{
    (void)state;
    run_cases(decode_cases, sizeof(decode_cases) / sizeof(decode_cases[0]));
}

static struct policy *load(const char *json, unsigned compat)
{
    struct policy_load_opts o = { .compat = compat,
                                  .format = POLICY_FORMAT_JSON,
                                  .warnings = NULL };
    struct policy *p = NULL;
    struct err e;

    if (policy_load_buffer("t.json", json, strlen(json), &o, &p, &e))
        fail_msg("load failed: %s", e.msg);
    return p;
}

static void absent_and_empty_lists_should_differ(void **state)
{
    struct policy *p;

    (void)state;
    p = load(HDR "\"predicates\":[],\"priorities\":[]}", 0);
    assert_int_equal(p->n_preds, 2);
    assert_string_equal(p->preds[0].def->name, "CheckNodeUnschedulable");
    assert_string_equal(p->preds[1].def->name, "PodToleratesNodeTaints");
    assert_int_equal(p->preds[0].origin, POLICY_ORIGIN_MANDATORY);
    assert_int_equal(p->n_prios, 0);
    policy_free(p);
    p = load("{\"kind\":\"Policy\",\"apiVersion\":\"v1\"}", 0);
    assert_int_equal(p->n_preds, 12);
    assert_int_equal(p->n_prios, 8); /* 9 keys, two share a plugin */
    assert_int_equal(p->hard_pod_affinity_weight, 1);
    policy_free(p);
    p = load(PRIOS("{\"name\":\"EqualPriority\",\"weight\":3}"), 0);
    assert_int_equal(p->n_prios, 0);
    assert_int_equal(p->n_entries, 1);
    assert_null(p->entries[0].prio);
    policy_free(p);
}

static void duplicates_and_aliases_should_follow_v122(void **state)
{
    struct policy *p;

    (void)state;
    p = load(HDR "\"predicates\":[{\"name\":\"HostName\"},{\"name\":"
                 "\"PodFitsPorts\"},{\"name\":\"HostName\"}],\"priorities\":["
                 "{\"name\":\"ImageLocalityPriority\",\"weight\":4},{\"name\":"
                 "\"ImageLocalityPriority\",\"weight\":9}]}",
             0);
    assert_int_equal(p->n_preds, 4);
    assert_string_equal(p->preds[1].def->name, "HostName");
    assert_string_equal(p->preds[2].def->name, "PodFitsHostPorts");
    assert_string_equal(p->preds[2].names[0], "PodFitsPorts");
    assert_int_equal(p->n_prios, 1);
    assert_int_equal(p->prios[0].weight, 9);
    assert_true(p->entries[0].overridden);
    assert_false(p->entries[1].overridden);
    policy_free(p);
}

static void custom_entries_should_fold_into_one_plugin(void **state)
{
    struct policy *p;
    size_t i;

    (void)state;
    p = load("{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":["
             "{\"name\":\"A\",\"argument\":{\"serviceAffinity\":{\"labels\":"
             "[\"region\"]}}},{\"name\":\"B\",\"argument\":{\"serviceAffinity\""
             ":{\"labels\":[\"zone\",\"rack\"]}}},{\"name\":\"C\",\"argument\":"
             "{\"labelsPresence\":{\"labels\":[\"ssd\"],\"presence\":false}}}"
             "],\"priorities\":[{\"name\":\"S1\",\"weight\":3,\"argument\":{"
             "\"serviceAntiAffinity\":{\"label\":\"zone\"}}},{\"name\":\"S2\","
             "\"weight\":3,\"argument\":{\"serviceAntiAffinity\":{\"label\":"
             "\"rack\"}}}]}",
             0);
    for (i = 0; i < p->n_preds; i++) {
        const struct policy_pred *pp = &p->preds[i];

        if (!strcmp(pp->def->name, "CheckServiceAffinity")) {
            const struct policy_strlist *labels = pp->args.value;

            assert_int_equal(labels->n, 3);
            assert_string_equal(labels->v[2], "rack");
            assert_int_equal(pp->n_names, 2);
        }
        if (!strcmp(pp->def->name, "CheckNodeLabelPresence")) {
            const struct kpe_label_lists *l = pp->args.value;

            assert_int_equal(l->absent.n, 1);
            assert_int_equal(l->present.n, 0);
        }
    }
    assert_int_equal(p->n_prios, 1);
    assert_int_equal(p->prios[0].weight, 6);
    assert_int_equal(((const struct policy_strlist *)p->prios[0].args.value)->n,
                     2);
    assert_int_equal(p->n_entries, 2);
    assert_ptr_equal(p->entries[0].prio, &p->prios[0]);
    assert_ptr_equal(p->entries[1].prio, &p->prios[0]);
    policy_free(p);
}

static void warnings_should_not_fail_a_load(void **state)
{
    struct policy *p;

    (void)state;
    p = load(HDR "\"priorities\":[{\"name\":"
                 "\"LeastRequestedPriority\",\"weight\":1,\"argument\":{"
                 "\"labelPreference\":{\"label\":\"x\"}}}]}",
             0);
    assert_int_equal(p->n_warnings, 1);
    assert_string_equal(p->warnings[0],
                        "priorities[0].argument: argument ignored: "
                        "\"LeastRequestedPriority\" is a registered priority "
                        "(v1.22 ignores its argument too)");
    policy_free(p);
}

/*
 * An unknown key fails the load: kube-scheduler v1.20.2 (checked on the
 * real binary, docs/VERSION-SEMANTICS.md "Policy decoding") refuses
 * {"Predicates": ...} with "strict decoder error for ...:
 * v1.Policy.ReadObject: found unknown field: Predicates"; apimachinery's
 * strict path is the same in v0.20.2 and v0.22.0.
 */
/*
 * D9 (docs/VERSION-SEMANTICS.md): v1.20.2's legacy_registry.go
 * ProcessPredicatePolicy / ProcessPriorityPolicy / validate*OrDie texts
 * (klog.Fatalf), lower-case returned errors from v1.21 (#99671).
 */
static void name_errors_should_follow_the_semantics(void **state)
{
    static const struct {
        const char *json;
        const char *v120, *v121;
    } cases[] = {
        { PREDS("{\"name\":\"Zzzz\"}"),
          "t.json: predicates[0].name: Invalid configuration: Predicate type "
          "not found for \"Zzzz\"",
          "t.json: predicates[0].name: predicate type not found for "
          "\"Zzzz\"" },
        { PRIOS("{\"name\":\"Zzzz\",\"weight\":1}"),
          "t.json: priorities[0].name: Invalid configuration: Priority type "
          "not found for \"Zzzz\"",
          "t.json: priorities[0].name: priority type not found for "
          "\"Zzzz\"" },
        { PREDS("{\"name\":\"P\",\"argument\":{}}"),
          "t.json: predicates[0].argument: Exactly 1 predicate argument is "
          "required, numArgs: 0, Predicate: P",
          "t.json: predicates[0].argument: exactly 1 predicate argument is "
          "required, numArgs: 0, predicate {P <argument>}" },
        { PRIOS("{\"name\":\"P\",\"weight\":2,\"argument\":{"
                "\"serviceAntiAffinity\":{\"label\":\"a\"},"
                "\"labelPreference\":{\"label\":\"b\",\"presence\":true}}}"),
          "t.json: priorities[0].argument: Exactly 1 priority argument is "
          "required, numArgs: 2, Priority: P",
          "t.json: priorities[0].argument: exactly 1 priority argument is "
          "required, numArgs: 2, priority {P 2 <argument>}" },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        static const enum kpe_semantics sems[] = { KPE_SEM_1_20, KPE_SEM_1_21,
                                                   KPE_SEM_1_22 };
        size_t k;

        for (k = 0; k < 3; k++) {
            struct policy_load_opts o = { .format = POLICY_FORMAT_JSON,
                                          .semantics = sems[k] };
            const char *want = k == 0 ? cases[i].v120 : cases[i].v121;
            struct policy *p = NULL;
            struct err e;

            err_clear(&e);
            assert_int_not_equal(policy_load_buffer("t.json", cases[i].json,
                                                    strlen(cases[i].json), &o,
                                                    &p, &e),
                                 0);
            if (strcmp(e.msg, want))
                fail_msg("as %s:\n  got  %s\n  want %s",
                         kpe_semantics_name(sems[k]), e.msg, want);
        }
    }
}

/*
 * D4 (docs/VERSION-SEMANTICS.md): v1.20.2's plugin-argument validation
 * (validation_pluginargs.go: ValidateRequestedToCapacityRatioArgs with
 * validateFunctionShape and validateResourcesNoMax; ValidateNodeLabelArgs
 * with validateNoConflict; their rows in validation_pluginargs_test.go)
 * stops at the first problem and says it in a sentence; v1.22 lists field
 * errors. 1.21 is believed to keep v1.20.2's (Q4). The RTCR arguments are
 * checked as the plugin is built, from the last entry.
 */
static void argument_errors_should_follow_the_semantics(void **state)
{
    static const struct {
        const char *json;
        const char *v120, *v122;
    } cases[] = {
        { PRIOS("{\"name\":\"R\",\"weight\":1,\"argument\":{"
                "\"requestedToCapacityRatioArguments\":{}}}"),
          "t.json: priorities[0].argument: RequestedToCapacityRatio args: at "
          "least one point must be specified",
          "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
          "shape: Required value: at least one point must be specified" },
        { PRIOS("{\"name\":\"R\",\"weight\":1,\"argument\":{"
                "\"requestedToCapacityRatioArguments\":{\"shape\":[{"
                "\"utilization\":50,\"score\":11},{\"utilization\":50,"
                "\"score\":0}],\"resources\":[{\"name\":\"cpu\"}]}}}"),
          "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
          "utilization values must be sorted. Utilization[0]==50 >= "
          "Utilization[1]==50",
          "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
          "[shape[1].utilization: Invalid value: 50: utilization values must "
          "be sorted in increasing order, shape[0].score: Invalid value: 11: "
          "not in valid range [0, 10], resources[0].weight: Invalid value: 0: "
          "resource weight of cpu not in valid range [1, inf)]" },
        { PRIOS("{\"name\":\"R\",\"weight\":1,\"argument\":{"
                "\"requestedToCapacityRatioArguments\":{\"shape\":[{"
                "\"utilization\":10,\"score\":-1}]}}}"),
          "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
          "score values must not be less than 0. Score[0]==-1",
          "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
          "shape[0].score: Invalid value: -1: not in valid range [0, 10]" },
        { PRIOS("{\"name\":\"R\",\"weight\":1,\"argument\":{"
                "\"requestedToCapacityRatioArguments\":{\"shape\":[{"
                "\"utilization\":101,\"score\":1}],\"resources\":[{"
                "\"name\":\"cpu\",\"weight\":0}]}}}"),
          "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
          "utilization values must not be greater than 100. "
          "Utilization[0]==101",
          "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
          "[shape[0].utilization: Invalid value: 101: not in valid range [0, "
          "100], resources[0].weight: Invalid value: 0: resource weight of cpu "
          "not in valid range [1, inf)]" },
        { PRIOS("{\"name\":\"R\",\"weight\":1,\"argument\":{"
                "\"requestedToCapacityRatioArguments\":{\"shape\":[{"
                "\"utilization\":0,\"score\":1}],\"resources\":[{"
                "\"name\":\"cpu\",\"weight\":1},{\"name\":\"memory\","
                "\"weight\":-2}]}}}"),
          "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
          "resource memory weight -2 must not be less than 1",
          "t.json: priorities[0].argument: RequestedToCapacityRatio args: "
          "resources[1].weight: Invalid value: -2: resource weight of memory "
          "not in valid range [1, inf)" },
        { PREDS("{\"name\":\"A\",\"argument\":{\"labelsPresence\":{"
                "\"labels\":[\"x\",\"foo\"],\"presence\":true}}},{\"name\":"
                "\"B\",\"argument\":{\"labelsPresence\":{\"labels\":"
                "[\"foo\",\"x\"],\"presence\":false}}}"),
          "t.json: NodeLabel args: detecting at least one label (e.g., "
          "\"foo\") that exist in both the present([x foo]) and absent([foo "
          "x]) label list",
          "t.json: NodeLabel args: [presentLabels[1]: Invalid value: \"foo\": "
          "conflict with absentLabels[0], presentLabels[0]: Invalid value: "
          "\"x\": conflict with absentLabels[1]]" },
        { PRIOS("{\"name\":\"A\",\"weight\":1,\"argument\":{"
                "\"labelPreference\":{\"label\":\"s\",\"presence\":true}}},"
                "{\"name\":\"B\",\"weight\":1,\"argument\":{"
                "\"labelPreference\":{\"label\":\"s\",\"presence\":false}}}"),
          "t.json: NodeLabel args: detecting at least one label (e.g., "
          "\"s\") that exist in both the present([s]) and absent([s]) label "
          "list",
          "t.json: NodeLabel args: presentLabelsPreference[0]: Invalid value: "
          "\"s\": conflict with absentLabelsPreference[0]" },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        static const enum kpe_semantics sems[] = { KPE_SEM_1_20, KPE_SEM_1_21,
                                                   KPE_SEM_1_22 };
        size_t k;

        for (k = 0; k < 3; k++) {
            struct policy_load_opts o = { .format = POLICY_FORMAT_JSON,
                                          .semantics = sems[k] };
            const char *want = k < 2 ? cases[i].v120 : cases[i].v122;
            struct policy *p = NULL;
            struct err e;

            err_clear(&e);
            assert_int_not_equal(policy_load_buffer("t.json", cases[i].json,
                                                    strlen(cases[i].json), &o,
                                                    &p, &e),
                                 0);
            assert_null(p);
            if (strcmp(e.msg, want))
                fail_msg("case %zu as %s:\n  got  %s\n  want %s", i,
                         kpe_semantics_name(sems[k]), e.msg, want);
        }
    }
}

static void unknown_fields_should_fail_a_load(void **state)
{
    static const struct vcase cases[] = {
        { "unknown top-level key", HDR "\"Predicates\":[]}", 0,
          "t.json: Predicates: unknown field \"Predicates\" (kube-scheduler's "
          "strict decoder refuses the Policy: found unknown field: "
          "Predicates); did you mean \"predicates\"?" },
        { "unknown key in an argument",
          HDR "\"priorities\":[{\"name\":\"L\",\"weight\":1,\"argument\":{"
              "\"labelPreference\":{\"label\":\"x\",\"presense\":true}}}]}",
          0,
          "t.json: priorities[0].argument.labelPreference.presense: "
          "unknown field "
          "\"presense\" (kube-scheduler's strict decoder refuses the "
          "Policy: found unknown field: presense); did you mean "
          "\"presence\"?" },
    };

    (void)state;
    run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void extenders_should_decode_case_insensitively(void **state)
{
    struct policy *p;

    (void)state;
    p = load("{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"extenders\":[{"
             "\"urlPrefix\":\"/a\",\"Ignorable\":true,\"Weight\":3,"
             "\"PrioritizeVerb\":\"p\"},{\"URLPREFIX\":\"/b\",\"BindVerb\":"
             "\"bind\",\"enableHTTPS\":true,\"TLSConfig\":{\"Insecure\":true},"
             "\"HttpTimeout\":7}]}",
             0);
    assert_int_equal(p->n_extenders, 2);
    assert_string_equal(p->extenders[0]->url_prefix, "/b"); /* ignorable last */
    assert_string_equal(p->extenders[0]->bind_verb, "bind");
    assert_true(p->extenders[0]->enable_https);
    assert_true(p->extenders[0]->tls.insecure);
    assert_int_equal(p->extenders[0]->http_timeout_ns, 7);
    assert_int_equal(p->extenders[1]->weight, 3);
    policy_free(p);
}

static void extension_entries_should_resolve(void **state)
{
    struct policy *p;
    const struct policy_high_comm_arg *hc;

    (void)state;
    p = load(HDR "\"predicates\":[{\"name\":\"CustomPredicatePolicy\"},{"
                 "\"name\":\"HighCommPodFilter\",\"argument\":{\"highComm\":{"
                 "\"podLabel\":\"hc\",\"nodeLabelValue\":\"yes\"}}}],"
                 "\"priorities\":[{\"name\":\"RdmaAwarePriority\",\"weight\":"
                 "2},{\"name\":\"CustomPriorityPolicy\",\"weight\":3}]}",
             0);
    assert_int_equal(p->n_preds, 4);
    assert_string_equal(p->preds[2].def->name, "HighCommPodFilter");
    hc = p->preds[2].args.value;
    assert_string_equal(hc->pod_label, "hc");
    assert_string_equal(hc->node_label, "node.kubernetes.io/rdma-enabled");
    assert_string_equal(hc->node_label_value, "yes");
    assert_string_equal(p->preds[3].def->name, "PodFitsHostNew");
    assert_int_equal(p->n_prios, 1);
    assert_int_equal(p->prios[0].weight, 3); /* same key: last wins */
    hc = p->prios[0].args.value;
    assert_string_equal(hc->pod_label, "high-comm");
    assert_int_equal(p->n_entries, 2);
    assert_string_equal(p->entries[0].name, "RdmaAwarePriority");
    policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validate_policy_should_match_v122),
        cmocka_unit_test(resolution_should_match_v122),
        cmocka_unit_test(decoding_should_report_paths),
        cmocka_unit_test(absent_and_empty_lists_should_differ),
        cmocka_unit_test(duplicates_and_aliases_should_follow_v122),
        cmocka_unit_test(custom_entries_should_fold_into_one_plugin),
        cmocka_unit_test(warnings_should_not_fail_a_load),
        cmocka_unit_test(unknown_fields_should_fail_a_load),
        cmocka_unit_test(name_errors_should_follow_the_semantics),
        cmocka_unit_test(argument_errors_should_follow_the_semantics),
        cmocka_unit_test(extenders_should_decode_case_insensitively),
        cmocka_unit_test(extension_entries_should_resolve),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
