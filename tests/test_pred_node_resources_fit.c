/*
 * test_pred_node_resources_fit.c: PodFitsResources (NodeResourcesFit),
 * ported from plugins/noderesources/fit_test.go (v1.22).
 *
 * Upstream builds pods with Resource.ResourceList(), so every container
 * lists cpu, memory, pods and ephemeral-storage (zero when unset) plus its
 * scalars; C() below writes the same requests as JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kube/model/resources.h"
#include "policy/policy.h"
#include "predicates/node_resources_fit.h"
#include "predicates/plugins.h"
#include "tests/support/pred_fixtures.h"

/* One container: cpu millicores, memory, ephemeral-storage, scalars. */
#define C(cpu, mem, eph, x)                                                    \
    "{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"" #cpu             \
    "m\",\"memory\":\"" #mem "\",\"pods\":\"0\",\"ephemeral-storage\":\"" #eph \
    "\"" x "}}}"
#define EXT_A(n)  ",\"example.com/aaa\":\"" #n "\""
#define EXT_B(n)  ",\"example.com/bbb\":\"" #n "\""
#define KIO_A(n)  ",\"kubernetes.io/something\":\"" #n "\""
#define KIO_B(n)  ",\"subdomain.kubernetes.io/something\":\"" #n "\""
#define HUGE_A(n) ",\"hugepages-2Mi\":\"" #n "\""

#define POD(spec)       "{\"metadata\":{\"name\":\"p\"},\"spec\":{" spec "}}"
#define CONTAINERS(...) "\"containers\":[" __VA_ARGS__ "]"
#define INIT(...)       ",\"initContainers\":[" __VA_ARGS__ "]"
#define OVERHEAD(cpu, mem)                                                     \
    ",\"overhead\":{\"cpu\":\"" cpu "\",\"memory\":\"" mem "\"}"
#define EMPTY_POD "{\"metadata\":{\"name\":\"p\"}}"

