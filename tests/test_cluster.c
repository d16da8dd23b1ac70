/*
 * test_cluster.c: the cluster snapshot (NodeInfo accounting): pods on
 * nodes, request sums, host ports, image states, incremental add/remove.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kube/cluster/cluster.h"
#include "kube/model/labels.h"
#include "kube/model/resources.h"

static struct kube_node *mk_node(struct arena *a, const char *name)
{
    struct kube_node *n = arena_calloc(a, 1, sizeof(*n));

    n->name = name;
    return n;
}

static struct kube_pod *mk_pod(struct arena *a, const char *name,
                               const char *node, int64_t milli_cpu, int64_t mem)
{
    struct kube_pod *p = arena_calloc(a, 1, sizeof(*p));
    struct kube_container *c = arena_calloc(a, 1, sizeof(*c));

    p->name = name;
    p->namespace = "default";
    p->uid = name;
    p->node_name = node;
    p->phase = "Running";
    c->name = "c";
    c->requests.has = KUBE_RES_CPU | KUBE_RES_MEMORY;
    c->requests.milli_cpu = milli_cpu;
    c->requests.memory = mem;
    p->n_containers = 1;
    p->containers = c;
    return p;
}

static void add_port(struct arena *a, struct kube_pod *p, const char *proto,
                     const char *ip, int32_t port)
{
    struct kube_container *c = &p->containers[0];
    struct kube_container_port *np =
        arena_calloc(a, c->n_ports + 1, sizeof(*np));

    if (c->n_ports)
        memcpy(np, c->ports, c->n_ports * sizeof(*np));
    np[c->n_ports].protocol = proto;
    np[c->n_ports].host_ip = ip;
    np[c->n_ports].host_port = port;
    np[c->n_ports].container_port = port;
    c->ports = np;
    c->n_ports++;
}

struct port_param {
    const char *protocol;
    const char *ip;
    int32_t port;
};

struct port_case {
    const char *desc;
    struct port_param added[4];
    size_t n_added;
    struct port_param check;
    bool expect;
};

/* TestHostPortInfo_Check (pkg/scheduler/framework/types_test.go) */
static const struct port_case port_cases[] = {
    { "empty check should check 0.0.0.0 and TCP",
      { { "TCP", "127.0.0.1", 80 } },
      1,
      { "", "", 81 },
      false },
    { "empty check should check 0.0.0.0 and TCP (conflicted)",
      { { "TCP", "127.0.0.1", 80 } },
      1,
      { "", "", 80 },
      true },
    { "empty port check should pass",
      { { "TCP", "127.0.0.1", 80 } },
      1,
      { "", "", 0 },
      false },
    { "0.0.0.0 should check all registered IPs",
      { { "TCP", "127.0.0.1", 80 } },
      1,
      { "TCP", "0.0.0.0", 80 },
      true },
    { "0.0.0.0 with different protocol should be allowed",
      { { "UDP", "127.0.0.1", 80 } },
      1,
      { "TCP", "0.0.0.0", 80 },
      false },
    { "0.0.0.0 with different port should be allowed",
      { { "TCP", "127.0.0.1", 79 },
        { "TCP", "127.0.0.1", 81 },
        { "TCP", "127.0.0.1", 82 } },
      3,
      { "TCP", "0.0.0.0", 80 },
      false },
    { "normal ip should check all registered 0.0.0.0",
      { { "TCP", "0.0.0.0", 80 } },
      1,
      { "TCP", "127.0.0.1", 80 },
      true },
    { "normal ip with different port/protocol should be allowed (0.0.0.0)",
      { { "TCP", "0.0.0.0", 79 },
        { "UDP", "0.0.0.0", 80 },
        { "TCP", "0.0.0.0", 81 },
        { "TCP", "0.0.0.0", 82 } },
      4,
      { "TCP", "127.0.0.1", 80 },
      false },
    { "normal ip with different port/protocol should be allowed",
      { { "TCP", "127.0.0.1", 79 },
        { "UDP", "127.0.0.1", 80 },
        { "TCP", "127.0.0.1", 81 },
        { "TCP", "127.0.0.1", 82 } },
      4,
      { "TCP", "127.0.0.1", 80 },
      false },
    /* predicates.md A.6: "::" is just another address. */
    { "ipv6 any is not a wildcard",
      { { "TCP", "::", 80 } },
      1,
      { "TCP", "10.0.0.1", 80 },
      false },
};

