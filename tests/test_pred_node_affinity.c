/*
 * test_pred_node_affinity.c: MatchNodeSelector (NodeAffinity filter,
 * predicates.md B.5): spec.nodeSelector and required node affinity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "predicates/node_affinity.h"
#include "tests/support/node_filter_fixtures.h"

#define PLUGIN "NodeAffinity"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define UNRES PRED_UNFIT_UNRESOLVABLE
#define NA    PRED_REASON_NODE_AFFINITY

#define POD_SPEC(spec) "{'metadata':{'name':'p'},'spec':{" spec "}}"
#define SEL(pairs)     "'nodeSelector':{" pairs "}"
#define AFF(required)                                                          \
    "'affinity':{'nodeAffinity':{"                                             \
    "'requiredDuringSchedulingIgnoredDuringExecution':" required "}}"
#define TERMS(t)      "{'nodeSelectorTerms':[" t "]}"
#define REQ(t)        POD_SPEC(AFF(TERMS(t)))
#define EXPRS(e)      "{'matchExpressions':[" e "]}"
#define FIELDS(f)     "{'matchFields':[" f "]}"
#define BOTH(f, e)    "{'matchFields':[" f "],'matchExpressions':[" e "]}"
#define OP(k, op, vs) "{'key':'" k "','operator':'" op "','values':[" vs "]}"
#define EXISTS(k)     "{'key':'" k "','operator':'Exists'}"
#define NAME_IN(n)    OP("metadata.name", "In", "'" n "'")
#define NODE(name, labels)                                                     \
    "{'metadata':{'name':'" name "','labels':{" labels "}}}"

/*
 * TestNodeAffinity (plugins/nodeaffinity/node_affinity_test.go), the
 * filter rows. Rows that set the plugin's addedAffinity argument are not
 * ported: a Policy can never set it. The last two rows come from later
 * releases (which also check a PreFilterResult); their filter verdict is
 * the same under v1.22's rules.
 */
