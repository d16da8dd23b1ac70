/*
 * test_parse_objects.c: kube_parse_document over the other kinds
 * (Service, ReplicationController, ReplicaSet, StatefulSet, Namespace,
 * PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode), List and
 * <Kind>List wrappers, skipped kinds, accumulation, and the demo data.
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

struct fixture {
    struct arena a;
    struct err e;
    struct kube_objects o;
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
    int rc = kube_parse_document(&f->a, json, len, &f->o, &f->e);

    free(json);
    if (rc != 0)
        fail_msg("%s: %s", path, f->e.msg);
}

static int parse_text(struct fixture *f, const char *json)
{
    return kube_parse_document(&f->a, json, strlen(json), &f->o, &f->e);
}

static void list_should_sort_objects_by_kind_and_skip_unknown(void **state)
{
    struct fixture *f = *state;
    const struct kube_objects *o = &f->o;

    parse_file(f, "tests/data/objects_list.json");
    assert_int_equal(o->n_pods, 0);
    assert_int_equal(o->n_nodes, 0);
    assert_int_equal(o->n_services, 3);
    assert_int_equal(o->n_rcs, 1);
    assert_int_equal(o->n_replica_sets, 1);
    assert_int_equal(o->n_stateful_sets, 2);
    assert_int_equal(o->n_namespaces, 1);
    assert_int_equal(o->n_pvs, 2);
    assert_int_equal(o->n_pvcs, 2);
    assert_int_equal(o->n_storage_classes, 1);
    assert_int_equal(o->n_csi_nodes, 1);
    assert_int_equal(o->n_skipped, 1); /* the Event */
}

static void service_selectors_should_keep_nil_apart_from_empty(void **state)
{
    struct fixture *f = *state;
    struct kube_service **s;

    parse_file(f, "tests/data/objects_list.json");
    s = f->o.services;
    assert_string_equal(s[0]->name, "web");
    assert_string_equal(s[0]->namespace, "shop");
    assert_true(s[0]->selector.present);
    assert_int_equal(s[0]->selector.n, 2);
    assert_string_equal(s[0]->selector.items[0].key, "app");
    assert_string_equal(s[0]->selector.items[1].value, "frontend");
    assert_string_equal(s[1]->name, "external-db");
    assert_false(s[1]->selector.present); /* nil: matches nothing */
    assert_string_equal(s[2]->name, "empty-sel");
    assert_true(s[2]->selector.present);
    assert_int_equal(s[2]->selector.n, 0);
}

static void controllers_should_read_selectors(void **state)
{
    struct fixture *f = *state;
    const struct kube_objects *o = &f->o;
    const struct kube_label_selector *s;

    parse_file(f, "tests/data/objects_list.json");
    assert_string_equal(o->rcs[0]->name, "legacy");
    assert_string_equal(o->rcs[0]->namespace, "shop");
    assert_int_equal(o->rcs[0]->selector.n, 1);
    assert_string_equal(tparse_label(&o->rcs[0]->selector, "app"), "legacy");

    assert_string_equal(o->replica_sets[0]->name, "web-7d9c6b5f4");
    s = o->replica_sets[0]->selector;
    assert_non_null(s);
    assert_null(s->invalid);
    assert_int_equal(s->n_reqs, 3);
    assert_string_equal(s->reqs[0].key, "app");
    assert_string_equal(s->reqs[1].key, "pod-template-hash");
    assert_string_equal(s->reqs[2].key, "tier");
    assert_int_equal(s->reqs[2].op, KUBE_OP_NOT_IN);
    assert_int_equal(s->reqs[2].n_values, 2);

    s = o->stateful_sets[0]->selector;
    assert_int_equal(s->n_reqs, 1);
    assert_int_equal(s->reqs[0].op, KUBE_OP_EXISTS);
    assert_int_equal(s->reqs[0].n_values, 0);
    s = o->stateful_sets[1]->selector;
    assert_string_equal(s->invalid,
                        "\"Near\" is not a valid pod selector operator");

    assert_string_equal(o->namespaces[0]->name, "shop");
    assert_string_equal(tparse_label(&o->namespaces[0]->labels, "team"),
                        "retail");
}