static void cluster_should_detect_host_port_conflicts(void **state)
{
    size_t i, j;

    (void)state;
    for (i = 0; i < sizeof(port_cases) / sizeof(port_cases[0]); i++) {
        const struct port_case *tc = &port_cases[i];
        struct arena a;
        struct kube_objects objs = { 0 };
        struct kube_node *nodes[1];
        struct kube_pod *pods[1];
        struct cluster c;
        struct err e;

        arena_init(&a, 0);
        nodes[0] = mk_node(&a, "n1");
        pods[0] = mk_pod(&a, "p", "n1", 0, 0);
        for (j = 0; j < tc->n_added; j++)
            add_port(&a, pods[0], tc->added[j].protocol, tc->added[j].ip,
                     tc->added[j].port);
        objs.n_nodes = 1;
        objs.nodes = nodes;
        objs.n_pods = 1;
        objs.pods = pods;
        assert_int_equal(cluster_build(&c, &objs, &e), 0);
        if (node_info_port_conflict(&c.nodes[0], tc->check.ip,
                                    tc->check.protocol,
                                    tc->check.port) != tc->expect)
            fail_msg("%s: expected %d", tc->desc, tc->expect);
        cluster_free(&c);
        arena_destroy(&a);
    }
}

static void cluster_should_account_active_pods_on_known_nodes(void **state)
{
    struct arena a;
    struct kube_objects objs = { 0 };
    struct kube_node *nodes[2];
    struct kube_pod *pods[5];
    struct cluster c;
    const struct node_info *n1, *n2;
    struct err e;

    (void)state;
    arena_init(&a, 0);
    nodes[0] = mk_node(&a, "n1");
    nodes[1] = mk_node(&a, "n2");
    pods[0] = mk_pod(&a, "a", "n1", 500, 1000);
    pods[1] = mk_pod(&a, "b", "n1", 250, 0);
    pods[1]->containers[0].requests.has = KUBE_RES_CPU; /* no memory key */
    pods[2] = mk_pod(&a, "done", "n1", 4000, 4000);
    pods[2]->phase = "Succeeded";
    pods[3] = mk_pod(&a, "ghost", "n9", 100, 100);
    pods[4] = mk_pod(&a, "pending", "", 100, 100);
    objs.n_nodes = 2;
    objs.nodes = nodes;
    objs.n_pods = 5;
    objs.pods = pods;
    assert_int_equal(cluster_build(&c, &objs, &e), 0);
    n1 = cluster_node(&c, "n1");
    n2 = cluster_node(&c, "n2");
    assert_non_null(n1);
    assert_non_null(n2);
    assert_null(cluster_node(&c, "n3"));
    assert_int_equal(n1->n_pods, 2);
    assert_int_equal(n2->n_pods, 0);
    assert_int_equal(c.n_orphan_pods, 1);
    assert_int_equal(n1->requested.milli_cpu, 750);
    assert_int_equal(n1->requested.memory, 1000);
    /* The missing memory key counts 200Mi in the non-zero sum. */
    assert_int_equal(n1->nonzero_milli_cpu, 750);
    assert_int_equal(n1->nonzero_memory, 1000 + 200 * 1024 * 1024);

    /* Incremental: remove b, add it again elsewhere. */
    assert_int_equal(cluster_remove_pod(&c, pods[1]), 1);
    assert_int_equal(cluster_remove_pod(&c, pods[1]), 0);
    assert_int_equal(n1->n_pods, 1);
    assert_int_equal(n1->requested.milli_cpu, 500);
    assert_int_equal(n1->nonzero_memory, 1000);
    pods[1]->node_name = "n2";
    assert_int_equal(cluster_add_pod(&c, pods[1]), 1);
    assert_int_equal(n2->n_pods, 1);
    assert_int_equal(n2->requested.milli_cpu, 250);
    cluster_free(&c);
    arena_destroy(&a);
}

