/*
 * test_pred_service_affinity.c: CheckServiceAffinity (ServiceAffinity),
 * ported from plugins/serviceaffinity/service_affinity_test.go (v1.22),
 * plus the backfill rules of predicates.md B.10.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/predicates.h"
#include "predicates/service_affinity.h"
#include "tests/support/pred_fixtures.h"

#define MAX_OBJS 3

/* machine1..machine5 with upstream's labels1..labels4 (5 reuses 4). */
static const char *const nodes[] = {
    "{\"metadata\":{\"name\":\"machine1\","
    "\"labels\":{\"region\":\"r1\",\"zone\":\"z11\"}}}",
    "{\"metadata\":{\"name\":\"machine2\","
    "\"labels\":{\"region\":\"r1\",\"zone\":\"z12\"}}}",
    "{\"metadata\":{\"name\":\"machine3\","
    "\"labels\":{\"region\":\"r2\",\"zone\":\"z21\"}}}",
    "{\"metadata\":{\"name\":\"machine4\","
    "\"labels\":{\"region\":\"r2\",\"zone\":\"z22\"}}}",
    "{\"metadata\":{\"name\":\"machine5\","
    "\"labels\":{\"region\":\"r2\",\"zone\":\"z22\"}}}",
};

#define SEL "{\"foo\":\"bar\"}"
/* A pod with labels `sel` on node `node` (ns "" = default namespace). */
#define ON(name, node, ns, sel)                                                \
    "{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"" ns                 \
    "\",\"labels\":" sel "},\"spec\":{\"nodeName\":\"" node "\"}}"
#define ON_UID(name, node, sel)                                                \
    "{\"metadata\":{\"name\":\"" name "\",\"uid\":\"uid-" name                 \
    "\",\"labels\":" sel "},\"spec\":{\"nodeName\":\"" node "\"}}"
#define SVC(ns, spec)                                                          \
    "{\"kind\":\"Service\",\"metadata\":{\"name\":\"s\",\"namespace\":\"" ns   \
    "\"},\"spec\":" spec "}"
#define SVC_SEL(ns) SVC(ns, "{\"selector\":" SEL "}")
#define INCOMING(ns, sel)                                                      \
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"" ns "\",\"labels\":" sel   \
    "}}"
#define WITH_NODE_SELECTOR(sel)                                                \
    "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeSelector\":" sel "}}"
#define DEF "default"

struct sa_case {
    const char *name;
    const char *pod;
    const char *pods[MAX_OBJS];     /* pods bound to nodes */
    const char *services[MAX_OBJS]; /* Service documents */
    const char *node;               /* the node filtered */
    const char *labels[MAX_OBJS];   /* affinityLabels */
    enum pred_code want;
};

