/*
 * test_term_index.c: interning of pod affinity terms
 * (kube/cluster/term_index.c) and the per-node scoring entries
 * kube/cluster/cluster.c keeps with it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cluster/cluster.h"
#include "kube/cluster/term_index.h"

/* A term "app In (value)" over topology key, optionally naming ns. */
struct term_fixture {
    const char *values[1];
    struct kube_requirement req;
    struct kube_label_selector sel;
    const char *nss[1];
    struct kube_pod_affinity_term term;
};

static void term_init(struct term_fixture *f, const char *value,
                      const char *key, const char *ns)
{
    memset(f, 0, sizeof(*f));
    f->values[0] = value;
    f->req.key = "app";
    f->req.op = KUBE_OP_IN;
    f->req.n_values = 1;
    f->req.values = f->values;
    f->sel.n_reqs = 1;
    f->sel.reqs = &f->req;
    f->term.selector = &f->sel;
    f->term.topology_key = key;
    if (ns) {
        f->nss[0] = ns;
        f->term.n_namespaces = 1;
        f->term.namespaces = f->nss;
    }
}

static uint32_t intern(struct term_index *x, const struct term_fixture *f,
                       const char *owner_ns)
{
    uint32_t id = UINT32_MAX;

    assert_int_equal(term_index_intern(x, &f->term, owner_ns, &id), 0);
    return id;
}

static void equal_terms_should_share_one_id(void **state)
{
    struct term_index x = { 0 };
    struct term_fixture a, b, c, d;
    uint32_t ia, ib;

    (void)state;
    term_init(&a, "web", "zone", NULL);
    term_init(&b, "web", "zone", NULL); /* another pod's equal copy */
    term_init(&c, "web", "hostname", NULL);
    term_init(&d, "db", "zone", NULL);
    ia = intern(&x, &a, "prod");
    ib = intern(&x, &b, "prod");
    assert_int_equal(ia, ib);
    assert_int_equal(term_index_get(&x, ia)->refs, 2);
    assert_int_not_equal(intern(&x, &c, "prod"), ia); /* topology key */
    assert_int_not_equal(intern(&x, &d, "prod"), ia); /* selector */
    assert_int_equal(term_index_size(&x), 3);
    /* The copy is the index's own. */
    assert_ptr_not_equal(term_index_get(&x, ia)->term, &a.term);
    assert_string_equal(
        term_index_get(&x, ia)->term->selector->reqs[0].values[0], "web");
    term_index_free(&x);
}

static void
owner_namespace_should_count_only_when_the_term_names_none(void **state)
{
    struct term_index x = { 0 };
    struct term_fixture own, listed;
    uint32_t p, q, r, s;

    (void)state;
    term_init(&own, "web", "zone", NULL);
    p = intern(&x, &own, "prod");
    q = intern(&x, &own, "dev");
    assert_int_not_equal(p, q); /* "its own namespace" differs */
    assert_string_equal(term_index_get(&x, p)->owner_ns, "prod");
    assert_string_equal(term_index_get(&x, q)->owner_ns, "dev");

    term_init(&listed, "web", "zone", "shared");
    r = intern(&x, &listed, "prod");
    s = intern(&x, &listed, "dev");
    assert_int_equal(r, s); /* the list decides; the owner does not */
    assert_null(term_index_get(&x, r)->owner_ns);
    term_index_free(&x);
}

static void last_release_should_free_the_term_and_reuse_its_id(void **state)
{
    struct term_index x = { 0 };
    struct term_fixture a, b;
    uint32_t ia, ib;

    (void)state;
    term_init(&a, "web", "zone", NULL);
    term_init(&b, "db", "zone", NULL);
    ia = intern(&x, &a, "ns");
    assert_int_equal(intern(&x, &a, "ns"), ia);
    term_index_release(&x, ia);
    assert_non_null(term_index_get(&x, ia)->term); /* one user left */
    term_index_release(&x, ia);
    assert_null(term_index_get(&x, ia)->term);
    assert_int_equal(term_index_size(&x), 0);
    ib = intern(&x, &b, "ns");
    assert_int_equal(ib, ia);
    assert_int_equal(x.n_ids, 1);
    term_index_free(&x);
}

/*
 * Many distinct terms released in a scattered order: every remaining one
 * must still be found (deletion keeps the probe runs intact).
 */
