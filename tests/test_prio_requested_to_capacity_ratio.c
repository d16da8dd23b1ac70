/*
 * test_prio_requested_to_capacity_ratio.c: requestedToCapacityRatio
 * (RequestedToCapacityRatio): shape scaling, the broken-linear function,
 * weights and rounding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "priorities/priorities.h"
#include "priorities/resource_allocation.h"
#include "tests/support/score_fixtures.h"

#define PLUGIN "RequestedToCapacityRatio"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

/* An RTCR argument as the Policy gives it (scores on the 0..10 scale). */
#define RTCR_ARGS(shape, res)                                                  \
    {                                                                          \
        .value = &(const struct prio_resources_arg)                            \
        {                                                                      \
            shape, N(shape), res, N(res), true                                 \
        }                                                                      \
    }

static struct policy_shape_point least_shape[] = { { 0, 10 }, { 100, 0 } };
static struct policy_shape_point most_shape[] = { { 0, 0 }, { 100, 1 } };
static struct policy_shape_point up_shape[] = { { 0, 0 }, { 100, 10 } };
static struct policy_resource mem_cpu[] = { { "memory", 1 }, { "cpu", 1 } };
static struct policy_resource foo[] = { { "intel.com/foo", 1 } };
static struct policy_resource foo_bar[] = { { "intel.com/foo", 3 },
                                            { "intel.com/bar", 5 } };

static const struct prio_args args_least = RTCR_ARGS(least_shape, mem_cpu);
static const struct prio_args args_single = RTCR_ARGS(most_shape, foo);
static const struct prio_args args_multi = RTCR_ARGS(most_shape, foo_bar);
static const struct prio_args args_up = RTCR_ARGS(up_shape, mem_cpu);
static struct policy_resource cpu_gpu[] = { { "cpu", 1 },
                                            { "example.com/gpu", 1 } };
static const struct prio_args args_cpu_gpu = RTCR_ARGS(up_shape, cpu_gpu);
static const struct prio_args args_no_resources = {
    .value = &(const struct prio_resources_arg){ up_shape, N(up_shape), NULL, 0,
                                                 true }
};

/* upstream makePod(node, milliCPU, memory) */
#define MAKE_POD(name, node, cpu, mem) SFX_POD(name, node, SFX_REQ(cpu, mem))

/* TestRequestedToCapacityRatio (requested_to_capacity_ratio_test.go) */
static const struct sfx_case ratio[] = {
    { "nothing scheduled, nothing requested (default - least requested nodes "
      "have priority)",
      MAKE_POD("p", "", "0", "0"),
      { SFX_NODE("node1", "4000m", "10000"),
        SFX_NODE("node2", "4000m", "10000") },
      { MAKE_POD("e1", "node1", "0", "0"), MAKE_POD("e2", "node2", "0", "0") },
      { 100, 100 } },
    { "nothing scheduled, resources requested, differently sized machines "
      "(default - least requested nodes have priority)",
      MAKE_POD("p", "", "3000m", "5000"),
      { SFX_NODE("node1", "4000m", "10000"),
        SFX_NODE("node2", "6000m", "10000") },
      { MAKE_POD("e1", "node1", "0", "0"), MAKE_POD("e2", "node2", "0", "0") },
      { 38, 50 } },
    { "no resources requested, pods scheduled with resources (default - "
      "least requested nodes have priority)",
      MAKE_POD("p", "", "0", "0"),
      { SFX_NODE("node1", "4000m", "10000"),
        SFX_NODE("node2", "6000m", "10000") },
      { MAKE_POD("e1", "node1", "3000m", "5000"),
        MAKE_POD("e2", "node2", "3000m", "5000") },
      { 38, 50 } },
};

/* upstream makeNodeWithExtendedResource(name, 4000, 10000*1024*1024, ext) */
#define EXT_NODE(name, ext)      SFX_NODE_EXT(name, "4000m", "10485760000", ext)
#define EXT_POD(name, node, req) SFX_POD(name, node, SFX_CONTAINER(req))

/* TestResourceBinPackingSingleExtended */
static const struct sfx_case single[] = {
    { "nothing scheduled, nothing requested",
      SFX_NO_RESOURCES("p", ""),
      { EXT_NODE("machine1", "'intel.com/foo':'8'"),
        EXT_NODE("machine2", "'intel.com/foo':'4'") },
      { NULL },
      { 0, 0 } },
    { "resources requested, pods scheduled with less resources",
      EXT_POD("p", "", "'intel.com/foo':'2'"),
      { EXT_NODE("machine1", "'intel.com/foo':'8'"),
        EXT_NODE("machine2", "'intel.com/foo':'4'") },
      { SFX_NO_RESOURCES("e1", "") },
      { 2, 5 } },
    { "resources requested, pods scheduled with resources, on node with "
      "existing pod running",
      EXT_POD("p", "", "'intel.com/foo':'2'"),
      { EXT_NODE("machine1", "'intel.com/foo':'8'"),
        EXT_NODE("machine2", "'intel.com/foo':'4'") },
      { EXT_POD("e1", "machine2", "'intel.com/foo':'2'") },
      { 2, 10 } },
    { "resources requested, pods scheduled with more resources",
      EXT_POD("p", "", "'intel.com/foo':'4'"),
      { EXT_NODE("machine1", "'intel.com/foo':'8'"),
        EXT_NODE("machine2", "'intel.com/foo':'4'") },
      { SFX_NO_RESOURCES("e1", "") },
      { 5, 10 } },
};