static const struct p1_case upstream[] = {
    { "no selector",
      POD_SPEC(""),
      NODE("node1", ""),
      { NULL },
      PRED_FIT,
      NULL },
    { "missing labels",
      POD_SPEC(SEL("'foo':'bar'")),
      NODE("node1", ""),
      { NULL },
      UNRES,
      NA },
    { "same labels",
      POD_SPEC(SEL("'foo':'bar'")),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "node labels are superset",
      POD_SPEC(SEL("'foo':'bar'")),
      NODE("node1", "'foo':'bar','baz':'blah'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "node labels are subset",
      POD_SPEC(SEL("'foo':'bar','baz':'blah'")),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      UNRES,
      NA },
    { "Pod with matchExpressions using In operator that matches the existing "
      "node",
      REQ(EXPRS(OP("foo", "In", "'bar','value2'"))),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with matchExpressions using Gt operator that matches the existing "
      "node",
      REQ(EXPRS(OP("kernel-version", "Gt", "'0204'"))),
      NODE("node1", "'kernel-version':'0206'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with matchExpressions using NotIn operator that matches the "
      "existing node",
      REQ(EXPRS(OP("mem-type", "NotIn", "'DDR','DDR2'"))),
      NODE("node1", "'mem-type':'DDR3'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with matchExpressions using Exists operator that matches the "
      "existing node",
      REQ(EXPRS(EXISTS("GPU"))),
      NODE("node1", "'GPU':'NVIDIA-GRID-K1'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with affinity that don't match node's labels won't schedule onto "
      "the node",
      REQ(EXPRS(OP("foo", "In", "'value1','value2'"))),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      UNRES,
      NA },
    { "Pod with a nil []NodeSelectorTerm in affinity, can't match the node's "
      "labels and won't schedule onto the node",
      POD_SPEC(AFF("{'nodeSelectorTerms':null}")),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      UNRES,
      NA },
    { "Pod with an empty []NodeSelectorTerm in affinity, can't match the "
      "node's labels and won't schedule onto the node",
      REQ(""),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      UNRES,
      NA },
    { "Pod with empty MatchExpressions is not a valid value will match no "
      "objects and won't schedule onto the node",
      REQ(EXPRS("")),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      UNRES,
      NA },
    { "Pod with no Affinity will schedule onto a node",
      POD_SPEC(""),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with Affinity but nil NodeSelector will schedule onto a node",
      POD_SPEC(AFF("null")),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with multiple matchExpressions ANDed that matches the existing "
      "node",
      REQ(EXPRS(EXISTS("GPU") "," OP("GPU", "NotIn", "'AMD','INTER'"))),
      NODE("node1", "'GPU':'NVIDIA-GRID-K1'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with multiple matchExpressions ANDed that doesn't match the "
      "existing node",
      REQ(EXPRS(EXISTS("GPU") "," OP("GPU", "In", "'AMD','INTER'"))),
      NODE("node1", "'GPU':'NVIDIA-GRID-K1'"),
      { NULL },
      UNRES,
      NA },
    { "Pod with multiple NodeSelectorTerms ORed in affinity, matches the "
      "node's labels and will schedule onto the node",
      REQ(EXPRS(OP("foo", "In", "'bar','value2'")) "," EXPRS(
          OP("diffkey", "In", "'wrong','value2'"))),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we "
      "are deprecating) both are satisfied, will schedule onto the node",
      POD_SPEC(SEL("'foo':'bar'") "," AFF(TERMS(EXPRS(EXISTS("foo"))))),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with an Affinity matches node's labels but the "
      "PodSpec.NodeSelector(the old thing that we are deprecating) is not "
      "satisfied, won't schedule onto the node",
      POD_SPEC(SEL("'foo':'bar'") "," AFF(TERMS(EXPRS(EXISTS("foo"))))),
      NODE("node1", "'foo':'barrrrrr'"),
      { NULL },
      UNRES,
      NA },
    { "Pod with an invalid value in Affinity term won't be scheduled onto the "
      "node",
      REQ(EXPRS(OP("foo", "NotIn", "'invalid value: ___@#$%^'"))),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      UNRES,
      NA },
    { "Pod with matchFields using In operator that matches the existing node",
      REQ(FIELDS(NAME_IN("node1"))),
      NODE("node1", ""),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with matchFields using In operator that does not match the "
      "existing node",
      REQ(FIELDS(NAME_IN("node1"))),
      NODE("node2", ""),
      { NULL },
      UNRES,
      NA },
    { "Pod with two terms: matchFields does not match, but matchExpressions "
      "matches",
      REQ(FIELDS(NAME_IN("node1")) "," EXPRS(OP("foo", "In", "'bar'"))),
      NODE("node2", "'foo':'bar'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with one term: matchFields does not match, but matchExpressions "
      "matches",
      REQ(BOTH(NAME_IN("node1"), OP("foo", "In", "'bar'"))),
      NODE("node2", "'foo':'bar'"),
      { NULL },
      UNRES,
      NA },
    { "Pod with one term: both matchFields and matchExpressions match",
      REQ(BOTH(NAME_IN("node1"), OP("foo", "In", "'bar'"))),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with two terms: both matchFields and matchExpressions do not "
      "match",
      REQ(FIELDS(NAME_IN("node1")) "," EXPRS(
          OP("foo", "In", "'not-match-to-bar'"))),
      NODE("node2", "'foo':'bar'"),
      { NULL },
      UNRES,
      NA },
    { "Pod with two terms of node.Name affinity",
      REQ(FIELDS(NAME_IN("node1")) "," FIELDS(NAME_IN("node2"))),
      NODE("node2", ""),
      { NULL },
      PRED_FIT,
      NULL },
    { "Pod with two conflicting mach field requirements",
      REQ(FIELDS(NAME_IN("node1") "," NAME_IN("node2"))),
      NODE("node2", "'foo':'bar'"),
      { NULL },
      UNRES,
      NA },
};

/* Edge cases of predicates.md B.5 and A.8. */
static const struct p1_case edges[] = {
    { "DoesNotExist matches a node lacking the label",
      REQ(EXPRS("{'key':'gpu','operator':'DoesNotExist'}")),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "NotIn matches a node lacking the label",
      REQ(EXPRS(OP("gpu", "NotIn", "'a'"))),
      NODE("node1", ""),
      { NULL },
      PRED_FIT,
      NULL },
    { "Lt compares integers",
      REQ(EXPRS(OP("cores", "Lt", "'10'"))),
      NODE("node1", "'cores':'9'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "Gt with a non-integer node label value does not match",
      REQ(EXPRS(OP("cores", "Gt", "'1'"))),
      NODE("node1", "'cores':'many'"),
      { NULL },
      UNRES,
      NA },
    { "Gt with a non-integer requirement value makes the term unparseable",
      REQ(EXPRS(OP("cores", "Gt", "'one'"))),
      NODE("node1", "'cores':'4'"),
      { NULL },
      UNRES,
      NA },
    { "an unparseable term does not stop another term from matching",
      REQ(EXPRS(OP("cores", "Gt", "'one'")) "," EXPRS(EXISTS("cores"))),
      NODE("node1", "'cores':'4'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "matchFields NotIn excludes the named node",
      REQ(FIELDS(OP("metadata.name", "NotIn", "'node1'"))),
      NODE("node1", ""),
      { NULL },
      UNRES,
      NA },
    { "matchFields NotIn admits another node",
      REQ(FIELDS(OP("metadata.name", "NotIn", "'node1'"))),
      NODE("node2", ""),
      { NULL },
      PRED_FIT,
      NULL },
    { "nodeSelector value must be equal, not just present",
      POD_SPEC(SEL("'foo':''")),
      NODE("node1", "'foo':'bar'"),
      { NULL },
      UNRES,
      NA },
    { "preferred terms play no role in filtering",
      POD_SPEC("'affinity':{'nodeAffinity':{"
               "'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':"
               "1,'preference':" EXPRS(EXISTS("gpu")) "}]}}"),
      NODE("node1", ""),
      { NULL },
      PRED_FIT,
      NULL },
};

static void node_affinity_should_match_upstream_table(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(PLUGIN, NULL, upstream, N(upstream)), 0);
}

static void node_affinity_should_follow_selector_term_rules(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(PLUGIN, NULL, edges, N(edges)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_affinity_should_match_upstream_table),
        cmocka_unit_test(node_affinity_should_follow_selector_term_rules),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
