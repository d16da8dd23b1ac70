/*
 * test_pred_legacy_volume_node.c: NoVolumeNodeConflict (compat legacy).
 * v1.8, the last release with VolumeNodeChecker, has no unit test table
 * for it (none found in the index either), so this table is our own,
 * written from the v1.8 predicate and v1.22's CheckNodeAffinity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/predicates.h"
#include "predicates/volume_binding.h"
#include "tests/support/pred_fixtures.h"

/* The descriptors these tests run, by name (in their plugins' files). */
extern const struct pred_def pred_no_volume_node_conflict;

#define MAX_DOCS 4

#define NODE_N1                                                                \
    "{\"metadata\":{\"name\":\"n1\",\"labels\":{\"kubernetes.io/hostname\":"   \
    "\"n1\",\"zone\":\"a\"}}}"

#define CLAIM(name)                                                            \
    "{\"name\":\"v-" name                                                      \
    "\",\"persistentVolumeClaim\":{\"claimName\":\"" name "\"}}"
#define POD(vols)                                                              \
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},"                     \
    "\"spec\":{\"volumes\":[" vols "]}}"

#define PVC(ns, name, pv)                                                      \
    "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"" name       \
    "\",\"namespace\":\"" ns "\"},\"spec\":{\"volumeName\":\"" pv "\"}}"
#define PV(name, affinity)                                                     \
    "{\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"" name            \
    "\"},\"spec\":{\"capacity\":{\"storage\":\"1Gi\"}" affinity "}}"
#define REQUIRED(terms)                                                        \
    ",\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[" terms "]}}"
#define EXPR(key, op, vals)                                                    \
    "{\"matchExpressions\":[{\"key\":\"" key "\",\"operator\":\"" op           \
    "\",\"values\":[" vals "]}]}"
#define ON_HOST(h) EXPR("kubernetes.io/hostname", "In", "\"" h "\"")

struct vn_case {
    const char *name;
    const char *pod;
    const char *docs[MAX_DOCS]; /* PVs and PVCs */
    enum pred_code want;
    const char *reason; /* "" when it fits */
};

