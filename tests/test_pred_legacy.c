/*
 * test_pred_legacy.c: the predicates v1.22 dropped, loaded only with
 * `compat legacy`, with v1.16 semantics: CheckNodeCondition,
 * CheckNodeMemoryPressure, CheckNodeDiskPressure, CheckNodePIDPressure and
 * PodToleratesNodeNoExecuteTaints. All failures are
 * UnschedulableAndUnresolvable (v1.16 unresolvablePredicateFailureErrors).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/predicates.h"
#include "predicates/node_unschedulable.h"
#include "predicates/legacy_node_condition.h"
#include "predicates/legacy_pressure.h"
#include "predicates/legacy_no_execute_taints.h"
#include "tests/support/node_filter_fixtures.h"

/* The descriptors these tests run, by name (in their plugins' files). */
extern const struct pred_def pred_check_node_condition;
extern const struct pred_def pred_check_node_memory_pressure;
extern const struct pred_def pred_check_node_disk_pressure;
extern const struct pred_def pred_check_node_pid_pressure;
extern const struct pred_def pred_pod_tolerates_node_no_execute_taints;

#define N(a)  (sizeof(a) / sizeof((a)[0]))
#define UNRES PRED_UNFIT_UNRESOLVABLE

#define NODE_COND(conds)                                                       \
    "{'metadata':{'name':'n'},'status':{'conditions':[" conds "]}}"
#define COND(t, s) "{'type':'" t "','status':'" s "'}"
#define POD        "{'metadata':{'name':'p'},'spec':{'containers':[{'name':'c'}]}}"
#define POD_RES(res)                                                           \
    "{'metadata':{'name':'p'},'spec':{'containers':[{'name':'c',"              \
    "'resources':{" res "}}]}}"

/*
 * TestNodeConditionPredicate (v1.16 algorithm/predicates/predicates_test.go:
 * the rows that survived the removal of the OutOfDisk condition).
 */
static const struct p1_case condition_upstream[] = {
    { "node1 considered",
      POD,
      NODE_COND(COND("Ready", "True")),
      { NULL },
      PRED_FIT,
      NULL },
    { "node2 ignored - node not Ready",
      POD,
      NODE_COND(COND("Ready", "False")),
      { NULL },
      UNRES,
      PRED_REASON_NOT_READY },
    { "node9 ignored - node unschedulable",
      POD,
      "{'metadata':{'name':'node9'},'spec':{'unschedulable':true}}",
      { NULL },
      UNRES,
      PRED_REASON_UNSCHEDULABLE },
    { "node10 considered",
      POD,
      "{'metadata':{'name':'node10'},'spec':{'unschedulable':false}}",
      { NULL },
      PRED_FIT,
      NULL },
    { "node11 considered",
      POD,
      "{'metadata':{'name':'node11'}}",
      { NULL },
      PRED_FIT,
      NULL },
};

/* v1.16 CheckNodeConditionPredicate rules beyond the upstream rows. */
static const struct p1_case condition_edges[] = {
    { "Ready Unknown is not ready",
      POD,
      NODE_COND(COND("Ready", "Unknown")),
      { NULL },
      UNRES,
      PRED_REASON_NOT_READY },
    { "NetworkUnavailable True",
      POD,
      NODE_COND(COND("Ready", "True") "," COND("NetworkUnavailable", "True")),
      { NULL },
      UNRES,
      PRED_REASON_NETWORK_UNAVAIL },
    { "NetworkUnavailable Unknown is not False, so unavailable",
      POD,
      NODE_COND(COND("NetworkUnavailable", "Unknown")),
      { NULL },
      UNRES,
      PRED_REASON_NETWORK_UNAVAIL },
    { "NetworkUnavailable False fits",
      POD,
      NODE_COND(COND("Ready", "True") "," COND("NetworkUnavailable", "False")),
      { NULL },
      PRED_FIT,
      NULL },
    { "every reason, conditions in order, then unschedulable",
      POD,
      "{'metadata':{'name':'n'},'spec':{'unschedulable':true},"
      "'status':{'conditions':[" COND("NetworkUnavailable",
                                      "True") "," COND("Ready", "False") "]}}",
      { NULL },
      UNRES,
      PRED_REASON_NETWORK_UNAVAIL "|" PRED_REASON_NOT_READY
                                  "|" PRED_REASON_UNSCHEDULABLE },
    { "tolerations do not help against spec.unschedulable",
      "{'metadata':{'name':'p'},'spec':{'tolerations':[{'operator':'Exists'}]"
      "}}",
      "{'metadata':{'name':'n'},'spec':{'unschedulable':true}}",
      { NULL },
      UNRES,
      PRED_REASON_UNSCHEDULABLE },
    { "pressure and OutOfDisk conditions are not this predicate's",
      POD,
      NODE_COND(COND("Ready", "True") "," COND(
          "MemoryPressure", "True") "," COND("OutOfDisk", "True")),
      { NULL },
      PRED_FIT,
      NULL },
};

