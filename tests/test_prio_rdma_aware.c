/*
 * test_prio_rdma_aware.c: CustomPriorityPolicy / RdmaAwarePriority (ours).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "priorities/priorities.h"
#include "tests/support/pred_fixtures.h"
#include "tests/support/score_fixtures.h"

#define PLUGIN "CustomPriorityPolicy"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define POD(labels) "{'metadata':{'name':'p','labels':{" labels "}}}"
#define NODE(name, labels)                                                     \
    "{'metadata':{'name':'" name "','labels':{" labels "}}}"
#define RDMA     "'node.kubernetes.io/rdma-enabled':'true'"
#define NOT_RDMA "'node.kubernetes.io/rdma-enabled':'false'"
#define NODES                                                                  \
    {                                                                          \
        NODE("rdma", RDMA), NODE("plain", ""), NODE("off", NOT_RDMA),          \
            NODE("other", "'rdma':'true'")                                     \
    }

/* Default names: pod label key high-comm, node label rdma-enabled=true. */
static const struct sfx_case defaults[] = {
    { "a high-comm pod prefers RDMA nodes",
      POD("'high-comm':'yes'"),
      NODES,
      { NULL },
      { 100, 0, 0, 0 } },
    { "only the pod label's key matters",
      POD("'high-comm':''"),
      NODES,
      { NULL },
      { 100, 0, 0, 0 } },
    { "any other pod prefers to leave RDMA nodes free",
      POD("'app':'web'"),
      NODES,
      { NULL },
      { 0, 100, 100, 100 } },
    { "a pod without labels is not high-comm",
      "{'metadata':{'name':'p'}}",
      NODES,
      { NULL },
      { 0, 100, 100, 100 } },
};

#define CUSTOM_NODES                                                           \
    {                                                                          \
        NODE("ib", "'hw/ib':'yes'"), NODE("ib-no", "'hw/ib':'true'"),          \
            NODE("default-rdma", RDMA)                                         \
    }

/* highComm argument naming other labels. */
static const struct sfx_case custom[] = {
    { "custom labels: the hpc pod prefers hw/ib=yes",
      POD("'team/hpc':'1'"),
      CUSTOM_NODES,
      { NULL },
      { 100, 0, 0 } },
    { "custom labels: the default high-comm label means nothing",
      POD("'high-comm':'yes'"),
      CUSTOM_NODES,
      { NULL },
      { 0, 100, 100 } },
};

static void rdma_aware_should_use_default_labels(void **state)
{
    const struct kpe_arg_schema *s = prio_lookup(PLUGIN)->args;
    struct prio_args hc_defaults = { .value = NULL };
    struct arena a;
    struct err e;

    (void)state;
    sfx_run_table(PLUGIN, NULL, defaults, N(defaults));
    arena_init(&a, 0); /* an entry without an argument: the defaults */
    assert_int_equal(kpe_args_effective(NULL, s, &a, &hc_defaults.value, &e),
                     0);
    sfx_run_table(PLUGIN, &hc_defaults, defaults, N(defaults));
    arena_destroy(&a);
}

static void rdma_aware_should_use_high_comm_argument(void **state)
{
    static const struct policy_high_comm_arg hc = { "team/hpc", "hw/ib",
                                                    "yes" };
    struct prio_args args = { .value = NULL };

    (void)state;
    args.value = &hc;
    sfx_run_table(PLUGIN, &args, custom, N(custom));
}

/* The same tables with no PreScore state: the score reads the pod. */
static void rdma_aware_should_score_alike_without_prescore_state(void **state)
{
    static const struct policy_high_comm_arg hc = { "team/hpc", "hw/ib",
                                                    "yes" };
    struct prio_args args = { .value = NULL };

    (void)state;
    fx_without_pre_state = true;
    sfx_run_table(PLUGIN, NULL, defaults, N(defaults));
    args.value = &hc;
    sfx_run_table(PLUGIN, &args, custom, N(custom));
    fx_without_pre_state = false;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rdma_aware_should_use_default_labels),
        cmocka_unit_test(rdma_aware_should_use_high_comm_argument),
        cmocka_unit_test(rdma_aware_should_score_alike_without_prescore_state),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
