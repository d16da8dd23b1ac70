/*
 * test_parse_errors.c: every bad input fails cleanly with a message that
 * names the JSON path and quotes the value: wrong types, invalid values,
 * missing required fields, int32 overflow, syntax errors by byte offset,
 * excessive nesting, and every truncation of real documents.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/parse/parse.h"
#include "tests/support/parse_fixtures.h"

/* Which entry point a case goes through. */
enum entry { DOC, POD, NODE };

struct bad_case {
    const char *name;
    enum entry entry;
    const char *json;
    const char *want; /* the exact error message */
};

#define CONT(ports)                                                            \
    "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{"               \
    "\"containers\":[{\"name\":\"c\",\"ports\":" ports "}]}}"

static const struct bad_case bad_cases[] = {
    /* documents as a whole */
    { "empty input", DOC, "", "empty document" },
    { "blank input", POD, " \n\t ", "empty document" },
    { "top-level array", DOC, "[{\"kind\":\"Pod\"}]",
      "expected a JSON object at the top level, got array" },
    { "top-level string", NODE, "\"Node\"",
      "expected a JSON object at the top level, got string \"Node\"" },
    { "top-level number", DOC, "42",
      "expected a JSON object at the top level, got number" },
    { "trailing garbage", DOC, "{} x",
      "invalid JSON at byte 3 (line 1, column 4): trailing data after "
      "JSON value near \"x\"" },
    { "missing comma on line 3", DOC, "{\n  \"kind\": \"Pod\"\n  \"x\": 1}",
      "invalid JSON at byte 20 (line 3, column 3): expected ',' or '}' "
      "after object member near \"\\\"x\\\": 1}\"" },
    { "bad literal", DOC, "{\"a\":tru}",
      "invalid JSON at byte 5 (line 1, column 6): invalid literal near "
      "\"tru}\"" },
    { "unterminated object", POD, "{\"a\":1",
      "unexpected end of input at byte 6" },
    { "missing kind", DOC, "{\"metadata\":{\"name\":\"x\"}}",
      "kind: missing required field" },
    { "kind not a string", DOC, "{\"kind\":5}",
      "kind: expected a string, got number" },
    { "items not an array", DOC, "{\"kind\":\"List\",\"items\":{}}",
      "items: expected an array, got object" },
    { "items of a kind list not an array", DOC,
      "{\"kind\":\"PodList\",\"items\":\"none\"}",
      "items: expected an array, got string \"none\"" },
    { "item not an object", DOC,
      "{\"kind\":\"List\",\"items\":[{\"kind\":"
      "\"Event\"},1]}",
      "items[1]: expected an object, got number" },
    { "null item", DOC, "{\"kind\":\"List\",\"items\":[null]}",
      "items[0]: expected an object, got null" },
    { "list item without kind", DOC,
      "{\"kind\":\"List\",\"items\":[{\"metadata\":{\"name\":\"a\"}}]}",
      "items[0].kind: missing required field" },
    { "pod of another kind", POD, "{\"kind\":\"Node\"}",
      "kind: expected \"Pod\", got \"Node\"" },

    /* metadata */
    { "metadata not an object", DOC, "{\"kind\":\"Pod\",\"metadata\":[]}",
      "metadata: expected an object, got array" },
    { "no name", POD, "{\"metadata\":{\"namespace\":\"x\"}}",
      "metadata.name: missing required field" },
    { "null name", DOC, "{\"kind\":\"Node\",\"metadata\":{\"name\":null}}",
      "metadata.name: missing required field" },
    { "label value a number", DOC,
      "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{\"app\":5}}}",
      "metadata.labels.app: expected a string, got number" },
    { "annotations an array", NODE,
      "{\"metadata\":{\"name\":\"n\",\"annotations\":[\"a\"]}}",
      "metadata.annotations: expected an object, got array" },
    { "bad creation timestamp", POD,
      "{\"metadata\":{\"name\":\"p\",\"creationTimestamp\":\"yesterday\"}}",
      "metadata.creationTimestamp: invalid RFC3339 time \"yesterday\"" },
    { "impossible date", POD,
      "{\"metadata\":{\"name\":\"p\",\"deletionTimestamp\":"
      "\"2023-02-29T00:00:00Z\"}}",
      "metadata.deletionTimestamp: invalid RFC3339 time "
      "\"2023-02-29T00:00:00Z\"" },
    { "owner controller a string", POD,
      "{\"metadata\":{\"name\":\"p\",\"ownerReferences\":[{\"name\":\"rs\","
      "\"controller\":\"yes\"}]}}",
      "metadata.ownerReferences[0].controller: expected a boolean, got "
      "string \"yes\"" },

    /* pod spec */
    { "host port as a string, in a list", DOC,
      "{\"kind\":\"List\",\"items\":[{\"kind\":\"Event\"},{\"kind\":\"Node\","
      "\"metadata\":{\"name\":\"n\"}},{\"kind\":\"Service\",\"metadata\":{"
      "\"name\":\"s\"}},{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
      "\"spec\":{\"containers\":[{\"name\":\"c\",\"ports\":[{"
      "\"containerPort\":80},{\"containerPort\":81,\"hostPort\":\"80\"}]}]}}]}",
      "items[3].spec.containers[0].ports[1].hostPort: expected an integer, "
      "got string \"80\"" },
    { "invalid quantity", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":"
      "\"a\"},{\"name\":\"b\"},{\"name\":\"c\",\"resources\":{\"requests\":{"
      "\"cpu\":\"1.5.3\"}}}]}}",
      "spec.containers[2].resources.requests.cpu: invalid quantity "
      "\"1.5.3\"" },
    { "invalid scalar quantity", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":[{"
      "\"name\":\"i\",\"resources\":{\"limits\":{\"example.com/gpu\":"
      "\"lots\"}}}]}}",
      "spec.initContainers[0].resources.limits.example.com/gpu: invalid "
      "quantity \"lots\"" },
    { "quantity an object", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"overhead\":{\"memory\":{}}}}",
      "spec.overhead.memory: expected a quantity string, got object" },
    { "priority beyond int32", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"priority\":3000000000}}",
      "spec.priority: integer 3000000000 out of range for int32" },
    { "priority below int32", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"priority\":-2147483649}}",
      "spec.priority: integer -2147483649 out of range for int32" },
    { "fractional port", POD, CONT("[{\"containerPort\":80.5}]"),
      "spec.containers[0].ports[0].containerPort: expected an integer, got "
      "number 80.5" },
    { "missing container port", POD, CONT("[{\"hostPort\":80}]"),
      "spec.containers[0].ports[0].containerPort: missing required field" },
    { "ports an object", POD, CONT("{\"containerPort\":80}"),
      "spec.containers[0].ports: expected an array, got object" },
    { "protocol a number", POD, CONT("[{\"containerPort\":80,\"protocol\":6}]"),
      "spec.containers[0].ports[0].protocol: expected a string, got number" },
    { "container without name", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"image\":"
      "\"x\"}]}}",
      "spec.containers[0].name: missing required field" },
    { "node name a number", DOC,
      "{\"kind\":\"PodList\",\"items\":[{\"metadata\":{\"name\":\"a\"},"
      "\"spec\":{\"nodeName\":1}}]}",
      "items[0].spec.nodeName: expected a string, got number" },
    { "tolerations an object", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"tolerations\":{}}}",
      "spec.tolerations: expected an array, got object" },
    { "node selector value a bool", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeSelector\":{\"a\":"
      "true}}}",
      "spec.nodeSelector.a: expected a string, got boolean" },
    { "selector term value a number", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"affinity\":{"
      "\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
      "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"a\","
      "\"operator\":\"In\",\"values\":[1]}]}]}}}}}",
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
      "Execution.nodeSelectorTerms[0].matchExpressions[0].values[0]: "
      "expected a string, got number" },
    { "preferred weight beyond int32", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"affinity\":{"
      "\"podAntiAffinity\":{\"preferredDuringSchedulingIgnoredDuring"
      "Execution\":[{\"weight\":1e10}]}}}}",
      "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuring"
      "Execution[0].weight: integer 1e10 out of range for int32" },
    { "match labels value a number", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"affinity\":{"
      "\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
      "[{\"labelSelector\":{\"matchLabels\":{\"app\":1}}}]}}}}",
      "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuring"
      "Execution[0].labelSelector.matchLabels.app: expected a string, got "
      "number" },
    { "operator a number", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"topologySpreadConstraints\":"
      "[{\"maxSkew\":1,\"topologyKey\":\"k\",\"whenUnsatisfiable\":\"x\","
      "\"labelSelector\":{\"matchExpressions\":[{\"key\":\"a\",\"operator\":"
      "1}]}}]}}",
      "spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0]."
      "operator: expected a string, got number" },
    { "spread without max skew", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"topologySpreadConstraints\":"
      "[{\"topologyKey\":\"k\"}]}}",
      "spec.topologySpreadConstraints[0].maxSkew: missing required field" },
    { "volume without name", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"volumes\":[{\"emptyDir\":"
      "{}}]}}",
      "spec.volumes[0].name: missing required field" },
    { "rbd monitors a string", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"volumes\":[{\"name\":\"v\","
      "\"rbd\":{\"image\":\"i\",\"monitors\":\"m\"}}]}}",
      "spec.volumes[0].rbd.monitors: expected an array, got string \"m\"" },
    { "pvc source an array", POD,
      "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"volumes\":[{\"name\":\"v\","
      "\"persistentVolumeClaim\":[]}]}}",
      "spec.volumes[0].persistentVolumeClaim: expected an object, got "
      "array" },
    { "phase a number", POD,
      "{\"metadata\":{\"name\":\"p\"},\"status\":{"
      "\"phase\":3}}",
      "status.phase: expected a string, got number" },

    /* nodes and other kinds */
    { "unschedulable a string", NODE,
      "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"unschedulable\":\"true\"}}",
      "spec.unschedulable: expected a boolean, got string \"true\"" },
    { "taint without effect", NODE,
      "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"taints\":[{\"key\":\"k\"}]}}",
      "spec.taints[0].effect: missing required field" },
    { "image size a string", NODE,
      "{\"metadata\":{\"name\":\"n\"},\"status\":{\"images\":[{\"names\":[],"
      "\"sizeBytes\":\"12\"}]}}",
      "status.images[0].sizeBytes: expected an integer, got string \"12\"" },
    { "image size beyond int64", NODE,
      "{\"metadata\":{\"name\":\"n\"},\"status\":{\"images\":[{\"sizeBytes\":"
      "1e19}]}}",
      "status.images[0].sizeBytes: integer 1e19 out of range for int64" },
    { "image size a huge number, named as written", NODE,
      "{\"metadata\":{\"name\":\"n\"},\"status\":{\"images\":[{\"sizeBytes\":"
      "1e309}]}}",
      "status.images[0].sizeBytes: expected an integer, got number 1e309" },

    { "allocatable invalid", NODE,
      "{\"metadata\":{\"name\":\"n\"},\"status\":{\"allocatable\":{\"pods\":"
      "\"1.1.1\"}}}",
      "status.allocatable.pods: invalid quantity \"1.1.1\"" },
    { "service selector an array", DOC,
      "{\"kind\":\"ServiceList\",\"items\":[{\"metadata\":{\"name\":\"s\"},"
      "\"spec\":{\"selector\":[]}}]}",
      "items[0].spec.selector: expected an object, got array" },
    { "pv capacity invalid", DOC,
      "{\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"v\"},\"spec\":"
      "{\"capacity\":{\"storage\":\"ten\"}}}",
      "spec.capacity.storage: invalid quantity \"ten\"" },
    { "pvc storage class a number", DOC,
      "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\"},"
      "\"spec\":{\"storageClassName\":0}}",
      "spec.storageClassName: expected a string, got number" },
    { "csi count beyond int32", DOC,
      "{\"kind\":\"CSINode\",\"metadata\":{\"name\":\"n\"},\"spec\":{"
      "\"drivers\":[{\"name\":\"d\",\"allocatable\":{\"count\":"
      "2147483648}}]}}",
      "spec.drivers[0].allocatable.count: integer 2147483648 out of range "
      "for int32" },
    { "topology values an object", DOC,
      "{\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"s\"},"
      "\"allowedTopologies\":[{\"matchLabelExpressions\":[{\"key\":\"k\","
      "\"values\":{}}]}]}",
      "allowedTopologies[0].matchLabelExpressions[0].values: expected an "
      "array, got object" },
    { "replica set selector a string", DOC,
      "{\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"r\"},\"spec\":{"
      "\"selector\":\"app=web\"}}",
      "spec.selector: expected an object, got string \"app=web\"" },
};

