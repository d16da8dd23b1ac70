/*
 * test_parse_pod.c: v1.Pod JSON into struct kube_pod: every field of a
 * realistic `kubectl get pod -o json` document, the API defaults of a bare
 * pod, nil vs empty selectors, quantities, and decoding from cJSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/parse/parse.h"
#include "tests/support/parse_fixtures.h"

struct fixture {
    struct arena a;
    struct err e;
    struct kube_pod p;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));

    if (!f)
        return -1;
    arena_init(&f->a, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    arena_destroy(&f->a);
    free(f);
    return 0;
}

static void parse_file(struct fixture *f, const char *path)
{
    size_t len;
    char *json = tparse_read_file(path, &len);
    int rc = kube_parse_pod(&f->a, json, len, &f->p, &f->e);

    free(json);
    if (rc != 0)
        fail_msg("%s: %s", path, f->e.msg);
}

static int parse_text(struct fixture *f, const char *json)
{
    return kube_parse_pod(&f->a, json, strlen(json), &f->p, &f->e);
}

static void pod_should_read_metadata(void **state)
{
    struct fixture *f = *state;
    const struct kube_pod *p = &f->p;

    parse_file(f, "tests/data/pod_full.json");
    assert_string_equal(p->name, "web-7d9c6b5f4-x2k8p");
    assert_string_equal(p->namespace, "shop");
    assert_string_equal(p->uid, "5b8f3c2e-1d4a-4f6b-8c7d-9e0a1b2c3d4e");
    assert_string_equal(p->resource_version, "918273");
    assert_int_equal(p->creation_timestamp, 1709634030);
    assert_true(p->deleting);
    assert_true(p->labels.present);
    assert_int_equal(p->labels.n, 3);
    /* normalised: sorted by key */
    assert_string_equal(p->labels.items[0].key, "app");
    assert_string_equal(p->labels.items[1].key, "pod-template-hash");
    assert_string_equal(p->labels.items[2].key, "tier");
    assert_string_equal(tparse_label(&p->labels, "tier"), "frontend");
    assert_int_equal(p->annotations.n, 2);
    assert_string_equal(tparse_label(&p->annotations, "prometheus.io/scrape"),
                        "true");
    assert_int_equal(p->n_owner_refs, 1);
    assert_string_equal(p->owner_refs[0].api_version, "apps/v1");
    assert_string_equal(p->owner_refs[0].kind, "ReplicaSet");
    assert_string_equal(p->owner_refs[0].name, "web-7d9c6b5f4");
    assert_string_equal(p->owner_refs[0].uid,
                        "0c5e1f0e-7a55-4b0e-9f57-2b1f5d0d8a11");
    assert_true(p->owner_refs[0].controller);
}

static void pod_should_read_scheduling_fields(void **state)
{
    struct fixture *f = *state;
    const struct kube_pod *p = &f->p;

    parse_file(f, "tests/data/pod_full.json");
    assert_string_equal(p->node_name, "rdma-1");
    assert_string_equal(p->scheduler_name, "my-scheduler");
    assert_true(p->has_priority);
    assert_int_equal(p->priority, 1000);
    assert_true(p->node_selector.present);
    assert_int_equal(p->node_selector.n, 2);
    assert_string_equal(p->node_selector.items[0].key, "disktype");
    assert_string_equal(p->node_selector.items[1].value, "linux");
    assert_int_equal(p->n_tolerations, 3);
    assert_string_equal(p->tolerations[0].key, "node.kubernetes.io/not-ready");
    assert_string_equal(p->tolerations[0].op, "Exists");
    assert_string_equal(p->tolerations[0].value, "");
    assert_string_equal(p->tolerations[0].effect, "NoExecute");
    assert_string_equal(p->tolerations[1].value, "present");
    assert_string_equal(p->tolerations[1].op, "Equal");
    assert_string_equal(p->tolerations[2].key, "");
    assert_string_equal(p->tolerations[2].effect, "");
    assert_int_equal(p->n_spread_constraints, 2);
    assert_int_equal(p->spread_constraints[0].max_skew, 1);
    assert_string_equal(p->spread_constraints[0].topology_key,
                        "topology.kubernetes.io/zone");
    assert_string_equal(p->spread_constraints[0].when_unsatisfiable,
                        "DoNotSchedule");
    assert_non_null(p->spread_constraints[0].selector);
    assert_int_equal(p->spread_constraints[0].selector->n_reqs, 1);
    assert_int_equal(p->spread_constraints[1].max_skew, 3);
    assert_string_equal(p->spread_constraints[1].when_unsatisfiable,
                        "ScheduleAnyway");
    assert_null(p->spread_constraints[1].selector);
    assert_string_equal(p->phase, "Running");
    assert_string_equal(p->nominated_node_name, "rdma-2");
    assert_int_equal(p->n_conditions, 2);
    assert_string_equal(p->conditions[0].type, "PodScheduled");
    assert_null(p->conditions[0].reason);
    assert_string_equal(p->conditions[1].status, "False");
    assert_string_equal(p->conditions[1].reason, "ContainersNotReady");
}