static void check_node_condition_should_match_v116_table(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(pred_check_node_condition.name, NULL,
                                  condition_upstream, N(condition_upstream)),
                     0);
}

static void check_node_condition_should_list_every_reason(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(pred_check_node_condition.name, NULL,
                                  condition_edges, N(condition_edges)),
                     0);
}

#define BEST_EFFORT POD
#define NOT_BEST_EFFORT                                                        \
    POD_RES("'requests':{'cpu':'100m','memory':'100','pods':'100'}")
#define NO_MEM_PRESSURE NODE_COND(COND("Ready", "True"))
#define MEM_PRESSURE    NODE_COND(COND("MemoryPressure", "True"))
#define MP              PRED_REASON_MEMORY_PRESSURE

/* TestPodSchedulesOnNodeWithMemoryPressureCondition (v1.16). */
static const struct p1_case memory_upstream[] = {
    { "best-effort pod schedulable on node without memory pressure condition "
      "on",
      BEST_EFFORT,
      NO_MEM_PRESSURE,
      { NULL },
      PRED_FIT,
      NULL },
    { "best-effort pod not schedulable on node with memory pressure "
      "condition on",
      BEST_EFFORT,
      MEM_PRESSURE,
      { NULL },
      UNRES,
      MP },
    { "non best-effort pod schedulable on node with memory pressure "
      "condition on",
      NOT_BEST_EFFORT,
      MEM_PRESSURE,
      { NULL },
      PRED_FIT,
      NULL },
    { "non best-effort pod schedulable on node without memory pressure "
      "condition on",
      NOT_BEST_EFFORT,
      NO_MEM_PRESSURE,
      { NULL },
      PRED_FIT,
      NULL },
};

/* qos.GetPodQOS == BestEffort, as v1.16 decided it. */
static const struct p1_case memory_edges[] = {
    { "a limit alone makes the pod burstable",
      POD_RES("'limits':{'memory':'1Gi'}"),
      MEM_PRESSURE,
      { NULL },
      PRED_FIT,
      NULL },
    { "zero cpu and memory requests stay best-effort",
      POD_RES("'requests':{'cpu':'0','memory':'0'}"),
      MEM_PRESSURE,
      { NULL },
      UNRES,
      MP },
    { "extended resources do not count for QoS",
      POD_RES("'requests':{'example.com/gpu':'1'},'limits':{'example.com/"
              "gpu':'1'}"),
      MEM_PRESSURE,
      { NULL },
      UNRES,
      MP },
    { "ephemeral-storage does not count for QoS",
      POD_RES("'requests':{'ephemeral-storage':'1Gi'}"),
      MEM_PRESSURE,
      { NULL },
      UNRES,
      MP },
    { "an init container request makes the pod burstable",
      "{'metadata':{'name':'p'},'spec':{'initContainers':[{'name':'i',"
      "'resources':{'requests':{'cpu':'1m'}}}],'containers':[{'name':'c'}]}}",
      MEM_PRESSURE,
      { NULL },
      PRED_FIT,
      NULL },
    { "MemoryPressure False fits",
      BEST_EFFORT,
      NODE_COND(COND("MemoryPressure", "False")),
      { NULL },
      PRED_FIT,
      NULL },
    { "MemoryPressure Unknown fits",
      BEST_EFFORT,
      NODE_COND(COND("MemoryPressure", "Unknown")),
      { NULL },
      PRED_FIT,
      NULL },
    { "the last MemoryPressure condition wins",
      BEST_EFFORT,
      NODE_COND(
          COND("MemoryPressure", "False") "," COND("MemoryPressure", "True")),
      { NULL },
      UNRES,
      MP },
};