static int run_entry(struct arena *a, enum entry entry, const char *json,
                     size_t len, struct err *e)
{
    struct kube_objects o;
    struct kube_pod p;
    struct kube_node n;

    memset(&o, 0, sizeof(o));
    err_clear(e);
    switch (entry) {
    case POD:
        return kube_parse_pod(a, json, len, &p, e);
    case NODE:
        return kube_parse_node(a, json, len, &n, e);
    default:
        return kube_parse_document(a, json, len, &o, e);
    }
}

static void bad_inputs_should_fail_with_path_and_value(void **state)
{
    struct arena a;
    struct err e;
    size_t i;

    (void)state;
    arena_init(&a, 0);
    for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *c = &bad_cases[i];
        int rc = run_entry(&a, c->entry, c->json, strlen(c->json), &e);

        if (rc != -1)
            fail_msg("case %s: rc %d, want -1", c->name, rc);
        if (strcmp(e.msg, c->want))
            fail_msg("case %s:\n got: %s\nwant: %s", c->name, e.msg, c->want);
    }
    arena_destroy(&a);
}

/* A NUL byte inside the given length is an error, not an early end. */
static void embedded_nul_should_be_a_syntax_error(void **state)
{
    static const char json[] = "{\"kind\":\"Pod\"}\0{\"x\":1}";
    struct arena a;
    struct err e;

    (void)state;
    arena_init(&a, 0);
    assert_int_equal(run_entry(&a, DOC, json, sizeof(json) - 1, &e), -1);
    assert_string_equal(
        e.msg, "JSON syntax error: NUL byte at byte offset 14 (line 1, "
               "column 15)");
    arena_destroy(&a);
}