static void persistent_volumes_should_read_source_and_claim(void **state)
{
    struct fixture *f = *state;
    const struct kube_persistent_volume *pv;

    parse_file(f, "tests/data/objects_list.json");
    pv = f->o.pvs[0];
    assert_string_equal(pv->name, "pv-gce");
    assert_string_equal(
        tparse_label(&pv->labels, "topology.kubernetes.io/zone"), "eu-west-1b");
    assert_int_equal(pv->annotations.n, 1);
    assert_int_equal(pv->capacity_storage, 10LL << 30);
    assert_int_equal(pv->n_access_modes, 2);
    assert_string_equal(pv->access_modes[1], "ReadOnlyMany");
    assert_string_equal(pv->storage_class_name, "standard");
    assert_string_equal(pv->volume_mode, "Filesystem");
    assert_string_equal(pv->claim_ref_namespace, "shop");
    assert_string_equal(pv->claim_ref_name, "web-data");
    assert_string_equal(pv->claim_ref_uid, "uid-web-data");
    assert_non_null(pv->node_affinity);
    assert_int_equal(pv->node_affinity->n_terms, 1);
    assert_int_equal(pv->node_affinity->terms[0].n_exprs, 1);
    assert_int_equal(pv->kind, KUBE_VOL_GCE_PD);
    assert_string_equal(pv->volume_id, "disk-1");
    assert_null(pv->csi_driver);
    assert_string_equal(pv->phase, "Bound");
    assert_false(pv->deleting);

    pv = f->o.pvs[1];
    assert_true(pv->deleting);
    assert_int_equal(pv->capacity_storage, 500LL << 20);
    assert_int_equal(pv->kind, KUBE_VOL_CSI);
    assert_string_equal(pv->csi_driver, "ebs.csi.aws.com");
    assert_string_equal(pv->csi_handle, "vol-0123");
    assert_string_equal(pv->volume_id, "vol-0123");
    assert_string_equal(pv->storage_class_name, "");
    assert_string_equal(pv->volume_mode, "");
    assert_null(pv->claim_ref_namespace);
    assert_null(pv->node_affinity);
    assert_string_equal(pv->phase, "Available");
}

static void claims_should_tell_absent_storage_class_from_set(void **state)
{
    struct fixture *f = *state;
    const struct kube_persistent_volume_claim *c;

    parse_file(f, "tests/data/objects_list.json");
    c = f->o.pvcs[0];
    assert_string_equal(c->name, "web-data");
    assert_string_equal(c->namespace, "shop");
    assert_string_equal(c->uid, "uid-web-data");
    assert_int_equal(c->annotations.n, 1);
    assert_string_equal(c->volume_name, "pv-gce");
    assert_true(c->has_storage_class_name);
    assert_string_equal(c->storage_class_name, "standard");
    assert_int_equal(c->n_access_modes, 1);
    assert_int_equal(c->request_storage, 8LL << 30);
    assert_non_null(c->selector);
    assert_int_equal(c->selector->n_reqs, 1);
    assert_string_equal(c->volume_mode, "Filesystem");
    assert_string_equal(c->phase, "Bound");
    c = f->o.pvcs[1];
    assert_false(c->has_storage_class_name);
    assert_string_equal(c->storage_class_name, "");
    assert_string_equal(c->volume_name, "");
    assert_null(c->selector);
    assert_int_equal(c->request_storage, 1LL << 30);
    assert_string_equal(c->phase, "Pending");
}

