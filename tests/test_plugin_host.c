/*
 * test_plugin_host.c: the server side of the plugin ABI without dlopen
 * (tests/cli/test_plugins.sh loads real shared objects): descriptors
 * written against include/kube-policy-extender/plugin.h, registered through
 * engine/plugin_host.c, named in a Policy with an argument, and run through
 * the registries exactly as the engine runs built-ins; refusals leave the
 * registries as they were. Runs under ASan/UBSan with the other suites.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>

#include "engine/plugin_host.h"
#include "engine/plugin_load.h"
#include "policy/policy.h"
#include "tests/support/pred_fixtures.h"

static struct kpe_plugin_host host;

/* A plugin's argument: pods labelled `label` fit only nodes in `zones`. */
struct zone_arg {
    const char *label;
    struct kpe_strings zones;
    int64_t min_cpu; /* allocatable millicores a node needs */
};

static const struct kpe_plugin_arg_field zone_fields[] = {
    { "label", KPE_PLUGIN_ARG_STRING, offsetof(struct zone_arg, label),
      "zoned" },
    { "zones", KPE_PLUGIN_ARG_STRINGS, offsetof(struct zone_arg, zones), "[]" },
    { "minCpu", KPE_PLUGIN_ARG_INT64, offsetof(struct zone_arg, min_cpu), "0" },
};

static const struct kpe_plugin_args zone_args = {
    "testZones", sizeof(struct zone_arg), zone_fields, 3, "test",
};

#define ZONE_REASON "node(s) are outside the pod's zones"
#define CPU_REASON  "node(s) have too little cpu"

static int zone_filter(const void *arg, const struct kpe_pod *pod,
                       const struct kpe_node *node, const char **reason)
{
    const struct zone_arg *a = arg;
    const char *zone;
    size_t i;

    if (a && host.node_allocatable(node, "cpu") < a->min_cpu) {
        *reason = CPU_REASON;
        return KPE_UNFIT_UNRESOLVABLE;
    }
    if (!host.pod_label(pod, a && a->label ? a->label : "zoned"))
        return KPE_FIT;
    zone = host.node_label(node, "zone");
    for (i = 0; zone && a && i < a->zones.n; i++) {
        if (!strcmp(a->zones.v[i], zone))
            return KPE_FIT;
    }
    return KPE_UNFIT; /* reason left NULL: the first one */
}

static const struct kpe_predicate zone_pred = {
    sizeof(struct kpe_predicate),
    "TestZones",
    0,
    "test: zoned pods fit their zones",
    (const char *const[]){ ZONE_REASON, CPU_REASON, NULL },
    zone_filter,
    &zone_args,
};

/* Raw score: free cpu after the pod, normalized to 0..100. */
static int free_cpu(const void *arg, const struct kpe_pod *pod,
                    const struct kpe_node *node, int64_t *score)
{
    (void)arg;
    *score = host.node_allocatable(node, "cpu") -
             host.node_requested(node, "cpu") - host.pod_request(pod, "cpu");
    if (*score < 0)
        *score = 0;
    return strcmp(host.pod_namespace(pod), "fail") ? 0 : -1;
}

static const struct kpe_priority free_prio = {
    sizeof(struct kpe_priority),
    "TestFreeCpu",
    KPE_USES_NODE_REQUESTED | KPE_SCORE_NORMALIZE,
    "test: free cpu",
    free_cpu,
    NULL,
};

#define NODE(name, zone, cpu)                                                  \
    "{\"kind\":\"Node\",\"metadata\":{\"name\":\"" name                        \
    "\",\"labels\":{\"zone\":\"" zone                                          \
    "\"}},\"status\":{\"allocatable\":{\"cpu\":\"" cpu "\"}}}"

static void register_all(void)
{
    struct err e;

    plugin_host_truncate(0, 0); /* what a failed test left */
    plugin_host_fill(&host);
    if (plugin_host_add_predicate(&zone_pred, &e) < 0)
        fail_msg("%s", e.msg);
    if (plugin_host_add_priority(&free_prio, &e) < 0)
        fail_msg("%s", e.msg);
}