static void pod_should_read_node_affinity(void **state)
{
    struct fixture *f = *state;
    const struct kube_affinity *af = &f->p.affinity;
    const struct kube_node_selector_term *t;

    parse_file(f, "tests/data/pod_full.json");
    assert_non_null(af->node_required);
    assert_int_equal(af->node_required->n_terms, 2);
    t = &af->node_required->terms[0];
    assert_null(t->invalid);
    assert_int_equal(t->n_exprs, 2);
    assert_string_equal(t->exprs[0].key, "kubernetes.io/os");
    assert_int_equal(t->exprs[0].op, KUBE_OP_IN);
    assert_int_equal(t->exprs[0].n_values, 1);
    assert_string_equal(t->exprs[0].values[0], "linux");
    assert_int_equal(t->exprs[1].op, KUBE_OP_GT);
    assert_int_equal(t->exprs[1].int_value, 3);
    assert_int_equal(t->n_fields, 1);
    assert_string_equal(t->fields[0].key, "metadata.name");
    assert_int_equal(t->fields[0].op, KUBE_OP_NOT_IN);
    assert_string_equal(t->fields[0].values[0], "cordoned-1");
    t = &af->node_required->terms[1];
    assert_non_null(t->invalid);
    assert_string_equal(t->invalid,
                        "\"Foo\" is not a valid node selector operator");
    assert_int_equal(af->n_node_preferred, 1);
    assert_int_equal(af->node_preferred[0].weight, 40);
    assert_int_equal(af->node_preferred[0].term.n_exprs, 1);
    assert_string_equal(af->node_preferred[0].term.exprs[0].key,
                        "node.kubernetes.io/rdma-enabled");
}

static void pod_should_read_pod_affinity_terms(void **state)
{
    struct fixture *f = *state;
    const struct kube_affinity *af = &f->p.affinity;
    const struct kube_pod_affinity_term *t;

    parse_file(f, "tests/data/pod_full.json");
    assert_int_equal(af->pod_affinity.n_required, 1);
    assert_int_equal(af->pod_affinity.n_preferred, 0);
    t = &af->pod_affinity.required[0];
    assert_non_null(t->selector);
    assert_null(t->selector->invalid);
    assert_int_equal(t->selector->n_reqs, 2);
    /* matchLabels first, as In requirements, then matchExpressions */
    assert_string_equal(t->selector->reqs[0].key, "tier");
    assert_int_equal(t->selector->reqs[0].op, KUBE_OP_IN);
    assert_string_equal(t->selector->reqs[0].values[0], "backend");
    assert_string_equal(t->selector->reqs[1].key, "app");
    assert_string_equal(t->selector->reqs[1].values[0], "cache");
    assert_int_equal(t->n_namespaces, 2);
    assert_string_equal(t->namespaces[1], "infra");
    assert_null(t->namespace_selector);
    assert_string_equal(t->topology_key, "topology.kubernetes.io/zone");

    assert_int_equal(af->pod_anti_affinity.n_preferred, 1);
    assert_int_equal(af->pod_anti_affinity.preferred[0].weight, 100);
    t = &af->pod_anti_affinity.preferred[0].term;
    assert_int_equal(t->selector->n_reqs, 1);
    assert_non_null(t->namespace_selector); /* {}: all namespaces */
    assert_int_equal(t->namespace_selector->n_reqs, 0);
    assert_null(t->namespace_selector->invalid);
    assert_string_equal(t->topology_key, "kubernetes.io/hostname");
    /* Gt is not a LabelSelector operator: kept, marked invalid */
    assert_int_equal(af->pod_anti_affinity.n_required, 1);
    t = &af->pod_anti_affinity.required[0];
    assert_non_null(t->selector);
    assert_string_equal(t->selector->invalid,
                        "\"Gt\" is not a valid pod selector operator");
}