static void storage_classes_and_csi_nodes_should_be_read(void **state)
{
    struct fixture *f = *state;
    const struct kube_storage_class *sc;
    const struct kube_csi_node *cn;

    parse_file(f, "tests/data/objects_list.json");
    sc = f->o.storage_classes[0];
    assert_string_equal(sc->name, "standard");
    assert_string_equal(sc->provisioner, "pd.csi.storage.gke.io");
    assert_string_equal(sc->volume_binding_mode, "WaitForFirstConsumer");
    assert_int_equal(sc->n_allowed_topologies, 1);
    assert_int_equal(sc->allowed_topologies[0].n_exprs, 1);
    assert_string_equal(sc->allowed_topologies[0].exprs[0].key,
                        "topology.gke.io/zone");
    assert_int_equal(sc->allowed_topologies[0].exprs[0].op, KUBE_OP_IN);
    assert_int_equal(sc->allowed_topologies[0].exprs[0].n_values, 2);

    cn = f->o.csi_nodes[0];
    assert_string_equal(cn->name, "gpu-1");
    assert_int_equal(cn->annotations.n, 1);
    assert_int_equal(cn->n_drivers, 2);
    assert_string_equal(cn->drivers[0].name, "ebs.csi.aws.com");
    assert_string_equal(cn->drivers[0].node_id, "i-0abc");
    assert_true(cn->drivers[0].has_allocatable_count);
    assert_int_equal(cn->drivers[0].allocatable_count, 25);
    assert_int_equal(cn->drivers[0].n_topology_keys, 1);
    assert_false(cn->drivers[1].has_allocatable_count);
    assert_int_equal(cn->drivers[1].n_topology_keys, 0);
}

/* PodDisruptionBudget: what preemption counts (engine_victims.c), in
 * policy/v1beta1 and v1 alike; a budget without status allows none. */
static void pdbs_should_read_selector_budget_and_disrupted_pods(void **state)
{
    struct fixture *f = *state;
    const struct kube_pdb *p;

    assert_int_equal(
        parse_text(f, "{\"kind\":\"List\",\"items\":[{\"apiVersion\":"
                      "\"policy/v1beta1\",\"kind\":\"PodDisruptionBudget\","
                      "\"metadata\":{\"name\":\"g\",\"namespace\":\"ns1\"},"
                      "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":"
                      "\"a\"}}},\"status\":{\"disruptionsAllowed\":2,"
                      "\"disruptedPods\":{\"p1\":\"2021-01-01T00:00:00Z\"}}},"
                      "{\"apiVersion\":\"policy/v1\",\"kind\":"
                      "\"PodDisruptionBudget\",\"metadata\":{\"name\":\"h\"},"
                      "\"spec\":{\"selector\":{}}}]}"),
        0);
    assert_int_equal(f->o.n_pdbs, 2);
    assert_int_equal(f->o.n_skipped, 0);
    p = f->o.pdbs[0];
    assert_string_equal(p->name, "g");
    assert_string_equal(p->namespace, "ns1");
    assert_non_null(p->selector);
    assert_int_equal(p->selector->n_reqs, 1);
    assert_int_equal(p->disruptions_allowed, 2);
    assert_int_equal(p->disrupted.n, 1);
    assert_string_equal(p->disrupted.items[0].key, "p1");
    p = f->o.pdbs[1];
    assert_string_equal(p->namespace, "default");
    assert_non_null(p->selector);
    assert_int_equal(p->selector->n_reqs, 0);
    assert_int_equal(p->disruptions_allowed, 0);
    assert_int_equal(p->disrupted.n, 0);
    /* A budget that is not an integer names its path. */
    assert_int_equal(
        parse_text(f, "{\"kind\":\"PodDisruptionBudget\",\"metadata\":{"
                      "\"name\":\"x\"},\"status\":{\"disruptionsAllowed\":"
                      "\"many\"}}"),
        -1);
    assert_non_null(strstr(f->e.msg, "status.disruptionsAllowed"));
}

/* The API server's PodList carries no kind on its items. */
static void kind_list_should_give_items_its_kind(void **state)
{
    struct fixture *f = *state;

    parse_file(f, "tests/data/podlist.json");
    assert_int_equal(f->o.n_pods, 2);
    assert_string_equal(f->o.pods[0]->name, "a");
    assert_string_equal(f->o.pods[0]->node_name, "n1");
    assert_int_equal(f->o.pods[0]->containers[0].requests.milli_cpu, 100);
    assert_string_equal(f->o.pods[1]->namespace, "kube-system");
    assert_string_equal(f->o.pods[1]->phase, "Pending");
    assert_int_equal(f->o.n_skipped, 0);
}

