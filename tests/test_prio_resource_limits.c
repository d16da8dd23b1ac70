/*
 * test_prio_resource_limits.c: ResourceLimitsPriority (v1.19's
 * NodeResourceLimits score plugin; compat legacy only).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "priorities/priorities.h"
#include "tests/support/score_fixtures.h"

/* The descriptors these tests run, by name (in their plugins' files). */
extern const struct prio_def prio_resource_limits_priority;

#define PLUGIN prio_resource_limits_priority.name
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define LIMIT(cpu, mem)                                                        \
    "{'name':'c','resources':{'limits':{'cpu':'" cpu "','memory':'" mem "'}}}"
#define POD(containers)                                                        \
    "{'metadata':{'name':'p'},'spec':{'containers':[" containers "]}}"
#define NO_RESOURCES POD("")
#define CPU_ONLY     POD(LIMIT("1000m", "0") "," LIMIT("2000m", "0"))
#define MEM_ONLY     POD(LIMIT("0", "2000") "," LIMIT("0", "3000"))
#define CPU_AND_MEM  POD(LIMIT("1000m", "2000") "," LIMIT("2000m", "3000"))

/* TestResourceLimits (v1.19 noderesources/resource_limits_test.go) */
static const struct sfx_case upstream[] = {
    { "pod does not specify its resource limits",
      NO_RESOURCES,
      { SFX_NODE("machine1", "4000m", "10000"),
        SFX_NODE("machine2", "4000m", "0"), SFX_NODE("machine3", "0", "10000"),
        SFX_NODE("machine4", "0", "0") },
      { NULL },
      { 0, 0, 0, 0 } },
    { "pod only specifies  cpu limits",
      CPU_ONLY,
      { SFX_NODE("machine1", "3000m", "10000"),
        SFX_NODE("machine2", "2000m", "10000") },
      { NULL },
      { 1, 0 } },
    { "pod only specifies  mem limits",
      MEM_ONLY,
      { SFX_NODE("machine1", "4000m", "4000"),
        SFX_NODE("machine2", "5000m", "10000") },
      { NULL },
      { 0, 1 } },
    { "pod specifies both cpu and  mem limits",
      CPU_AND_MEM,
      { SFX_NODE("machine1", "4000m", "4000"),
        SFX_NODE("machine2", "5000m", "10000") },
      { NULL },
      { 1, 1 } },
    { "node does not advertise its allocatables",
      CPU_AND_MEM,
      { SFX_NODE("machine1", "0", "0") },
      { NULL },
      { 0 } },
};

/* Ours: init containers raise the limit; requests do not count. */
static const struct sfx_case ours[] = {
    { "an init container's larger limit is the pod's limit",
      "{'metadata':{'name':'p'},'spec':{'initContainers':[" LIMIT(
          "5000m", "0") "],'containers':[" LIMIT("1000m", "0") "]}}",
      { SFX_NODE("n1", "4000m", "1000"), SFX_NODE("n2", "6000m", "1000") },
      { NULL },
      { 0, 1 } },
    { "requests are not limits",
      SFX_POD("p", "", SFX_REQ("1000m", "1000")),
      { SFX_NODE("n1", "4000m", "10000") },
      { NULL },
      { 0 } },
};

static void resource_limits_should_match_upstream_table(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, upstream, N(upstream));
}

static void resource_limits_should_take_init_container_max(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, ours, N(ours));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resource_limits_should_match_upstream_table),
        cmocka_unit_test(resource_limits_should_take_init_container_max),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
