/*
 * test_prio_balanced_allocation.c: BalancedResourceAllocation
 * (NodeResourcesBalancedAllocation): v1.22.4+ by default, v1.20.2 and
 * v1.21 with --semantics 1.20 / 1.21 (docs/VERSION-SEMANTICS.md D1).
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
 * balanced_allocation_test.go) after #101946 (std form, v1.22.0) and
 * #105845 (actual requests, v1.22.4): the file version whose comments read
 * "Node1 std: (0.75 - 0.5) / 2 = 0.125 ... = 87". Its node names are
 * node1/node2; the rows scoring args a Policy cannot pass (a gpu in the
 * resource list) are left out. This table replaces the pre-#101946 one
 * this file used to call release-1.22 (75, 100 in the second row): that
 * is v1.20/v1.21's formula (docs/VERSION-SEMANTICS.md D1).
 */
static const struct sfx_case upstream[] = {
    { "nothing scheduled, nothing requested",
      SFX_NO_RESOURCES("p", ""),
      { SFX_NODE("node1", "4000m", "10000"),
        SFX_NODE("node2", "4000m", "10000") },
      { NULL },
      { 100, 100 } },
    { "nothing scheduled, resources requested, differently sized nodes",
      SFX_CPU_AND_MEMORY("p", ""),
      { SFX_NODE("node1", "4000m", "10000"),
        SFX_NODE("node2", "6000m", "10000") },
      { NULL },
      { 87, 100 } },
    { "no resources requested, pods without container scheduled",
      SFX_NO_RESOURCES("p", ""),
      { SFX_NODE("node1", "4000m", "10000"),
        SFX_NODE("node2", "4000m", "10000") },
      { SFX_NO_RESOURCES("e1", "node1"), SFX_NO_RESOURCES("e2", "node1"),
        SFX_NO_RESOURCES("e3", "node2"), SFX_NO_RESOURCES("e4", "node2") },
      { 100, 100 } },
    { "no resources requested, pods with container scheduled",
      SFX_NO_RESOURCES("p", ""),
      { SFX_NODE("node1", "250m", "1048576000"),
        SFX_NODE("node2", "250m", "1048576000") },
      { SFX_NON_ZERO_CONTAINER("e1", "node1"),
        SFX_NON_ZERO_CONTAINER("e2", "node1") },
      { 100, 100 } },
    { "no resources requested, pods scheduled with resources",
      SFX_NO_RESOURCES("p", ""),
      { SFX_NODE("node1", "10000m", "20000"),
        SFX_NODE("node2", "10000m", "20000") },
      { SFX_CPU_ONLY("e1", "node1"), SFX_CPU_ONLY("e2", "node1"),
        SFX_CPU_ONLY("e3", "node2"), SFX_CPU_AND_MEMORY("e4", "node2") },
      { 70, 82 } },
    { "resources requested, pods scheduled with resources",
      SFX_CPU_AND_MEMORY("p", ""),
      { SFX_NODE("node1", "10000m", "20000"),
        SFX_NODE("node2", "10000m", "20000") },
      { SFX_CPU_ONLY("e1", "node1"), SFX_CPU_AND_MEMORY("e2", "node2") },
      { 82, 95 } },
    { "resources requested, pods scheduled with resources, differently sized "
      "nodes",
      SFX_CPU_AND_MEMORY("p", ""),
      { SFX_NODE("node1", "10000m", "20000"),
        SFX_NODE("node2", "10000m", "50000") },
      { SFX_CPU_ONLY("e1", "node1"), SFX_CPU_AND_MEMORY("e2", "node2") },
      { 82, 80 } },
    { "requested resources at node capacity",
      SFX_CPU_ONLY("p", ""),
      { SFX_NODE("node1", "6000m", "10000"),
        SFX_NODE("node2", "6000m", "10000") },
      { SFX_CPU_ONLY("e1", "node1"), SFX_CPU_AND_MEMORY("e2", "node2") },
      { 50, 75 } },
    { "zero node resources, pods scheduled with resources",
      SFX_NO_RESOURCES("p", ""),
      { SFX_NODE("node1", "0", "0"), SFX_NODE("node2", "0", "0") },
      { SFX_CPU_ONLY("e1", "node1"), SFX_CPU_AND_MEMORY("e2", "node2") },
      { 100, 100 } },
};

/*
 * TestNodeResourcesBalancedAllocation of v1.20.2 (the local tree), every
 * row but the BalanceAttachedNodeVolumes one (gate off). Also v1.21's
 * answers: its latest patch reverted the cap (#105238).
 */
