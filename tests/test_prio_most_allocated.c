/*
 * test_prio_most_allocated.c: MostRequestedPriority
 * (NodeResourcesMostAllocated).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "priorities/priorities.h"
#include "tests/support/score_fixtures.h"

#define PLUGIN "NodeResourcesMostAllocated"

static struct policy_resource no_resources[1];
static struct policy_resource mem2_cpu1[] = { { "memory", 2 }, { "cpu", 1 } };
static struct policy_resource mem1_cpu1[] = { { "memory", 1 }, { "cpu", 1 } };
static struct policy_resource with_ext[] = { { "cpu", 1 },
                                             { "memory", 1 },
                                             { "abc.com/xyz", 1 } };

static const struct prio_args args_empty = {
    .value = &(const struct prio_resources_arg){ .resources = no_resources,
                                                 .n_resources = 0 }
};
static const struct prio_args args_weights = {
    .value = &(const struct prio_resources_arg){ .resources = mem2_cpu1,
                                                 .n_resources = 2 }
};
static const struct prio_args args_mem_cpu = {
    .value = &(const struct prio_resources_arg){ .resources = mem1_cpu1,
                                                 .n_resources = 2 }
};
static const struct prio_args args_ext = {
    .value = &(const struct prio_resources_arg){ .resources = with_ext,
                                                 .n_resources = 3 }
};
static const struct prio_args args_policy = {
    .value = &(const struct prio_resources_arg){ .resources = NULL }
};

struct ma_case {
    const struct prio_args *args; /* NULL: no args (defaults) */
    struct sfx_case c;
};

#define BIG_CPU_AND_MEMORY                                                     \
    SFX_POD("p", "", SFX_REQ("2000m", "4000") "," SFX_REQ("3000m", "5000"))
#define CPU_MEM_EXT                                                             \
    SFX_POD(                                                                    \
        "p", "",                                                                \
        SFX_CONTAINER(                                                          \
            "'cpu':'1000m','memory':'2000','abc.com/xyz':'2'") "," SFX_REQ("2"  \
                                                                           "0"  \
                                                                           "0"  \
                                                                           "0"  \
                                                                           "m", \
                                                                           "3"  \
                                                                           "0"  \
                                                                           "0"  \
                                                                           "0"))

/* TestNodeResourcesMostAllocated (noderesources/most_allocated_test.go) */
static const struct ma_case upstream[] = {
    { NULL,
      { "nothing scheduled, nothing requested",
        SFX_NO_RESOURCES("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "4000m", "10000") },
        { NULL },
        { 0, 0 } } },
    { &args_policy,
      { "nothing scheduled, resources requested, differently sized machines",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "6000m", "10000") },
        { NULL },
        { 62, 50 } } },
    { &args_empty,
      { "Resources not set, nothing scheduled, resources requested, "
        "differently sized machines",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "6000m", "10000") },
        { NULL },
        { 0, 0 } } },
    { NULL,
      { "no resources requested, pods scheduled with resources",
        SFX_NO_RESOURCES("p", ""),
        { SFX_NODE("machine1", "10000m", "20000"),
          SFX_NODE("machine2", "10000m", "20000") },
        { SFX_CPU_ONLY("e1", "machine1"), SFX_CPU_ONLY("e2", "machine1"),
          SFX_CPU_ONLY("e3", "machine2"),
          SFX_CPU_AND_MEMORY("e4", "machine2") },
        { 30, 42 } } },
    { NULL,
      { "resources requested, pods scheduled with resources",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "10000m", "20000"),
          SFX_NODE("machine2", "10000m", "20000") },
        { SFX_CPU_ONLY("e1", "machine1"),
          SFX_CPU_AND_MEMORY("e2", "machine2") },
        { 42, 55 } } },
    { NULL,
      { "resources requested equal node capacity",
        BIG_CPU_AND_MEMORY,
        { SFX_NODE("machine1", "5000m", "10000"),
          SFX_NODE("machine2", "10000m", "9000") },
        { NULL },
        { 95, 75 } } },
    { &args_weights,
      { "nothing scheduled, resources requested, differently sized machines "
        "(memory weight 2)",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "6000m", "10000") },
        { NULL },
        { 58, 50 } } },
    { &args_mem_cpu,
      { "no resources requested, pods scheduled",
        SFX_NON_ZERO_CONTAINER("p", ""),
        { SFX_NODE("machine1", "250m", "1048576000"),
          SFX_NODE("machine2", "250m", "1048576000") },
        { SFX_NON_ZERO_CONTAINER("e1", "machine1"),
          SFX_NON_ZERO_CONTAINER("e2", "machine1") },
        { 80, 30 } } },
    { &args_ext,
      { "bypass extended resource if the pod does not request",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "6000m", "10000"),
          SFX_NODE_EXT("machine2", "6000m", "10000", "'abc.com/xyz':'4'") },
        { NULL },
        { 50, 50 } } },
    { &args_ext,
      { "honor extended resource if the pod requests",
        CPU_MEM_EXT,
        { SFX_NODE_EXT("machine1", "6000m", "10000", "'abc.com/xyz':'4'"),
          SFX_NODE_EXT("machine2", "6000m", "10000", "'abc.com/xyz':'10'") },
        { NULL },
        { 50, 40 } } },
};