/* TestServiceAffinity (serviceaffinity/service_affinity_test.go) */
static const struct sa_case upstream[] = {
    { "nothing scheduled",
      "{\"metadata\":{\"name\":\"p\"}}",
      { NULL },
      { NULL },
      "machine1",
      { "region" },
      PRED_FIT },
    { "pod with region label match",
      WITH_NODE_SELECTOR("{\"region\":\"r1\"}"),
      { NULL },
      { NULL },
      "machine1",
      { "region" },
      PRED_FIT },
    { "pod with region label mismatch",
      WITH_NODE_SELECTOR("{\"region\":\"r2\"}"),
      { NULL },
      { NULL },
      "machine1",
      { "region" },
      PRED_UNFIT },
    { "service pod on same node",
      INCOMING(DEF, SEL),
      { ON("a", "machine1", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine1",
      { "region" },
      PRED_FIT },
    { "service pod on different node, region match",
      INCOMING(DEF, SEL),
      { ON("a", "machine2", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine1",
      { "region" },
      PRED_FIT },
    { "service pod on different node, region mismatch",
      INCOMING(DEF, SEL),
      { ON("a", "machine3", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine1",
      { "region" },
      PRED_UNFIT },
    { "service in different namespace, region mismatch",
      INCOMING("ns1", SEL),
      { ON("a", "machine3", "ns1", SEL) },
      { SVC_SEL("ns2") },
      "machine1",
      { "region" },
      PRED_FIT },
    { "pod in different namespace, region mismatch",
      INCOMING("ns1", SEL),
      { ON("a", "machine3", "ns2", SEL) },
      { SVC_SEL("ns1") },
      "machine1",
      { "region" },
      PRED_FIT },
    { "service and pod in same namespace, region mismatch",
      INCOMING("ns1", SEL),
      { ON("a", "machine3", "ns1", SEL) },
      { SVC_SEL("ns1") },
      "machine1",
      { "region" },
      PRED_UNFIT },
    { "service pod on different node, multiple labels, not all match",
      INCOMING(DEF, SEL),
      { ON("a", "machine2", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine1",
      { "region", "zone" },
      PRED_UNFIT },
    { "service pod on different node, multiple labels, all match",
      INCOMING(DEF, SEL),
      { ON("a", "machine5", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine4",
      { "region", "zone" },
      PRED_FIT },
};

/* Ours: which pod's node fills the open labels (predicates.md B.10). */
static const struct sa_case backfill[] = {
    { "the first matching pod is taken in node order, not pod order",
      INCOMING(DEF, SEL),
      { ON("a", "machine3", DEF, SEL), ON("b", "machine2", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine1",
      { "region" },
      PRED_FIT },
    { "a nodeSelector value beats the backfill",
      "{\"metadata\":{\"name\":\"p\",\"labels\":" SEL
      "},\"spec\":{\"nodeSelector\":{\"region\":\"r2\"}}}",
      { ON("a", "machine1", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine3",
      { "region" },
      PRED_FIT },
    { "the nodeSelector value is enforced on the backfill node too",
      "{\"metadata\":{\"name\":\"p\",\"labels\":" SEL
      "},\"spec\":{\"nodeSelector\":{\"region\":\"r2\"}}}",
      { ON("a", "machine1", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine1",
      { "region" },
      PRED_UNFIT },
    { "a pod without UID on the filtered node is skipped (FilterOutPods)",
      INCOMING(DEF, SEL),
      { ON("a", "machine1", DEF, SEL), ON("b", "machine3", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine1",
      { "region" },
      PRED_UNFIT },
    { "a pod with a UID on the filtered node is its own backfill",
      INCOMING(DEF, SEL),
      { ON_UID("a", "machine1", SEL), ON("b", "machine3", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine1",
      { "region" },
      PRED_FIT },
    { "a pod on another node counts without a UID",
      INCOMING(DEF, SEL),
      { ON("a", "machine1", DEF, SEL), ON("b", "machine3", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine2",
      { "region" },
      PRED_FIT },
    { "a service with a nil selector selects nothing",
      INCOMING(DEF, SEL),
      { ON("a", "machine3", DEF, SEL) },
      { SVC(DEF, "{}") },
      "machine1",
      { "region" },
      PRED_FIT },
    { "an empty service selector selects every pod",
      INCOMING(DEF, SEL),
      { ON("a", "machine3", DEF, SEL) },
      { SVC(DEF, "{\"selector\":{}}") },
      "machine1",
      { "region" },
      PRED_UNFIT },
    { "a service must select the pod",
      INCOMING(DEF, SEL),
      { ON("a", "machine3", DEF, SEL) },
      { SVC(DEF, "{\"selector\":{\"foo\":\"other\"}}") },
      "machine1",
      { "region" },
      PRED_FIT },
    { "a pod without labels matches every pod of its namespace",
      INCOMING(DEF, "{}"),
      { ON("a", "machine3", DEF, "{\"app\":\"x\"}") },
      { SVC(DEF, "{\"selector\":{}}") },
      "machine1",
      { "region" },
      PRED_UNFIT },
    { "a matching pod carries every label of the pod",
      INCOMING(DEF, "{\"foo\":\"bar\",\"x\":\"y\"}"),
      { ON("a", "machine3", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine1",
      { "region" },
      PRED_FIT },
    { "a label the backfill node lacks stays open",
      INCOMING(DEF, SEL),
      { ON("a", "machine3", DEF, SEL) },
      { SVC_SEL(DEF) },
      "machine1",
      { "rack" },
      PRED_FIT },
    { "no affinity labels: any node",
      WITH_NODE_SELECTOR("{\"region\":\"r2\"}"),
      { NULL },
      { NULL },
      "machine1",
      { NULL },
      PRED_FIT },
};

static size_t count(const char *const *v)
{
    size_t n = 0;

    while (n < MAX_OBJS && v[n])
        n++;
    return n;
}

static void run_table(const char *table, const struct sa_case *cases, size_t n)
{
    size_t i, j;

    for (i = 0; i < n; i++) {
        const struct sa_case *c = &cases[i];
        struct pred_args args;
        struct policy_strlist labels;
        struct arena a;
        struct fx_cluster fc;
        struct pred_result r;
        enum pred_code got;

        memset(&args, 0, sizeof(args));
        labels.v = (const char **)c->labels;
        labels.n = count(c->labels);
        args.value = &labels; /* what the entries fold into */
        arena_init(&a, 0);
        fx_cluster_init(&fc, &a);
        for (j = 0; j < sizeof(nodes) / sizeof(nodes[0]); j++)
            fx_cluster_add_node(&fc, fx_node(&a, nodes[j]));
        for (j = 0; j < count(c->pods); j++)
            fx_cluster_add_pod(&fc, fx_pod(&a, c->pods[j]));
        for (j = 0; j < count(c->services); j++)
            fx_cluster_add(&fc, c->services[j]);
        fx_cluster_build(&fc);
        got = fx_run_filter("ServiceAffinity", &args, NULL, fx_pod(&a, c->pod),
                            &fc.c, c->node, &a, &r);
        if (got != c->want)
            fail_msg("%s %s: code %d, want %d", table, c->name, got, c->want);
        if (strcmp(fx_reasons(&a, &r),
                   got == PRED_FIT ? "" : PRED_REASON_SERVICE_AFFINITY))
            fail_msg("%s %s: reasons \"%s\"", table, c->name,
                     fx_reasons(&a, &r));
        fx_cluster_free(&fc);
        arena_destroy(&a);
    }
}

#define RUN(t) run_table(#t, t, sizeof(t) / sizeof((t)[0]))

static void service_affinity_should_match_upstream_table(void **state)
{
    (void)state;
    RUN(upstream);
}

static void service_affinity_should_backfill_from_first_pod_node(void **state)
{
    (void)state;
    RUN(backfill);
}

/* No serviceAffinity args at all (a zeroed pred_args): always fits. */
static void service_affinity_without_args_should_fit(void **state)
{
    struct pred_args none;
    struct arena a;
    struct fx_cluster fc;
    struct pred_result r;

    (void)state;
    memset(&none, 0, sizeof(none));
    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    fx_cluster_add_node(&fc, fx_node(&a, nodes[0]));
    fx_cluster_build(&fc);
    assert_int_equal(
        fx_run_filter("ServiceAffinity", &none, NULL,
                      fx_pod(&a, WITH_NODE_SELECTOR("{\"region\":\"r9\"}")),
                      &fc.c, "machine1", &a, &r),
        PRED_FIT);
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(service_affinity_should_match_upstream_table),
        cmocka_unit_test(service_affinity_should_backfill_from_first_pod_node),
        cmocka_unit_test(service_affinity_without_args_should_fit),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