#define FOO8_BAR4 "'intel.com/foo':'8','intel.com/bar':'4'"
#define FOO4_BAR8 "'intel.com/foo':'4','intel.com/bar':'8'"

/* TestResourceBinPackingMultipleExtended */
static const struct sfx_case multiple[] = {
    { "nothing scheduled, nothing requested",
      SFX_NO_RESOURCES("p", ""),
      { EXT_NODE("machine1", FOO8_BAR4), EXT_NODE("machine2", FOO4_BAR8) },
      { NULL },
      { 0, 0 } },
    { "resources requested, pods scheduled with less resources",
      EXT_POD("p", "", "'intel.com/foo':'2','intel.com/bar':'2'"),
      { EXT_NODE("machine1", FOO8_BAR4), EXT_NODE("machine2", FOO4_BAR8) },
      { SFX_NO_RESOURCES("e1", "") },
      { 4, 3 } },
    { "resources requested, pods scheduled with resources, on node with "
      "existing pod running",
      EXT_POD("p", "", "'intel.com/foo':'2','intel.com/bar':'2'"),
      { EXT_NODE("machine1", FOO8_BAR4), EXT_NODE("machine2", FOO4_BAR8) },
      { EXT_POD("e1", "machine2", "'intel.com/foo':'2','intel.com/bar':'2'") },
      { 4, 7 } },
    { "resources requested, pods scheduled with more resources",
      EXT_POD("p", "", "'intel.com/foo':'4','intel.com/bar':'2'"),
      { EXT_NODE("machine1", FOO8_BAR4), EXT_NODE("machine2", FOO4_BAR8) },
      { SFX_NO_RESOURCES("e1", "") },
      { 5, 5 } },
};

/* Ours: priorities.md 3.5 examples (rounding, zero scores dropping out). */
static const struct sfx_case ours[] = {
    { "priorities.md 3.5: utilisations 37 and 27 give 32",
      SFX_POD("p", "", SFX_CONTAINER("'cpu':'500m'")),
      { SFX_NODE("n1", "4000m", "8Gi") },
      { SFX_POD("e1", "n1", SFX_REQ("1000m", "2Gi")) },
      { 32 } },
    { "utilisations 37 and 28: 32.5 rounds half away from zero to 33",
      MAKE_POD("p", "", "1480m", "28"),
      { SFX_NODE("n1", "4000m", "100") },
      { NULL },
      { 33 } },
    { "a resource at 0% drops out of the average",
      MAKE_POD("p", "", "2000m", "0"),
      { SFX_NODE("n1", "4000m", "100") },
      { NULL },
      /* cpu 50 -> 50; memory 0 -> 0 is not averaged in */
      { 50 } },
};

/*
 * Per --semantics (docs/VERSION-SEMANTICS.md D3, D14): cpu 1000m of 3000m
 * is utilisation 33 in v1.22 (req * 100 / cap, rounding down) and 34 in
 * v1.20.2 and v1.21 (100 - (cap - req) * 100 / cap, rounding up; v1.20.2
 * buildRequestedToCapacityRatioScorerFunction).
 */
static const struct sfx_case rounding = { "utilisation of 1000m of 3000m",
                                          MAKE_POD("p", "", "1000m", "0"),
                                          { SFX_NODE("n1", "3000m", "100") },
                                          { NULL },
                                          { 33 } };
static const struct sfx_case rounding_v120 = {
    "utilisation of 1000m of 3000m rounds up",
    MAKE_POD("p", "", "1000m", "0"),
    { SFX_NODE("n1", "3000m", "100") },
    { NULL },
    { 34 }
};
/*
 * A listed extended resource the pod does not request, on a node without
 * it: v1.22 leaves it out (#103169): cpu 50 alone; v1.20.2 and v1.21 score
 * it at utilisation 100 (capacity 0): round((50 + 100) / 2).
 */
static const struct sfx_case unrequested = {
    "an unrequested gpu the node lacks is left out",
    MAKE_POD("p", "", "2000m", "0"),
    { SFX_NODE("n1", "4000m", "100") },
    { NULL },
    { 50 }
};
static const struct sfx_case unrequested_v120 = {
    "an unrequested gpu the node lacks counts at utilisation 100",
    MAKE_POD("p", "", "2000m", "0"),
    { SFX_NODE("n1", "4000m", "100") },
    { NULL },
    { 75 }
};