static void plugin_predicate_should_run_with_its_argument(void **state)
{
    static const char policy[] =
        "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":"
        "\"TestZones\",\"argument\":{\"testZones\":{\"zones\":[\"a\",\"b\"],"
        "\"minCpu\":1000}}}],\"priorities\":[]}";
    struct policy *p = NULL;
    struct err e;
    struct arena a;
    struct fx_cluster fc;
    struct pred_result r;
    const struct pred_def *d;
    const struct kube_pod *zoned, *plain;

    (void)state;
    register_all();
    d = pred_lookup("TestZones");
    assert_non_null(d);
    assert_true(d->flags & PRED_PLUGIN);
    assert_true(d->flags & PRED_EXTENSION);
    if (policy_load_buffer("t.json", policy, strlen(policy), NULL, &p, &e))
        fail_msg("%s", e.msg);
    assert_string_equal(p->preds[p->n_preds - 1].def->name, "TestZones");
    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    fx_cluster_add(&fc, NODE("n-a", "a", "2"));
    fx_cluster_add(&fc, NODE("n-c", "c", "2"));
    fx_cluster_add(&fc, NODE("small", "a", "500m"));
    fx_cluster_build(&fc);
    zoned = fx_pod(&a, "{\"metadata\":{\"name\":\"z\",\"labels\":"
                       "{\"zoned\":\"\"}}}");
    plain = fx_pod(&a, "{\"metadata\":{\"name\":\"p\"}}");
    assert_int_equal(fx_run_filter("TestZones", &p->preds[p->n_preds - 1].args,
                                   p, zoned, &fc.c, "n-a", &a, &r),
                     PRED_FIT);
    assert_int_equal(fx_run_filter("TestZones", &p->preds[p->n_preds - 1].args,
                                   p, zoned, &fc.c, "n-c", &a, &r),
                     PRED_UNFIT);
    assert_string_equal(fx_reasons(&a, &r), ZONE_REASON);
    assert_int_equal(fx_run_filter("TestZones", &p->preds[p->n_preds - 1].args,
                                   p, plain, &fc.c, "n-c", &a, &r),
                     PRED_FIT);
    assert_int_equal(fx_run_filter("TestZones", &p->preds[p->n_preds - 1].args,
                                   p, plain, &fc.c, "small", &a, &r),
                     PRED_UNFIT_UNRESOLVABLE);
    assert_string_equal(fx_reasons(&a, &r), CPU_REASON);
    fx_cluster_free(&fc);
    arena_destroy(&a);
    policy_free(p);
    plugin_host_truncate(0, 0);
    assert_null(pred_lookup("TestZones"));
}

static void plugin_priority_should_normalize_free_cpu(void **state)
{
    static const char *const nodes[] = { "big", "half", "full" };
    struct arena a;
    struct fx_cluster fc;
    struct err e;
    int64_t scores[3];
    const struct kube_pod *pod;

    (void)state;
    register_all();
    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    fx_cluster_add(&fc, NODE("big", "a", "4"));
    fx_cluster_add(&fc, NODE("half", "a", "2"));
    fx_cluster_add(&fc, NODE("full", "a", "1"));
    fx_cluster_build(&fc);
    pod = fx_pod(&a, "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":"
                     "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"
                     "\"1\"}}}]}}");
    if (fx_run_score("TestFreeCpu", NULL, pod, &fc.c, nodes, 3, &a, scores,
                     &e) < 0)
        fail_msg("%s", e.msg);
    assert_int_equal(scores[0], 100); /* 3 cores free */
    assert_int_equal(scores[1], 33);  /* 1 of 3 */
    assert_int_equal(scores[2], 0);
    pod = fx_pod(&a, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"fail\"}}");
    assert_int_equal(
        fx_run_score("TestFreeCpu", NULL, pod, &fc.c, nodes, 3, &a, scores, &e),
        -1);
    assert_string_equal(e.msg,
                        "plugin priority TestFreeCpu failed on node big");
    fx_cluster_free(&fc);
    arena_destroy(&a);
    plugin_host_truncate(0, 0);
}

static const char *const one_reason[] = { "r", NULL };
static const char *const no_reasons[] = { NULL };