static void lookups_should_survive_scattered_releases(void **state)
{
    enum { N = 3000 };
    struct term_index x = { 0 };
    struct term_fixture *f = calloc(N, sizeof(*f));
    char(*names)[16] = calloc(N, sizeof(*names));
    uint32_t *ids = calloc(N, sizeof(*ids));
    bool *gone = calloc(N, sizeof(*gone));
    size_t i, k, step = 7;

    (void)state;
    assert_non_null(f);
    assert_non_null(names);
    assert_non_null(ids);
    assert_non_null(gone);
    for (i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "app-%zu", i);
        term_init(&f[i], names[i], "zone", NULL);
        ids[i] = intern(&x, &f[i], "ns");
    }
    assert_int_equal(term_index_size(&x), N);
    for (k = 0; k < N / 2; k++) {
        i = (k * step * 131) % N;
        while (gone[i])
            i = (i + 1) % N;
        term_index_release(&x, ids[i]);
        gone[i] = true;
        if (k % 97 == 0) {
            size_t j;

            for (j = 0; j < N; j++) {
                uint32_t id;

                if (gone[j])
                    continue;
                id = intern(&x, &f[j], "ns");
                if (id != ids[j])
                    fail_msg("after %zu releases: %s is id %u, want %u", k,
                             names[j], id, ids[j]);
                term_index_release(&x, id);
            }
        }
    }
    assert_int_equal(term_index_size(&x), N - N / 2);
    term_index_free(&x);
    free(gone);
    free(ids);
    free(names);
    free(f);
}

/* ---- the node entries ---- */

static struct kube_node *mk_node(struct arena *a, const char *name)
{
    struct kube_node *n = arena_calloc(a, 1, sizeof(*n));

    n->name = name;
    return n;
}

/* A pod on node with one preferred affinity term (weight w) for app=v,
 * and, when bad, a second unparsable one. */
static struct kube_pod *mk_pod(struct arena *a, const char *name,
                               const char *node, const char *v, int32_t w,
                               bool bad)
{
    struct kube_pod *p = arena_calloc(a, 1, sizeof(*p));
    struct kube_weighted_pod_affinity_term *t = arena_calloc(a, 2, sizeof(*t));
    struct term_fixture *f = arena_calloc(a, 2, sizeof(*f));

    p->name = name;
    p->namespace = "ns";
    p->uid = name;
    p->node_name = node;
    term_init(&f[0], v, "zone", NULL);
    t[0].weight = w;
    t[0].term = f[0].term;
    term_init(&f[1], v, "zone", NULL);
    f[1].sel.invalid = "bad operator";
    t[1].weight = w;
    t[1].term = f[1].term;
    p->affinity.pod_affinity.n_preferred = bad ? 2 : 1;
    p->affinity.pod_affinity.preferred = t;
    return p;
}

static void entries_should_follow_pods_and_drop_unparsable_lists(void **state)
{
    struct arena a;
    struct kube_objects objs = { 0 };
    struct kube_node *nodes[2];
    struct kube_pod *pods[3];
    struct cluster c, view;
    const struct node_info *n1;
    const char *victim = "p2";

    (void)state;
    arena_init(&a, 0);
    nodes[0] = mk_node(&a, "n1");
    nodes[1] = mk_node(&a, "n2");
    pods[0] = mk_pod(&a, "p1", "n1", "web", 3, false);
    pods[1] = mk_pod(&a, "p2", "n1", "web", 4, false);
    pods[2] = mk_pod(&a, "p3", "n2", "web", 5, true);
    objs.n_nodes = 2;
    objs.nodes = nodes;
    objs.n_pods = 3;
    objs.pods = pods;
    assert_int_equal(cluster_build(&c, &objs, &(struct err){ "" }), 0);
    n1 = cluster_node(&c, "n1");
    assert_int_equal(n1->n_aff_entries, 2);
    assert_int_equal(n1->aff_entries[0].weight, 3);
    assert_int_equal(n1->aff_entries[1].weight, 4);
    assert_int_equal(n1->aff_entries[0].kind, AFF_ENTRY_PREFERRED);
    assert_int_equal(n1->aff_entries[0].term, n1->aff_entries[1].term);
    /* p3's list has an unparsable term: v1.22 drops the list whole. */
    assert_int_equal(cluster_node(&c, "n2")->n_aff_entries, 0);
    assert_int_equal(term_index_size(&c.terms), 1);

    /* A preemption view without p2 shares ids and interns nothing. */
    assert_int_equal(cluster_view_without_pods(&a, &c, "n1", &victim, 1, &view),
                     1);
    assert_int_equal(cluster_node(&view, "n1")->n_aff_entries, 1);
    assert_ptr_equal(cluster_node(&view, "n1")->aff_entries[0].pod, pods[0]);
    assert_int_equal(term_index_get(&c.terms, n1->aff_entries[0].term)->refs,
                     2);

    assert_int_equal(cluster_remove_pod(&c, pods[0]), 1);
    assert_int_equal(n1->n_aff_entries, 1);
    assert_ptr_equal(n1->aff_entries[0].pod, pods[1]);
    assert_int_equal(cluster_remove_pod(&c, pods[1]), 1);
    assert_int_equal(term_index_size(&c.terms), 0);
    cluster_free(&c);
    arena_destroy(&a);
}