/* Builds "<open>^depth <middle> <close>^depth" into a malloc'd buffer. */
static char *nested(const char *open, const char *middle, const char *close,
                    size_t depth, const char *head, const char *tail)
{
    size_t lo = strlen(open), lc = strlen(close), i, o = 0;
    char *s = malloc(strlen(head) + depth * (lo + lc) + strlen(middle) +
                     strlen(tail) + 1);

    assert_non_null(s);
    o += (size_t)sprintf(s, "%s", head);
    for (i = 0; i < depth; i++, o += lo)
        memcpy(s + o, open, lo);
    o += (size_t)sprintf(s + o, "%s", middle);
    for (i = 0; i < depth; i++, o += lc)
        memcpy(s + o, close, lc);
    sprintf(s + o, "%s", tail);
    return s;
}

static void deep_nesting_should_be_refused_before_parsing(void **state)
{
    static const struct {
        const char *name;
        const char *open, *middle, *close, *head, *tail;
        size_t depth;
        const char *want; /* NULL: parses (an unknown kind, skipped) */
    } cases[] = {
        { "10000 arrays", "[", "", "]", "", "", 10000,
          "document nested deeper than 256 levels at byte offset 256 (line "
          "1, column 257)" },
        { "10000 objects", "{\"a\":", "1", "}", "", "", 10000,
          "document nested deeper than 256 levels at byte offset 1280 (line "
          "1, column 1281)" },
        { "exactly the limit", "[", "", "]", "{\"kind\":\"X\",\"a\":", "}", 255,
          NULL },
        { "one past the limit", "[", "", "]", "{\"kind\":\"X\",\"a\":", "}",
          256,
          "document nested deeper than 256 levels at byte offset 271 (line "
          "1, column 272)" },
        { "brackets inside strings do not count", "[", "\\\"{", "",
          "{\"kind\":\"X\",\"a\":\"", "\"}", 300, NULL },
    };
    struct arena a;
    struct err e;
    size_t i;

    (void)state;
    arena_init(&a, 0);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *json = nested(cases[i].open, cases[i].middle, cases[i].close,
                            cases[i].depth, cases[i].head, cases[i].tail);
        int rc = run_entry(&a, DOC, json, strlen(json), &e);

        free(json);
        if (cases[i].want && (rc != -1 || strcmp(e.msg, cases[i].want)))
            fail_msg("case %s: rc %d\n got: %s\nwant: %s", cases[i].name, rc,
                     e.msg, cases[i].want);
        if (!cases[i].want && rc != 0)
            fail_msg("case %s: %s", cases[i].name, e.msg);
    }
    arena_destroy(&a);
}

