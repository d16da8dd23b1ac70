/*
 * test_pred_rack_pinning.c: the example predicate of docs/extending.md with an
 * argument (tests/data/new_predicate/rack_pinning.c), loaded from a Policy
 * as a user writes it and run exactly as the evaluator runs it. Copied to
 * tests/ by tests/cli/test_add_predicate.sh, with the plugin and its one
 * registry line, to prove that these three are all a newcomer adds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "policy/policy.h"
#include "tests/support/pred_fixtures.h"

#define POLICY_WITH(arg)                                                       \
    "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":"               \
    "[{\"name\":\"RackPinning\"" arg "}]}"

struct rack_case {
    const char *name;
    const char *policy;
    const char *pod_labels; /* JSON object */
    const char *node_rack;  /* value of topology.example.com/rack, or NULL */
    enum pred_code want;
};

static const struct rack_case cases[] = {
    { "pinned pod, rack listed",
      POLICY_WITH(",\"argument\":{\"rackPinning\":{\"racks\":[\"r1\","
                  "\"r2\"]}}"),
      "{\"rack-pinned\":\"\"}", "r2", PRED_FIT },
    { "pinned pod, rack not listed",
      POLICY_WITH(",\"argument\":{\"rackPinning\":{\"racks\":[\"r1\"]}}"),
      "{\"rack-pinned\":\"\"}", "r3", PRED_UNFIT },
    { "pinned pod, node without a rack",
      POLICY_WITH(",\"argument\":{\"rackPinning\":{\"racks\":[\"r1\"]}}"),
      "{\"rack-pinned\":\"\"}", NULL, PRED_UNFIT },
    { "unpinned pod fits anywhere",
      POLICY_WITH(",\"argument\":{\"rackPinning\":{\"racks\":[\"r1\"]}}"),
      "{\"app\":\"web\"}", "r3", PRED_FIT },
    { "no argument: pinned pods fit nowhere", POLICY_WITH(""),
      "{\"rack-pinned\":\"\"}", "r1", PRED_UNFIT },
};

static void rack_pinning_should_follow_its_argument(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct rack_case *c = &cases[i];
        struct policy *p = NULL;
        struct err e;
        struct arena a;
        struct fx_cluster fc;
        struct pred_result r;
        struct kube_node *node;
        const char *pod, *nj;
        enum pred_code got;

        if (policy_load_buffer("t.json", c->policy, strlen(c->policy), NULL, &p,
                               &e))
            fail_msg("%s: %s", c->name, e.msg);
        assert_string_equal(p->preds[p->n_preds - 1].def->name, "RackPinning");
        arena_init(&a, 0);
        fx_cluster_init(&fc, &a);
        nj = c->node_rack
                 ? arena_sprintf(&a,
                                 "{\"metadata\":{\"name\":\"n\",\"labels\":{"
                                 "\"topology.example.com/rack\":\"%s\"}}}",
                                 c->node_rack)
                 : "{\"metadata\":{\"name\":\"n\"}}";
        node = fx_node(&a, nj);
        fx_cluster_add_node(&fc, node);
        fx_cluster_build(&fc);
        pod = arena_sprintf(&a, "{\"metadata\":{\"name\":\"p\",\"labels\":%s}}",
                            c->pod_labels);
        got = fx_run_filter("RackPinning", &p->preds[p->n_preds - 1].args, p,
                            fx_pod(&a, pod), &fc.c, "n", &a, &r);
        if (got != c->want)
            fail_msg("%s: code %d, want %d", c->name, got, c->want);
        if (got != PRED_FIT &&
            strcmp(fx_reasons(&a, &r), "node(s) are not in the pod's racks"))
            fail_msg("%s: reasons \"%s\"", c->name, fx_reasons(&a, &r));
        fx_cluster_free(&fc);
        arena_destroy(&a);
        policy_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rack_pinning_should_follow_its_argument),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
