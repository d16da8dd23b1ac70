/*
 * test_pred_node_unschedulable.c: CheckNodeUnschedulable (NodeUnschedulable
 * plugin, predicates.md B.1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/node_unschedulable.h"
#include "tests/support/node_filter_fixtures.h"

#define PLUGIN "NodeUnschedulable"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define POD        "{'metadata':{'name':'p'}}"
#define CORDONED   "{'metadata':{'name':'n'},'spec':{'unschedulable':true}}"
#define POD_TOL(t) "{'metadata':{'name':'p'},'spec':{'tolerations':[" t "]}}"
#define KEY        "'key':'node.kubernetes.io/unschedulable'"

/* TestNodeUnschedulable (plugins/nodeunschedulable/node_unschedulable_test.go)
 */
static const struct p1_case upstream[] = {
    { "Does not schedule pod to unschedulable node "
      "(node.Spec.Unschedulable==true)",
      POD,
      CORDONED,
      { NULL },
      PRED_UNFIT_UNRESOLVABLE,
      PRED_REASON_UNSCHEDULABLE },
    { "Schedule pod to normal node",
      POD,
      "{'metadata':{'name':'n'},'spec':{'unschedulable':false}}",
      { NULL },
      PRED_FIT,
      NULL },
    { "Schedule pod with toleration to unschedulable node "
      "(node.Spec.Unschedulable==true)",
      POD_TOL("{" KEY ",'effect':'NoSchedule'}"),
      CORDONED,
      { NULL },
      PRED_FIT,
      NULL },
};

/* Edge cases of predicates.md B.1 (toleration rules of A.9). */
static const struct p1_case edges[] = {
    { "node without spec fits",
      POD,
      "{'metadata':{'name':'n'}}",
      { NULL },
      PRED_FIT,
      NULL },
    { "Exists toleration with empty effect passes",
      POD_TOL("{" KEY ",'operator':'Exists'}"),
      CORDONED,
      { NULL },
      PRED_FIT,
      NULL },
    { "Exists toleration with NoSchedule effect passes",
      POD_TOL("{" KEY ",'operator':'Exists','effect':'NoSchedule'}"),
      CORDONED,
      { NULL },
      PRED_FIT,
      NULL },
    { "Equal toleration with value true does not pass (taint value empty)",
      POD_TOL("{" KEY ",'operator':'Equal','value':'true'}"),
      CORDONED,
      { NULL },
      PRED_UNFIT_UNRESOLVABLE,
      PRED_REASON_UNSCHEDULABLE },
    { "Exists toleration with empty key passes",
      POD_TOL("{'operator':'Exists'}"),
      CORDONED,
      { NULL },
      PRED_FIT,
      NULL },
    { "NoExecute toleration does not pass",
      POD_TOL("{" KEY ",'operator':'Exists','effect':'NoExecute'}"),
      CORDONED,
      { NULL },
      PRED_UNFIT_UNRESOLVABLE,
      PRED_REASON_UNSCHEDULABLE },
    { "PreferNoSchedule toleration does not pass",
      POD_TOL("{" KEY ",'operator':'Exists','effect':'PreferNoSchedule'}"),
      CORDONED,
      { NULL },
      PRED_UNFIT_UNRESOLVABLE,
      PRED_REASON_UNSCHEDULABLE },
    { "toleration for another key does not pass",
      POD_TOL("{'key':'other','operator':'Exists'}"),
      CORDONED,
      { NULL },
      PRED_UNFIT_UNRESOLVABLE,
      PRED_REASON_UNSCHEDULABLE },
    { "one matching toleration among others passes",
      POD_TOL("{'key':'other','operator':'Exists'},{" KEY
              ",'operator':'Exists'}"),
      CORDONED,
      { NULL },
      PRED_FIT,
      NULL },
};

static void node_unschedulable_should_match_upstream_table(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(PLUGIN, NULL, upstream, N(upstream)), 0);
}

static void node_unschedulable_should_honour_toleration_rules(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(PLUGIN, NULL, edges, N(edges)), 0);
}

/* v1.22 Filter: a NodeInfo without a node has "unknown conditions". */
static void node_unschedulable_should_reject_missing_node(void **state)
{
    struct kube_pod pod;
    struct pred_cycle cy;
    struct node_info ni;
    struct pred_result r;

    (void)state;
    memset(&pod, 0, sizeof(pod));
    memset(&cy, 0, sizeof(cy));
    memset(&ni, 0, sizeof(ni));
    cy.pod = &pod;
    pred_result_init(&r, NULL);
    assert_int_equal(pred_node_unschedulable_filter(&cy, NULL, NULL, &ni, &r),
                     PRED_UNFIT_UNRESOLVABLE);
    assert_int_equal(r.n_reasons, 1);
    assert_string_equal(r.reasons[0], PRED_REASON_UNKNOWN_CONDITION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_unschedulable_should_match_upstream_table),
        cmocka_unit_test(node_unschedulable_should_honour_toleration_rules),
        cmocka_unit_test(node_unschedulable_should_reject_missing_node),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
