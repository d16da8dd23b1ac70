/*
 * test_prio_default_spread_selector.c: the default spreading selector
 * (helper.DefaultSelector) and service selection (helper.GetPodServices),
 * ported from v1.22 plugins/helper/spread_test.go.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "priorities/default_spread_selector.h"
#include "tests/support/pred_fixtures.h"

#define NS_TEST "\"namespace\":\"test\""
#define SVC                                                                    \
    "{\"kind\":\"Service\",\"metadata\":{\"name\":\"test-service\"," NS_TEST   \
    "},\"spec\":{\"selector\":{\"podLabelKey\":\"podLabelVal\"}}}"
#define RS                                                                     \
    "{\"kind\":\"ReplicaSet\",\"apiVersion\":\"apps/v1\",\"metadata\":{"       \
    "\"name\":\"test-replicaset\"," NS_TEST "},\"spec\":{\"selector\":{"       \
    "\"matchLabels\":{\"replicaSetLabelKey\":\"replicaSetLabelVal\"}}}}"
#define RC                                                                     \
    "{\"kind\":\"ReplicationController\",\"apiVersion\":\"v1\",\"metadata\":{" \
    "\"name\":\"test-replicationcontroller\"," NS_TEST "},\"spec\":{"          \
    "\"selector\":{\"replicationLabelKey\":\"replicationLabelVal\"}}}"
#define SS                                                                     \
    "{\"kind\":\"StatefulSet\",\"apiVersion\":\"apps/v1\",\"metadata\":{"      \
    "\"name\":\"test-statefulset\"," NS_TEST "},\"spec\":{\"selector\":{"      \
    "\"matchLabels\":{\"statefulSetLabelKey\":\"statefulSetLabelVal\"}}}}"
/* The test pod, optionally owned (controller) by kind/name. */
#define OWNED(api, kind, name)                                                 \
    "{\"metadata\":{\"name\":\"test-pod\"," NS_TEST ",\"labels\":{"            \
    "\"podLabelKey\":\"podLabelVal\"},\"ownerReferences\":[{\"apiVersion\":"   \
    "\"" api "\",\"kind\":\"" kind "\",\"name\":\"" name "\",\"uid\":\"u\","   \
    "\"controller\":true}]}}"
#define PLAIN                                                                  \
    "{\"metadata\":{\"name\":\"test-pod\"," NS_TEST ",\"labels\":{"            \
    "\"podLabelKey\":\"podLabelVal\"}}}"

struct sel_case {
    const char *name;
    const char *pod;
    const char *docs[6];
    const char *want; /* labels.Set String(): "k=v,k2=v2", sorted by key */
};

/*
 * TestDefaultSelector (spread_test.go). Upstream adds the fake objects to
 * one informer across rows; each row here lists everything present.
 */
static const struct sel_case sel_cases[] = {
    { "DefaultSelector for default case", PLAIN, { NULL }, "" },
    { "DefaultSelector for no OwnerReference pod case",
      PLAIN,
      { SVC, NULL },
      "podLabelKey=podLabelVal" },
    { "DefaultSelector for ReplicaSet OwnerReference pod case",
      OWNED("apps/v1", "ReplicaSet", "test-replicaset"),
      { SVC, RS, NULL },
      "podLabelKey=podLabelVal,replicaSetLabelKey=replicaSetLabelVal" },
    { "DefaultSelector for ReplicationController OwnerReference pod case",
      OWNED("v1", "ReplicationController", "test-replicationcontroller"),
      { SVC, RS, RC, NULL },
      "podLabelKey=podLabelVal,replicationLabelKey=replicationLabelVal" },
    { "DefaultSelector for StatefulSet OwnerReference pod case",
      OWNED("apps/v1", "StatefulSet", "test-statefulset"),
      { SVC, RS, RC, SS, NULL },
      "podLabelKey=podLabelVal,statefulSetLabelKey=statefulSetLabelVal" },
    /* Beyond upstream's table: the rules of spread.go it relies on. */
    { "an owner of another API group is ignored",
      OWNED("extensions/v1beta1", "ReplicaSet", "test-replicaset"),
      { SVC, RS, NULL },
      "podLabelKey=podLabelVal" },
    { "a missing controller object adds nothing",
      OWNED("apps/v1", "ReplicaSet", "nope"),
      { RS, NULL },
      "" },
    { "services of other namespaces and nil selectors do not count",
      PLAIN,
      { "{\"kind\":\"Service\",\"metadata\":{\"name\":\"a\",\"namespace\":"
        "\"other\"},\"spec\":{\"selector\":{\"podLabelKey\":\"podLabelVal\"}}}",
        "{\"kind\":\"Service\",\"metadata\":{\"name\":\"b\"," NS_TEST "},"
        "\"spec\":{}}",
        NULL },
      "" },
    { "selectors of several services are merged",
      "{\"metadata\":{\"name\":\"test-pod\"," NS_TEST ",\"labels\":{"
      "\"a\":\"1\",\"b\":\"2\"}}}",
      { "{\"kind\":\"Service\",\"metadata\":{\"name\":\"s1\"," NS_TEST "},"
        "\"spec\":{\"selector\":{\"a\":\"1\"}}}",
        "{\"kind\":\"Service\",\"metadata\":{\"name\":\"s2\"," NS_TEST "},"
        "\"spec\":{\"selector\":{\"a\":\"1\",\"b\":\"2\"}}}",
        NULL },
      "a=1,b=2" },
};