static void pod_should_read_containers_and_resources(void **state)
{
    struct fixture *f = *state;
    const struct kube_pod *p = &f->p;
    const struct kube_container *c;

    parse_file(f, "tests/data/pod_full.json");
    assert_int_equal(p->n_containers, 2);
    c = &p->containers[0];
    assert_string_equal(c->name, "nginx");
    assert_string_equal(c->image, "nginx:1.25");
    assert_int_equal(c->requests.has, KUBE_RES_CPU | KUBE_RES_MEMORY |
                                          KUBE_RES_EPHEMERAL_STORAGE);
    assert_int_equal(c->requests.milli_cpu, 250);
    assert_int_equal(c->requests.cpu_value, 1);
    assert_int_equal(c->requests.memory, 128LL << 20);
    assert_int_equal(c->requests.ephemeral_storage, 1LL << 30);
    assert_int_equal(c->requests.n_scalars, 2);
    assert_string_equal(c->requests.scalars[0].name, "example.com/gpu");
    assert_int_equal(c->requests.scalars[0].value, 2);
    assert_string_equal(c->requests.scalars[1].name, "hugepages-2Mi");
    assert_int_equal(c->requests.scalars[1].value, 4LL << 20);
    assert_int_equal(c->limits.has, KUBE_RES_CPU | KUBE_RES_MEMORY);
    assert_int_equal(c->limits.milli_cpu, 1000);
    assert_int_equal(c->limits.memory, 512LL << 20);
    assert_int_equal(c->n_ports, 3);
    assert_int_equal(c->ports[0].container_port, 80);
    assert_int_equal(c->ports[0].host_port, 8080);
    assert_string_equal(c->ports[0].protocol, "TCP");
    assert_string_equal(c->ports[0].host_ip, "");
    assert_string_equal(c->ports[1].protocol, "UDP");
    assert_string_equal(c->ports[1].host_ip, "10.0.0.5");
    assert_int_equal(c->ports[2].host_port, 0);
    assert_string_equal(c->ports[2].protocol, "TCP");
    c = &p->containers[1];
    assert_int_equal(c->requests.has, 0);
    assert_int_equal(c->requests.n_scalars, 0);
    assert_int_equal(c->n_ports, 0);
    assert_int_equal(p->n_init_containers, 1);
    c = &p->init_containers[0];
    assert_int_equal(c->requests.milli_cpu, 1500);
    assert_int_equal(c->requests.cpu_value, 2);
    assert_int_equal(c->requests.memory, 1000000000);
    assert_true(p->has_overhead);
    assert_int_equal(p->overhead.milli_cpu, 120);
    assert_int_equal(p->overhead.memory, 64LL << 20);
}

static void pod_should_read_every_volume_kind(void **state)
{
    struct fixture *f = *state;
    const struct kube_volume *v;

    parse_file(f, "tests/data/pod_full.json");
    assert_int_equal(f->p.n_volumes, 10);
    v = f->p.volumes;
    assert_int_equal(v[0].kind, KUBE_VOL_PVC);
    assert_string_equal(v[0].name, "data");
    assert_string_equal(v[0].id, "web-data");
    assert_true(v[0].read_only);
    assert_int_equal(v[1].kind, KUBE_VOL_EPHEMERAL);
    assert_string_equal(v[1].id, "web-7d9c6b5f4-x2k8p-scratch");
    assert_int_equal(v[2].kind, KUBE_VOL_GCE_PD);
    assert_string_equal(v[2].id, "pd-1");
    assert_string_equal(v[2].fs_type, "ext4");
    assert_false(v[2].read_only);
    assert_int_equal(v[3].kind, KUBE_VOL_AWS_EBS);
    assert_string_equal(v[3].id, "vol-0abc");
    assert_int_equal(v[3].ebs_partition, 2);
    assert_int_equal(v[4].kind, KUBE_VOL_AZURE_DISK);
    assert_string_equal(v[4].id, "az-1");
    assert_int_equal(v[5].kind, KUBE_VOL_CINDER);
    assert_string_equal(v[5].id, "cinder-1");
    assert_int_equal(v[6].kind, KUBE_VOL_ISCSI);
    assert_string_equal(v[6].id, "iqn.2001-04.com.example:storage");
    assert_string_equal(v[6].iscsi_target_portal, "10.0.2.15:3260");
    assert_int_equal(v[6].iscsi_lun, 3);
    assert_int_equal(v[7].kind, KUBE_VOL_RBD);
    assert_string_equal(v[7].id, "foo");
    assert_string_equal(v[7].rbd_pool, "rbd"); /* API default */
    assert_int_equal(v[7].n_rbd_monitors, 2);
    assert_string_equal(v[7].rbd_monitors[1], "10.16.154.82:6789");
    assert_int_equal(v[8].kind, KUBE_VOL_CSI);
    assert_string_equal(v[8].id, "ebs.csi.aws.com");
    assert_true(v[8].read_only);
    assert_int_equal(v[9].kind, KUBE_VOL_OTHER);
    assert_string_equal(v[9].name, "kube-api-access-abcde");
    assert_string_equal(v[9].id, "");
}

