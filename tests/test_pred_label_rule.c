/*
 * test_pred_label_rule.c: LabelRule (ours, issue 17): rules read from a
 * Policy (so parsing, folding and the filter are tested together), then
 * run over tables of pods and nodes, each selector form on both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "policy/policy.h"
#include "predicates/predicates.h"
#include "tests/support/node_filter_fixtures.h"

/* The descriptors these tests run, by name (in their plugins' files). */
extern const struct pred_def pred_label_rule;

#define PLUGIN pred_label_rule.name
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define POD(l)  "{'metadata':{'name':'p','labels':{" l "}}}"
#define NODE(l) "{'metadata':{'name':'n','labels':{" l "}}}"

#define NO_RDMA "node(s) didn't have RDMA"
#define NO_GPU  "node(s) weren't GPU nodes outside the edge zone"

#define HDR "{\"kind\":\"Policy\",\"apiVersion\":\"v1\","

/* Two entries folded into one LabelRule: pod "key" / "key=value" / "!key",
 * node "key=value" / "key" / "key!=value". */
static const char two_rules[] =
    HDR "\"predicates\":["
        "{\"name\":\"RdmaOnly\",\"argument\":{\"labelRule\":{"
        "\"podSelector\":[\"high-comm\"],"
        "\"nodeSelector\":[\"rdma=true\"],"
        "\"reason\":\"" NO_RDMA "\"}}},"
        "{\"name\":\"GpuForMl\",\"argument\":{\"labelRule\":{"
        "\"podSelector\":[\"team=ml\",\"!batch\"],"
        "\"nodeSelector\":[\"gpu\",\"zone!=edge\"],"
        "\"reason\":\"" NO_GPU "\"}}}]}";

static const struct p1_case two_rule_cases[] = {
    { "a pod no rule selects fits a bare node",
      POD(""),
      NODE(""),
      { NULL },
      PRED_FIT,
      NULL },
    { "a pod no rule selects fits anywhere",
      POD("'team':'ops'"),
      NODE("'rdma':'false'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "key: any value selects the pod",
      POD("'high-comm':''"),
      NODE("'rdma':'true'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "key=value on the node: another value fails",
      POD("'high-comm':'true'"),
      NODE("'rdma':'false'"),
      { NULL },
      PRED_UNFIT,
      NO_RDMA },
    { "key=value on the node: no label fails",
      POD("'high-comm':'true'"),
      NODE("'zone':'a'"),
      { NULL },
      PRED_UNFIT,
      NO_RDMA },
    { "key=value on the node is case-sensitive",
      POD("'high-comm':'true'"),
      NODE("'rdma':'True'"),
      { NULL },
      PRED_UNFIT,
      NO_RDMA },
    { "a label value named like the key does not select",
      POD("'role':'high-comm'"),
      NODE(""),
      { NULL },
      PRED_FIT,
      NULL },
    { "key=value on the pod: the value selects",
      POD("'team':'ml'"),
      NODE("'gpu':'a100','zone':'a'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "key=value on the pod: another value does not select",
      POD("'team':'mlops'"),
      NODE(""),
      { NULL },
      PRED_FIT,
      NULL },
    { "!key on the pod: the label deselects",
      POD("'team':'ml','batch':'yes'"),
      NODE(""),
      { NULL },
      PRED_FIT,
      NULL },
    { "key on the node: missing fails",
      POD("'team':'ml'"),
      NODE("'zone':'a'"),
      { NULL },
      PRED_UNFIT,
      NO_GPU },
    { "key!=value on the node: the value fails",
      POD("'team':'ml'"),
      NODE("'gpu':'a100','zone':'edge'"),
      { NULL },
      PRED_UNFIT,
      NO_GPU },
    { "key!=value on the node: no label matches",
      POD("'team':'ml'"),
      NODE("'gpu':''"),
      { NULL },
      PRED_FIT,
      NULL },
    { "a pod two rules select must meet both",
      POD("'team':'ml','high-comm':'1'"),
      NODE("'gpu':'x','rdma':'true'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "each rule the node misses adds its reason",
      POD("'team':'ml','high-comm':'1'"),
      NODE(""),
      { NULL },
      PRED_UNFIT,
      NO_RDMA "|" NO_GPU },
    { "one of two rules missed: its reason only",
      POD("'team':'ml','high-comm':'1'"),
      NODE("'rdma':'true'"),
      { NULL },
      PRED_UNFIT,
      NO_GPU },
};

/* An empty podSelector selects every pod; "!key" on the node. */
static const char all_pods[] =
    HDR "\"predicates\":[{\"name\":\"LabelRule\",\"argument\":{\"labelRule\":{"
        "\"podSelector\":[],\"nodeSelector\":[\"!retiring\"],"
        "\"reason\":\"node(s) are retiring\"}}}]}";

static const struct p1_case all_pod_cases[] = {
    { "every pod fits a node without the label",
      POD(""),
      NODE("'a':'b'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "!key on the node: the label fails, whatever its value",
      POD("'app':'web'"),
      NODE("'retiring':''"),
      { NULL },
      PRED_UNFIT,
      "node(s) are retiring" },
};

/* Load json and run the LabelRule it resolves to over the cases. */
static void run_policy(const char *json, const struct p1_case *cases, size_t n)
{
    struct policy_load_opts o = { .format = POLICY_FORMAT_JSON };
    struct policy *p = NULL;
    const struct pred_args *args = NULL;
    struct err e;
    size_t i;

    err_clear(&e);
    if (policy_load_buffer("t.json", json, strlen(json), &o, &p, &e))
        fail_msg("policy: %s", e.msg);
    for (i = 0; i < p->n_preds; i++) {
        if (!strcmp(p->preds[i].def->name, PLUGIN))
            args = &p->preds[i].args;
    }
    assert_non_null(args);
    assert_int_equal(p1_run_cases(PLUGIN, args, cases, n), 0);
    policy_free(p);
}

static void label_rule_should_apply_every_rule_the_pod_matches(void **state)
{
    (void)state;
    run_policy(two_rules, two_rule_cases, N(two_rule_cases));
}

static void label_rule_should_select_all_pods_with_empty_selector(void **state)
{
    (void)state;
    run_policy(all_pods, all_pod_cases, N(all_pod_cases));
}

/* Without any rule (no argument reached it) every pod fits. */
static void label_rule_should_fit_without_rules(void **state)
{
    static const struct p1_case cases[] = {
        { "no rules",
          POD("'high-comm':'1'"),
          NODE(""),
          { NULL },
          PRED_FIT,
          NULL },
    };
    struct pred_args none;

    (void)state;
    memset(&none, 0, sizeof(none));
    assert_int_equal(p1_run_cases(PLUGIN, &none, cases, N(cases)), 0);
    assert_int_equal(p1_run_cases(PLUGIN, NULL, cases, N(cases)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(label_rule_should_apply_every_rule_the_pod_matches),
        cmocka_unit_test(label_rule_should_select_all_pods_with_empty_selector),
        cmocka_unit_test(label_rule_should_fit_without_rules),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