static int cmp_req(const void *x, const void *y)
{
    const struct kube_requirement *a = x, *b = y;

    return strcmp(a->key, b->key);
}

/* labels.Set-style rendering of an all-equality selector. */
static const char *render(struct arena *a, struct kube_label_selector *s)
{
    char *out = arena_calloc(a, 1, 4096);
    size_t i;

    qsort(s->reqs, s->n_reqs, sizeof(*s->reqs), cmp_req);
    for (i = 0; i < s->n_reqs; i++) {
        assert_int_equal(s->reqs[i].op, KUBE_OP_IN);
        assert_int_equal(s->reqs[i].n_values, 1);
        if (i)
            strcat(out, ",");
        strcat(out, s->reqs[i].key);
        strcat(out, "=");
        strcat(out, s->reqs[i].values[0]);
    }
    return out;
}

static int run_sel(const struct sel_case *cases, size_t n,
                   enum kpe_semantics sem)
{
    size_t i, j;
    int bad = 0;

    for (i = 0; i < n; i++) {
        struct kube_label_selector sel;
        struct fx_cluster fc;
        struct arena a;
        const char *got;

        arena_init(&a, 0);
        fx_cluster_init(&fc, &a);
        for (j = 0; cases[i].docs[j]; j++)
            fx_cluster_add(&fc, cases[i].docs[j]);
        fx_cluster_build(&fc);
        assert_int_equal(prio_default_spread_selector(
                             &fc.c, fx_pod(&a, cases[i].pod), sem, &a, &sel),
                         0);
        got = render(&a, &sel);
        if (strcmp(got, cases[i].want)) {
            print_error("%s (as %s): got \"%s\", want \"%s\"\n", cases[i].name,
                        kpe_semantics_name(sem), got, cases[i].want);
            bad = 1;
        }
        fx_cluster_free(&fc);
        arena_destroy(&a);
    }
    return bad;
}

static void default_selector_should_merge_services_and_controller(void **state)
{
    (void)state;
    assert_int_equal(run_sel(sel_cases,
                             sizeof(sel_cases) / sizeof(sel_cases[0]),
                             KPE_SEM_1_22),
                     0);
}

/* A pod in namespace test with labels app=web, tier=fe, and its owner. */
#define WEB_OWNED(kind, name)                                                  \
    "{\"metadata\":{\"name\":\"web-1\"," NS_TEST ",\"labels\":{"               \
    "\"app\":\"web\",\"tier\":\"fe\"},\"ownerReferences\":[{\"apiVersion\":"   \
    "\"apps/v1\",\"kind\":\"" kind "\",\"name\":\"" name "\",\"uid\":\"u\","   \
    "\"controller\":true}]}}"
#define WEB_PLAIN                                                              \
    "{\"metadata\":{\"name\":\"web-1\"," NS_TEST ",\"labels\":{"               \
    "\"app\":\"web\",\"tier\":\"fe\"}}}"
#define WORKLOAD(kind, name, sel)                                              \
    "{\"kind\":\"" kind "\",\"apiVersion\":\"apps/v1\",\"metadata\":{"         \
    "\"name\":\"" name "\"," NS_TEST "},\"spec\":{\"selector\":" sel "}}"
#define RS_APP                                                                 \
    WORKLOAD("ReplicaSet", "rs-app", "{\"matchLabels\":{\"app\":\"web\"}}")
#define RS_TIER                                                                \
    WORKLOAD("ReplicaSet", "rs-tier", "{\"matchLabels\":{\"tier\":\"fe\"}}")
#define RS_OTHER                                                               \
    WORKLOAD("ReplicaSet", "rs-other", "{\"matchLabels\":{\"app\":\"db\"}}")
#define RS_EMPTY WORKLOAD("ReplicaSet", "rs-empty", "{}")
#define RS_BAD                                                                 \
    WORKLOAD(                                                                  \
        "ReplicaSet", "rs-bad",                                                \
        "{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"Bogus\"}]}")
#define SS_TIER                                                                \
    WORKLOAD("StatefulSet", "ss-tier", "{\"matchLabels\":{\"tier\":\"fe\"}}")
#define RC_APP                                                                 \
    "{\"kind\":\"ReplicationController\",\"apiVersion\":\"v1\",\"metadata\":{" \
    "\"name\":\"rc-app\"," NS_TEST                                             \
    "},\"spec\":{\"selector\":{\"app\":\"web\"}}}"