static void pod_should_apply_api_defaults_when_fields_are_absent(void **state)
{
    struct fixture *f = *state;
    const struct kube_pod *p = &f->p;

    parse_file(f, "tests/data/pod_minimal.json");
    assert_string_equal(p->name, "bare");
    assert_string_equal(p->namespace, "default");
    assert_null(p->uid);
    assert_null(p->resource_version);
    assert_int_equal(p->creation_timestamp, 0);
    assert_false(p->deleting);
    assert_false(p->labels.present);
    assert_int_equal(p->labels.n, 0);
    assert_false(p->annotations.present);
    assert_int_equal(p->n_owner_refs, 0);
    assert_string_equal(p->node_name, "");
    assert_string_equal(p->scheduler_name, "default-scheduler");
    assert_false(p->has_priority);
    assert_false(p->node_selector.present);
    assert_null(p->affinity.node_required);
    assert_int_equal(p->affinity.n_node_preferred, 0);
    assert_int_equal(p->affinity.pod_affinity.n_required, 0);
    assert_int_equal(p->affinity.pod_anti_affinity.n_preferred, 0);
    assert_int_equal(p->n_tolerations, 0);
    assert_int_equal(p->n_containers, 1);
    assert_int_equal(p->n_init_containers, 0);
    assert_false(p->has_overhead);
    assert_int_equal(p->n_volumes, 0);
    assert_int_equal(p->n_spread_constraints, 0);
    assert_string_equal(p->phase, "");
    assert_null(p->nominated_node_name);
    assert_int_equal(p->n_conditions, 0);
}

/* A JSON null where an object or array is allowed means "absent". */
static void pod_should_treat_null_as_absent(void **state)
{
    struct fixture *f = *state;
    const struct kube_pod *p = &f->p;

    assert_int_equal(
        parse_text(f, "{\"metadata\":{\"name\":\"n\",\"labels\":null,"
                      "\"namespace\":null},\"spec\":{\"nodeSelector\":null,"
                      "\"affinity\":null,\"tolerations\":null,\"overhead\":"
                      "null,\"containers\":[{\"name\":\"c\",\"resources\":"
                      "{\"requests\":null},\"ports\":null}],\"priority\":"
                      "null},\"status\":null}"),
        0);
    assert_false(p->labels.present);
    assert_string_equal(p->namespace, "default");
    assert_false(p->node_selector.present);
    assert_null(p->affinity.node_required);
    assert_false(p->has_overhead);
    assert_false(p->has_priority);
    assert_int_equal(p->containers[0].requests.has, 0);
    assert_int_equal(p->containers[0].n_ports, 0);
}

/* metav1.LabelSelector: nil (absent or null) vs {} (matches everything). */
static void pod_should_keep_nil_and_empty_selectors_apart(void **state)
{
    static const struct {
        const char *name;
        const char *selector; /* JSON of labelSelector, NULL: key absent */
        bool want_nil;
        size_t want_reqs;
    } cases[] = {
        { "absent", NULL, true, 0 },
        { "null", "null", true, 0 },
        { "empty object", "{}", false, 0 },
        { "empty parts", "{\"matchLabels\":{},\"matchExpressions\":[]}", false,
          0 },
        { "labels and expressions",
          "{\"matchLabels\":{\"b\":\"1\",\"a\":\"2\"},\"matchExpressions\":"
          "[{\"key\":\"c\",\"operator\":\"Exists\"}]}",
          false, 3 },
    };
    struct fixture *f = *state;
    char json[512];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct kube_label_selector *s;

        if (cases[i].selector)
            snprintf(json, sizeof(json),
                     "{\"metadata\":{\"name\":\"p\"},\"spec\":{"
                     "\"topologySpreadConstraints\":[{\"maxSkew\":1,"
                     "\"topologyKey\":\"k\",\"whenUnsatisfiable\":"
                     "\"DoNotSchedule\",\"labelSelector\":%s}]}}",
                     cases[i].selector);
        else
            snprintf(json, sizeof(json),
                     "{\"metadata\":{\"name\":\"p\"},\"spec\":{"
                     "\"topologySpreadConstraints\":[{\"maxSkew\":1,"
                     "\"topologyKey\":\"k\",\"whenUnsatisfiable\":"
                     "\"DoNotSchedule\"}]}}");
        if (parse_text(f, json) != 0)
            fail_msg("case %s: %s", cases[i].name, f->e.msg);
        s = f->p.spread_constraints[0].selector;
        if (cases[i].want_nil != (s == NULL))
            fail_msg("case %s: want nil %d", cases[i].name, cases[i].want_nil);
        if (s && s->n_reqs != cases[i].want_reqs)
            fail_msg("case %s: %zu requirements, want %zu", cases[i].name,
                     s->n_reqs, cases[i].want_reqs);
        if (s && s->invalid)
            fail_msg("case %s: invalid: %s", cases[i].name, s->invalid);
    }
}

