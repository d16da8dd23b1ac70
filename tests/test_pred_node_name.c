/*
 * test_pred_node_name.c: HostName (NodeName plugin) and the seed's
 * PodFitsHostNew / CustomPredicatePolicy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/node_name.h"
#include "predicates/pod_fits_host_new.h"
#include "tests/support/pred_fixtures.h"

struct name_case {
    const char *name;
    const char *pod;
    const char *node;
    enum pred_code want;
};

/* TestNodeName (plugins/nodename/node_name_test.go) */
static const struct name_case cases[] = {
    { "no host specified", "{\"metadata\":{\"name\":\"p\"}}",
      "{\"metadata\":{\"name\":\"foo\"}}", PRED_FIT },
    { "host matches",
      "{\"metadata\":{\"name\":\"p\"},"
      "\"spec\":{\"nodeName\":\"foo\"}}",
      "{\"metadata\":{\"name\":\"foo\"}}", PRED_FIT },
    { "host doesn't match",
      "{\"metadata\":{\"name\":\"p\"},"
      "\"spec\":{\"nodeName\":\"bar\"}}",
      "{\"metadata\":{\"name\":\"foo\"}}", PRED_UNFIT_UNRESOLVABLE },
};

static void run_cases(const char *plugin, const char *reason)
{
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct arena a;
        struct fx_cluster fc;
        struct pred_result r;
        struct kube_node *node;
        enum pred_code got;

        arena_init(&a, 0);
        fx_cluster_init(&fc, &a);
        node = fx_node(&a, cases[i].node);
        fx_cluster_add_node(&fc, node);
        fx_cluster_build(&fc);
        got = fx_run_filter(plugin, NULL, NULL, fx_pod(&a, cases[i].pod), &fc.c,
                            node->name, &a, &r);
        if (got != cases[i].want)
            fail_msg("%s %s: code %d, want %d", plugin, cases[i].name, got,
                     cases[i].want);
        if (strcmp(fx_reasons(&a, &r), got == PRED_FIT ? "" : reason))
            fail_msg("%s %s: reasons \"%s\"", plugin, cases[i].name,
                     fx_reasons(&a, &r));
        fx_cluster_free(&fc);
        arena_destroy(&a);
    }
}

static void host_name_should_match_upstream_table(void **state)
{
    (void)state;
    run_cases("NodeName", PRED_REASON_NODE_NAME);
}

static void pod_fits_host_new_should_pin_pods_with_node_name(void **state)
{
    (void)state;
    run_cases("PodFitsHostNew", PRED_REASON_HOST_NAME_SEED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_name_should_match_upstream_table),
        cmocka_unit_test(pod_fits_host_new_should_pin_pods_with_node_name),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