/* Ours (no upstream table exists): v1.8 VolumeNodeChecker behaviour. */
static const struct vn_case cases[] = {
    { "a pod without volumes fits",
      "{\"metadata\":{\"name\":\"p\"}}",
      { NULL },
      PRED_FIT,
      "" },
    { "inline volumes are not checked",
      POD("{\"name\":\"e\",\"emptyDir\":{}},"
          "{\"name\":\"g\",\"gcePersistentDisk\":{\"pdName\":\"x\"}}"),
      { NULL },
      PRED_FIT,
      "" },
    { "generic ephemeral volumes are not claims here",
      POD("{\"name\":\"eph\",\"ephemeral\":{}}"),
      { NULL },
      PRED_FIT,
      "" },
    { "a PV without node affinity fits anywhere",
      POD(CLAIM("c1")),
      { PVC("ns", "c1", "pv1"), PV("pv1", "") },
      PRED_FIT,
      "" },
    { "a PV pinned to this node fits",
      POD(CLAIM("c1")),
      { PVC("ns", "c1", "pv1"), PV("pv1", REQUIRED(ON_HOST("n1"))) },
      PRED_FIT,
      "" },
    { "a PV pinned to another node conflicts",
      POD(CLAIM("c1")),
      { PVC("ns", "c1", "pv1"), PV("pv1", REQUIRED(ON_HOST("n2"))) },
      PRED_UNFIT_UNRESOLVABLE,
      PRED_REASON_NODE_CONFLICT },
    { "node selector terms are ORed",
      POD(CLAIM("c1")),
      { PVC("ns", "c1", "pv1"),
        PV("pv1", REQUIRED(ON_HOST("n2") "," EXPR("zone", "In", "\"a\""))) },
      PRED_FIT,
      "" },
    { "expressions within a term are ANDed",
      POD(CLAIM("c1")),
      { PVC("ns", "c1", "pv1"),
        PV("pv1", REQUIRED("{\"matchExpressions\":[{\"key\":\"zone\","
                           "\"operator\":\"In\",\"values\":[\"a\"]},"
                           "{\"key\":\"kubernetes.io/hostname\","
                           "\"operator\":\"In\",\"values\":[\"n2\"]}]}")) },
      PRED_UNFIT_UNRESOLVABLE,
      PRED_REASON_NODE_CONFLICT },
    { "an empty term list admits no node",
      POD(CLAIM("c1")),
      { PVC("ns", "c1", "pv1"), PV("pv1", REQUIRED("")) },
      PRED_UNFIT_UNRESOLVABLE,
      PRED_REASON_NODE_CONFLICT },
    { "nodeAffinity without required admits every node",
      POD(CLAIM("c1")),
      { PVC("ns", "c1", "pv1"), PV("pv1", ",\"nodeAffinity\":{}") },
      PRED_FIT,
      "" },
    { "matchFields are skipped: CheckNodeAffinity sees no node name",
      POD(CLAIM("c1")),
      { PVC("ns", "c1", "pv1"),
        PV("pv1", REQUIRED("{\"matchFields\":[{\"key\":\"metadata.name\","
                           "\"operator\":\"In\",\"values\":[\"n2\"]}]}")) },
      PRED_FIT,
      "" },
    { "every claim is checked",
      POD(CLAIM("c1") "," CLAIM("c2")),
      { PVC("ns", "c1", "pv1"), PV("pv1", ""), PVC("ns", "c2", "pv2"),
        PV("pv2", REQUIRED(ON_HOST("n2"))) },
      PRED_UNFIT_UNRESOLVABLE,
      PRED_REASON_NODE_CONFLICT },
    { "a missing claim is an error",
      POD(CLAIM("c1")),
      { NULL },
      PRED_ERROR,
      "persistentvolumeclaim \"c1\" not found" },
    { "claims are looked up in the pod's namespace",
      POD(CLAIM("c1")),
      { PVC("other", "c1", "pv1"), PV("pv1", "") },
      PRED_ERROR,
      "persistentvolumeclaim \"c1\" not found" },
    { "an unbound claim is an error",
      POD(CLAIM("c1")),
      { PVC("ns", "c1", "") },
      PRED_ERROR,
      "PersistentVolumeClaim is not bound: \"c1\"" },
    { "a missing volume is an error",
      POD(CLAIM("c1")),
      { PVC("ns", "c1", "pv1") },
      PRED_ERROR,
      "persistentvolume \"pv1\" not found" },
    { "a claim without a name is an error",
      POD("{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"\"}}"),
      { NULL },
      PRED_ERROR,
      "PersistentVolumeClaim had no name" },
    { "volumes are checked in order: a conflict before an error",
      POD(CLAIM("c1") "," CLAIM("c2")),
      { PVC("ns", "c1", "pv1"), PV("pv1", REQUIRED(ON_HOST("n2"))) },
      PRED_UNFIT_UNRESOLVABLE,
      PRED_REASON_NODE_CONFLICT },
};

static void no_volume_node_conflict_should_follow_v18(void **state)
{
    size_t i, j;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct vn_case *c = &cases[i];
        struct arena a;
        struct fx_cluster fc;
        struct pred_result r;
        enum pred_code got;

        arena_init(&a, 0);
        fx_cluster_init(&fc, &a);
        fx_cluster_add_node(&fc, fx_node(&a, NODE_N1));
        for (j = 0; j < MAX_DOCS && c->docs[j]; j++)
            fx_cluster_add(&fc, c->docs[j]);
        fx_cluster_build(&fc);
        got = fx_run_filter(pred_no_volume_node_conflict.name, NULL, NULL,
                            fx_pod(&a, c->pod), &fc.c, "n1", &a, &r);
        if (got != c->want)
            fail_msg("%s: code %d, want %d", c->name, got, c->want);
        if (strcmp(fx_reasons(&a, &r), c->reason))
            fail_msg("%s: reasons \"%s\", want \"%s\"", c->name,
                     fx_reasons(&a, &r), c->reason);
        fx_cluster_free(&fc);
        arena_destroy(&a);
    }
}

/* The reason is the one v1.8 printed (ErrVolumeNodeConflict). */
static void no_volume_node_conflict_reason_should_match_v18(void **state)
{
    (void)state;
    assert_string_equal(PRED_REASON_NODE_CONFLICT,
                        "node(s) had volume node affinity conflict");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_volume_node_conflict_should_follow_v18),
        cmocka_unit_test(no_volume_node_conflict_reason_should_match_v18),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