/* Ours: priorities.md 3.3 and the cap at allocatable. */
static const struct ma_case ours[] = {
    { NULL,
      { "priorities.md 3.3 example",
        SFX_POD("p", "", SFX_CONTAINER("'cpu':'500m'")),
        { SFX_NODE("n1", "4000m", "8Gi") },
        { SFX_POD("e1", "n1", SFX_REQ("1000m", "2Gi")) },
        { 32 } } },
    { NULL,
      { "an over-committed resource scores 100, not 0",
        SFX_POD("p", "", SFX_REQ("5000m", "0")),
        { SFX_NODE("n1", "4000m", "1000") },
        { NULL },
        /* cpu capped: 100; memory 0 */
        { 50 } } },
};

/*
 * TestNodeResourcesMostAllocated of v1.20.2 (the local tree), the rows a
 * Policy can reach (no weight errors): over-commit scores 0 (D2).
 */
static const struct ma_case upstream_v120[] = {
    { NULL,
      { "nothing scheduled, nothing requested",
        SFX_NO_RESOURCES("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "4000m", "10000") },
        { NULL },
        { 0, 0 } } },
    { NULL,
      { "nothing scheduled, resources requested, differently sized machines",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "6000m", "10000") },
        { NULL },
        { 62, 50 } } },
    { NULL,
      { "no resources requested, pods scheduled with resources",
        SFX_NO_RESOURCES("p", ""),
        { SFX_NODE("machine1", "10000m", "20000"),
          SFX_NODE("machine2", "10000m", "20000") },
        { SFX_CPU_ONLY("e1", "machine1"), SFX_CPU_ONLY("e2", "machine1"),
          SFX_CPU_ONLY("e3", "machine2"),
          SFX_CPU_AND_MEMORY("e4", "machine2") },
        { 30, 42 } } },
    { NULL,
      { "resources requested, pods scheduled with resources",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "10000m", "20000"),
          SFX_NODE("machine2", "10000m", "20000") },
        { SFX_CPU_ONLY("e1", "machine1"),
          SFX_CPU_AND_MEMORY("e2", "machine2") },
        { 42, 55 } } },
    { NULL,
      { "resources requested with more than the node, pods scheduled with "
        "resources",
        BIG_CPU_AND_MEMORY,
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "10000m", "8000") },
        { NULL },
        { 45, 25 } } },
    { &args_weights,
      { "nothing scheduled, resources requested, differently sized machines "
        "(memory weight 2)",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "6000m", "10000") },
        { NULL },
        { 58, 50 } } },
};

/*
 * Ours for 1.20/1.21: v1.20.2's resource_allocation.go score() hands every
 * listed resource to the scorer (D14, #103169 came in v1.22.0), so the
 * v1.22 row "bypass extended resource if the pod does not request" gives
 * a third, zero-scoring resource instead: (50 + 50 + 0) / 3.
 */
static const struct ma_case ours_v120[] = {
    { &args_ext,
      { "an extended resource the pod does not request still counts",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "6000m", "10000"),
          SFX_NODE_EXT("machine2", "6000m", "10000", "'abc.com/xyz':'4'") },
        { NULL },
        { 33, 33 } } },
};

/* Over-commit as v1.21's latest patch scores it: capped (#102925). */
static const struct ma_case ours_v121[] = {
    { NULL,
      { "resources requested with more than the node (capped)",
        BIG_CPU_AND_MEMORY,
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "10000m", "8000") },
        { NULL },
        { 95, 75 } } },
};

static void run_as(enum kpe_semantics sem, const struct ma_case *cases,
                   size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        sfx_run_table_as(sem, PLUGIN, cases[i].args, &cases[i].c, 1);
}

static void run(const struct ma_case *cases, size_t n)
{
    run_as(KPE_SEM_DEFAULT, cases, n);
}

static void most_allocated_should_follow_v120_and_v121(void **state)
{
    (void)state;
    run_as(KPE_SEM_1_20, upstream_v120,
           sizeof(upstream_v120) / sizeof(upstream_v120[0]));
    run_as(KPE_SEM_1_20, ours_v120, sizeof(ours_v120) / sizeof(ours_v120[0]));
    run_as(KPE_SEM_1_21, ours_v120, sizeof(ours_v120) / sizeof(ours_v120[0]));
    run_as(KPE_SEM_1_21, ours_v121, sizeof(ours_v121) / sizeof(ours_v121[0]));
}

static void most_allocated_should_match_upstream_table(void **state)
{
    (void)state;
    run(upstream, sizeof(upstream) / sizeof(upstream[0]));
}

static void most_allocated_should_follow_reference_examples(void **state)
{
    (void)state;
    run(ours, sizeof(ours) / sizeof(ours[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(most_allocated_should_match_upstream_table),
        cmocka_unit_test(most_allocated_should_follow_reference_examples),
        cmocka_unit_test(most_allocated_should_follow_v120_and_v121),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