static void cluster_should_sum_scalars_and_release_ports(void **state)
{
    struct arena a;
    struct kube_objects objs = { 0 };
    struct kube_node *nodes[1];
    struct kube_pod *pods[2];
    struct kube_scalar gpu = { "nvidia.com/gpu", 2 };
    struct cluster c;
    const struct node_info *ni;
    struct err e;
    bool found;

    (void)state;
    arena_init(&a, 0);
    nodes[0] = mk_node(&a, "n1");
    pods[0] = mk_pod(&a, "a", "n1", 0, 0);
    pods[1] = mk_pod(&a, "b", "n1", 0, 0);
    pods[0]->containers[0].requests.n_scalars = 1;
    pods[0]->containers[0].requests.scalars = &gpu;
    pods[1]->containers[0].requests.n_scalars = 1;
    pods[1]->containers[0].requests.scalars = &gpu;
    add_port(&a, pods[0], "TCP", "", 8080);
    add_port(&a, pods[1], "TCP", "", 8080);
    objs.n_nodes = 1;
    objs.nodes = nodes;
    objs.n_pods = 2;
    objs.pods = pods;
    assert_int_equal(cluster_build(&c, &objs, &e), 0);
    ni = cluster_node(&c, "n1");
    assert_int_equal(
        kube_resources_scalar(&ni->requested, "nvidia.com/gpu", &found), 4);
    assert_true(found);
    assert_int_equal(cluster_remove_pod(&c, pods[0]), 1);
    assert_int_equal(
        kube_resources_scalar(&ni->requested, "nvidia.com/gpu", &found), 2);
    /* One 8080 user is left; removing the second frees the port. */
    assert_true(node_info_port_conflict(ni, "", "", 8080));
    assert_int_equal(cluster_remove_pod(&c, pods[1]), 1);
    assert_false(node_info_port_conflict(ni, "", "", 8080));
    cluster_free(&c);
    arena_destroy(&a);
}

static void cluster_should_summarise_images_across_nodes(void **state)
{
    struct arena a;
    struct kube_objects objs = { 0 };
    struct kube_node *nodes[3];
    const char *names_a[] = { "nginx:1.21", "docker.io/library/nginx:1.21" };
    const char *names_b[] = { "nginx:1.21" };
    const char *names_c[] = { "redis:7" };
    struct kube_container_image img_a = { 2, names_a, 1000 };
    struct kube_container_image img_b = { 1, names_b, 2000 };
    struct kube_container_image img_c = { 1, names_c, 3000 };
    struct cluster c;
    const struct image_state *st;
    struct err e;

    (void)state;
    arena_init(&a, 0);
    nodes[0] = mk_node(&a, "n1");
    nodes[1] = mk_node(&a, "n2");
    nodes[2] = mk_node(&a, "n3");
    nodes[0]->n_images = 1;
    nodes[0]->images = &img_a;
    nodes[1]->n_images = 1;
    nodes[1]->images = &img_b;
    nodes[2]->n_images = 1;
    nodes[2]->images = &img_c;
    objs.n_nodes = 3;
    objs.nodes = nodes;
    assert_int_equal(cluster_build(&c, &objs, &e), 0);
    st = cluster_image(&c, "nginx:1.21");
    assert_non_null(st);
    assert_true(node_info_has_image(cluster_node(&c, "n1"), st));
    assert_true(node_info_has_image(cluster_node(&c, "n2"), st));
    assert_false(node_info_has_image(cluster_node(&c, "n3"), st));
    assert_int_equal(st->num_nodes, 2);
    assert_int_equal(st->size, 1000); /* the first reporter's size */
    st = cluster_image(&c, "docker.io/library/nginx:1.21");
    assert_true(node_info_has_image(cluster_node(&c, "n1"), st));
    assert_int_equal(st->num_nodes, 1);
    assert_null(cluster_image(&c, "nginx:latest"));
    assert_false(node_info_has_image(cluster_node(&c, "n3"), NULL));
    assert_int_equal(c.n_images, 3);
    cluster_free(&c);
    arena_destroy(&a);
}

static void cluster_should_refuse_duplicate_node_names(void **state)
{
    struct arena a;
    struct kube_objects objs = { 0 };
    struct kube_node *nodes[2];
    struct cluster c;
    struct err e;

    (void)state;
    arena_init(&a, 0);
    nodes[0] = mk_node(&a, "n1");
    nodes[1] = mk_node(&a, "n1");
    objs.n_nodes = 2;
    objs.nodes = nodes;
    assert_int_equal(cluster_build(&c, &objs, &e), -1);
    assert_string_equal(e.msg, "duplicate node \"n1\"");
    arena_destroy(&a);
}

