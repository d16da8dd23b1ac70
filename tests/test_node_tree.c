/*
 * test_node_tree.c: kube-scheduler's node walking order
 * (kube/cluster/node_tree.c) as struct cluster keeps it through node additions,
 * updates and removals. Tables ported from pkg/scheduler/internal/cache/
 * node_tree_test.go (v1.22): TestNodeTree_AddNode, TestNodeTree_RemoveNode,
 * TestNodeTree_UpdateNode, TestNodeTree_List, TestNodeTreeMultiOperations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kube/cluster/cluster.h"
#include "kube/model/labels.h"

#define R  "topology.kubernetes.io/region"
#define Z  "topology.kubernetes.io/zone"
#define BR "failure-domain.beta.kubernetes.io/region"
#define BZ "failure-domain.beta.kubernetes.io/zone"

/* allNodes of node_tree_test.go: labels as "k=v,k=v". */
static const char *const all_labels[] = {
    "",                         /* node-0: none */
    R "=region-1",              /* node-1: region only */
    Z "=zone-2",                /* node-2: zone only */
    R "=region-1," Z "=zone-2", /* node-3 */
    R "=region-1," Z "=zone-2", /* node-4 */
    R "=region-1," Z "=zone-3", /* node-5 */
    R "=region-2," Z "=zone-2", /* node-6 */
    R "=region-2," Z "=zone-2", /* node-7 */
    R "=region-2," Z "=zone-2", /* node-8 */
    R "=region-2," Z "=zone-2," BR "=region-2," BZ "=zone-2", /* node-9 */
    BR "=region-2," BZ "=zone-3", /* node-10: beta only */
};

static struct kube_node *mk(struct arena *a, const char *name,
                            const char *labels)
{
    struct kube_node *n = arena_calloc(a, 1, sizeof(*n));
    char *buf = arena_strdup(a, labels), *tok, *save = NULL;

    n->name = arena_strdup(a, name);
    n->labels.items = arena_calloc(a, 8, sizeof(*n->labels.items));
    for (tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');

        *eq = '\0';
        n->labels.items[n->labels.n].key = tok;
        n->labels.items[n->labels.n].value = eq + 1;
        n->labels.n++;
    }
    n->labels.present = n->labels.n > 0;
    kube_labels_normalize(&n->labels);
    return n;
}

static struct kube_node *node_n(struct arena *a, int i)
{
    char name[16];

    snprintf(name, sizeof(name), "node-%d", i);
    return mk(a, name, all_labels[i]);
}

/* The walking order as "a,b,c". */
static void list_names(const struct cluster *c, char *out, size_t sz)
{
    size_t idx[32], n, i, len = 0;

    assert_true(c->n_nodes <= 32);
    n = node_tree_list(&c->tree, idx);
    assert_int_equal(n, c->n_nodes);
    out[0] = '\0';
    for (i = 0; i < n; i++)
        len += (size_t)snprintf(out + len, sz - len, "%s%s", i ? "," : "",
                                c->nodes[idx[i]].node->name);
}

/* The tree as "region/zone=a,b region/zone=c", zones in their order. */
static void tree_string(const struct cluster *c, char *out, size_t sz)
{
    size_t z, j, len = 0;

    out[0] = '\0';
    for (z = 0; z < c->tree.n_zones; z++) {
        const struct node_tree_zone *nz = &c->tree.zones[z];

        len += (size_t)snprintf(out + len, sz - len, "%s%s/%s=", z ? " " : "",
                                nz->region, nz->zone);
        for (j = 0; j < nz->n; j++)
            len += (size_t)snprintf(out + len, sz - len, "%s%s", j ? "," : "",
                                    c->nodes[nz->nodes[j]].node->name);
    }
}

struct op {
    char kind; /* 'a' add, 'r' remove, 'u' update with labels */
    int node;
    const char *labels; /* 'u' only */
};

struct tree_case {
    const char *name;
    struct op ops[12];
    const char *want_tree; /* NULL: not checked */
    const char *want_list; /* NULL: not checked */
};