static void documents_should_accumulate_in_input_order(void **state)
{
    static const struct {
        const char *name;
        const char *json;
        size_t pods, nodes, skipped;
    } steps[] = {
        { "single pod", "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\"}}", 1,
          0, 0 },
        { "single node", "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}",
          1, 1, 0 },
        { "unknown single kind",
          "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}", 1, 1, 1 },
        { "unknown kind list",
          "{\"kind\":\"EventList\",\"items\":[{\"metadata\":{}},{}]}", 1, 1,
          3 },
        { "empty list", "{\"kind\":\"List\",\"items\":[]}", 1, 1, 3 },
        { "null items", "{\"kind\":\"NodeList\",\"items\":null}", 1, 1, 3 },
        { "mixed list",
          "{\"kind\":\"List\",\"items\":[{\"kind\":\"Node\",\"metadata\":{"
          "\"name\":\"n2\"}},{\"kind\":\"Pod\",\"metadata\":{\"name\":"
          "\"p2\"}},{\"kind\":\"Secret\"}]}",
          2, 2, 4 },
        { "node list with a pod item",
          "{\"kind\":\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"n3\"}},"
          "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p3\"}}]}",
          3, 3, 4 },
    };
    struct fixture *f = *state;
    size_t i;

    for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        if (parse_text(f, steps[i].json) != 0)
            fail_msg("step %s: %s", steps[i].name, f->e.msg);
        if (f->o.n_pods != steps[i].pods || f->o.n_nodes != steps[i].nodes ||
            f->o.n_skipped != steps[i].skipped)
            fail_msg("step %s: %zu pods %zu nodes %zu skipped", steps[i].name,
                     f->o.n_pods, f->o.n_nodes, f->o.n_skipped);
    }
    assert_string_equal(f->o.pods[0]->name, "p1");
    assert_string_equal(f->o.pods[1]->name, "p2");
    assert_string_equal(f->o.pods[2]->name, "p3");
    assert_string_equal(f->o.nodes[2]->name, "n3");
}

/* A failing document leaves what was gathered before untouched. */
static void failed_document_should_leave_objects_unchanged(void **state)
{
    struct fixture *f = *state;
    struct kube_objects before;

    assert_int_equal(parse_text(f, "{\"kind\":\"Pod\",\"metadata\":{\"name\":"
                                   "\"p1\"}}"),
                     0);
    before = f->o;
    assert_int_equal(parse_text(f, "{\"kind\":\"List\",\"items\":[{\"kind\":"
                                   "\"Pod\",\"metadata\":{\"name\":\"p2\"}},"
                                   "{\"kind\":\"Pod\",\"metadata\":{}}]}"),
                     -1);
    assert_string_equal(f->e.msg,
                        "items[1].metadata.name: missing required field");
    assert_memory_equal(&before, &f->o, sizeof(before));
    assert_string_equal(f->o.pods[0]->name, "p1");
}

static const struct kube_node *find_node(const struct kube_objects *o,
                                         const char *name)
{
    size_t i;

    for (i = 0; i < o->n_nodes; i++)
        if (!strcmp(o->nodes[i]->name, name))
            return o->nodes[i];
    fail_msg("no node %s", name);
    return NULL;
}