static const struct sfx_case upstream_v120[] = {
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
    { "requested resources exceed node capacity",
      SFX_CPU_ONLY("p", ""),
      { SFX_NODE("machine1", "4000m", "10000"),
        SFX_NODE("machine2", "4000m", "10000") },
      { SFX_CPU_ONLY("e1", "machine1"), SFX_CPU_AND_MEMORY("e2", "machine2") },
      { 0, 0 } },
    { "zero node resources, pods scheduled with resources",
      SFX_NO_RESOURCES("p", ""),
      { SFX_NODE("machine1", "0", "0"), SFX_NODE("machine2", "0", "0") },
      { SFX_CPU_ONLY("e1", "machine1"), SFX_CPU_AND_MEMORY("e2", "machine2") },
      { 0, 0 } },
};

/* Ours for 1.20/1.21: the non-zero defaults on both sides (D1). */
static const struct sfx_case ours_v120[] = {
    { "containers without requests count 100m / 200Mi",
      SFX_NON_ZERO_CONTAINER("p", ""),
      { SFX_NODE("n1", "250m", "1048576000") },
      { SFX_NON_ZERO_CONTAINER("e1", "n1"),
        SFX_NON_ZERO_CONTAINER("e2", "n1") },
      /* cpu 300m / 250m >= 1 -> 0 (1.22: actual requests, 100) */
      { 0 } },
    { "non-zero defaults unbalance a node",
      SFX_NON_ZERO_CONTAINER("p", ""),
      { SFX_NODE("n1", "1000m", "4194304000") },
      { NULL },
      /* cpu 0.1, memory 200Mi / 4000Mi = 0.05 -> 95; 1.22: 0, 0 -> 100 */
      { 95 } },
    { "over-committed fraction is not capped: 0",
      SFX_POD("p", "", SFX_REQ("8000m", "500")),
      { SFX_NODE("n1", "4000m", "1000") },
      { NULL },
      { 0 } },
};

/*
 * Ours (1.22): the std form on the examples below. The first row was 87
 * under the pre-#101946 formula priorities.md 3.4 gives; the std form
 * gives 93 (1 - |0.375 - 0.25| / 2), as upstream's second row shows.
 */
static const struct sfx_case ours[] = {
    { "priorities.md 3.4 example, std form",
      SFX_POD("p", "", SFX_CONTAINER("'cpu':'500m'")),
      { SFX_NODE("n1", "4000m", "8Gi") },
      { SFX_POD("e1", "n1", SFX_REQ("1000m", "2Gi")) },
      { 93 } },
    { "over-committed fractions are capped at 1",
      SFX_POD("p", "", SFX_REQ("8000m", "500")),
      { SFX_NODE("n1", "4000m", "1000") },
      { NULL },
      /* cpu 2.0 -> 1, memory 0.5: 1 - 0.25 */
      { 75 } },
    { "no allocatable cpu or memory leaves the resource out",
      SFX_POD("p", "", SFX_REQ("0", "0")),
      { SFX_NODE("n1", "0", "1000"), SFX_NODE("n2", "0", "0") },
      { NULL },
      /* one fraction or none: std 0 */
      { 100, 100 } },
    { "overhead cpu 2 adds 2 (Value), not 2000",
      "{'metadata':{'name':'p'},'spec':{'overhead':{'cpu':'2'},"
      "'containers':[" SFX_REQ("1000m", "500") "]}}",
      { SFX_NODE("n1", "2000m", "1000") },
      { NULL },
      /* cpu 1002/2000 = 0.501, memory 0.5: int64(99.95) = 99 */
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

static void balanced_allocation_should_match_v120_as_1_20_and_1_21(void **state)
{
    (void)state;
    sfx_run_table_as(KPE_SEM_1_20, PLUGIN, NULL, upstream_v120,
                     sizeof(upstream_v120) / sizeof(upstream_v120[0]));
    sfx_run_table_as(KPE_SEM_1_21, PLUGIN, NULL, upstream_v120,
                     sizeof(upstream_v120) / sizeof(upstream_v120[0]));
    sfx_run_table_as(KPE_SEM_1_20, PLUGIN, NULL, ours_v120,
                     sizeof(ours_v120) / sizeof(ours_v120[0]));
    sfx_run_table_as(KPE_SEM_1_21, PLUGIN, NULL, ours_v120,
                     sizeof(ours_v120) / sizeof(ours_v120[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(balanced_allocation_should_match_upstream_table),
        cmocka_unit_test(balanced_allocation_should_follow_reference_examples),
        cmocka_unit_test(
            balanced_allocation_should_match_v120_as_1_20_and_1_21),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
