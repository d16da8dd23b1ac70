/*
 * test_prio_node_affinity.c: NodeAffinityPriority (NodeAffinity scoring).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/support/score_fixtures.h"

#define PLUGIN "NodeAffinity"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define NODE(name, labels)                                                     \
    "{'metadata':{'name':'" name "','labels':{" labels "}}}"
#define LABEL1 "'foo':'bar'"
#define LABEL2 "'key':'value'"
#define LABEL3 "'az':'az1'"
#define LABEL4 "'abc':'az11','def':'az22'"
#define LABEL5 "'foo':'bar','key':'value','az':'az1'"

#define IN(key, value)                                                         \
    "{'key':'" key "','operator':'In','values':['" value "']}"
#define PREFERRED(terms)                                                       \
    "{'metadata':{'name':'p'},'spec':{'affinity':{'nodeAffinity':{"            \
    "'preferredDuringSchedulingIgnoredDuringExecution':[" terms "]}}}}"
#define TERM(weight, exprs)                                                    \
    "{'weight':" weight ",'preference':{'matchExpressions':[" exprs "]}}"

#define AFFINITY1 PREFERRED(TERM("2", IN("foo", "bar")))
#define AFFINITY2                                                              \
    PREFERRED(TERM("2", IN("foo", "bar")) "," TERM(                            \
        "4",                                                                   \
        IN("key", "value")) "," TERM("5",                                      \
                                     IN("foo", "bar") "," IN(                  \
                                         "key", "value") "," IN("az", "az1")))

/* TestNodeAffinityPriority (plugins/nodeaffinity/node_affinity_test.go) */
static const struct sfx_case upstream[] = {
    { "all machines are same priority as NodeAffinity is nil",
      "{'metadata':{'name':'p','annotations':{}}}",
      { NODE("machine1", LABEL1), NODE("machine2", LABEL2),
        NODE("machine3", LABEL3) },
      { NULL },
      { 0, 0, 0 } },
    { "no machine macthes preferred scheduling requirements in NodeAffinity "
      "of pod so all machines' priority is zero",
      AFFINITY1,
      { NODE("machine1", LABEL4), NODE("machine2", LABEL2),
        NODE("machine3", LABEL3) },
      { NULL },
      { 0, 0, 0 } },
    { "only machine1 matches the preferred scheduling requirements of pod",
      AFFINITY1,
      { NODE("machine1", LABEL1), NODE("machine2", LABEL2),
        NODE("machine3", LABEL3) },
      { NULL },
      { 100, 0, 0 } },
    { "all machines matches the preferred scheduling requirements of pod but "
      "with different priorities",
      AFFINITY2,
      { NODE("machine1", LABEL1), NODE("machine5", LABEL5),
        NODE("machine2", LABEL2) },
      { NULL },
      { 18, 100, 36 } },
};

/* Ours: terms upstream skips, matchFields, Gt. */
static const struct sfx_case ours[] = {
    { "weight-0 and empty terms are skipped, even when broken",
      PREFERRED(TERM(
          "0",
          "{'key':'foo','operator':'Gt','values':['x']}") ","
                                                          "{'weight':7,'"
                                                          "preference':{}}"
                                                          "," TERM("3",
                                                                   IN("foo",
                                                                      "bar"))),
      { NODE("n1", LABEL1), NODE("n2", LABEL2) },
      { NULL },
      { 100, 0 } },
    { "matchFields on metadata.name and Gt on an integer label",
      PREFERRED("{'weight':1,'preference':{'matchFields':[{'key':"
                "'metadata.name','operator':'In','values':['n2']}]}},"
                "{'weight':3,'preference':{'matchExpressions':[{'key':'cores',"
                "'operator':'Gt','values':['8']}]}}"),
      { NODE("n1", "'cores':'16'"), NODE("n2", "'cores':'4'"),
        NODE("n3", "'cores':'x'") },
      { NULL },
      /* raw 3, 1, 0 */
      { 100, 33, 0 } },
};

/* PreScore returns error when an incoming Pod has a broken affinity. */
static const struct sfx_case broken = {
    "PreScore returns error when an incoming Pod has a broken affinity",
    PREFERRED(TERM("2", IN("invalid key", "bar"))),
    { NODE("node1", LABEL1) },
    { NULL },
    { 0 }
};

static void node_affinity_should_match_upstream_table(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, upstream, N(upstream));
}

static void node_affinity_should_skip_empty_terms_and_match_fields(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, ours, N(ours));
}

static void node_affinity_should_fail_the_pod_on_a_broken_term(void **state)
{
    (void)state;
    sfx_run_error(
        PLUGIN, NULL, &broken,
        "[0].matchExpressions[0].key: Invalid value: \"invalid key\": name "
        "part must consist of alphanumeric characters, '-', '_' or '.', and "
        "must start and end with an alphanumeric character (e.g. 'MyName',  "
        "or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_affinity_should_match_upstream_table),
        cmocka_unit_test(
            node_affinity_should_skip_empty_terms_and_match_fields),
        cmocka_unit_test(node_affinity_should_fail_the_pod_on_a_broken_term),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
