/*
 * test_prio_least_allocated.c: LeastRequestedPriority
 * (NodeResourcesLeastAllocated) and the shared resource machinery.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "priorities/priorities.h"
#include "tests/support/score_fixtures.h"

#define PLUGIN "NodeResourcesLeastAllocated"

static struct policy_resource no_resources[1];
static struct policy_resource mem2_cpu1[] = { { "memory", 2 }, { "cpu", 1 } };
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
static const struct prio_args args_ext = {
    .value = &(const struct prio_resources_arg){ .resources = with_ext,
                                                 .n_resources = 3 }
};
/* A repeated name keeps its last weight; "pods" is never scored. */
static struct policy_resource repeated[] = {
    { "cpu", 1 }, { "memory", 1 }, { "pods", 1 }, { "cpu", 3 }
};
static const struct prio_args args_repeated = {
    .value = &(const struct prio_resources_arg){ .resources = repeated,
                                                 .n_resources = 4 }
};
/* A value without a list means cpu=1, memory=1. */
static const struct prio_args args_policy = {
    .value = &(const struct prio_resources_arg){ .resources = NULL }
};

struct la_case {
    const struct prio_args *args; /* NULL: no args (defaults) */
    struct sfx_case c;
};

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

/* TestNodeResourcesLeastAllocated (noderesources/least_allocated_test.go) */
static const struct la_case upstream[] = {
    { NULL,
      { "nothing scheduled, nothing requested",
        SFX_NO_RESOURCES("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "4000m", "10000") },
        { NULL },
        { 100, 100 } } },
    { &args_policy,
      { "nothing scheduled, resources requested, differently sized machines",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "6000m", "10000") },
        { NULL },
        { 37, 50 } } },
    { &args_empty,
      { "Resources not set, nothing scheduled, resources requested, "
        "differently sized machines",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "6000m", "10000") },
        { NULL },
        { 0, 0 } } },
    { NULL,
      { "no resources requested, pods scheduled",
        SFX_NO_RESOURCES("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "4000m", "10000") },
        { SFX_NO_RESOURCES("e1", "machine1"),
          SFX_NO_RESOURCES("e2", "machine1"),
          SFX_NO_RESOURCES("e3", "machine2"),
          SFX_NO_RESOURCES("e4", "machine2") },
        { 100, 100 } } },
    { NULL,
      { "no resources requested, pods scheduled with resources",
        SFX_NO_RESOURCES("p", ""),
        { SFX_NODE("machine1", "10000m", "20000"),
          SFX_NODE("machine2", "10000m", "20000") },
        { SFX_CPU_ONLY("e1", "machine1"), SFX_CPU_ONLY("e2", "machine1"),
          SFX_CPU_ONLY("e3", "machine2"),
          SFX_CPU_AND_MEMORY("e4", "machine2") },
        { 70, 57 } } },
    { NULL,
      { "resources requested, pods scheduled with resources",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "10000m", "20000"),
          SFX_NODE("machine2", "10000m", "20000") },
        { SFX_CPU_ONLY("e1", "machine1"),
          SFX_CPU_AND_MEMORY("e2", "machine2") },
        { 57, 45 } } },
    { NULL,
      { "resources requested, pods scheduled with resources, differently "
        "sized machines",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "10000m", "20000"),
          SFX_NODE("machine2", "10000m", "50000") },
        { SFX_CPU_ONLY("e1", "machine1"),
          SFX_CPU_AND_MEMORY("e2", "machine2") },
        { 57, 60 } } },
    { NULL,
      { "requested resources exceed node capacity",
        SFX_CPU_ONLY("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "4000m", "10000") },
        { SFX_CPU_ONLY("e1", "machine1"),
          SFX_CPU_AND_MEMORY("e2", "machine2") },
        { 50, 25 } } },
    { NULL,
      { "zero node resources, pods scheduled with resources",
        SFX_NO_RESOURCES("p", ""),
        { SFX_NODE("machine1", "0", "0"), SFX_NODE("machine2", "0", "0") },
        { SFX_CPU_ONLY("e1", "machine1"),
          SFX_CPU_AND_MEMORY("e2", "machine2") },
        { 0, 0 } } },
    { &args_weights,
      { "nothing scheduled, resources requested with different weight on CPU "
        "and memory, differently sized machines",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("machine1", "4000m", "10000"),
          SFX_NODE("machine2", "6000m", "10000") },
        { NULL },
        { 41, 50 } } },
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
        { 50, 60 } } },
};