static void demo_cluster_should_parse_with_expected_shape(void **state)
{
    struct fixture *f = *state;
    const struct kube_objects *o = &f->o;
    const struct kube_node *n;
    size_t i, j, host_port_pods = 0, high_comm = 0;

    parse_file(f, "deploy/demo/cluster.json");
    assert_int_equal(o->n_nodes, 5);
    assert_int_equal(o->n_pods, 8);
    assert_int_equal(o->n_services, 1);
    assert_int_equal(o->n_replica_sets, 1);
    assert_int_equal(o->n_namespaces, 2);
    assert_int_equal(o->n_storage_classes, 1);
    assert_int_equal(o->n_pvs, 1);
    assert_int_equal(o->n_pvcs, 1);
    assert_int_equal(o->n_skipped, 0);

    n = find_node(o, "rdma-1");
    assert_string_equal(
        tparse_label(&n->labels, "node.kubernetes.io/rdma-enabled"), "true");
    assert_int_equal(n->allocatable.milli_cpu, 4000);
    assert_int_equal(n->allocatable.memory, 16LL << 30);
    assert_int_equal(n->allocatable.pods, 110);
    n = find_node(o, "general-1");
    assert_null(tparse_label(&n->labels, "node.kubernetes.io/rdma-enabled"));
    assert_int_equal(n->allocatable.milli_cpu, 8000);
    n = find_node(o, "gpu-1");
    assert_int_equal(n->n_taints, 1);
    assert_string_equal(n->taints[0].key, "nvidia.com/gpu");
    assert_string_equal(n->taints[0].effect, "NoSchedule");
    assert_int_equal(tparse_scalar(&n->allocatable, "nvidia.com/gpu"), 4);
    n = find_node(o, "cordoned-1");
    assert_true(n->unschedulable);
    assert_string_equal(n->taints[0].key, "node.kubernetes.io/unschedulable");

    for (i = 0; i < o->n_pods; i++) {
        const struct kube_pod *p = o->pods[i];

        assert_string_equal(p->phase, "Running");
        for (j = 0; j < p->containers[0].n_ports; j++)
            if (p->containers[0].ports[j].host_port == 8080) {
                host_port_pods++;
                assert_string_equal(p->node_name, "general-1");
            }
        if (tparse_label(&p->labels, "high-comm")) {
            high_comm++;
            assert_string_equal(p->node_name, "rdma-1");
        }
    }
    assert_int_equal(host_port_pods, 1);
    assert_int_equal(high_comm, 1);
    assert_string_equal(o->services[0]->name, "web");
    assert_string_equal(tparse_label(&o->services[0]->selector, "app"), "web");
    assert_string_equal(o->storage_classes[0]->volume_binding_mode,
                        "WaitForFirstConsumer");
    assert_string_equal(o->pvcs[0]->volume_name, o->pvs[0]->name);
    assert_string_equal(o->pvs[0]->claim_ref_name, o->pvcs[0]->name);
}

static void demo_pods_should_parse(void **state)
{
    static const struct {
        const char *file;
        const char *name;
        const char *node_name;
        long long milli_cpu;
        const char *label_key, *label_value;
    } cases[] = {
        { "deploy/demo/pods/high-comm.json", "high-comm", "", 500, "high-comm",
          "true" },
        { "deploy/demo/pods/pinned.json", "pinned", "general-1", 100, "app",
          "pinned" },
        { "deploy/demo/pods/web.json", "web-5f7d8c9b6-r9m2c", "", 250, "app",
          "web" },
        { "deploy/demo/pods/big.json", "big", "", 64000, "app", "big" },
    };
    struct fixture *f = *state;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kube_pod p;
        size_t len;
        char *json = tparse_read_file(cases[i].file, &len);
        int rc = kube_parse_pod(&f->a, json, len, &p, &f->e);
        const char *v;

        free(json);
        if (rc != 0)
            fail_msg("%s: %s", cases[i].file, f->e.msg);
        v = tparse_label(&p.labels, cases[i].label_key);
        if (strcmp(p.name, cases[i].name) ||
            strcmp(p.node_name, cases[i].node_name) ||
            p.containers[0].requests.milli_cpu != cases[i].milli_cpu || !v ||
            strcmp(v, cases[i].label_value))
            fail_msg("%s: name %s node %s cpu %lld", cases[i].file, p.name,
                     p.node_name,
                     (long long)p.containers[0].requests.milli_cpu);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            list_should_sort_objects_by_kind_and_skip_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(
            service_selectors_should_keep_nil_apart_from_empty, setup,
            teardown),
        cmocka_unit_test_setup_teardown(controllers_should_read_selectors,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            persistent_volumes_should_read_source_and_claim, setup, teardown),
        cmocka_unit_test_setup_teardown(
            claims_should_tell_absent_storage_class_from_set, setup, teardown),
        cmocka_unit_test_setup_teardown(
            storage_classes_and_csi_nodes_should_be_read, setup, teardown),
        cmocka_unit_test_setup_teardown(
            pdbs_should_read_selector_budget_and_disrupted_pods, setup,
            teardown),
        cmocka_unit_test_setup_teardown(kind_list_should_give_items_its_kind,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            documents_should_accumulate_in_input_order, setup, teardown),
        cmocka_unit_test_setup_teardown(
            failed_document_should_leave_objects_unchanged, setup, teardown),
        cmocka_unit_test_setup_teardown(
            demo_cluster_should_parse_with_expected_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(demo_pods_should_parse, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