static void view_should_drop_victims_on_one_node_only(void **state)
{
    struct arena a, scratch;
    struct kube_objects objs = { 0 };
    struct kube_node *nodes[2];
    struct kube_pod *pods[3];
    const char *victims[] = { "b", "c" };
    struct cluster c, view;
    const struct node_info *orig, *v;
    struct err e;

    (void)state;
    arena_init(&a, 0);
    arena_init(&scratch, 0);
    nodes[0] = mk_node(&a, "n1");
    nodes[1] = mk_node(&a, "n2");
    pods[0] = mk_pod(&a, "a", "n1", 100, 10);
    pods[1] = mk_pod(&a, "b", "n1", 200, 20);
    pods[2] = mk_pod(&a, "c", "n2", 400, 40); /* a victim, but elsewhere */
    add_port(&a, pods[1], "TCP", "", 80);
    objs.n_nodes = 2;
    objs.nodes = nodes;
    objs.n_pods = 3;
    objs.pods = pods;
    assert_int_equal(cluster_build(&c, &objs, &e), 0);
    assert_int_equal(
        cluster_view_without_pods(&scratch, &c, "n1", victims, 2, &view), 1);
    v = cluster_node(&view, "n1");
    assert_int_equal(v->n_pods, 1);
    assert_int_equal(v->requested.milli_cpu, 100);
    assert_int_equal(v->nonzero_memory, 10);
    assert_false(node_info_port_conflict(v, "", "", 80));
    /* The other node and the original snapshot are untouched. */
    assert_int_equal(cluster_node(&view, "n2")->n_pods, 1);
    orig = cluster_node(&c, "n1");
    assert_int_equal(orig->n_pods, 2);
    assert_int_equal(orig->requested.milli_cpu, 300);
    assert_true(node_info_port_conflict(orig, "", "", 80));
    assert_int_equal(view.n_pods, 2);
    assert_int_equal(
        cluster_view_without_pods(&scratch, &c, "n9", victims, 2, &view), 0);
    arena_destroy(&scratch);
    cluster_free(&c);
    arena_destroy(&a);
}

/* The cluster's count of pods with required anti-affinity terms (what
 * lets InterPodAffinity's PreFilter skip its walk over the nodes when
 * there are none) follows pods, nodes and views: always the nodes' sum. */
static size_t anti_sum(const struct cluster *c)
{
    size_t i, n = 0;

    for (i = 0; i < c->n_nodes; i++)
        n += c->nodes[i].n_anti_affinity_pods;
    return n;
}

static void cluster_should_count_anti_affinity_pods(void **state)
{
    struct arena a, scratch;
    struct kube_objects objs = { 0 };
    struct kube_node *nodes[2];
    struct kube_pod *pods[3];
    struct kube_pod_affinity_term *t;
    const char *drop_a[] = { "a" }, *drop_b[] = { "b" };
    struct cluster c, view;
    struct err e;

    (void)state;
    arena_init(&a, 0);
    arena_init(&scratch, 0);
    nodes[0] = mk_node(&a, "n1");
    nodes[1] = mk_node(&a, "n2");
    pods[0] = mk_pod(&a, "a", "n1", 100, 10);
    pods[1] = mk_pod(&a, "b", "n1", 100, 10);
    pods[2] = mk_pod(&a, "c", "n2", 100, 10);
    t = arena_calloc(&a, 1, sizeof(*t));
    t->topology_key = "kubernetes.io/hostname";
    pods[0]->affinity.pod_anti_affinity.n_required = 1;
    pods[0]->affinity.pod_anti_affinity.required = t;
    pods[2]->affinity.pod_anti_affinity.n_required = 1;
    pods[2]->affinity.pod_anti_affinity.required = t;
    objs.n_nodes = 2;
    objs.nodes = nodes;
    objs.n_pods = 3;
    objs.pods = pods;
    assert_int_equal(cluster_build(&c, &objs, &e), 0);
    assert_int_equal(c.n_anti_affinity_pods, 2);
    assert_int_equal(anti_sum(&c), 2);
    /* A view without a: one left there; without b: still two. */
    assert_int_equal(
        cluster_view_without_pods(&scratch, &c, "n1", drop_a, 1, &view), 1);
    assert_int_equal(view.n_anti_affinity_pods, 1);
    assert_int_equal(anti_sum(&view), 1);
    assert_int_equal(
        cluster_view_without_pods(&scratch, &c, "n1", drop_b, 1, &view), 1);
    assert_int_equal(view.n_anti_affinity_pods, 2);
    assert_int_equal(anti_sum(&view), 2);
    /* The snapshot itself is untouched by views. */
    assert_int_equal(c.n_anti_affinity_pods, 2);
    /* Removing and adding pods, then a node with its pods. */
    assert_int_equal(cluster_remove_pod(&c, pods[0]), 1);
    assert_int_equal(c.n_anti_affinity_pods, 1);
    assert_int_equal(cluster_remove_pod(&c, pods[1]), 1);
    assert_int_equal(c.n_anti_affinity_pods, 1);
    assert_int_equal(cluster_add_pod(&c, pods[0]), 1);
    assert_int_equal(c.n_anti_affinity_pods, 2);
    assert_int_equal(anti_sum(&c), 2);
    assert_int_equal(cluster_remove_node(&c, "n2"), 1);
    assert_int_equal(c.n_anti_affinity_pods, 1);
    assert_int_equal(anti_sum(&c), 1);
    arena_destroy(&scratch);
    cluster_free(&c);
    arena_destroy(&a);
}