static void refused_descriptors_should_leave_the_registry_alone(void **state)
{
    static const struct kpe_predicate builtin = {
        sizeof(struct kpe_predicate),
        "HighCommPodFilter",
        0,
        "x",
        one_reason,
        zone_filter,
        NULL,
    };
    static const struct kpe_predicate bad_name = {
        sizeof(struct kpe_predicate),
        "no spaces",
        0,
        "x",
        one_reason,
        zone_filter,
        NULL,
    };
    static const struct kpe_predicate no_reason = {
        sizeof(struct kpe_predicate),
        "NoReason",
        0,
        "x",
        no_reasons,
        zone_filter,
        NULL,
    };
    static const struct kpe_plugin_args taken = {
        "testZones", sizeof(struct zone_arg), zone_fields, 3, "again",
    };
    static const struct kpe_predicate same_key = {
        sizeof(struct kpe_predicate),
        "SameKey",
        0,
        "x",
        one_reason,
        zone_filter,
        &taken,
    };
    size_t n_before, n;
    struct err e;

    (void)state;
    pred_registry(&n_before);
    register_all();
    assert_int_equal(plugin_host_add_predicate(&builtin, &e), -1);
    assert_string_equal(
        e.msg, "predicate \"HighCommPodFilter\" clashes with a built-in "
               "predicate");
    assert_int_equal(plugin_host_add_predicate(&zone_pred, &e), -1);
    assert_string_equal(
        e.msg, "predicate \"TestZones\" is already registered by a plugin");
    assert_int_equal(plugin_host_add_predicate(&bad_name, &e), -1);
    assert_string_equal(e.msg, "predicate name \"no spaces\" is not "
                               "[A-Za-z0-9_-]{1,63}");
    assert_int_equal(plugin_host_add_predicate(&no_reason, &e), -1);
    assert_int_equal(plugin_host_add_predicate(&same_key, &e), -1);
    assert_string_equal(e.msg, "predicate \"SameKey\": argument key "
                               "\"testZones\" is already taken by a built-in "
                               "or another plugin");
    pred_registry(&n);
    assert_int_equal(n, n_before + 1);
    plugin_host_truncate(0, 0);
    pred_registry(&n);
    assert_int_equal(n, n_before);
    assert_int_equal(engine_plugin_load("/nonexistent/x.so", &e), -1);
    assert_string_equal(e.msg, "/nonexistent/x.so: cannot open: No such file "
                               "or directory");
}

/* A plugin argument with a default of each type; the filter records what
 * it was handed. */
struct dflt_arg {
    const char *label;
    int64_t limit;
    bool strict;
};

static const struct kpe_plugin_arg_field dflt_fields[] = {
    { "label", KPE_PLUGIN_ARG_STRING, offsetof(struct dflt_arg, label),
      "zone" },
    { "limit", KPE_PLUGIN_ARG_INT64, offsetof(struct dflt_arg, limit), "5" },
    { "strict", KPE_PLUGIN_ARG_BOOL, offsetof(struct dflt_arg, strict),
      "true" },
};

static const struct kpe_plugin_args dflt_args = {
    "testDefaults", sizeof(struct dflt_arg), dflt_fields, 3, "test",
};

static struct dflt_arg seen;
static bool seen_null;

static int dflt_filter(const void *arg, const struct kpe_pod *pod,
                       const struct kpe_node *node, const char **reason)
{
    (void)pod;
    (void)node;
    (void)reason;
    seen_null = !arg;
    if (arg)
        seen = *(const struct dflt_arg *)arg;
    return KPE_FIT;
}

static const struct kpe_predicate dflt_pred = {
    sizeof(struct kpe_predicate),
    "TestDefaults",
    0,
    "test: defaults",
    (const char *const[]){ "r", NULL },
    dflt_filter,
    &dflt_args,
};

/* Load policy, run TestDefaults on one node, and return check's line. */
static const char *run_defaults(const char *policy, const char *name,
                                struct arena *a)
{
    struct policy *p = NULL;
    struct fx_cluster fc;
    struct pred_result r;
    struct err e;
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    const char *args;

    if (policy_load_buffer(name, policy, strlen(policy), NULL, &p, &e))
        fail_msg("%s", e.msg);
    fx_cluster_init(&fc, a);
    fx_cluster_add(&fc, NODE("n", "a", "1"));
    fx_cluster_build(&fc);
    memset(&seen, 0, sizeof(seen));
    seen_null = true;
    assert_int_equal(fx_run_filter("TestDefaults",
                                   &p->preds[p->n_preds - 1].args, p,
                                   fx_pod(a, "{\"metadata\":{\"name\":\"p\"}}"),
                                   &fc.c, "n", a, &r),
                     PRED_FIT);
    f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(policy_print_check(f, p, 0), 0);
    fclose(f);
    args = strstr(text, "args: label=");
    args = args ? arena_strdup(a, strtok((char *)args, "\n")) : "";
    free(text);
    fx_cluster_free(&fc);
    policy_free(p);
    return args;
}

/*
 * The framework applies each field's default before the plugin sees its
 * argument (an entry without one, a field left out), and check prints
 * what the plugin gets; an explicit zero or false stays.
 */
