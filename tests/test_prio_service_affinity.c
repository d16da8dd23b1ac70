/*
 * test_prio_service_affinity.c: ServiceAffinity scoring (the Policy's
 * serviceAntiAffinity priorities), ported from v1.22
 * plugins/serviceaffinity/service_affinity_test.go. Upstream's pods and
 * services have no namespace (""); they keep it here (a leading '/').
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "priorities/plugins.h"
#include "priorities/priorities.h"
#include "tests/support/prio_topo_fixtures.h"

#define L1  "foo=bar,baz=blah"
#define L2  "bar=foo,baz=blah"
#define L1J "{\"foo\":\"bar\",\"baz\":\"blah\"}"
#define POD(ns, labels)                                                        \
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"" ns                        \
    "\",\"labels\":" labels "}}"
#define SVC(ns, sel)                                                           \
    "{\"kind\":\"Service\",\"metadata\":{\"name\":\"s\",\"namespace\":\"" ns   \
    "\"},\"spec\":{\"selector\":" sel "}}"
#define LABELED                                                                \
    "machine11:zone=zone1;machine12:zone=zone1;machine21:zone=zone2;"          \
    "machine22:zone=zone2;machine01:name=value;machine02:name=value"
#define RACKED                                                                 \
    "machine11:zone=zone1,rack=rack1;machine12:zone=zone1,rack=rack2;"         \
    "machine21:zone=zone2,rack=rack1;machine22:zone=zone2,rack=rack1;"         \
    "machine01:name=value;machine02:name=value"

static const char *zone[] = { "zone" };
static const char *zone_rack[] = { "zone", "rack" };

struct sa_case {
    const char **labels;
    size_t n_labels;
    struct ptf_case c;
};

/* TestServiceAffinityScore (service_affinity_test.go). */
static const struct sa_case cases[] = {
    { zone,
      1,
      { "nothing scheduled",
        POD("", "{}"),
        LABELED,
        NULL,
        NULL,
        { NULL },
        { 100, 100, 100, 100, 0, 0 } } },
    { zone,
      1,
      { "no services",
        POD("", L1J),
        LABELED,
        NULL,
        "/p1@machine11",
        { NULL },
        { 100, 100, 100, 100, 0, 0 } } },
    { zone,
      1,
      { "different services",
        POD("", L1J),
        LABELED,
        NULL,
        "/p1@machine11:" L2,
        { SVC("", "{\"key\":\"value\"}"), NULL },
        { 100, 100, 100, 100, 0, 0 } } },
    { zone,
      1,
      { "three pods, one service pod",
        POD("", L1J),
        LABELED,
        NULL,
        "/p1@machine01:" L2 ";/p2@machine11:" L2 ";/p3@machine21:" L1,
        { SVC("", L1J), NULL },
        { 100, 100, 0, 0, 0, 0 } } },
    { zone,
      1,
      { "three pods, two service pods on different machines",
        POD("", L1J),
        LABELED,
        NULL,
        "/p1@machine11:" L2 ";/p2@machine11:" L1 ";/p3@machine21:" L1,
        { SVC("", L1J), NULL },
        { 50, 50, 50, 50, 0, 0 } } },
    { zone,
      1,
      { "three service label match pods in different namespaces",
        POD("default", L1J),
        LABELED,
        NULL,
        "/p1@machine11:" L1 ";default/p2@machine11:" L1 ";/p3@machine21:" L1
        ";ns1/p4@machine21:" L1,
        { SVC("default", L1J), NULL },
        { 0, 0, 100, 100, 0, 0 } } },
    { zone,
      1,
      { "four pods, three service pods",
        POD("", L1J),
        LABELED,
        NULL,
        "/p1@machine11:" L2 ";/p2@machine11:" L1 ";/p3@machine21:" L1
        ";/p4@machine21:" L1,
        { SVC("", L1J), NULL },
        { 66, 66, 33, 33, 0, 0 } } },
    { zone,
      1,
      { "service with partial pod label matches",
        POD("", L1J),
        LABELED,
        NULL,
        "/p1@machine11:" L2 ";/p2@machine11:" L1 ";/p3@machine21:" L1,
        { SVC("", "{\"baz\":\"blah\"}"), NULL },
        { 33, 33, 66, 66, 0, 0 } } },
    { zone,
      1,
      { "service pod on non-zoned node",
        POD("", L1J),
        LABELED,
        NULL,
        "/p1@machine01:" L1 ";/p2@machine11:" L1 ";/p3@machine21:" L1
        ";/p4@machine21:" L1,
        { SVC("", L1J), NULL },
        { 75, 75, 50, 50, 0, 0 } } },
    { zone_rack,
      2,
      { "three pods, two service pods, with rack label",
        POD("", L1J),
        RACKED,
        NULL,
        "/p1@machine01:" L2 ";/p2@machine11:" L1 ";/p3@machine21:" L1,
        { SVC("", L1J), NULL },
        { 25, 75, 25, 25, 0, 0 } } },
    /* Beyond upstream: terminating pods and a second service are ignored
     * (only the first matching service's selector is used). */
    { zone,
      1,
      { "terminating pods do not count; the first service wins",
        POD("", L1J),
        LABELED,
        NULL,
        "/p1@machine11!:" L1 ";/p2@machine21:" L1 ";/p3@machine11:" L2,
        { SVC("", L1J), SVC("", "{\"baz\":\"blah\"}"), NULL },
        { 100, 100, 0, 0, 0, 0 } } },
};

static void service_affinity_should_match_upstream_table(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct prio_args args = { .value = NULL };
        struct policy_strlist labels = { cases[i].labels, cases[i].n_labels };

        args.value = &labels; /* what the entries fold into */
        bad += ptf_run_case("ServiceAffinity", &args, &cases[i].c);
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(service_affinity_should_match_upstream_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