static const struct tree_case cases[] = {
    /* TestNodeTree_AddNode */
    { "single node no labels", { { 'a', 0, NULL } }, "/=node-0", NULL },
    { "same node specified twice",
      { { 'a', 0, NULL }, { 'a', 0, NULL } },
      "/=node-0",
      NULL },
    { "mix of nodes with and without proper labels",
      { { 'a', 0, NULL },
        { 'a', 1, NULL },
        { 'a', 2, NULL },
        { 'a', 3, NULL } },
      "/=node-0 region-1/=node-1 /zone-2=node-2 region-1/zone-2=node-3",
      NULL },
    { "mix of nodes with and without proper labels and some zones with "
      "multiple nodes",
      { { 'a', 0, NULL },
        { 'a', 1, NULL },
        { 'a', 2, NULL },
        { 'a', 3, NULL },
        { 'a', 4, NULL },
        { 'a', 5, NULL },
        { 'a', 6, NULL } },
      "/=node-0 region-1/=node-1 /zone-2=node-2 region-1/zone-2=node-3,node-4 "
      "region-1/zone-3=node-5 region-2/zone-2=node-6",
      NULL },
    { "nodes also using deprecated zone/region label",
      { { 'a', 9, NULL }, { 'a', 10, NULL } },
      "region-2/zone-2=node-9 region-2/zone-3=node-10",
      NULL },
    /* TestNodeTree_RemoveNode (existing nodes allNodes[:7] added first) */
    { "remove a single node with no labels",
      { { 'a', 0, NULL },
        { 'a', 1, NULL },
        { 'a', 2, NULL },
        { 'a', 3, NULL },
        { 'a', 4, NULL },
        { 'a', 5, NULL },
        { 'a', 6, NULL },
        { 'r', 0, NULL } },
      "region-1/=node-1 /zone-2=node-2 region-1/zone-2=node-3,node-4 "
      "region-1/zone-3=node-5 region-2/zone-2=node-6",
      NULL },
    { "remove a few nodes including one from a zone with multiple nodes",
      { { 'a', 0, NULL },
        { 'a', 1, NULL },
        { 'a', 2, NULL },
        { 'a', 3, NULL },
        { 'a', 4, NULL },
        { 'a', 5, NULL },
        { 'a', 6, NULL },
        { 'r', 1, NULL },
        { 'r', 2, NULL },
        { 'r', 3, NULL } },
      "/=node-0 region-1/zone-2=node-4 region-1/zone-3=node-5 "
      "region-2/zone-2=node-6",
      NULL },
    { "remove all nodes",
      { { 'a', 0, NULL },
        { 'a', 1, NULL },
        { 'a', 2, NULL },
        { 'r', 0, NULL },
        { 'r', 1, NULL },
        { 'r', 2, NULL } },
      "",
      "" },
    { "remove non-existing node",
      { { 'r', 0, NULL }, { 'r', 4, NULL } },
      "",
      "" },
    /* TestNodeTree_UpdateNode ("update non-existing node" does not apply:
     * the cache adds a node it does not know instead of updating it). */
    { "update a node without label",
      { { 'a', 0, NULL },
        { 'a', 1, NULL },
        { 'a', 2, NULL },
        { 'a', 3, NULL },
        { 'a', 4, NULL },
        { 'a', 5, NULL },
        { 'a', 6, NULL },
        { 'u', 0, R "=region-1," Z "=zone-2" } },
      "region-1/=node-1 /zone-2=node-2 region-1/zone-2=node-3,node-4,node-0 "
      "region-1/zone-3=node-5 region-2/zone-2=node-6",
      NULL },
    { "update the only existing node",
      { { 'a', 0, NULL }, { 'u', 0, R "=region-1," Z "=zone-2" } },
      "region-1/zone-2=node-0",
      NULL },
    /* Ours: a change of labels that keeps the zone keeps the place. */
    { "update keeping the zone keeps the place",
      { { 'a', 3, NULL },
        { 'a', 4, NULL },
        { 'u', 3, R "=region-1," Z "=zone-2,role=db" } },
      "region-1/zone-2=node-3,node-4",
      "node-3,node-4" },
    /* TestNodeTree_List */
    { "empty tree", { { 0, 0, NULL } }, NULL, "" },
    { "one node", { { 'a', 0, NULL } }, NULL, "node-0" },
    { "four nodes",
      { { 'a', 0, NULL },
        { 'a', 1, NULL },
        { 'a', 2, NULL },
        { 'a', 3, NULL } },
      NULL,
      "node-0,node-1,node-2,node-3" },
    { "all nodes",
      { { 'a', 0, NULL },
        { 'a', 1, NULL },
        { 'a', 2, NULL },
        { 'a', 3, NULL },
        { 'a', 4, NULL },
        { 'a', 5, NULL },
        { 'a', 6, NULL },
        { 'a', 7, NULL },
        { 'a', 8, NULL } },
      NULL,
      "node-0,node-1,node-2,node-3,node-5,node-6,node-4,node-7,node-8" },
    /* TestNodeTreeMultiOperations */
    { "add and remove all nodes",
      { { 'a', 2, NULL },
        { 'a', 3, NULL },
        { 'a', 4, NULL },
        { 'r', 2, NULL },
        { 'r', 3, NULL },
        { 'r', 4, NULL } },
      NULL,
      "" },
    { "add and remove some nodes",
      { { 'a', 2, NULL },
        { 'a', 3, NULL },
        { 'a', 4, NULL },
        { 'r', 2, NULL } },
      NULL,
      "node-3,node-4" },
    { "remove three nodes",
      { { 'a', 2, NULL },
        { 'a', 3, NULL },
        { 'a', 4, NULL },
        { 'r', 2, NULL },
        { 'r', 3, NULL },
        { 'r', 4, NULL },
        { 'a', 5, NULL } },
      NULL,
      "node-5" },
    { "add more nodes to an exhausted zone",
      { { 'a', 4, NULL },
        { 'a', 5, NULL },
        { 'a', 6, NULL },
        { 'a', 7, NULL },
        { 'a', 8, NULL },
        { 'a', 3, NULL } },
      NULL,
      "node-4,node-5,node-6,node-3,node-7,node-8" },
    { "remove zone and add new",
      { { 'a', 3, NULL },
        { 'a', 4, NULL },
        { 'r', 3, NULL },
        { 'a', 6, NULL },
        { 'a', 7, NULL },
        { 'r', 4, NULL } },
      NULL,
      "node-6,node-7" },
    /* Ours: a zone that keeps a node keeps its place when its first node
     * goes (the array order alone would put region-1/zone-3 first). */
    { "zone keeps its place when its first node goes",
      { { 'a', 3, NULL },
        { 'a', 5, NULL },
        { 'a', 4, NULL },
        { 'r', 3, NULL } },
      "region-1/zone-2=node-4 region-1/zone-3=node-5",
      "node-4,node-5" },
};