static void memory_pressure_should_match_v116_table(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(pred_check_node_memory_pressure.name, NULL,
                                  memory_upstream, N(memory_upstream)),
                     0);
}

static void memory_pressure_should_reject_only_best_effort(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(pred_check_node_memory_pressure.name, NULL,
                                  memory_edges, N(memory_edges)),
                     0);
}

/* TestPodSchedulesOnNodeWithDiskPressureCondition (v1.16), plus ours. */
static const struct p1_case disk_cases[] = {
    { "pod schedulable on node without pressure condition on",
      POD,
      NODE_COND(COND("Ready", "True")),
      { NULL },
      PRED_FIT,
      NULL },
    { "pod not schedulable on node with pressure condition on",
      POD,
      NODE_COND(COND("DiskPressure", "True")),
      { NULL },
      UNRES,
      PRED_REASON_DISK_PRESSURE },
    /* ours */
    { "requests do not help under disk pressure",
      NOT_BEST_EFFORT,
      NODE_COND(COND("DiskPressure", "True")),
      { NULL },
      UNRES,
      PRED_REASON_DISK_PRESSURE },
    { "DiskPressure False fits",
      POD,
      NODE_COND(COND("DiskPressure", "False")),
      { NULL },
      PRED_FIT,
      NULL },
    { "other pressure conditions are ignored",
      POD,
      NODE_COND(COND("PIDPressure", "True") "," COND("MemoryPressure", "True")),
      { NULL },
      PRED_FIT,
      NULL },
};

/* TestPodSchedulesOnNodeWithPIDPressureCondition (v1.16), plus ours. */
static const struct p1_case pid_cases[] = {
    { "pod schedulable on node without pressure condition on",
      POD,
      NODE_COND(COND("Ready", "True")),
      { NULL },
      PRED_FIT,
      NULL },
    { "pod not schedulable on node with pressure condition on",
      POD,
      NODE_COND(COND("PIDPressure", "True")),
      { NULL },
      UNRES,
      PRED_REASON_PID_PRESSURE },
    /* ours */
    { "PIDPressure Unknown fits",
      POD,
      NODE_COND(COND("PIDPressure", "Unknown")),
      { NULL },
      PRED_FIT,
      NULL },
    { "DiskPressure is not PID pressure",
      POD,
      NODE_COND(COND("DiskPressure", "True")),
      { NULL },
      PRED_FIT,
      NULL },
};

static void disk_pressure_should_reject_every_pod(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(pred_check_node_disk_pressure.name, NULL,
                                  disk_cases, N(disk_cases)),
                     0);
}

static void pid_pressure_should_reject_every_pod(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(pred_check_node_pid_pressure.name, NULL,
                                  pid_cases, N(pid_cases)),
                     0);
}

#define POD_TOL(t)     "{'metadata':{'name':'p'},'spec':{'tolerations':[" t "]}}"
#define NODE_TAINTS(t) "{'metadata':{'name':'n'},'spec':{'taints':[" t "]}}"
#define TAINT(k, v, e) "{'key':'" k "','value':'" v "','effect':'" e "'}"
#define TL             PRED_REASON_TAINTS_LEGACY

/*
 * v1.16 had no test table of its own for PodToleratesNodeNoExecuteTaints;
 * these rows are TestPodToleratesTaints' (v1.16 predicates_test.go) with
 * the taint effects moved to NoExecute where the row is about matching,
 * plus rows showing that other effects are ignored.
 */