static void rtcr_should_follow_the_semantics(void **state)
{
    (void)state;
    sfx_run(PLUGIN, &args_up, &rounding);
    sfx_run_table_as(KPE_SEM_1_20, PLUGIN, &args_up, &rounding_v120, 1);
    sfx_run_table_as(KPE_SEM_1_21, PLUGIN, &args_up, &rounding_v120, 1);
    sfx_run(PLUGIN, &args_cpu_gpu, &unrequested);
    sfx_run_table_as(KPE_SEM_1_20, PLUGIN, &args_cpu_gpu, &unrequested_v120, 1);
    sfx_run_table_as(KPE_SEM_1_21, PLUGIN, &args_cpu_gpu, &unrequested_v120, 1);
}

/*
 * v1.20.2's TestRequestedToCapacityRatio, TestResourceBinPackingSingleExtended
 * and TestResourceBinPackingMultipleExtended expect what the tables above
 * expect (the local tree, same rows and values).
 */
static void rtcr_should_match_v120_tables(void **state)
{
    (void)state;
    sfx_run_table_as(KPE_SEM_1_20, PLUGIN, &args_least, ratio, N(ratio));
    sfx_run_table_as(KPE_SEM_1_20, PLUGIN, &args_single, single, N(single));
    sfx_run_table_as(KPE_SEM_1_20, PLUGIN, &args_multi, multiple, N(multiple));
}

static void rtcr_should_match_upstream_ratio_table(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, &args_least, ratio, N(ratio));
}

static void rtcr_should_match_upstream_single_extended_table(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, &args_single, single, N(single));
}

static void rtcr_should_match_upstream_multiple_extended_table(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, &args_multi, multiple, N(multiple));
}

static void rtcr_should_follow_reference_examples(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, &args_up, ours, N(ours));
}

/* priorities.md 3.5: an empty resources list scores every node 0. */
static const struct sfx_case no_resources = {
    "empty resources in the argument",
    SFX_POD("p", "", SFX_CONTAINER("'cpu':'500m'")),
    { SFX_NODE("n1", "4000m", "8Gi"), SFX_NODE("n2", "8000m", "8Gi") },
    { SFX_POD("e1", "n1", SFX_REQ("1000m", "2Gi")) },
    { 0, 0 }
};

static void rtcr_should_score_zero_without_resources(void **state)
{
    (void)state;
    sfx_run(PLUGIN, &args_no_resources, &no_resources);
}

struct linear_case {
    struct policy_shape_point points[3];
    size_t n;
    int64_t p[12], want[12];
    size_t n_asserts;
};

/* TestBrokenLinearFunction (shape scores as given: scale 1) */
static const struct linear_case linear[] = {
    { { { 10, 1 }, { 90, 9 } },
      2,
      { -10, 0, 9, 10, 15, 19, 20, 89, 90, 99, 100, 110 },
      { 1, 1, 1, 1, 1, 1, 2, 8, 9, 9, 9, 9 },
      12 },
    { { { 0, 2 }, { 40, 10 }, { 100, 0 } },
      3,
      { -10, 0, 20, 30, 40, 70, 100, 110 },
      { 2, 2, 6, 8, 10, 5, 0, 0 },
      8 },
    { { { 0, 2 }, { 40, 2 }, { 100, 2 } },
      3,
      { -10, 0, 20, 30, 40, 70, 100, 110 },
      { 2, 2, 2, 2, 2, 2, 2, 2 },
      8 },
};

static void broken_linear_should_match_upstream_table(void **state)
{
    size_t i, j;

    (void)state;
    for (i = 0; i < N(linear); i++) {
        for (j = 0; j < linear[i].n_asserts; j++) {
            int64_t got = prio_rtcr_broken_linear(linear[i].points, linear[i].n,
                                                  1, linear[i].p[j]);

            if (got != linear[i].want[j])
                fail_msg("shape %zu at p=%lld: %lld, want %lld", i,
                         (long long)linear[i].p[j], (long long)got,
                         (long long)linear[i].want[j]);
        }
    }
}

static void broken_linear_should_truncate_toward_zero(void **state)
{
    /* priorities.md 3.5: [{0,10},{30,0}] scaled x10, p = 20: 100 - 66 */
    static const struct policy_shape_point down[] = { { 0, 10 }, { 30, 0 } };

    (void)state;
    assert_int_equal(prio_rtcr_broken_linear(down, 2, 10, 20), 34);
    assert_int_equal(prio_rtcr_broken_linear(down, 2, 10, 30), 0);
    assert_int_equal(prio_rtcr_broken_linear(down, 0, 10, 30), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rtcr_should_match_upstream_ratio_table),
        cmocka_unit_test(rtcr_should_match_upstream_single_extended_table),
        cmocka_unit_test(rtcr_should_match_upstream_multiple_extended_table),
        cmocka_unit_test(rtcr_should_follow_reference_examples),
        cmocka_unit_test(rtcr_should_follow_the_semantics),
        cmocka_unit_test(rtcr_should_match_v120_tables),
        cmocka_unit_test(rtcr_should_score_zero_without_resources),
        cmocka_unit_test(broken_linear_should_match_upstream_table),
        cmocka_unit_test(broken_linear_should_truncate_toward_zero),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