static void run_case(const struct tree_case *tc)
{
    struct arena a;
    struct kube_objects objs = { 0 };
    struct cluster c;
    char got[512];
    size_t i;

    arena_init(&a, 0);
    assert_int_equal(cluster_build(&c, &objs, &(struct err){ "" }), 0);
    for (i = 0; i < 12 && tc->ops[i].kind; i++) {
        const struct op *op = &tc->ops[i];
        char name[16];

        snprintf(name, sizeof(name), "node-%d", op->node);
        if (op->kind == 'a')
            assert_true(cluster_add_node(&c, node_n(&a, op->node)) >= 0);
        else if (op->kind == 'r')
            cluster_remove_node(&c, name);
        else
            assert_int_equal(cluster_update_node(&c, mk(&a, name, op->labels)),
                             1);
    }
    if (tc->want_tree) {
        tree_string(&c, got, sizeof(got));
        if (strcmp(got, tc->want_tree))
            fail_msg("%s: tree \"%s\", want \"%s\"", tc->name, got,
                     tc->want_tree);
    }
    if (tc->want_list) {
        list_names(&c, got, sizeof(got));
        if (strcmp(got, tc->want_list))
            fail_msg("%s: list \"%s\", want \"%s\"", tc->name, got,
                     tc->want_list);
    }
    assert_int_equal(c.tree.n_nodes, c.n_nodes);
    cluster_free(&c);
    arena_destroy(&a);
}

static void node_tree_should_order_nodes_as_kube_scheduler(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_case(&cases[i]);
}

/* A cluster built from a snapshot lists its nodes the same way. */
static void built_cluster_should_have_the_same_order(void **state)
{
    struct arena a;
    struct kube_node *nodes[9];
    struct kube_objects objs = { 0 };
    struct cluster c;
    char got[512];
    int i;

    (void)state;
    arena_init(&a, 0);
    for (i = 0; i < 9; i++)
        nodes[i] = node_n(&a, i);
    objs.n_nodes = 9;
    objs.nodes = nodes;
    assert_int_equal(cluster_build(&c, &objs, &(struct err){ "" }), 0);
    list_names(&c, got, sizeof(got));
    assert_string_equal(
        got, "node-0,node-1,node-2,node-3,node-5,node-6,node-4,node-7,node-8");
    cluster_free(&c);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_tree_should_order_nodes_as_kube_scheduler),
        cmocka_unit_test(built_cluster_should_have_the_same_order),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