/* A node with n labels "k0".."k(n-1)" = "v0".., sorted as decoded. */
static struct kube_node *labelled_node(struct arena *a, const char *name,
                                       size_t n)
{
    struct kube_node *node = mk_node(a, name);
    size_t i;

    node->labels.items = arena_calloc(a, n ? n : 1, sizeof(struct kube_label));
    node->labels.n = n;
    for (i = 0; i < n; i++) {
        node->labels.items[i].key = arena_sprintf(a, "k%zu", i);
        node->labels.items[i].value = arena_sprintf(a, "v%zu", i);
    }
    kube_labels_normalize(&node->labels);
    return node;
}

/*
 * node_info_label answers as kube_labels_get does, for every present key
 * and many absent ones, however many labels the node has, through the
 * cluster, a view, and a node_info whose label_keys were never computed.
 */
static void node_info_label_should_answer_as_the_labels_do(void **state)
{
    static const size_t sizes[] = { 0, 1, 5, 20, 60 };
    struct arena a;
    size_t s, i, k;

    (void)state;
    arena_init(&a, 0);
    for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        struct kube_node *nodes[1] = { labelled_node(&a, "n1", sizes[s]) };
        struct kube_objects objs = { 0 };
        struct cluster c, view;
        struct cluster_view_change ch = { 0 };
        struct node_info raw = { 0 };
        const struct node_info *in[3];

        objs.n_nodes = 1;
        objs.nodes = nodes;
        assert_int_equal(cluster_build(&c, &objs, &(struct err){ "" }), 0);
        assert_int_equal(cluster_view_begin(&a, &c, &view), 0);
        assert_int_equal(cluster_view_set_node(&a, &c, &view, 0, &ch), 0);
        raw.node = nodes[0]; /* label_keys 0: not computed */
        in[0] = cluster_node(&c, "n1");
        in[1] = cluster_node(&view, "n1");
        in[2] = &raw;
        assert_int_equal(in[0]->label_keys != 0, sizes[s] != 0);
        for (i = 0; i < 3; i++) {
            for (k = 0; k < 200; k++) {
                /* k0..k59 may be present; the rest never are. */
                const char *key = arena_sprintf(&a, "k%zu", k);
                const char *want = kube_labels_get(&nodes[0]->labels, key);
                const char *got = node_info_label(in[i], key);

                if (want)
                    assert_string_equal(got, want);
                else
                    assert_null(got);
            }
        }
        assert_null(node_info_label(in[0], NULL));
        cluster_free(&c);
    }
    assert_null(node_info_label(NULL, "k0"));
    arena_destroy(&a);
}

/*
 * The bits answer most absent keys without the labels: a node_info with
 * the bits of a 5-label node but pointing at a node that carries every
 * key returns NULL only for what the bits alone ruled out.
 */
static void node_info_label_should_rule_out_most_absent_keys(void **state)
{
    struct arena a;
    struct node_info ni = { 0 };
    size_t k, ruled_out = 0;

    (void)state;
    arena_init(&a, 0);
    node_info_set_node(&ni, labelled_node(&a, "five", 5));
    ni.node = labelled_node(&a, "every", 200);
    for (k = 0; k < 5; k++)
        assert_non_null(node_info_label(&ni, arena_sprintf(&a, "k%zu", k)));
    for (k = 5; k < 200; k++)
        if (!node_info_label(&ni, arena_sprintf(&a, "k%zu", k)))
            ruled_out++;
    /* Two bits of 64 per key, 5 keys set: about 3% false positives. */
    assert_true(ruled_out >= 170);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cluster_should_detect_host_port_conflicts),
        cmocka_unit_test(cluster_should_account_active_pods_on_known_nodes),
        cmocka_unit_test(cluster_should_sum_scalars_and_release_ports),
        cmocka_unit_test(cluster_should_summarise_images_across_nodes),
        cmocka_unit_test(cluster_should_refuse_duplicate_node_names),
        cmocka_unit_test(view_should_drop_victims_on_one_node_only),
        cmocka_unit_test(cluster_should_count_anti_affinity_pods),
        cmocka_unit_test(node_info_label_should_answer_as_the_labels_do),
        cmocka_unit_test(node_info_label_should_rule_out_most_absent_keys),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
