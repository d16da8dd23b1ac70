/*
 * fuzz_parse.c: libFuzzer target for Kubernetes object parsing
 * (kube/parse/parse.h): every input goes through kube_parse_document (one
 * object, a List or a <Kind>List), kube_parse_pod and kube_parse_node.
 * kube_parse_document, which reads list items one at a time, must agree
 * with kube_parse_document_tree (one tree of the whole text): the same
 * verdict and message, or the same objects in the same order.
 * A document that parses is also built into a cluster snapshot, as a
 * cluster file is at load, and each pod is taken off its node and put
 * back (the aggregates must allow both). The input buffer is exactly
 * `size` bytes, with no NUL after it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/cluster/cluster.h"
#include "kube/base/err.h"
#include "kube/parse/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "parse: %s%s%s\n", what, detail ? ": " : "",
            detail ? detail : "");
    abort();
}

/* Every accounted pod can be removed and added back. */
static void check_cluster(const struct kube_objects *objs)
{
    struct cluster c;
    struct err e;
    size_t before;

    memset(&c, 0, sizeof(c));
    if (cluster_build(&c, objs, &e) < 0) {
        if (e.msg[0] == '\0')
            fail("cluster_build failed without a message", NULL);
        return;
    }
    before = c.n_pods;
    for (size_t i = 0; i < objs->n_pods; i++) {
        const struct kube_pod *pod = objs->pods[i];

        if (cluster_remove_pod(&c, pod) == 1 && cluster_add_pod(&c, pod) != 1)
            fail("a removed pod could not be added back", pod->name);
    }
    if (c.n_pods != before)
        fail("removing and adding pods changed the pod count", NULL);
    cluster_free(&c);
}

static bool same_name(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Streamed and whole-tree loads made the same objects. */
static void check_same(const struct kube_objects *s,
                       const struct kube_objects *t)
{
    size_t i;

    if (s->n_pods != t->n_pods || s->n_nodes != t->n_nodes ||
        s->n_services != t->n_services || s->n_rcs != t->n_rcs ||
        s->n_replica_sets != t->n_replica_sets ||
        s->n_stateful_sets != t->n_stateful_sets || s->n_pvs != t->n_pvs ||
        s->n_pvcs != t->n_pvcs ||
        s->n_storage_classes != t->n_storage_classes ||
        s->n_csi_nodes != t->n_csi_nodes ||
        s->n_namespaces != t->n_namespaces || s->n_skipped != t->n_skipped)
        fail("streamed and whole-tree loads count objects differently", NULL);
    for (i = 0; i < s->n_pods; i++) {
        if (!same_name(s->pods[i]->name, t->pods[i]->name) ||
            !same_name(s->pods[i]->namespace, t->pods[i]->namespace) ||
            s->pods[i]->n_containers != t->pods[i]->n_containers)
            fail("streamed and whole-tree pods differ", s->pods[i]->name);
    }
    for (i = 0; i < s->n_nodes; i++) {
        if (!same_name(s->nodes[i]->name, t->nodes[i]->name) ||
            s->nodes[i]->labels.n != t->nodes[i]->labels.n)
            fail("streamed and whole-tree nodes differ", s->nodes[i]->name);
    }
}

/* kube_parse_document against kube_parse_document_tree. */
static void check_tree(const char *buf, size_t size, int rc,
                       const struct kube_objects *objs, const struct err *e)
{
    struct kube_objects t;
    struct arena a;
    struct err te;
    int trc;

    arena_init(&a, 0);
    memset(&t, 0, sizeof(t));
    te.msg[0] = '\0';
    trc = kube_parse_document_tree(&a, buf, size, &t, &te);
    if (trc != rc)
        fail("streamed and whole-tree loads disagree", rc ? e->msg : te.msg);
    if (rc != 0 && strcmp(e->msg, te.msg))
        fail("streamed and whole-tree messages differ", e->msg);
    if (rc == 0)
        check_same(objs, &t);
    arena_destroy(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);
    struct kube_objects objs;
    struct kube_pod pod;
    struct kube_node node;
    struct arena a;
    struct err e;
    int rc;

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    arena_init(&a, 0);
    memset(&objs, 0, sizeof(objs));
    e.msg[0] = '\0';
    rc = kube_parse_document(&a, buf, size, &objs, &e);
    if (rc == 0)
        check_cluster(&objs);
    else if (e.msg[0] == '\0')
        fail("kube_parse_document failed without a message", NULL);
    check_tree(buf, size, rc, &objs, &e);
    arena_destroy(&a);

    arena_init(&a, 0);
    e.msg[0] = '\0';
    if (kube_parse_pod(&a, buf, size, &pod, &e) != 0 && e.msg[0] == '\0')
        fail("kube_parse_pod failed without a message", NULL);
    arena_destroy(&a);

    arena_init(&a, 0);
    e.msg[0] = '\0';
    if (kube_parse_node(&a, buf, size, &node, &e) != 0 && e.msg[0] == '\0')
        fail("kube_parse_node failed without a message", NULL);
    arena_destroy(&a);
    free(buf);
    return 0;
}