/*
 * The default selector of v1.20.2 (helper/spread.go DefaultSelector with
 * client-go's GetPodControllers, GetPodReplicaSets, GetPodStatefulSets;
 * docs/VERSION-SEMANTICS.md D6): every RC, RS and SS of the namespace that
 * selects the pod, whatever its owner references say.
 */
static const struct sel_case lister_cases[] = {
    { "a bare pod spreads against the ReplicaSet that selects it",
      WEB_PLAIN,
      { RS_APP, RS_OTHER, NULL },
      "app=web" },
    { "every selecting ReplicaSet and StatefulSet is ANDed, not the owner",
      WEB_OWNED("ReplicaSet", "rs-app"),
      { RS_APP, RS_TIER, SS_TIER, NULL },
      "app=web,tier=fe,tier=fe" },
    { "an owner whose selector does not match adds nothing",
      WEB_OWNED("ReplicaSet", "rs-other"),
      { RS_OTHER, NULL },
      "" },
    { "an RC is found by its selector map",
      WEB_PLAIN,
      { RC_APP, NULL },
      "app=web" },
    { "an empty ReplicaSet selector is skipped",
      WEB_PLAIN,
      { RS_EMPTY, NULL },
      "" },
    { "one invalid ReplicaSet selector in the namespace hides them all",
      WEB_PLAIN,
      { RS_APP, RS_BAD, SS_TIER, NULL },
      "tier=fe" },
    { "a pod without labels gets no controller",
      "{\"metadata\":{\"name\":\"web-1\"," NS_TEST "}}",
      { RS_EMPTY, RC_APP, NULL },
      "" },
};

/* The v1.22 answers on the same objects (owner reference only). */
static const struct sel_case owner_cases[] = {
    { "a bare pod has no controller",
      WEB_PLAIN,
      { RS_APP, RS_OTHER, NULL },
      "" },
    { "only the owner counts",
      WEB_OWNED("ReplicaSet", "rs-app"),
      { RS_APP, RS_TIER, SS_TIER, NULL },
      "app=web" },
    { "an owner whose selector does not match still counts",
      WEB_OWNED("ReplicaSet", "rs-other"),
      { RS_OTHER, NULL },
      "app=db" },
};

static void default_selector_should_use_listers_as_v120_and_v121(void **state)
{
    (void)state;
    assert_int_equal(run_sel(lister_cases,
                             sizeof(lister_cases) / sizeof(lister_cases[0]),
                             KPE_SEM_1_20),
                     0);
    assert_int_equal(run_sel(lister_cases,
                             sizeof(lister_cases) / sizeof(lister_cases[0]),
                             KPE_SEM_1_21),
                     0);
    assert_int_equal(run_sel(owner_cases,
                             sizeof(owner_cases) / sizeof(owner_cases[0]),
                             KPE_SEM_1_22),
                     0);
}

/*
 * TestGetPodServices (spread_test.go): services service-{0,1,2} select
 * app=test-{i} in namespace test; pod i has app=test-{i}.
 */
static void pod_services_should_match_selector_and_namespace(void **state)
{
    static const char *const want[5] = { "service-0", "service-1", "service-2",
                                         NULL, NULL };
    struct fx_cluster fc;
    struct arena a;
    size_t i, k;
    int bad = 0;

    (void)state;
    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    for (i = 0; i < 3; i++)
        fx_cluster_add(&fc, arena_sprintf(&a,
                                          "{\"kind\":\"Service\",\"metadata\":"
                                          "{\"name\":\"service-%zu\"," NS_TEST
                                          "},\"spec\":{\"selector\":{\"app\":"
                                          "\"test-%zu\"}}}",
                                          i, i));
    fx_cluster_build(&fc);
    for (i = 0; i < 5; i++) {
        const struct kube_pod *pod = fx_pod(
            &a,
            arena_sprintf(&a,
                          "{\"metadata\":{\"name\":\"test-pod-%zu\"," NS_TEST
                          ",\"labels\":{\"app\":\"test-%zu\",\"label\":"
                          "\"label-%zu\"}}}",
                          i, i, i));
        const char *got = NULL;
        size_t n = 0;

        for (k = 0; k < fc.objs.n_services; k++) {
            if (prio_service_selects_pod(fc.objs.services[k], pod)) {
                got = fc.objs.services[k]->name;
                n++;
            }
        }
        if (n > 1 || (got == NULL) != (want[i] == NULL) ||
            (got && strcmp(got, want[i]))) {
            print_error("GetPodServices for pod-%zu: got %s (%zu)\n", i,
                        got ? got : "none", n);
            bad = 1;
        }
    }
    fx_cluster_free(&fc);
    arena_destroy(&a);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_selector_should_merge_services_and_controller),
        cmocka_unit_test(pod_services_should_match_selector_and_namespace),
        cmocka_unit_test(default_selector_should_use_listers_as_v120_and_v121),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
