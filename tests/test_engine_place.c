/*
 * test_engine_place.c: engine_place's nominated-node step per --semantics
 * (docs/VERSION-SEMANTICS.md D12): as 1.22 (PreferNominatedNode beta, on,
 * #102201) a pod whose nominated node fits goes there without scoring; as
 * 1.20 and 1.21 the nomination is not consulted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "engine/engine_place.h"
#include "policy/policy.h"
#include "tests/support/pred_fixtures.h"

#define POLICY                                                                 \
    "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":"    \
    "\"PodFitsResources\"}],\"priorities\":[{\"name\":"                        \
    "\"LeastRequestedPriority\",\"weight\":1}]}"
#define NODE(name)                                                             \
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"" name "\"},\"status\":{"     \
    "\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"}}}"
/* node-b is half used: LeastRequested prefers node-a. */
#define BUSY                                                                   \
    "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"busy\",\"namespace\":"         \
    "\"default\"},\"spec\":{\"nodeName\":\"node-b\",\"containers\":[{"         \
    "\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"2\",\"memory\":"    \
    "\"4Gi\"}}}]}}"
#define POD(nominated, cpu)                                                    \
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},\"spec\":{"      \
    "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"    \
    "\"" cpu "\"}}}]},\"status\":{\"nominatedNodeName\":\"" nominated "\"}}"

/* Where pod goes as sem, with next_start left in *next. */
static const char *place(enum kpe_semantics sem, const char *pod_json,
                         size_t *next)
{
    static char name[32];
    struct policy_load_opts o = { .format = POLICY_FORMAT_JSON,
                                  .semantics = sem };
    struct policy *p = NULL;
    struct eval_plans plans;
    struct engine_placer pl;
    struct eval_result filtered;
    const struct node_info *node = NULL;
    const char *msg = NULL;
    struct fx_cluster fc;
    struct arena a;
    struct err e;
    int rc;

    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    fx_cluster_add(&fc, NODE("node-a"));
    fx_cluster_add(&fc, NODE("node-b"));
    fx_cluster_add(&fc, BUSY);
    fx_cluster_build(&fc);
    if (policy_load_buffer("t.json", POLICY, strlen(POLICY), &o, &p, &e) ||
        eval_plans_build(p, &plans, &e))
        fail_msg("%s", e.msg);
    engine_placer_init(&pl, 100, 1);
    pl.next_start = 1;
    rc = engine_place(&pl, &plans, fx_pod(&a, pod_json), &fc.c, &a, &filtered,
                      &node, &msg);
    name[0] = '\0';
    if (rc == 0)
        strncpy(name, node->node->name, sizeof(name) - 1);
    else
        strncpy(name, "-", sizeof(name) - 1);
    *next = pl.next_start;
    engine_placer_free(&pl);
    policy_free(p);
    fx_cluster_free(&fc);
    arena_destroy(&a);
    return name;
}

static void nominated_node_should_be_preferred_as_v122(void **state)
{
    size_t next;

    (void)state;
    assert_string_equal(place(KPE_SEM_1_22, POD("node-b", "1"), &next),
                        "node-b");
    assert_int_equal(next, 0); /* a one-node pass leaves the index at 0 */
    assert_string_equal(place(KPE_SEM_1_21, POD("node-b", "1"), &next),
                        "node-a");
    assert_string_equal(place(KPE_SEM_1_20, POD("node-b", "1"), &next),
                        "node-a");
}

static void
nominated_node_that_does_not_fit_should_not_stop_the_search(void **state)
{
    size_t next;

    (void)state;
    /* 3 cpus do not fit beside busy's 2 on node-b; node-a takes them */
    assert_string_equal(place(KPE_SEM_1_22, POD("node-b", "3"), &next),
                        "node-a");
    assert_string_equal(place(KPE_SEM_1_22, POD("gone", "1"), &next), "node-a");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nominated_node_should_be_preferred_as_v122),
        cmocka_unit_test(
            nominated_node_that_does_not_fit_should_not_stop_the_search),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
