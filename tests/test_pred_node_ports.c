/*
 * test_pred_node_ports.c: PodFitsHostPorts / PodFitsPorts (NodePorts
 * prefilter + filter, predicates.md B.4 and A.6).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kube/base/arena.h"
#include "predicates/plugins.h"
#include "predicates/node_ports.h"
#include "tests/support/node_filter_fixtures.h"
#include "tests/support/pred_fixtures.h"

#define PLUGIN "NodePorts"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define NP   PRED_REASON_NODE_PORTS
#define NODE "{'metadata':{'name':'m1'}}"
/* A pod whose one container has these ports (newPod in the Go test). */
#define PORTS(name, p)                                                         \
    "{'metadata':{'name':'" name "'},'spec':{'containers':[{'name':'c',"       \
    "'ports':[" p "]}]}}"
#define POD(p) PORTS("p", p)
#define ON(p)  PORTS("existing", p)
#define HP(proto, ip, hp)                                                      \
    "{'protocol':'" proto "','hostIP':'" ip "','hostPort':" hp                 \
    ",'containerPort':1}"

/*
 * TestNodePorts (plugins/nodeports/node_ports_test.go). v1.22's first row
 * is "nothing running" (later releases return Skip from PreFilter instead);
 * the init-container rows of later releases are in the edge table with
 * v1.22's answer (init-container ports never count).
 */
static const struct p1_case upstream[] = {
    { "nothing running",
      "{'metadata':{'name':'p'}}",
      NODE,
      { NULL },
      PRED_FIT,
      NULL },
    { "other port",
      POD(HP("UDP", "127.0.0.1", "8080")),
      NODE,
      { ON(HP("UDP", "127.0.0.1", "9090")) },
      PRED_FIT,
      NULL },
    { "same udp port",
      POD(HP("UDP", "127.0.0.1", "8080")),
      NODE,
      { ON(HP("UDP", "127.0.0.1", "8080")) },
      PRED_UNFIT,
      NP },
    { "same tcp port",
      POD(HP("TCP", "127.0.0.1", "8080")),
      NODE,
      { ON(HP("TCP", "127.0.0.1", "8080")) },
      PRED_UNFIT,
      NP },
    { "different host ip",
      POD(HP("TCP", "127.0.0.1", "8080")),
      NODE,
      { ON(HP("TCP", "127.0.0.2", "8080")) },
      PRED_FIT,
      NULL },
    { "different protocol",
      POD(HP("UDP", "127.0.0.1", "8080")),
      NODE,
      { ON(HP("TCP", "127.0.0.1", "8080")) },
      PRED_FIT,
      NULL },
    { "second udp port conflict",
      POD(HP("UDP", "127.0.0.1", "8000") "," HP("UDP", "127.0.0.1", "8080")),
      NODE,
      { ON(HP("UDP", "127.0.0.1", "8080")) },
      PRED_UNFIT,
      NP },
    { "first tcp port conflict",
      POD(HP("TCP", "127.0.0.1", "8001") "," HP("UDP", "127.0.0.1", "8080")),
      NODE,
      { ON(HP("TCP", "127.0.0.1", "8001") "," HP("UDP", "127.0.0.1", "8081")) },
      PRED_UNFIT,
      NP },
    { "first tcp port conflict due to 0.0.0.0 hostIP",
      POD(HP("TCP", "0.0.0.0", "8001")),
      NODE,
      { ON(HP("TCP", "127.0.0.1", "8001")) },
      PRED_UNFIT,
      NP },
    { "TCP hostPort conflict due to 0.0.0.0 hostIP",
      POD(HP("TCP", "10.0.10.10", "8001") "," HP("TCP", "0.0.0.0", "8001")),
      NODE,
      { ON(HP("TCP", "127.0.0.1", "8001")) },
      PRED_UNFIT,
      NP },
    { "second tcp port conflict to 0.0.0.0 hostIP",
      POD(HP("TCP", "127.0.0.1", "8001")),
      NODE,
      { ON(HP("TCP", "0.0.0.0", "8001")) },
      PRED_UNFIT,
      NP },
    { "second different protocol",
      POD(HP("UDP", "127.0.0.1", "8001")),
      NODE,
      { ON(HP("TCP", "0.0.0.0", "8001")) },
      PRED_FIT,
      NULL },
    { "UDP hostPort conflict due to 0.0.0.0 hostIP",
      POD(HP("UDP", "127.0.0.1", "8001")),
      NODE,
      { ON(HP("TCP", "0.0.0.0", "8001") "," HP("UDP", "0.0.0.0", "8001")) },
      PRED_UNFIT,
      NP },
};

/* The port lists of TestFits. */
#define WANT_FOUR                                                              \
    HP("TCP", "127.0.0.1", "80")                                               \
    "," HP("TCP", "127.0.1.1", "80") "," HP("TCP", "127.0.1.1", "90") "," HP(  \
        "TCP", "127.0.1.1", "100")
#define USED_FREE                                                              \
    HP("TCP", "127.0.0.1", "9090")                                             \
    "," HP("TCP", "127.0.0.1", "9191") "," HP("TCP", "127.0.1.1", "8080")
#define USED_90                                                                \
    HP("TCP", "127.0.0.1", "9090")                                             \
    "," HP("TCP", "127.0.1.1", "90") "," HP("TCP", "127.0.1.1", "8080")

/*
 * TestFits (nodeports/node_ports_test.go of later releases; Fits is the
 * same HostPortInfo check v1.22's filter makes).
 */