static const struct p1_case no_execute_cases[] = {
    { "A pod having no tolerations can't be scheduled onto a node with "
      "nonempty NoExecute taints",
      POD_TOL(""),
      NODE_TAINTS(TAINT("dedicated", "user1", "NoExecute")),
      { NULL },
      UNRES,
      TL },
    { "A pod which can be scheduled on a dedicated node assigned to user1 "
      "with effect NoExecute",
      POD_TOL("{'key':'dedicated','value':'user1','effect':'NoExecute'}"),
      NODE_TAINTS(TAINT("dedicated", "user1", "NoExecute")),
      { NULL },
      PRED_FIT,
      NULL },
    { "A pod which can't be scheduled on a dedicated node assigned to user2 "
      "with effect NoExecute",
      POD_TOL("{'key':'dedicated','operator':'Equal','value':'user2',"
              "'effect':'NoExecute'}"),
      NODE_TAINTS(TAINT("dedicated", "user1", "NoExecute")),
      { NULL },
      UNRES,
      TL },
    { "A toleration with operator Exists tolerates the NoExecute taint",
      POD_TOL("{'key':'foo','operator':'Exists','effect':'NoExecute'}"),
      NODE_TAINTS(TAINT("foo", "bar", "NoExecute")),
      { NULL },
      PRED_FIT,
      NULL },
    { "A toleration whose (non-empty) effect doesn't match does not help",
      POD_TOL("{'key':'foo','operator':'Equal','value':'bar',"
              "'effect':'NoSchedule'}"),
      NODE_TAINTS(TAINT("foo", "bar", "NoExecute")),
      { NULL },
      UNRES,
      TL },
    { "A toleration with empty effect tolerates the NoExecute taint",
      POD_TOL("{'key':'foo','operator':'Equal','value':'bar'}"),
      NODE_TAINTS(TAINT("foo", "bar", "NoExecute")),
      { NULL },
      PRED_FIT,
      NULL },
    { "NoSchedule taints are ignored",
      POD_TOL(""),
      NODE_TAINTS(TAINT("dedicated", "user1", "NoSchedule")),
      { NULL },
      PRED_FIT,
      NULL },
    { "PreferNoSchedule taints are ignored",
      POD_TOL(""),
      NODE_TAINTS(TAINT("dedicated", "user1", "PreferNoSchedule")),
      { NULL },
      PRED_FIT,
      NULL },
    { "every NoExecute taint must be tolerated",
      POD_TOL("{'key':'a','operator':'Exists'}"),
      NODE_TAINTS(
          TAINT("a", "1", "NoExecute") "," TAINT("b", "2", "NoExecute")),
      { NULL },
      UNRES,
      TL },
};

static void no_execute_taints_should_check_only_no_execute(void **state)
{
    (void)state;
    assert_int_equal(
        p1_run_cases(pred_pod_tolerates_node_no_execute_taints.name, NULL,
                     no_execute_cases, N(no_execute_cases)),
        0);
}

/* v1.16: a NodeInfo without a node had unknown conditions. */
static void check_node_condition_should_reject_missing_node(void **state)
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
    assert_int_equal(pred_check_node_condition_filter(&cy, NULL, NULL, &ni, &r),
                     UNRES);
    assert_int_equal(r.n_reasons, 1);
    assert_string_equal(r.reasons[0], PRED_REASON_UNKNOWN_CONDITION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_node_condition_should_match_v116_table),
        cmocka_unit_test(check_node_condition_should_list_every_reason),
        cmocka_unit_test(check_node_condition_should_reject_missing_node),
        cmocka_unit_test(memory_pressure_should_match_v116_table),
        cmocka_unit_test(memory_pressure_should_reject_only_best_effort),
        cmocka_unit_test(disk_pressure_should_reject_every_pod),
        cmocka_unit_test(pid_pressure_should_reject_every_pod),
        cmocka_unit_test(no_execute_taints_should_check_only_no_execute),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