/* Ours: priorities.md 3.2, the overhead quirk (2.3), init containers. */
static const struct la_case ours[] = {
    { NULL,
      { "priorities.md 3.2 example",
        SFX_POD("p", "", SFX_CONTAINER("'cpu':'500m'")),
        { SFX_NODE("n1", "4000m", "8Gi") },
        { SFX_POD("e1", "n1", SFX_REQ("1000m", "2Gi")) },
        { 67 } } },
    { NULL,
      { "overhead cpu 250m adds Value() = 1 as millicores",
        "{'metadata':{'name':'p'},'spec':{'overhead':{'cpu':'250m',"
        "'memory':'10Mi'},'containers':[" SFX_REQ("500m", "100Mi") "]}}",
        { SFX_NODE("n1", "1000m", "1000Mi") },
        { NULL },
        /* cpu (1000-501)*100/1000 = 49, memory (1000-110)*100/1000 = 89 */
        { 69 } } },
    { NULL,
      { "an init container larger than the containers sets the request",
        "{'metadata':{'name':'p'},'spec':{'initContainers':[" SFX_REQ(
            "3000m", "0") "],'containers':[" SFX_REQ("1000m", "0") "]}}",
        { SFX_NODE("n1", "4000m", "1000") },
        { NULL },
        /* cpu (4000-3000)*100/4000 = 25, memory 100 */
        { 62 } } },
    { NULL,
      { "a container without requests counts 100m and 200Mi",
        SFX_NON_ZERO_CONTAINER("p", ""),
        { SFX_NODE("n1", "1000m", "1000Mi") },
        { SFX_NON_ZERO_CONTAINER("e1", "n1") },
        /* cpu (1000-200)*100/1000 = 80, memory (1000-400)*100/1000 = 60 */
        { 70 } } },
    { &args_repeated,
      { "a repeated resource name scores once, with its last weight",
        SFX_CPU_AND_MEMORY("p", ""),
        { SFX_NODE("n1", "4000m", "10000") },
        { NULL },
        /* (cpu 25 x 3 + memory 50 x 1) / 4 */
        { 31 } } },
};

static void run(const struct la_case *cases, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        sfx_run(PLUGIN, cases[i].args, &cases[i].c);
}

/*
 * D14 (docs/VERSION-SEMANTICS.md): a node with no allocatable cpu. v1.22
 * leaves cpu out (memory 50 alone); v1.20.2's resource_allocation.go
 * score() and leastResourceScorer count it as 0 with its weight:
 * (0 + 50) / 2.
 */
static const struct sfx_case zero_cpu = { "no allocatable cpu is left out",
                                          SFX_POD("p", "", SFX_REQ("0", "500")),
                                          { SFX_NODE("n1", "0", "1000") },
                                          { NULL },
                                          { 50 } };
static const struct sfx_case zero_cpu_v120 = {
    "no allocatable cpu scores 0 with its weight",
    SFX_POD("p", "", SFX_REQ("0", "500")),
    { SFX_NODE("n1", "0", "1000") },
    { NULL },
    { 25 }
};

static void least_allocated_should_follow_the_semantics(void **state)
{
    (void)state;
    sfx_run(PLUGIN, NULL, &zero_cpu);
    sfx_run_table_as(KPE_SEM_1_20, PLUGIN, NULL, &zero_cpu_v120, 1);
    sfx_run_table_as(KPE_SEM_1_21, PLUGIN, NULL, &zero_cpu_v120, 1);
}

static void least_allocated_should_match_upstream_table(void **state)
{
    (void)state;
    run(upstream, sizeof(upstream) / sizeof(upstream[0]));
}

static void least_allocated_should_follow_reference_examples(void **state)
{
    (void)state;
    run(ours, sizeof(ours) / sizeof(ours[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(least_allocated_should_match_upstream_table),
        cmocka_unit_test(least_allocated_should_follow_reference_examples),
        cmocka_unit_test(least_allocated_should_follow_the_semantics),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