/* Quantity forms as the API prints them and as JSON numbers. */
static void pod_should_convert_quantities_by_resource(void **state)
{
    static const struct {
        const char *name;
        const char *cpu; /* JSON value text */
        long long milli, value;
    } cases[] = {
        { "millicores", "\"100m\"", 100, 1 },
        { "fraction rounds value up", "\"1.5\"", 1500, 2 },
        { "whole cores", "\"2\"", 2000, 2 },
        { "zero", "\"0\"", 0, 0 },
        { "json integer", "3", 3000, 3 },
        { "json fraction", "0.25", 250, 1 },
    };
    struct fixture *f = *state;
    char json[512];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct kube_resources *r;

        snprintf(json, sizeof(json),
                 "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":"
                 "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":%s,"
                 "\"memory\":\"1Ki\",\"pods\":\"7\",\"foo\":\"5\"}}}]}}",
                 cases[i].cpu);
        if (parse_text(f, json) != 0)
            fail_msg("case %s: %s", cases[i].name, f->e.msg);
        r = &f->p.containers[0].requests;
        if (r->milli_cpu != cases[i].milli || r->cpu_value != cases[i].value)
            fail_msg("case %s: milli %lld value %lld, want %lld %lld",
                     cases[i].name, (long long)r->milli_cpu,
                     (long long)r->cpu_value, cases[i].milli, cases[i].value);
        assert_int_equal(r->has,
                         KUBE_RES_CPU | KUBE_RES_MEMORY | KUBE_RES_PODS);
        assert_int_equal(r->memory, 1024);
        assert_int_equal(r->pods, 7);
        assert_int_equal(tparse_scalar(r, "foo"), 5);
    }
}

static void pod_should_refuse_another_kind(void **state)
{
    struct fixture *f = *state;

    assert_int_equal(parse_text(f, "{\"kind\":\"Node\",\"metadata\":{"
                                   "\"name\":\"n\"}}"),
                     -1);
    assert_string_equal(f->e.msg, "kind: expected \"Pod\", got \"Node\"");
}

/* ExtenderArgs.Pod arrives without kind, inside a larger document. */
static void pod_from_cjson_should_prefix_paths(void **state)
{
    struct fixture *f = *state;
    cJSON *root = cJSON_Parse(
        "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},"
        "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{"
        "\"requests\":{\"cpu\":\"1.5.3\"}}}]}},"
        "\"Good\":{\"metadata\":{\"name\":\"g\"},\"spec\":{\"nodeName\":"
        "\"n1\"}}}");

    assert_non_null(root);
    assert_int_equal(kube_pod_from_cjson(&f->a,
                                         cJSON_GetObjectItem(root, "Pod"),
                                         "Pod", &f->p, &f->e),
                     -1);
    assert_string_equal(f->e.msg, "Pod.spec.containers[0].resources.requests."
                                  "cpu: invalid quantity \"1.5.3\"");
    assert_int_equal(kube_pod_from_cjson(&f->a,
                                         cJSON_GetObjectItem(root, "Good"),
                                         NULL, &f->p, &f->e),
                     0);
    assert_string_equal(f->p.name, "g");
    assert_string_equal(f->p.node_name, "n1");
    assert_int_equal(kube_pod_from_cjson(&f->a, NULL, "Pod", &f->p, &f->e), -1);
    assert_string_equal(f->e.msg, "Pod: expected an object, got null");
    cJSON_Delete(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(pod_should_read_metadata, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(pod_should_read_scheduling_fields,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(pod_should_read_node_affinity, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(pod_should_read_pod_affinity_terms,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            pod_should_read_containers_and_resources, setup, teardown),
        cmocka_unit_test_setup_teardown(pod_should_read_every_volume_kind,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            pod_should_apply_api_defaults_when_fields_are_absent, setup,
            teardown),
        cmocka_unit_test_setup_teardown(pod_should_treat_null_as_absent, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            pod_should_keep_nil_and_empty_selectors_apart, setup, teardown),
        cmocka_unit_test_setup_teardown(
            pod_should_convert_quantities_by_resource, setup, teardown),
        cmocka_unit_test_setup_teardown(pod_should_refuse_another_kind, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(pod_from_cjson_should_prefix_paths,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