/* Required anti-affinity terms become entries too (InterPodAffinity's
 * filter reads them), after the pod's scoring ones; an unparsable
 * required list is dropped whole, as the filter drops it. */
static void required_anti_terms_should_be_entries(void **state)
{
    struct arena a;
    struct kube_objects objs = { 0 };
    struct kube_node *nodes[1];
    struct kube_pod *pods[2];
    struct term_fixture *f;
    struct cluster c;
    const struct node_info *n1;

    (void)state;
    arena_init(&a, 0);
    nodes[0] = mk_node(&a, "n1");
    pods[0] = mk_pod(&a, "p1", "n1", "web", 3, false);
    pods[1] = mk_pod(&a, "p2", "n1", "web", 4, false);
    f = arena_calloc(&a, 3, sizeof(*f));
    term_init(&f[0], "web", "hostname", NULL);
    term_init(&f[1], "db", "hostname", NULL);
    pods[0]->affinity.pod_anti_affinity.n_required = 2;
    pods[0]->affinity.pod_anti_affinity.required =
        arena_calloc(&a, 2, sizeof(struct kube_pod_affinity_term));
    pods[0]->affinity.pod_anti_affinity.required[0] = f[0].term;
    pods[0]->affinity.pod_anti_affinity.required[1] = f[1].term;
    term_init(&f[2], "web", "hostname", NULL);
    f[2].sel.invalid = "bad operator";
    pods[1]->affinity.pod_anti_affinity.n_required = 1;
    pods[1]->affinity.pod_anti_affinity.required = &f[2].term;
    objs.n_nodes = 1;
    objs.nodes = nodes;
    objs.n_pods = 2;
    objs.pods = pods;
    assert_int_equal(cluster_build(&c, &objs, &(struct err){ "" }), 0);
    n1 = cluster_node(&c, "n1");
    /* p1: its preferred term, then its two required anti ones; p2: only
     * its preferred term. */
    assert_int_equal(n1->n_aff_entries, 4);
    assert_int_equal(n1->aff_entries[0].kind, AFF_ENTRY_PREFERRED);
    assert_int_equal(n1->aff_entries[1].kind, AFF_ENTRY_REQUIRED_ANTI);
    assert_int_equal(n1->aff_entries[2].kind, AFF_ENTRY_REQUIRED_ANTI);
    assert_ptr_equal(n1->aff_entries[2].pod, pods[0]);
    assert_int_not_equal(n1->aff_entries[1].term, n1->aff_entries[2].term);
    assert_int_equal(n1->aff_entries[3].kind, AFF_ENTRY_PREFERRED);
    assert_ptr_equal(n1->aff_entries[3].pod, pods[1]);
    assert_string_equal(term_index_get(&c.terms, n1->aff_entries[2].term)
                            ->term->selector->reqs[0]
                            .values[0],
                        "db");
    assert_false(n1->entries_partial);
    assert_int_equal(cluster_remove_pod(&c, pods[0]), 1);
    assert_int_equal(n1->n_aff_entries, 1);
    cluster_free(&c);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equal_terms_should_share_one_id),
        cmocka_unit_test(required_anti_terms_should_be_entries),
        cmocka_unit_test(
            owner_namespace_should_count_only_when_the_term_names_none),
        cmocka_unit_test(last_release_should_free_the_term_and_reuse_its_id),
        cmocka_unit_test(lookups_should_survive_scattered_releases),
        cmocka_unit_test(entries_should_follow_pods_and_drop_unparsable_lists),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
