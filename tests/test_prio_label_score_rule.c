/*
 * test_prio_label_score_rule.c: LabelScoreRule (ours, issue 17): rules
 * read from a Policy (parsing, folding and scoring tested together), then
 * scored over tables of pods and nodes: the first rule matching pod and
 * node gives score x 10, none gives 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "policy/policy.h"
#include "priorities/priorities.h"
#include "tests/support/score_fixtures.h"

/* The descriptors these tests run, by name (in their plugins' files). */
extern const struct prio_def prio_label_score_rule;

#define PLUGIN prio_label_score_rule.name
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define POD(labels) "{'metadata':{'name':'p','labels':{" labels "}}}"
#define NODE(name, labels)                                                     \
    "{'metadata':{'name':'" name "','labels':{" labels "}}}"
#define NODES                                                                  \
    {                                                                          \
        NODE("rdma", "'rdma':'true'"), NODE("plain", ""),                      \
            NODE("off", "'rdma':'false'")                                      \
    }

#define HDR "{\"kind\":\"Policy\",\"apiVersion\":\"v1\","
#define RULE(name, pod, node, score)                                           \
    "{\"name\":\"" name "\",\"weight\":1,\"argument\":{\"labelScoreRule\":{"   \
    "\"podSelector\":[" pod "],\"nodeSelector\":[" node "],\"score\":" score   \
    "}}}"

/* The seed's rule, with an "elsewhere" score for high-comm pods. */
static const char seed_like[] = HDR "\"priorities\":[" RULE(
    "Rdma", "\"high-comm\"", "\"rdma=true\"",
    "10") "," RULE("RdmaElsewhere", "\"high-comm\"", "",
                   "3") "," RULE("KeepFree", "\"!high-comm\"", "\"rdma!=true\"",
                                 "7") "]}";

static const struct sfx_case seed_cases[] = {
    { "high-comm: 10 on RDMA, the elsewhere rule's 3 on the rest",
      POD("'high-comm':'yes'"),
      NODES,
      { NULL },
      { 100, 30, 30 } },
    { "only the key of a \"key\" requirement matters",
      POD("'high-comm':''"),
      NODES,
      { NULL },
      { 100, 30, 30 } },
    { "other pods: 7 where rdma is unset or not true, else none matches",
      POD("'app':'web'"),
      NODES,
      { NULL },
      { 0, 70, 70 } },
};

/* Rule order decides; a rule with score 0 still wins when first. */
static const char ordered[] =
    HDR "\"priorities\":[" RULE("A", "\"app=web\"", "\"zone=a\"", "2") "," RULE(
        "B", "\"app=web\"", "\"zone\"",
        "9") "," RULE("C", "\"app=web\",\"tier!=db\"", "\"!zone\"",
                      "0") "," RULE("D", "", "", "1") "]}";

#define ZONES                                                                  \
    {                                                                          \
        NODE("a", "'zone':'a'"), NODE("b", "'zone':'b'"), NODE("none", "")     \
    }

static const struct sfx_case ordered_cases[] = {
    { "the first matching rule scores",
      POD("'app':'web'"),
      ZONES,
      { NULL },
      { 20, 90, 0 } },
    { "key!=value on the pod: the value deselects",
      POD("'app':'web','tier':'db'"),
      ZONES,
      { NULL },
      { 20, 90, 10 } },
    { "an empty podSelector and nodeSelector match everything",
      POD("'app':'api'"),
      ZONES,
      { NULL },
      { 10, 10, 10 } },
};

/* Load json and score the LabelScoreRule it resolves to over the cases. */
static void run_policy(const char *json, const struct sfx_case *cases, size_t n)
{
    struct policy_load_opts o = { .format = POLICY_FORMAT_JSON };
    struct policy *p = NULL;
    const struct prio_args *args = NULL;
    struct err e;
    size_t i;

    err_clear(&e);
    if (policy_load_buffer("t.json", json, strlen(json), &o, &p, &e))
        fail_msg("policy: %s", e.msg);
    for (i = 0; i < p->n_prios; i++) {
        if (!strcmp(p->prios[i].def->name, PLUGIN))
            args = &p->prios[i].args;
    }
    assert_non_null(args);
    sfx_run_table(PLUGIN, args, cases, n);
    policy_free(p);
}

static void label_score_rule_should_express_the_seed(void **state)
{
    (void)state;
    run_policy(seed_like, seed_cases, N(seed_cases));
}

static void label_score_rule_should_score_by_first_match(void **state)
{
    (void)state;
    run_policy(ordered, ordered_cases, N(ordered_cases));
}

static void label_score_rule_should_score_zero_without_rules(void **state)
{
    static const struct sfx_case cases[] = {
        { "no rules", POD("'high-comm':'1'"), NODES, { NULL }, { 0, 0, 0 } },
    };
    struct prio_args none;

    (void)state;
    memset(&none, 0, sizeof(none));
    sfx_run_table(PLUGIN, &none, cases, N(cases));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(label_score_rule_should_express_the_seed),
        cmocka_unit_test(label_score_rule_should_score_by_first_match),
        cmocka_unit_test(label_score_rule_should_score_zero_without_rules),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
