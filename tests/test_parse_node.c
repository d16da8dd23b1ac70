/*
 * test_parse_node.c: v1.Node JSON into struct kube_node: labels, taints,
 * unschedulable, allocatable/capacity, images, conditions, addresses, and
 * decoding from an already-parsed NodeList item.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "kube/parse/parse.h"
#include "tests/support/parse_fixtures.h"

struct fixture {
    struct arena a;
    struct err e;
    struct kube_node n;
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

static void parse_full(struct fixture *f)
{
    size_t len;
    char *json = tparse_read_file("tests/data/node_full.json", &len);
    int rc = kube_parse_node(&f->a, json, len, &f->n, &f->e);

    free(json);
    if (rc != 0)
        fail_msg("node_full.json: %s", f->e.msg);
}

static void node_should_read_metadata_and_spec(void **state)
{
    struct fixture *f = *state;
    const struct kube_node *n = &f->n;

    parse_full(f);
    assert_string_equal(n->name, "gpu-1");
    assert_string_equal(n->uid, "9d1c8a76-3a1b-4c55-a4e2-6f0e2d7b9c01");
    assert_string_equal(n->resource_version, "77120");
    assert_int_equal(n->labels.n, 6);
    assert_string_equal(tparse_label(&n->labels, "topology.kubernetes.io/zone"),
                        "eu-west-1b");
    assert_int_equal(n->annotations.n, 2);
    assert_true(n->unschedulable);
    assert_int_equal(n->n_taints, 2);
    assert_string_equal(n->taints[0].key, "nvidia.com/gpu");
    assert_string_equal(n->taints[0].value, "present");
    assert_string_equal(n->taints[0].effect, "NoSchedule");
    assert_string_equal(n->taints[1].key, "node.kubernetes.io/unreachable");
    assert_string_equal(n->taints[1].value, ""); /* absent value */
    assert_string_equal(n->taints[1].effect, "NoExecute");
}

static void node_should_read_allocatable_and_capacity(void **state)
{
    struct fixture *f = *state;
    const struct kube_resources *r = &f->n.allocatable;

    parse_full(f);
    assert_int_equal(r->has, KUBE_RES_CPU | KUBE_RES_MEMORY |
                                 KUBE_RES_EPHEMERAL_STORAGE | KUBE_RES_PODS);
    assert_int_equal(r->milli_cpu, 7800);
    assert_int_equal(r->cpu_value, 8);
    assert_int_equal(r->memory, 31LL << 30);
    assert_int_equal(r->ephemeral_storage, 95551679124LL);
    assert_int_equal(r->pods, 110);
    /* every other name is a scalar entry, in input order */
    assert_int_equal(r->n_scalars, 3);
    assert_string_equal(r->scalars[0].name, "hugepages-1Gi");
    assert_int_equal(r->scalars[0].value, 0);
    assert_string_equal(r->scalars[2].name, "nvidia.com/gpu");
    assert_int_equal(r->scalars[2].value, 4);
    r = &f->n.capacity;
    assert_int_equal(r->milli_cpu, 8000);
    assert_int_equal(r->ephemeral_storage, 103680380LL * 1024);
    assert_int_equal(tparse_scalar(r, "nvidia.com/gpu"), 4);
}

static void node_should_read_status_lists(void **state)
{
    struct fixture *f = *state;
    const struct kube_node *n = &f->n;

    parse_full(f);
    assert_int_equal(n->n_images, 2);
    assert_int_equal(n->images[0].n_names, 2);
    assert_string_equal(n->images[0].names[1],
                        "nvcr.io/nvidia/cuda:12.2.0-base");
    assert_int_equal(n->images[0].size_bytes, 4393578752LL);
    assert_int_equal(n->images[1].size_bytes, 321520);
    assert_int_equal(n->n_conditions, 2);
    assert_string_equal(n->conditions[1].type, "Ready");
    assert_string_equal(n->conditions[1].status, "True");
    assert_string_equal(n->conditions[0].status, "False");
    assert_int_equal(n->n_addresses, 2);
    assert_string_equal(n->addresses[0].type, "InternalIP");
    assert_string_equal(n->addresses[0].address, "10.0.0.14");
}

static void node_should_default_absent_fields(void **state)
{
    struct fixture *f = *state;
    const char *json = "{\"kind\":\"Node\",\"metadata\":{\"name\":\"bare\"}}";

    assert_int_equal(kube_parse_node(&f->a, json, strlen(json), &f->n, &f->e),
                     0);
    assert_string_equal(f->n.name, "bare");
    assert_null(f->n.uid);
    assert_false(f->n.labels.present);
    assert_false(f->n.unschedulable);
    assert_int_equal(f->n.n_taints, 0);
    assert_int_equal(f->n.allocatable.has, 0);
    assert_int_equal(f->n.allocatable.pods, 0);
    assert_int_equal(f->n.n_images, 0);
    assert_int_equal(f->n.n_conditions, 0);
}

/* ExtenderArgs.Nodes.items[i]: path-prefixed errors, no kind needed. */
static void node_from_cjson_should_prefix_paths(void **state)
{
    struct fixture *f = *state;
    cJSON *root = cJSON_Parse(
        "{\"items\":[{\"metadata\":{\"name\":\"ok\"},\"status\":{"
        "\"allocatable\":{\"pods\":\"3\"}}},{\"metadata\":{\"name\":\"bad\"},"
        "\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":7}]}}]}");
    cJSON *items;

    assert_non_null(root);
    items = cJSON_GetObjectItem(root, "items");
    assert_int_equal(kube_node_from_cjson(&f->a, cJSON_GetArrayItem(items, 0),
                                          "Nodes.items[0]", &f->n, &f->e),
                     0);
    assert_string_equal(f->n.name, "ok");
    assert_int_equal(f->n.allocatable.pods, 3);
    assert_int_equal(kube_node_from_cjson(&f->a, cJSON_GetArrayItem(items, 1),
                                          "Nodes.items[1]", &f->n, &f->e),
                     -1);
    assert_string_equal(f->e.msg, "Nodes.items[1].spec.taints[0].effect: "
                                  "expected a string, got number");
    cJSON_Delete(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(node_should_read_metadata_and_spec,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            node_should_read_allocatable_and_capacity, setup, teardown),
        cmocka_unit_test_setup_teardown(node_should_read_status_lists, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(node_should_default_absent_fields,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(node_from_cjson_should_prefix_paths,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
