/*
 * test_pred_reasons_semantics.c: the filter reasons whose wording changed
 * between kube-scheduler v1.20.2 and v1.22 (docs/VERSION-SEMANTICS.md D8),
 * per --semantics: NodeAffinity (#97521, v1.21.0), NodeName (#97454,
 * v1.21.0) and InterPodAffinity's generic reason (v1.22; v1.21 kept on
 * the old text, Q3). Texts: v1.20.2's ErrReason* constants (local tree).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "policy/policy.h"
#include "tests/support/pred_fixtures.h"

#define NODE                                                                   \
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"labels\":{\"zone\":"   \
    "\"a\"}}}"

struct reason_case {
    const char *plugin;
    const char *pod;
    const char *want[3]; /* as 1.20, 1.21, 1.22 */
};

static const struct reason_case cases[] = {
    { "NodeName",
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeName\":\"other\"}}",
      { "node(s) didn't match the requested hostname",
        "node(s) didn't match the requested node name",
        "node(s) didn't match the requested node name" } },
    { "NodeAffinity",
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeSelector\":{"
      "\"zone\":\"b\"}}}",
      { "node(s) didn't match Pod's node affinity",
        "node(s) didn't match Pod's node affinity/selector",
        "node(s) didn't match Pod's node affinity/selector" } },
    { "InterPodAffinity",
      "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},\"spec\":{"
      "\"affinity\":{\"podAffinity\":{"
      "\"requiredDuringSchedulingIgnoredDuringExecution\":[{"
      "\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"}},"
      "\"topologyKey\":\"zone\"}]}}}}",
      { "node(s) didn't match pod affinity/anti-affinity|node(s) didn't "
        "match pod affinity rules",
        "node(s) didn't match pod affinity/anti-affinity|node(s) didn't "
        "match pod affinity rules",
        "node(s) didn't match pod affinity/anti-affinity rules|node(s) "
        "didn't match pod affinity rules" } },
};

static void reasons_should_follow_the_semantics(void **state)
{
    static const enum kpe_semantics sems[] = { KPE_SEM_1_20, KPE_SEM_1_21,
                                               KPE_SEM_1_22 };
    size_t i, k;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (k = 0; k < 3; k++) {
            struct policy policy;
            struct pred_result r;
            struct fx_cluster fc;
            struct arena a;
            const char *got;

            memset(&policy, 0, sizeof(policy));
            policy.semantics = sems[k];
            arena_init(&a, 0);
            fx_cluster_init(&fc, &a);
            fx_cluster_add(&fc, NODE);
            fx_cluster_build(&fc);
            fx_run_filter(cases[i].plugin, NULL, &policy,
                          fx_pod(&a, cases[i].pod), &fc.c, "n1", &a, &r);
            got = fx_reasons(&a, &r);
            if (strcmp(got, cases[i].want[k]))
                fail_msg("%s as %s: \"%s\", want \"%s\"", cases[i].plugin,
                         kpe_semantics_name(sems[k]), got, cases[i].want[k]);
            fx_cluster_free(&fc);
            arena_destroy(&a);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reasons_should_follow_the_semantics),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