static const struct p1_case fits[] = {
    { "non-conflicting ports",
      POD(HP("TCP", "127.0.0.1", "80")),
      NODE,
      { ON(HP("TCP", "127.0.0.1", "9090")) },
      PRED_FIT,
      NULL },
    { "multiple non-conflicting ports",
      POD(WANT_FOUR),
      NODE,
      { ON(USED_FREE) },
      PRED_FIT,
      NULL },
    { "same ports on different protocols",
      POD(HP("TCP", "127.0.0.1", "80")),
      NODE,
      { ON(HP("UDP", "127.0.0.1", "80")) },
      PRED_FIT,
      NULL },
    { "conflicting ports",
      POD(HP("TCP", "127.0.0.1", "80")),
      NODE,
      { ON(HP("TCP", "127.0.0.1", "80")) },
      PRED_UNFIT,
      NP },
    { "multiple ports, some conflicting",
      POD(WANT_FOUR),
      NODE,
      { ON(USED_90) },
      PRED_UNFIT,
      NP },
};

/* Edge cases of predicates.md B.4 / A.6. */
static const struct p1_case edges[] = {
    { "hostPort 0 never conflicts",
      POD("{'containerPort':8080,'hostPort':0}"),
      NODE,
      { ON("{'containerPort':8080,'hostPort':0}") },
      PRED_FIT,
      NULL },
    { "empty hostIP means 0.0.0.0 and empty protocol TCP",
      POD("{'containerPort':1,'hostPort':8080}"),
      NODE,
      { ON(HP("TCP", "10.0.0.1", "8080")) },
      PRED_UNFIT,
      NP },
    { "127.0.0.1 vs 10.0.0.1 does not conflict",
      POD(HP("TCP", "127.0.0.1", "8080")),
      NODE,
      { ON(HP("TCP", "10.0.0.1", "8080")) },
      PRED_FIT,
      NULL },
    { ":: is just another address",
      POD(HP("TCP", "::", "8080")),
      NODE,
      { ON(HP("TCP", "127.0.0.1", "8080")) },
      PRED_FIT,
      NULL },
    { "SCTP and TCP on the same port do not conflict",
      POD(HP("SCTP", "0.0.0.0", "8080")),
      NODE,
      { ON(HP("TCP", "0.0.0.0", "8080")) },
      PRED_FIT,
      NULL },
    { "ports of several existing pods all count",
      POD(HP("TCP", "0.0.0.0", "9000")),
      NODE,
      { ON(HP("TCP", "0.0.0.0", "8000")),
        PORTS("second", HP("TCP", "1.2.3.4", "9000")) },
      PRED_UNFIT,
      NP },
    { "the pod's own ports are not checked against each other",
      POD(HP("TCP", "0.0.0.0", "8080") "," HP("TCP", "0.0.0.0", "8080")),
      NODE,
      { NULL },
      PRED_FIT,
      NULL },
    { "init-container ports of the incoming pod do not count",
      "{'metadata':{'name':'p'},'spec':{'initContainers':[{'name':'i',"
      "'ports':[" HP("TCP", "0.0.0.0", "8001") "]}],'containers':[{'name':'"
                                               "c'}]}}",
      NODE,
      { ON(HP("TCP", "0.0.0.0", "8001")) },
      PRED_FIT,
      NULL },
    { "init-container ports of existing pods do not count",
      POD(HP("TCP", "0.0.0.0", "8001")),
      NODE,
      { "{'metadata':{'name':'e'},'spec':{'initContainers':[{'name':'i',"
        "'ports':[" HP("TCP", "0.0.0.0", "8001") "]}],'containers':[{'name':"
                                                 "'c'}]}}" },
      PRED_FIT,
      NULL },
    { "terminal existing pods release their ports",
      POD(HP("TCP", "0.0.0.0", "8001")),
      NODE,
      { "{'metadata':{'name':'e'},'spec':{'containers':[{'name':'c','ports':"
        "[" HP("TCP", "0.0.0.0", "8001") "]}]},'status':{'phase':'Succeeded'}"
                                         "}" },
      PRED_FIT,
      NULL },
};

static void node_ports_should_match_upstream_table(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(PLUGIN, NULL, upstream, N(upstream)), 0);
}

static void node_ports_should_match_upstream_fits_table(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(PLUGIN, NULL, fits, N(fits)), 0);
}

static void node_ports_should_normalise_ip_and_protocol(void **state)
{
    (void)state;
    assert_int_equal(p1_run_cases(PLUGIN, NULL, edges, N(edges)), 0);
}

/*
 * TestPreFilterDisabled (nodeports/node_ports_test.go): Filter without its
 * PreFilter state is an internal error, worded as v1.22 words it.
 */
static void node_ports_filter_should_fail_without_prefilter(void **state)
{
    struct kube_pod pod;
    struct kube_node node;
    struct pred_cycle cy;
    struct node_info ni;
    struct pred_result r;

    (void)state;
    memset(&pod, 0, sizeof(pod));
    memset(&node, 0, sizeof(node));
    memset(&cy, 0, sizeof(cy));
    memset(&ni, 0, sizeof(ni));
    cy.pod = &pod;
    node_info_set_node(&ni, &node);
    pred_result_init(&r, NULL);
    assert_int_equal(pred_node_ports_filter(&cy, NULL, NULL, &ni, &r),
                     PRED_ERROR);
    assert_int_equal(r.n_reasons, 1);
    assert_string_equal(r.reasons[0],
                        "reading \"PreFilterNodePorts\" from cycleState: "
                        "not found");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_ports_should_match_upstream_table),
        cmocka_unit_test(node_ports_should_match_upstream_fits_table),
        cmocka_unit_test(node_ports_should_normalise_ip_and_protocol),
        cmocka_unit_test(node_ports_filter_should_fail_without_prefilter),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
