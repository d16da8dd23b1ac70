/*
 * test_snapshot_file.c: loading a cluster from files, and the snapshot
 * built from the bundled demo cluster.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube/cluster/cluster.h"
#include "kube/cluster/snapshot_file.h"

static void demo_cluster_should_build_a_snapshot(void **state)
{
    const char *paths[] = { "deploy/demo/cluster.json" };
    struct arena a;
    struct kube_objects objs = { 0 };
    struct cluster c;
    const struct node_info *rdma;
    struct err e;
    size_t i, total = 0;

    (void)state;
    arena_init(&a, 0);
    if (kube_snapshot_load_files(&a, paths, 1, &objs, &e) < 0)
        fail_msg("%s", e.msg);
    assert_int_equal(objs.n_nodes, 5);
    assert_int_equal(cluster_build(&c, &objs, &e), 0);
    rdma = cluster_node(&c, "rdma-1");
    assert_non_null(rdma);
    assert_true(rdma->n_pods > 0);
    for (i = 0; i < c.n_nodes; i++)
        total += c.nodes[i].n_pods;
    assert_int_equal(total, c.n_pods);
    assert_int_equal(c.n_orphan_pods, 0);
    /* Cluster-wide lookups over the demo's storage objects. */
    assert_int_equal(objs.n_pvcs, 1);
    assert_ptr_equal(
        cluster_pvc(&c, objs.pvcs[0]->namespace, objs.pvcs[0]->name),
        objs.pvcs[0]);
    assert_null(cluster_pvc(&c, "nowhere", objs.pvcs[0]->name));
    assert_ptr_equal(cluster_pv(&c, objs.pvs[0]->name), objs.pvs[0]);
    assert_ptr_equal(cluster_storage_class(&c, objs.storage_classes[0]->name),
                     objs.storage_classes[0]);
    assert_null(cluster_storage_class(&c, "nope"));
    assert_null(cluster_csi_node(&c, "rdma-1"));
    assert_non_null(cluster_namespace(&c, "kube-system"));
    cluster_free(&c);
    arena_destroy(&a);
}

static void load_should_name_the_file_in_errors(void **state)
{
    char dir[] = "/tmp/kpe-snapXXXXXX";
    char path[128];
    const char *paths[1] = { path };
    struct arena a;
    struct kube_objects objs = { 0 };
    struct err e;
    FILE *f;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/bad.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":"
          "{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
          "{\"cpu\":\"1.5.3\"}}}]}}",
          f);
    fclose(f);
    arena_init(&a, 0);
    assert_int_equal(kube_snapshot_load_files(&a, paths, 1, &objs, &e), -1);
    assert_non_null(strstr(e.msg, "bad.json: "));
    assert_non_null(strstr(
        e.msg, "spec.containers[0].resources.requests.cpu: invalid quantity "
               "\"1.5.3\""));
    snprintf(path, sizeof(path), "%s/missing.json", dir);
    assert_int_equal(kube_snapshot_load_files(&a, paths, 1, &objs, &e), -1);
    assert_non_null(strstr(e.msg, "missing.json: No such file or directory"));
    assert_int_equal(objs.n_pods, 0);
    arena_destroy(&a);
    snprintf(path, sizeof(path), "%s/bad.json", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(demo_cluster_should_build_a_snapshot),
        cmocka_unit_test(load_should_name_the_file_in_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