static void plugin_argument_defaults_should_reach_the_filter(void **state)
{
    struct arena a;
    struct err e;
    const char *line;

    (void)state;
    register_all();
    if (plugin_host_add_predicate(&dflt_pred, &e) < 0)
        fail_msg("%s", e.msg);
    arena_init(&a, 0);
    line = run_defaults("{\"kind\":\"Policy\",\"apiVersion\":\"v1\","
                        "\"predicates\":[{\"name\":\"TestDefaults\"}],"
                        "\"priorities\":[]}",
                        "none.json", &a);
    assert_false(seen_null);
    assert_string_equal(seen.label, "zone");
    assert_int_equal(seen.limit, 5);
    assert_true(seen.strict);
    assert_string_equal(line, "args: label=zone limit=5 strict=true");
    line = run_defaults(
        "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":"
        "\"TestDefaults\",\"argument\":{\"testDefaults\":{\"limit\":0,"
        "\"label\":null}}}],\"priorities\":[]}",
        "some.json", &a);
    assert_string_equal(seen.label, "zone");
    assert_int_equal(seen.limit, 0);
    assert_true(seen.strict);
    assert_string_equal(line, "args: label=zone limit=0 strict=true");
    line = run_defaults("[predicate \"TestDefaults\"]\n"
                        "testDefaults.strict = false\n",
                        "some.ini", &a);
    assert_string_equal(seen.label, "zone");
    assert_int_equal(seen.limit, 5);
    assert_false(seen.strict);
    assert_string_equal(line, "args: label=zone limit=5 strict=false");
    arena_destroy(&a);
    plugin_host_truncate(0, 0);
}

/* A default that is no value of its field's type is refused at load. */
static void bad_argument_default_should_be_refused(void **state)
{
    static const struct kpe_plugin_arg_field fields[] = {
        { "limit", KPE_PLUGIN_ARG_INT64, 0, "five" },
    };
    static const struct kpe_plugin_args args = {
        "testBadDefault", sizeof(int64_t), fields, 1, "test",
    };
    static const struct kpe_predicate pred = {
        sizeof(struct kpe_predicate),
        "TestBadDefault",
        0,
        "x",
        one_reason,
        dflt_filter,
        &args,
    };
    struct err e;

    (void)state;
    plugin_host_truncate(0, 0);
    assert_int_equal(plugin_host_add_predicate(&pred, &e), -1);
    assert_string_equal(e.msg,
                        "predicate \"TestBadDefault\": argument field "
                        "\"limit\": default \"five\" is not a value of its "
                        "type (a bool is true or false, an int a decimal, a "
                        "list [])");
    assert_null(pred_lookup("TestBadDefault"));
}

/* A descriptor without its size (a plugin of before major.minor, or one
 * that forgot .size) is refused, naming the fix. */
static void descriptors_should_carry_their_size(void **state)
{
    static const struct kpe_predicate unsized = {
        0, "Unsized", 0, "x", one_reason, zone_filter, NULL,
    };
    static const struct kpe_priority unsized_prio = {
        0, "UnsizedPrio", 0, "x", free_cpu, NULL,
    };
    size_t n_before, n;
    struct err e;
    char want[160];

    (void)state;
    pred_registry(&n_before);
    assert_int_equal(plugin_host_add_predicate(&unsized, &e), -1);
    snprintf(want, sizeof(want),
             "a predicate descriptor with .size 0: set .size = sizeof(struct "
             "kpe_predicate) (at least %zu)",
             offsetof(struct kpe_predicate, args) + sizeof(void *));
    assert_string_equal(e.msg, want);
    assert_int_equal(plugin_host_add_priority(&unsized_prio, &e), -1);
    snprintf(want, sizeof(want),
             "a priority descriptor with .size 0: set .size = sizeof(struct "
             "kpe_priority) (at least %zu)",
             offsetof(struct kpe_priority, args) + sizeof(void *));
    assert_string_equal(e.msg, want);
    pred_registry(&n);
    assert_int_equal(n, n_before);
    assert_null(pred_lookup("Unsized"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plugin_predicate_should_run_with_its_argument),
        cmocka_unit_test(plugin_priority_should_normalize_free_cpu),
        cmocka_unit_test(refused_descriptors_should_leave_the_registry_alone),
        cmocka_unit_test(descriptors_should_carry_their_size),
        cmocka_unit_test(plugin_argument_defaults_should_reach_the_filter),
        cmocka_unit_test(bad_argument_default_should_be_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