/*
 * Every prefix of a real document that stops before its closing brace is
 * invalid JSON: each must fail with a syntax error at an offset inside the
 * prefix (or "empty document"), never crash, never succeed.
 */
static void check_prefixes(const char *path, enum entry entry, size_t step)
{
    struct arena a;
    struct err e;
    size_t len, cut, last;
    char *json = tparse_read_file(path, &len);

    for (last = len; last > 0 && json[last - 1] != '}'; last--)
        ;
    assert_true(last > 0);
    arena_init(&a, 0);
    for (cut = 0; cut < last; cut += step) {
        char *prefix = malloc(cut ? cut : 1); /* exact size: ASan checks */
        unsigned long off = 0;
        int rc;

        assert_non_null(prefix);
        memcpy(prefix, json, cut);
        rc = run_entry(&a, entry, prefix, cut, &e);
        free(prefix);
        if (rc != -1)
            fail_msg("%s cut at %zu: rc %d", path, cut, rc);
        if (!strcmp(e.msg, "empty document") && cut == 0)
            continue;
        if ((sscanf(e.msg, "invalid JSON at byte %lu", &off) != 1 &&
             sscanf(e.msg, "unexpected end of input at byte %lu", &off) != 1) ||
            off > cut)
            fail_msg("%s cut at %zu: %s", path, cut, e.msg);
        if (cut > 200000)
            break;
    }
    arena_destroy(&a);
    free(json);
}

static void every_truncation_of_a_pod_should_fail_cleanly(void **state)
{
    (void)state;
    check_prefixes("tests/data/pod_full.json", POD, 1);
    check_prefixes("deploy/demo/pods/web.json", DOC, 1);
}

static void truncations_of_the_demo_cluster_should_fail_cleanly(void **state)
{
    (void)state;
    check_prefixes("deploy/demo/cluster.json", DOC, 97);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_inputs_should_fail_with_path_and_value),
        cmocka_unit_test(embedded_nul_should_be_a_syntax_error),
        cmocka_unit_test(deep_nesting_should_be_refused_before_parsing),
        cmocka_unit_test(every_truncation_of_a_pod_should_fail_cleanly),
        cmocka_unit_test(truncations_of_the_demo_cluster_should_fail_cleanly),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
