/*
 * test_prio_balanced_allocation.c: BalancedResourceAllocation
 * (NodeResourcesBalancedAllocation), v1.22.4+ behaviour.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/support/score_fixtures.h"

#define PLUGIN "NodeResourcesBalancedAllocation"

/*
 * TestNodeResourcesBalancedAllocation (noderesources/
 * balanced_allocation_test.go, release-1.22). Every row keeps upstream's
 * expectation except the nonZeroContainer row, whose v1.22.0 expectation
 * (60, 80) came from the non-zero defaults that v1.22.4 (#105845) dropped.
 */
static const struct sfx_case upstream[] = {
    { "nothing scheduled, nothing requested",
      SFX_NO_RESOURCES("p", ""),
      { SFX_NODE("machine1", "4000m", "10000"),
        SFX_NODE("machine2", "4000m", "10000") },
      { NULL },
      { 100, 100 } },
    { "nothing scheduled, resources requested, differently sized machines",
      SFX_CPU_AND_MEMORY("p", ""),
      { SFX_NODE("machine1", "4000m", "10000"),
        SFX_NODE("machine2", "6000m", "10000") },
      { NULL },
      { 75, 100 } },
    { "no resources requested, pods scheduled",
      SFX_NO_RESOURCES("p", ""),
      { SFX_NODE("machine1", "4000m", "10000"),
        SFX_NODE("machine2", "4000m", "10000") },
      { SFX_NO_RESOURCES("e1", "machine1"), SFX_NO_RESOURCES("e2", "machine1"),
        SFX_NO_RESOURCES("e3", "machine2"),
        SFX_NO_RESOURCES("e4", "machine2") },
      { 100, 100 } },
    { "no resources requested, pods with container scheduled (v1.22.4+: "
      "requests without defaults)",
      SFX_NON_ZERO_CONTAINER("p", ""),
      { SFX_NODE("machine1", "250m", "1048576000"),
        SFX_NODE("machine2", "250m", "1048576000") },
      { SFX_NON_ZERO_CONTAINER("e1", "machine1"),
        SFX_NON_ZERO_CONTAINER("e2", "machine1") },
      { 100, 100 } },
    { "no resources requested, pods scheduled with resources",
      SFX_NO_RESOURCES("p", ""),
      { SFX_NODE("machine1", "10000m", "20000"),
        SFX_NODE("machine2", "10000m", "20000") },
      { SFX_CPU_ONLY("e1", "machine1"), SFX_CPU_ONLY("e2", "machine1"),
        SFX_CPU_ONLY("e3", "machine2"), SFX_CPU_AND_MEMORY("e4", "machine2") },
      { 40, 65 } },
    { "resources requested, pods scheduled with resources",
      SFX_CPU_AND_MEMORY("p", ""),
      { SFX_NODE("machine1", "10000m", "20000"),
        SFX_NODE("machine2", "10000m", "20000") },
      { SFX_CPU_ONLY("e1", "machine1"), SFX_CPU_AND_MEMORY("e2", "machine2") },
      { 65, 90 } },
    { "resources requested, pods scheduled with resources, differently sized "
      "machines",
      SFX_CPU_AND_MEMORY("p", ""),
      { SFX_NODE("machine1", "10000m", "20000"),
        SFX_NODE("machine2", "10000m", "50000") },
      { SFX_CPU_ONLY("e1", "machine1"), SFX_CPU_AND_MEMORY("e2", "machine2") },
      { 65, 60 } },
    { "requested resources at node capacity",
      SFX_CPU_ONLY("p", ""),
      { SFX_NODE("machine1", "6000m", "10000"),
        SFX_NODE("machine2", "6000m", "10000") },
      { SFX_CPU_ONLY("e1", "machine1"), SFX_CPU_AND_MEMORY("e2", "machine2") },
      { 0, 50 } },
};

/* Ours: priorities.md 3.4, capping, the patch-level split, zero capacity. */
static const struct sfx_case ours[] = {
    { "priorities.md 3.4 example",
      SFX_POD("p", "", SFX_CONTAINER("'cpu':'500m'")),
      { SFX_NODE("n1", "4000m", "8Gi") },
      { SFX_POD("e1", "n1", SFX_REQ("1000m", "2Gi")) },
      { 87 } },
    { "over-committed fractions are capped at 1",
      SFX_POD("p", "", SFX_REQ("8000m", "500")),
      { SFX_NODE("n1", "4000m", "1000") },
      { NULL },
      /* cpu 2.0 -> 1, memory 0.5 */
      { 50 } },
    { "no allocatable cpu or memory counts as a full fraction",
      SFX_POD("p", "", SFX_REQ("0", "0")),
      { SFX_NODE("n1", "0", "1000"), SFX_NODE("n2", "0", "0") },
      { NULL },
      /* n1: cpu 1, memory 0 -> 0; n2: both 1 -> 100 */
      { 0, 100 } },
    { "overhead cpu 2 adds 2 (Value), not 2000",
      "{'metadata':{'name':'p'},'spec':{'overhead':{'cpu':'2'},"
      "'containers':[" SFX_REQ("1000m", "500") "]}}",
      { SFX_NODE("n1", "2000m", "1000") },
      { NULL },
      /* cpu 1002/2000 = 0.501, memory 0.5: int64(99.9...) = 99 */
      { 99 } },
};

static void balanced_allocation_should_match_upstream_table(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, upstream,
                  sizeof(upstream) / sizeof(upstream[0]));
}

static void balanced_allocation_should_follow_reference_examples(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, ours, sizeof(ours) / sizeof(ours[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(balanced_allocation_should_match_upstream_table),
        cmocka_unit_test(balanced_allocation_should_follow_reference_examples),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