/* makeAllocatableResources(cpu, mem, pods, extA, eph, hugeA) as a node. */
#define NODE(cpu, mem, pods, ext, eph, huge)                                   \
    "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":{"            \
    "\"cpu\":\"" #cpu "m\",\"memory\":\"" #mem "\",\"pods\":\"" #pods          \
    "\",\"example.com/aaa\":\"" #ext "\",\"ephemeral-storage\":\"" #eph        \
    "\",\"hugepages-2Mi\":\"" #huge "\"}}}"
#define NODE_ENOUGH  NODE(10, 20, 32, 5, 20, 5)
#define NODE_ONE_POD NODE(10, 20, 1, 0, 0, 0)

/* A policy whose extender has example.com/bbb ignoredByScheduler. */
#define POLICY_IGNORES_BBB                                                     \
    "{\"kind\":\"Policy\",\"apiVersion\":\"v1\","                              \
    "\"predicates\":[{\"name\":\"PodFitsResources\"}],"                        \
    "\"extenders\":[{\"urlPrefix\":\"http://127.0.0.1:1\","                    \
    "\"filterVerb\":\"filter\",\"managedResources\":["                         \
    "{\"name\":\"example.com/aaa\"},"                                          \
    "{\"name\":\"example.com/bbb\",\"ignoredByScheduler\":true}]}]}"

#define R_CPU  "Insufficient cpu"
#define R_MEM  "Insufficient memory"
#define R_EPH  "Insufficient ephemeral-storage"
#define R_EXTA "Insufficient example.com/aaa"
#define R_EXTB "Insufficient example.com/bbb"
#define R_KIOA "Insufficient kubernetes.io/something"
#define R_KIOB "Insufficient subdomain.kubernetes.io/something"
#define R_HUGE "Insufficient hugepages-2Mi"
#define R_PODS PRED_REASON_TOO_MANY_PODS

struct fit_case {
    const char *name;
    const char *pod;
    const char *existing; /* containers of the pod already on the node */
    const char *policy;   /* NULL: no policy (nothing ignored) */
    const char *groups;   /* ignoredResourceGroups entry, via the helper */
    const char *want;     /* "" (fits) or reasons joined with '|' */
};

/* TestEnoughRequests (plugins/noderesources/fit_test.go), node NODE_ENOUGH */
static const struct fit_case enough[] = {
    { "no resources requested always fits", EMPTY_POD, C(10, 20, 0, ""), NULL,
      NULL, "" },
    { "too many resources fails", POD(CONTAINERS(C(1, 1, 0, ""))),
      C(10, 20, 0, ""), NULL, NULL, R_CPU "|" R_MEM },
    { "too many resources fails due to init container cpu",
      POD(CONTAINERS(C(1, 1, 0, "")) INIT(C(3, 1, 0, ""))), C(8, 19, 0, ""),
      NULL, NULL, R_CPU },
    { "too many resources fails due to highest init container cpu",
      POD(CONTAINERS(C(1, 1, 0, "")) INIT(C(3, 1, 0, "") "," C(2, 1, 0, ""))),
      C(8, 19, 0, ""), NULL, NULL, R_CPU },
    { "too many resources fails due to init container memory",
      POD(CONTAINERS(C(1, 1, 0, "")) INIT(C(1, 3, 0, ""))), C(9, 19, 0, ""),
      NULL, NULL, R_MEM },
    { "too many resources fails due to highest init container memory",
      POD(CONTAINERS(C(1, 1, 0, "")) INIT(C(1, 3, 0, "") "," C(1, 2, 0, ""))),
      C(9, 19, 0, ""), NULL, NULL, R_MEM },
    { "init container fits because it's the max, not sum, of containers and "
      "init containers",
      POD(CONTAINERS(C(1, 1, 0, "")) INIT(C(1, 1, 0, ""))), C(9, 19, 0, ""),
      NULL, NULL, "" },
    { "multiple init containers fit because it's the max, not sum, of "
      "containers and init containers",
      POD(CONTAINERS(C(1, 1, 0, "")) INIT(C(1, 1, 0, "") "," C(1, 1, 0, ""))),
      C(9, 19, 0, ""), NULL, NULL, "" },
    { "both resources fit", POD(CONTAINERS(C(1, 1, 0, ""))), C(5, 5, 0, ""),
      NULL, NULL, "" },
    { "one resource memory fits", POD(CONTAINERS(C(2, 1, 0, ""))),
      C(9, 5, 0, ""), NULL, NULL, R_CPU },
    { "one resource cpu fits", POD(CONTAINERS(C(1, 2, 0, ""))), C(5, 19, 0, ""),
      NULL, NULL, R_MEM },
    { "equal edge case", POD(CONTAINERS(C(5, 1, 0, ""))), C(5, 19, 0, ""), NULL,
      NULL, "" },
    { "equal edge case for init container",
      POD(CONTAINERS(C(4, 1, 0, "")) INIT(C(5, 1, 0, ""))), C(5, 19, 0, ""),
      NULL, NULL, "" },
    { "extended resource fits", POD(CONTAINERS(C(0, 0, 0, EXT_A(1)))),
      C(0, 0, 0, ""), NULL, NULL, "" },
    { "extended resource fits for init container",
      POD(CONTAINERS(C(0, 0, 0, "")) INIT(C(0, 0, 0, EXT_A(1)))),
      C(0, 0, 0, ""), NULL, NULL, "" },
    { "extended resource capacity enforced",
      POD(CONTAINERS(C(1, 1, 0, EXT_A(10)))), C(0, 0, 0, EXT_A(0)), NULL, NULL,
      R_EXTA },
    { "extended resource capacity enforced for init container",
      POD(CONTAINERS(C(0, 0, 0, "")) INIT(C(1, 1, 0, EXT_A(10)))),
      C(0, 0, 0, EXT_A(0)), NULL, NULL, R_EXTA },
    { "extended resource allocatable enforced",
      POD(CONTAINERS(C(1, 1, 0, EXT_A(1)))), C(0, 0, 0, EXT_A(5)), NULL, NULL,
      R_EXTA },
    { "extended resource allocatable enforced for init container",
      POD(CONTAINERS(C(0, 0, 0, "")) INIT(C(1, 1, 0, EXT_A(1)))),
      C(0, 0, 0, EXT_A(5)), NULL, NULL, R_EXTA },
    { "extended resource allocatable enforced for multiple containers",
      POD(CONTAINERS(C(1, 1, 0, EXT_A(3)) "," C(1, 1, 0, EXT_A(3)))),
      C(0, 0, 0, EXT_A(2)), NULL, NULL, R_EXTA },
    { "extended resource allocatable admits multiple init containers",
      POD(CONTAINERS(C(0, 0, 0, ""))
              INIT(C(1, 1, 0, EXT_A(3)) "," C(1, 1, 0, EXT_A(3)))),
      C(0, 0, 0, EXT_A(2)), NULL, NULL, "" },
    { "extended resource allocatable enforced for multiple init containers",
      POD(CONTAINERS(C(0, 0, 0, ""))
              INIT(C(1, 1, 0, EXT_A(6)) "," C(1, 1, 0, EXT_A(3)))),
      C(0, 0, 0, EXT_A(2)), NULL, NULL, R_EXTA },
    { "extended resource allocatable enforced for unknown resource",
      POD(CONTAINERS(C(1, 1, 0, EXT_B(1)))), C(0, 0, 0, ""), NULL, NULL,
      R_EXTB },
    { "extended resource allocatable enforced for unknown resource for init "
      "container",
      POD(CONTAINERS(C(0, 0, 0, "")) INIT(C(1, 1, 0, EXT_B(1)))),
      C(0, 0, 0, ""), NULL, NULL, R_EXTB },
    { "kubernetes.io resource capacity enforced",
      POD(CONTAINERS(C(1, 1, 0, KIO_A(10)))), C(0, 0, 0, ""), NULL, NULL,
      R_KIOA },
    { "kubernetes.io resource capacity enforced for init container",
      POD(CONTAINERS(C(0, 0, 0, "")) INIT(C(1, 1, 0, KIO_B(10)))),
      C(0, 0, 0, ""), NULL, NULL, R_KIOB },
    { "hugepages resource capacity enforced",
      POD(CONTAINERS(C(1, 1, 0, HUGE_A(10)))), C(0, 0, 0, HUGE_A(0)), NULL,
      NULL, R_HUGE },
    { "hugepages resource capacity enforced for init container",
      POD(CONTAINERS(C(0, 0, 0, "")) INIT(C(1, 1, 0, HUGE_A(10)))),
      C(0, 0, 0, HUGE_A(0)), NULL, NULL, R_HUGE },
    { "hugepages resource allocatable enforced for multiple containers",
      POD(CONTAINERS(C(1, 1, 0, HUGE_A(3)) "," C(1, 1, 0, HUGE_A(3)))),
      C(0, 0, 0, HUGE_A(2)), NULL, NULL, R_HUGE },
    { "skip checking ignored extended resource",
      POD(CONTAINERS(C(1, 1, 0, EXT_B(1)))), C(0, 0, 0, ""), POLICY_IGNORES_BBB,
      NULL, "" },
    { "resources + pod overhead fits",
      POD(CONTAINERS(C(1, 1, 0, "")) OVERHEAD("3m", "13")), C(5, 5, 0, ""),
      NULL, NULL, "" },
    { "requests + overhead does not fit for memory",
      POD(CONTAINERS(C(1, 1, 0, "")) OVERHEAD("1m", "15")), C(5, 5, 0, ""),
      NULL, NULL, R_MEM },
    { "skip checking ignored extended resource via resource groups",
      POD(CONTAINERS(C(1, 1, 0, EXT_B(1) KIO_A(1)))), C(0, 0, 0, ""), NULL,
      "example.com", R_KIOA },
};

/* TestNotEnoughRequests (fit_test.go), node NODE_ONE_POD */
static const struct fit_case not_enough[] = {
    { "even without specified resources predicate fails when there's no "
      "space for additional pod",
      EMPTY_POD, C(10, 20, 0, ""), NULL, NULL, R_PODS },
    { "even if both resources fit predicate fails when there's no space for "
      "additional pod",
      POD(CONTAINERS(C(1, 1, 0, ""))), C(5, 5, 0, ""), NULL, NULL, R_PODS },
    { "even for equal edge case predicate fails when there's no space for "
      "additional pod",
      POD(CONTAINERS(C(5, 1, 0, ""))), C(5, 19, 0, ""), NULL, NULL, R_PODS },
    { "even for equal edge case predicate fails when there's no space for "
      "additional pod due to init container",
      POD(CONTAINERS(C(5, 1, 0, "")) INIT(C(5, 1, 0, ""))), C(5, 19, 0, ""),
      NULL, NULL, R_PODS },
};

/* TestStorageRequests (fit_test.go), node NODE_ENOUGH */
static const struct fit_case storage[] = {
    { "due to container scratch disk", POD(CONTAINERS(C(1, 1, 0, ""))),
      C(10, 10, 0, ""), NULL, NULL, R_CPU },
    { "pod fit", POD(CONTAINERS(C(1, 1, 0, ""))), C(2, 10, 0, ""), NULL, NULL,
      "" },
    { "storage ephemeral local storage request exceeds allocatable",
      POD(CONTAINERS(C(0, 0, 25, ""))), C(2, 2, 0, ""), NULL, NULL, R_EPH },
    /* this row is in the v1.24-era copy; v1.22 semantics give the same */
    { "ephemeral local storage is sufficient", POD(CONTAINERS(C(0, 0, 5, ""))),
      C(2, 2, 10, ""), NULL, NULL, "" },
    { "pod fits", POD(CONTAINERS(C(0, 0, 10, ""))), C(2, 2, 0, ""), NULL, NULL,
      "" },
};

/* Ours: v1.22 details the upstream tables do not pin down. */
static const struct fit_case ours[] = {
    { "a scalar requested with quantity zero is still compared in v1.22",
      POD(CONTAINERS(C(1, 1, 0, EXT_A(0)))), C(0, 0, 0, EXT_A(6)), NULL, NULL,
      R_EXTA },
    { "a zero scalar alone defeats the early return: overcommitted cpu shows",
      POD(CONTAINERS("{\"name\":\"c\",\"resources\":{\"requests\":"
                     "{\"example.com/aaa\":\"0\"}}}")),
      C(11, 0, 0, ""), NULL, NULL, R_CPU },
    { "a pod without requests ignores an overcommitted node",
      POD(CONTAINERS("{\"name\":\"c\"}")), C(11, 21, 21, EXT_A(6)), NULL, NULL,
      "" },
    { "kubernetes.io resources cannot be ignored by group",
      POD(CONTAINERS(C(1, 1, 0, KIO_B(1)))), C(0, 0, 0, ""), NULL,
      "subdomain.kubernetes.io", R_KIOB },
    { "a group ignores only its own prefix",
      POD(CONTAINERS(C(1, 1, 0, EXT_B(1)))), C(0, 0, 0, ""), NULL, "example",
      R_EXTB },
};

/* Ours, node NODE_ONE_POD (one pod already there, no room). */
static const struct fit_case ours_full[] = {
    { "pod count and resources are all reported, pods first",
      POD(CONTAINERS(C(11, 21, 21, EXT_A(6)))), C(0, 0, 0, ""), NULL, NULL,
      R_PODS "|" R_CPU "|" R_MEM "|" R_EPH "|" R_EXTA },
};

static struct policy *load_policy(const char *json)
{
    struct policy *p = NULL;
    struct err e;

    if (policy_load_buffer("fit.json", json, strlen(json), NULL, &p, &e) < 0)
        fail_msg("policy: %s", e.msg);
    return p;
}

/* Run through the helper with one ignoredResourceGroups entry. */
static enum pred_code run_with_group(const struct fit_case *c,
                                     const struct kube_pod *pod,
                                     const struct cluster *cl, struct arena *a,
                                     struct pred_result *r)
{
    const char *groups[1] = { c->groups };
    struct pred_fit_ignored ig = { NULL, 0, groups, 1 };
    struct kube_resources req;

    assert_int_equal(kube_pod_request(a, pod, &req), 0);
    pred_result_init(r, a);
    return pred_node_resources_fit_check(&req, cluster_node(cl, "n1"), &ig, r);
}

static void run_case(const struct fit_case *c, const char *node)
{
    char existing[1024];
    struct arena a;
    struct fx_cluster fc;
    struct pred_result r;
    struct policy *policy = c->policy ? load_policy(c->policy) : NULL;
    const struct kube_pod *pod;
    enum pred_code got, want = *c->want ? PRED_UNFIT : PRED_FIT;

    snprintf(existing, sizeof(existing),
             "{\"metadata\":{\"name\":\"existing\"},"
             "\"spec\":{\"nodeName\":\"n1\",\"containers\":[%s]}}",
             c->existing);
    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    fx_cluster_add_node(&fc, fx_node(&a, node));
    fx_cluster_add_pod(&fc, fx_pod(&a, existing));
    fx_cluster_build(&fc);
    pod = fx_pod(&a, c->pod);
    if (c->groups)
        got = run_with_group(c, pod, &fc.c, &a, &r);
    else
        got = fx_run_filter("NodeResourcesFit", NULL, policy, pod, &fc.c, "n1",
                            &a, &r);
    if (got != want)
        fail_msg("%s: code %d, want %d", c->name, got, want);
    if (strcmp(fx_reasons(&a, &r), c->want))
        fail_msg("%s: reasons \"%s\", want \"%s\"", c->name, fx_reasons(&a, &r),
                 c->want);
    fx_cluster_free(&fc);
    arena_destroy(&a);
    policy_free(policy);
}

#define RUN_TABLE(t, node)                                                     \
    do {                                                                       \
        size_t i_;                                                             \
        for (i_ = 0; i_ < sizeof(t) / sizeof((t)[0]); i_++)                    \
            run_case(&(t)[i_], node);                                          \
    } while (0)

static void fit_should_match_upstream_enough_requests(void **state)
{
    (void)state;
    RUN_TABLE(enough, NODE_ENOUGH);
}

static void fit_should_reject_full_nodes_first_and_always(void **state)
{
    (void)state;
    RUN_TABLE(not_enough, NODE_ONE_POD);
}

static void fit_should_check_ephemeral_storage(void **state)
{
    (void)state;
    RUN_TABLE(storage, NODE_ENOUGH);
}

static void fit_should_follow_v122_edge_cases(void **state)
{
    (void)state;
    RUN_TABLE(ours, NODE_ENOUGH);
    RUN_TABLE(ours_full, NODE_ONE_POD);
}

/* TestPreFilterDisabled (fit_test.go): the filter without its state. */
static void fit_should_error_when_prefilter_did_not_run(void **state)
{
    struct arena a;
    struct fx_cluster fc;
    struct pred_cycle cy;
    struct pred_result r;
    enum pred_code got;

    (void)state;
    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    fx_cluster_add_node(&fc, fx_node(&a, "{\"metadata\":{\"name\":\"n1\"}}"));
    fx_cluster_build(&fc);
    memset(&cy, 0, sizeof(cy));
    cy.pod = fx_pod(&a, EMPTY_POD);
    cy.cluster = &fc.c;
    cy.arena = &a;
    pred_result_init(&r, &a);
    got = pred_node_resources_fit_filter(&cy, NULL, NULL,
                                         cluster_node(&fc.c, "n1"), &r);
    assert_int_equal(got, PRED_ERROR);
    assert_string_equal(fx_reasons(&a, &r),
                        "error reading \"PreFilterNodeResourcesFit\" from "
                        "cycleState: not found");
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

/* The reason macro is what the literals above spell. */
static void fit_reasons_should_use_the_insufficient_format(void **state)
{
    char buf[64];

    (void)state;
    snprintf(buf, sizeof(buf), PRED_REASON_INSUFFICIENT, "cpu");
    assert_string_equal(buf, R_CPU);
    assert_string_equal(R_PODS, "Too many pods");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fit_should_match_upstream_enough_requests),
        cmocka_unit_test(fit_should_reject_full_nodes_first_and_always),
        cmocka_unit_test(fit_should_check_ephemeral_storage),
        cmocka_unit_test(fit_should_follow_v122_edge_cases),
        cmocka_unit_test(fit_should_error_when_prefilter_did_not_run),
        cmocka_unit_test(fit_reasons_should_use_the_insufficient_format),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
