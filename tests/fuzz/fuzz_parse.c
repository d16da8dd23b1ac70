/*
 * fuzz_parse.c: libFuzzer target for Kubernetes object parsing
 * (kube/parse.h): every input goes through kube_parse_document (one
 * object, a List or a <Kind>List), kube_parse_pod and kube_parse_node.
 * A document that parses is also built into a cluster snapshot, as a
 * cluster file is at load, and each pod is taken off its node and put
 * back (the aggregates must allow both). The input buffer is exactly
 * `size` bytes, with no NUL after it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/arena.h"
#include "kube/cluster.h"
#include "kube/err.h"
#include "kube/parse.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);
    struct kube_objects objs;
    struct kube_pod pod;
    struct kube_node node;
    struct arena a;
    struct err e;

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    arena_init(&a, 0);
    memset(&objs, 0, sizeof(objs));
    e.msg[0] = '\0';
    if (kube_parse_document(&a, buf, size, &objs, &e) == 0)
        check_cluster(&objs);
    else if (e.msg[0] == '\0')
        fail("kube_parse_document failed without a message", NULL);
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
