/*
 * test_cache.c: the live cache: incremental pod and node accounting
 * (a pod moving nodes, orphans waiting for their node, nodes leaving and
 * returning), equality with a snapshot built from the final objects after
 * a scripted sequence, relists that drop what was not listed, the synced
 * flag, compact copies, and readers running while events are applied.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/client/cache.h"
#include "kube/base/json_parse.h"
#include "kube/parse/parse.h"
#include "tests/support/fake_http.h"

/* ---- building events ---- */

static void apply_one(struct kube_cache *c, enum kube_kind k,
                      enum kube_event_type t, const char *json)
{
    struct arena a;
    cJSON *root = NULL;
    struct err e = { "" };
    struct kube_watch_event ev;

    arena_init(&a, 0);
    if (json_arena_parse(&a, json, strlen(json), 0, &root, &e) < 0)
        fail_msg("bad test JSON: %s: %s", e.msg, json);
    ev.type = t;
    ev.object = root;
    if (kube_cache_apply(c, k, &ev, 1, &e) < 0)
        fail_msg("apply: %s", e.msg);
    arena_destroy(&a);
}

/* A pod JSON (static buffer rotation: valid for a few calls). */
static const char *pod_json(const char *name, const char *node, const char *cpu,
                            const char *phase, const char *extra_spec)
{
    static char bufs[4][2048];
    static int next;
    char *b = bufs[next++ & 3];

    snprintf(b, sizeof(bufs[0]),
             "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\","
             "\"uid\":\"uid-%s\",\"labels\":{\"app\":\"%s\"},"
             "\"annotations\":{\"big\":\"dropped\"}},"
             "\"spec\":{%s%s%s\"containers\":[{\"name\":\"c\",\"image\":"
             "\"img\",\"resources\":{\"requests\":{\"cpu\":\"%s\","
             "\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"4\"}},"
             "\"ports\":[{\"containerPort\":80,\"hostPort\":8080}]}]%s},"
             "\"status\":{\"phase\":\"%s\"}}",
             name, name, name, node ? "\"nodeName\":\"" : "", node ? node : "",
             node ? "\"," : "", cpu, extra_spec ? extra_spec : "", phase);
    return b;
}

static const char *node_json(const char *name, const char *images)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ & 3];

    snprintf(b, sizeof(bufs[0]),
             "{\"metadata\":{\"name\":\"%s\",\"labels\":{\"zone\":\"z1\"},"
             "\"annotations\":{\"x\":\"y\",\"" KUBE_ANNOTATION_PREFER_AVOID_PODS
             "\":\"{}\"}},"
             "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\","
             "\"pods\":\"110\"},\"addresses\":[{\"type\":\"InternalIP\","
             "\"address\":\"10.0.0.1\"}],\"images\":[%s]}}",
             name, images);
    return b;
}

#define IMG(n, size) "{\"names\":[\"" n "\"],\"sizeBytes\":" #size "}"

static const struct node_info *node(const struct cluster *c, const char *name)
{
    const struct node_info *ni = cluster_node(c, name);

    if (!ni)
        fail_msg("no node %s", name);
    return ni;
}

static void pod_should_move_between_nodes_sums(void **state)
{
    struct err e = { "" };
    struct kube_cache *c = kube_cache_new(0, &e);
    const struct cluster *cl;

    (void)state;
    assert_non_null(c);
    apply_one(c, KUBE_KIND_NODE, KUBE_EVENT_ADDED, node_json("n1", ""));
    apply_one(c, KUBE_KIND_NODE, KUBE_EVENT_ADDED, node_json("n2", ""));
    apply_one(c, KUBE_KIND_POD, KUBE_EVENT_ADDED,
              pod_json("p", "n1", "500m", "Running", NULL));
    cl = kube_cache_read_lock(c);
    assert_int_equal(node(cl, "n1")->requested.milli_cpu, 500);
    assert_int_equal(node(cl, "n1")->n_ports, 1);
    assert_int_equal(node(cl, "n2")->requested.milli_cpu, 0);
    kube_cache_read_unlock(c);

    apply_one(c, KUBE_KIND_POD, KUBE_EVENT_MODIFIED,
              pod_json("p", "n2", "700m", "Running", NULL));
    cl = kube_cache_read_lock(c);
    assert_int_equal(node(cl, "n1")->requested.milli_cpu, 0);
    assert_int_equal(node(cl, "n1")->requested.memory, 0);
    assert_int_equal(node(cl, "n1")->n_pods, 0);
    assert_int_equal(node(cl, "n1")->n_ports, 0);
    assert_int_equal(node(cl, "n2")->requested.milli_cpu, 700);
    assert_int_equal(node(cl, "n2")->requested.memory, 1LL << 30);
    assert_int_equal(node(cl, "n2")->n_pods, 1);
    assert_int_equal(cl->n_pods, 1);
    assert_int_equal(cl->objs->n_pods, 1);
    kube_cache_read_unlock(c);

    apply_one(c, KUBE_KIND_POD, KUBE_EVENT_DELETED,
              pod_json("p", "n2", "700m", "Running", NULL));
    cl = kube_cache_read_lock(c);
    assert_int_equal(node(cl, "n2")->requested.milli_cpu, 0);
    assert_int_equal(cl->n_pods, 0);
    assert_int_equal(cl->objs->n_pods, 0);
    kube_cache_read_unlock(c);
    kube_cache_free(c);
}

/* ---- a scripted sequence against a snapshot of its final state ---- */

struct step {
    enum kube_kind kind;
    enum kube_event_type type;
    const char *key; /* for the final-state map */
    const char *json;
};

#define ANTI                                                                   \
    ",\"affinity\":{\"podAntiAffinity\":{"                                     \
    "\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":"  \
    "{\"matchLabels\":{\"app\":\"x\"}},\"topologyKey\":\"zone\"}]}}"
/* Preferred affinity and anti-affinity, one term each (scoring entries). */
#define PREF                                                                   \
    ",\"affinity\":{\"podAffinity\":{"                                         \
    "\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":5,"      \
    "\"podAffinityTerm\":{\"labelSelector\":{\"matchLabels\":{\"app\":"        \
    "\"x\"}},\"topologyKey\":\"zone\"}}]},\"podAntiAffinity\":{"               \
    "\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":7,"      \
    "\"podAffinityTerm\":{\"labelSelector\":{\"matchLabels\":{\"app\":"        \
    "\"y\"}},\"topologyKey\":\"zone\"}}]}}"
#define SVC(n)                                                                 \
    "{\"metadata\":{\"name\":\"" n "\",\"namespace\":\"default\"},"            \
    "\"spec\":{\"selector\":{\"app\":\"p1\"}}}"

/* Final objects: key -> latest JSON, "" once deleted. */
struct final {
    const char *key[64];
    char json[64][2048];
    enum kube_kind kind[64];
    size_t n;
};

static void final_set(struct final *f, const struct step *s)
{
    size_t i;

    for (i = 0; i < f->n && strcmp(f->key[i], s->key); i++)
        ;
    if (i == f->n) {
        f->key[f->n++] = s->key;
    }
    f->kind[i] = s->kind;
    snprintf(f->json[i], sizeof(f->json[i]), "%s",
             s->type == KUBE_EVENT_DELETED ? "" : s->json);
}

static const char *const kind_names[] = {
    [KUBE_KIND_POD] = "Pod",
    [KUBE_KIND_NODE] = "Node",
    [KUBE_KIND_SERVICE] = "Service",
    [KUBE_KIND_NAMESPACE] = "Namespace",
};

/* Build the snapshot the file loader would from the final objects. */
static void final_build(const struct final *f, struct arena *a,
                        struct kube_objects *objs, struct cluster *out)
{
    size_t i, len = 0, cap = 65536;
    char *doc = malloc(cap);
    struct err e = { "" };

    assert_non_null(doc);
    len += (size_t)snprintf(doc, cap, "{\"kind\":\"List\",\"items\":[");
    for (i = 0; i < f->n; i++) {
        if (!f->json[i][0])
            continue;
        /* Insert "kind" as the first member. */
        len += (size_t)snprintf(doc + len, cap - len, "%s{\"kind\":\"%s\",%s",
                                doc[len - 1] == '[' ? "" : ",",
                                kind_names[f->kind[i]], f->json[i] + 1);
    }
    snprintf(doc + len, cap - len, "]}");
    memset(objs, 0, sizeof(*objs));
    if (kube_parse_document(a, doc, strlen(doc), objs, &e) < 0 ||
        cluster_build(out, objs, &e) < 0)
        fail_msg("final snapshot: %s", e.msg);
    free(doc);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The pod names on a node, sorted and joined. */
static void pod_names(const struct node_info *ni, char *out, size_t sz)
{
    const char *names[64];
    size_t i, len = 0;

    assert_true(ni->n_pods <= 64);
    for (i = 0; i < ni->n_pods; i++)
        names[i] = ni->pods[i]->name;
    qsort(names, ni->n_pods, sizeof(names[0]), cmp_str);
    out[0] = '\0';
    for (i = 0; i < ni->n_pods; i++)
        len += (size_t)snprintf(out + len, sz - len, "%s,", names[i]);
}

/* The image state for name on node ni of cluster c, or NULL. */
static const struct image_state *
image_on(const struct cluster *c, const struct node_info *ni, const char *name)
{
    const struct image_state *st = cluster_image(c, name);

    return node_info_has_image(ni, st) ? st : NULL;
}

static void expect_same_node(const struct cluster *gc, const struct cluster *wc,
                             const struct node_info *got,
                             const struct node_info *want)
{
    char g[512], w[512];
    size_t i;

    pod_names(got, g, sizeof(g));
    pod_names(want, w, sizeof(w));
    if (strcmp(g, w))
        fail_msg("node %s: pods %s, want %s", want->node->name, g, w);
    assert_int_equal(got->requested.milli_cpu, want->requested.milli_cpu);
    assert_int_equal(got->requested.memory, want->requested.memory);
    assert_int_equal(got->requested.ephemeral_storage,
                     want->requested.ephemeral_storage);
    assert_int_equal(got->nonzero_milli_cpu, want->nonzero_milli_cpu);
    assert_int_equal(got->nonzero_memory, want->nonzero_memory);
    assert_int_equal(got->n_ports, want->n_ports);
    assert_int_equal(got->n_affinity_pods, want->n_affinity_pods);
    assert_int_equal(got->n_anti_affinity_pods, want->n_anti_affinity_pods);
    assert_int_equal(got->n_aff_entries, want->n_aff_entries);
    for (i = 0; i < want->n_aff_entries; i++) {
        const struct aff_entry *ge = &got->aff_entries[i];
        const struct aff_entry *we = &want->aff_entries[i];

        assert_string_equal(ge->pod->name, we->pod->name);
        assert_int_equal(ge->kind, we->kind);
        assert_int_equal(ge->weight, we->weight);
        assert_int_equal(term_index_get(&gc->terms, ge->term)->hash,
                         term_index_get(&wc->terms, we->term)->hash);
    }
    assert_int_equal(got->n_images, want->n_images);
    for (i = 0; i < want->n_images; i++) {
        const struct image_state *gs = image_on(gc, got, want->images[i]->name);

        if (!gs)
            fail_msg("node %s: no image %s", want->node->name,
                     want->images[i]->name);
        assert_int_equal(gs->num_nodes, want->images[i]->num_nodes);
        assert_int_equal(gs->size, want->images[i]->size);
    }
}

/* References held on interned terms, and entries that hold them. */
static size_t term_refs(const struct cluster *c)
{
    size_t n = 0;
    uint32_t i;

    for (i = 0; i < c->terms.n_ids; i++) {
        if (term_index_get(&c->terms, i)->term)
            n += term_index_get(&c->terms, i)->refs;
    }
    return n;
}

static size_t entries(const struct cluster *c)
{
    size_t n = 0, i;

    for (i = 0; i < c->n_nodes; i++)
        n += c->nodes[i].n_aff_entries;
    return n;
}

/* A copy that lives until keep_free (pod_json's buffers rotate). */
static char *kept[64];
static size_t n_kept;

static const char *keep(const char *s)
{
    assert_true(n_kept < 64);
    kept[n_kept] = strdup(s);
    assert_non_null(kept[n_kept]);
    return kept[n_kept++];
}

static void keep_free(void)
{
    while (n_kept)
        free(kept[--n_kept]);
}

static void cache_should_equal_the_final_state_after_a_script(void **state)
{
    struct step steps[40];
    size_t n = 0, i;
    struct final *f = calloc(1, sizeof(*f));
    struct err e = { "" };
    struct kube_cache *c = kube_cache_new(0, &e);
    const struct cluster *cl;
    struct arena a;
    struct kube_objects objs;
    struct cluster want;

    (void)state;
    assert_non_null(f);
    /* A pod arrives before its node. */
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_ADDED, "p1",
                       keep(pod_json("p1", "n1", "100m", "Running", NULL)) };
    steps[n++] =
        (struct step){ KUBE_KIND_NODE, KUBE_EVENT_ADDED, "n1",
                       keep(node_json("n1", IMG("a", 10) "," IMG("b", 20))) };
    steps[n++] = (struct step){ KUBE_KIND_NODE, KUBE_EVENT_ADDED, "n2",
                                keep(node_json("n2", IMG("b", 25))) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_ADDED, "p2",
                       keep(pod_json("p2", "n2", "200m", "Running", NULL)) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_ADDED, "p3",
                       keep(pod_json("p3", "n2", "300m", "Succeeded", NULL)) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_MODIFIED, "p1",
                       keep(pod_json("p1", "n2", "150m", "Running", NULL)) };
    steps[n++] = (struct step){ KUBE_KIND_NODE, KUBE_EVENT_MODIFIED, "n1",
                                keep(node_json("n1", IMG("c", 30))) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_ADDED, "p4",
                       keep(pod_json("p4", "n3", "400m", "Running", NULL)) };
    steps[n++] = (struct step){ KUBE_KIND_NODE, KUBE_EVENT_DELETED, "n2",
                                keep(node_json("n2", IMG("b", 25))) };
    steps[n++] = (struct step){ KUBE_KIND_NODE, KUBE_EVENT_ADDED, "n3",
                                keep(node_json("n3", IMG("c", 35))) };
    steps[n++] = (struct step){ KUBE_KIND_NODE, KUBE_EVENT_ADDED, "n2",
                                keep(node_json("n2", IMG("b", 25))) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_DELETED, "p2",
                       keep(pod_json("p2", "n2", "200m", "Running", NULL)) };
    steps[n++] = (struct step){ KUBE_KIND_SERVICE, KUBE_EVENT_ADDED, "s1",
                                keep(SVC("s1")) };
    steps[n++] = (struct step){ KUBE_KIND_NAMESPACE, KUBE_EVENT_ADDED, "ns1",
                                keep("{\"metadata\":{\"name\":\"ns1\"}}") };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_MODIFIED, "p3",
                       keep(pod_json("p3", "n2", "300m", "Running", NULL)) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_ADDED, "p5",
                       keep(pod_json("p5", NULL, "1", "Pending", NULL)) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_ADDED, "p6",
                       keep(pod_json("p6", "n3", "50m", "Running", ANTI)) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_DELETED, "ghost",
                       keep(pod_json("ghost", "n3", "1", "Running", NULL)) };
    /* Scoring terms: p7 and p8 share theirs; p7 moves, p9 goes, and p8's
     * node leaves (its terms are released with the node). */
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_ADDED, "p7",
                       keep(pod_json("p7", "n1", "10m", "Running", PREF)) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_ADDED, "p8",
                       keep(pod_json("p8", "n2", "10m", "Running", PREF)) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_ADDED, "p9",
                       keep(pod_json("p9", "n3", "10m", "Running", PREF)) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_MODIFIED, "p7",
                       keep(pod_json("p7", "n3", "10m", "Running", PREF)) };
    steps[n++] =
        (struct step){ KUBE_KIND_POD, KUBE_EVENT_DELETED, "p9",
                       keep(pod_json("p9", "n3", "10m", "Running", PREF)) };
    steps[n++] = (struct step){ KUBE_KIND_NODE, KUBE_EVENT_DELETED, "n2",
                                keep(node_json("n2", IMG("b", 25))) };
    steps[n++] = (struct step){ KUBE_KIND_NODE, KUBE_EVENT_ADDED, "n2",
                                keep(node_json("n2", IMG("b", 25))) };
    steps[n++] = (struct step){ KUBE_KIND_SERVICE, KUBE_EVENT_DELETED, "s1",
                                keep(SVC("s1")) };
    steps[n++] = (struct step){ KUBE_KIND_SERVICE, KUBE_EVENT_ADDED, "s2",
                                keep(SVC("s2")) };

    for (i = 0; i < n; i++) {
        apply_one(c, steps[i].kind, steps[i].type, steps[i].json);
        final_set(f, &steps[i]);
        if (i == 8) { /* n2 just left: p1 and p2 wait as orphans */
            cl = kube_cache_read_lock(c);
            assert_int_equal(cl->n_orphan_pods, 3); /* and p4 (n3) */
            assert_null(cluster_node(cl, "n2"));
            kube_cache_read_unlock(c);
        }
    }
    arena_init(&a, 0);
    final_build(f, &a, &objs, &want);
    cl = kube_cache_read_lock(c);
    assert_int_equal(cl->n_nodes, want.n_nodes);
    assert_int_equal(cl->n_pods, want.n_pods);
    assert_int_equal(cl->n_orphan_pods, want.n_orphan_pods);
    assert_int_equal(cl->objs->n_pods, objs.n_pods);
    assert_int_equal(cl->objs->n_nodes, objs.n_nodes);
    assert_int_equal(cl->objs->n_services, 1);
    assert_string_equal(cl->objs->services[0]->name, "s2");
    assert_non_null(cluster_namespace(cl, "ns1"));
    for (i = 0; i < want.n_nodes; i++)
        expect_same_node(cl, &want, node(cl, want.nodes[i].node->name),
                         &want.nodes[i]);
    /* Terms of pods gone or moved were released, not leaked. */
    assert_int_equal(term_index_size(&cl->terms), term_index_size(&want.terms));
    assert_int_equal(term_index_size(&cl->terms), 2);
    assert_int_equal(term_refs(cl), entries(cl));
    /* p7 on n3 and p8 on n2, two each; p6's required anti-affinity term
     * on n3 (the filter's), whose content is their affinity term's: the
     * same id, so still 2 terms. */
    assert_int_equal(entries(cl), 5);
    /* Image b: only n2 now; c: n1 and n3, sized by the first reporter. */
    assert_int_equal(image_on(cl, node(cl, "n2"), "b")->num_nodes, 1);
    assert_int_equal(image_on(cl, node(cl, "n1"), "c")->num_nodes, 2);
    assert_null(image_on(cl, node(cl, "n1"), "a"));
    kube_cache_read_unlock(c);
    cluster_free(&want);
    arena_destroy(&a);
    kube_cache_free(c);
    free(f);
    keep_free();
}

static void relist_should_drop_what_was_not_listed(void **state)
{
    struct err e = { "" };
    unsigned kinds =
        KUBE_KIND_BIT(KUBE_KIND_NODE) | KUBE_KIND_BIT(KUBE_KIND_POD);
    struct kube_cache *c = kube_cache_new(kinds, &e);
    const struct cluster *cl;

    (void)state;
    kube_cache_list_begin(c, KUBE_KIND_NODE);
    apply_one(c, KUBE_KIND_NODE, KUBE_EVENT_ADDED, node_json("n1", ""));
    apply_one(c, KUBE_KIND_NODE, KUBE_EVENT_ADDED, node_json("n2", ""));
    kube_cache_list_end(c, KUBE_KIND_NODE);
    assert_false(kube_cache_synced(c));
    kube_cache_list_begin(c, KUBE_KIND_POD);
    apply_one(c, KUBE_KIND_POD, KUBE_EVENT_ADDED,
              pod_json("p1", "n1", "1", "Running", NULL));
    apply_one(c, KUBE_KIND_POD, KUBE_EVENT_ADDED,
              pod_json("p2", "n2", "1", "Running", NULL));
    kube_cache_list_end(c, KUBE_KIND_POD);
    assert_true(kube_cache_synced(c));

    /* A relist after 410: n1 is gone, p2 is gone. */
    kube_cache_list_begin(c, KUBE_KIND_NODE);
    apply_one(c, KUBE_KIND_NODE, KUBE_EVENT_ADDED, node_json("n2", ""));
    kube_cache_list_end(c, KUBE_KIND_NODE);
    kube_cache_list_begin(c, KUBE_KIND_POD);
    apply_one(c, KUBE_KIND_POD, KUBE_EVENT_ADDED,
              pod_json("p1", "n1", "1", "Running", NULL));
    kube_cache_list_end(c, KUBE_KIND_POD);
    cl = kube_cache_read_lock(c);
    assert_int_equal(cl->n_nodes, 1);
    assert_null(cluster_node(cl, "n1"));
    assert_int_equal(node(cl, "n2")->n_pods, 0);
    assert_int_equal(cl->objs->n_pods, 1);
    assert_int_equal(cl->n_orphan_pods, 1); /* p1 waits for n1 */
    kube_cache_read_unlock(c);
    assert_true(kube_cache_synced(c));
    kube_cache_free(c);
}

static void bad_object_should_be_skipped_and_reported(void **state)
{
    struct err e = { "" };
    struct kube_cache *c = kube_cache_new(0, &e);
    struct arena a;
    cJSON *good = NULL, *bad = NULL;
    struct kube_watch_event ev[2];
    const char *g = node_json("n1", "");
    const char *b = "{\"metadata\":{\"name\":\"n2\"},\"spec\":{\"taints\":5}}";
    struct kube_cache_stats st;

    (void)state;
    arena_init(&a, 0);
    assert_int_equal(json_arena_parse(&a, g, strlen(g), 0, &good, &e), 0);
    assert_int_equal(json_arena_parse(&a, b, strlen(b), 0, &bad, &e), 0);
    ev[0] = (struct kube_watch_event){ KUBE_EVENT_ADDED, bad };
    ev[1] = (struct kube_watch_event){ KUBE_EVENT_ADDED, good };
    assert_int_equal(kube_cache_apply(c, KUBE_KIND_NODE, ev, 2, &e), -1);
    assert_string_equal(e.msg, "object skipped: event 0: spec.taints: "
                               "expected an array, got number");
    kube_cache_stats(c, &st);
    assert_int_equal(st.objects[KUBE_KIND_NODE], 1);
    ev[1] = ev[0];
    assert_int_equal(kube_cache_apply(c, KUBE_KIND_NODE, ev, 2, &e), -1);
    assert_string_equal(e.msg, "2 objects skipped, the first: event 0: "
                               "spec.taints: expected an array, got number");
    arena_destroy(&a);
    kube_cache_free(c);
}

static void compact_pod_should_keep_what_predicates_read(void **state)
{
    const char *json = pod_json("p", "n1", "250m", "Running", ANTI);
    struct arena a;
    struct kube_pod src, *p;
    struct err e = { "" };
    size_t size = 0;

    (void)state;
    arena_init(&a, 0);
    assert_int_equal(kube_parse_pod(&a, json, strlen(json), &src, &e), 0);
    p = kube_pod_compact(&src, a.total, &size);
    assert_non_null(p);
    assert_true(size > sizeof(*p));
    assert_string_equal(p->name, "p");
    assert_string_equal(p->namespace, "default");
    assert_string_equal(p->uid, "uid-p");
    assert_string_equal(p->node_name, "n1");
    assert_string_equal(p->phase, "Running");
    assert_int_equal(p->labels.n, 1);
    assert_string_equal(p->labels.items[0].value, "p");
    assert_int_equal(p->containers[0].requests.milli_cpu, 250);
    assert_int_equal(p->containers[0].ports[0].host_port, 8080);
    assert_string_equal(p->containers[0].ports[0].protocol, "TCP");
    assert_int_equal(p->affinity.pod_anti_affinity.n_required, 1);
    assert_string_equal(
        p->affinity.pod_anti_affinity.required[0].selector->reqs[0].key, "app");
    /* Dropped. */
    assert_int_equal(p->annotations.n, 0);
    assert_null(p->containers[0].image);
    assert_int_equal(p->containers[0].limits.has, 0);
    /* The copy stands alone. */
    arena_destroy(&a);
    assert_string_equal(p->affinity.pod_anti_affinity.required[0].topology_key,
                        "zone");
    free(p);
}

static void
compact_node_should_keep_only_the_avoid_pods_annotation(void **state)
{
    const char *json = node_json("n1", IMG("a", 10));
    struct arena a;
    struct kube_node src, *n;
    struct err e = { "" };
    size_t size;

    (void)state;
    arena_init(&a, 0);
    assert_int_equal(kube_parse_node(&a, json, strlen(json), &src, &e), 0);
    assert_int_equal(src.annotations.n, 2);
    n = kube_node_compact(&src, a.total, &size);
    arena_destroy(&a);
    assert_non_null(n);
    assert_int_equal(n->annotations.n, 1);
    assert_string_equal(n->annotations.items[0].key,
                        KUBE_ANNOTATION_PREFER_AVOID_PODS);
    assert_int_equal(n->n_addresses, 0);
    assert_int_equal(n->allocatable.milli_cpu, 4000);
    assert_string_equal(n->images[0].names[0], "a");
    assert_string_equal(n->labels.items[0].key, "zone");
    free(n);
}

/* ---- readers while the writer applies ---- */

struct reader_arg {
    struct kube_cache *c;
    atomic_int stop;
    atomic_int bad;
    atomic_long reads;
};

static void *reader(void *arg)
{
    struct reader_arg *r = arg;

    while (!atomic_load(&r->stop)) {
        const struct cluster *cl = kube_cache_read_lock(r->c);
        size_t i, pods = 0;
        int64_t cpu = 0;

        for (i = 0; i < cl->n_nodes; i++) {
            pods += cl->nodes[i].n_pods;
            cpu += cl->nodes[i].requested.milli_cpu;
        }
        /* Every pod requests 10m: sums and counts must agree. */
        if (pods != cl->n_pods || cpu != (int64_t)pods * 10)
            atomic_fetch_add(&r->bad, 1);
        kube_cache_read_unlock(r->c);
        atomic_fetch_add(&r->reads, 1);
    }
    return NULL;
}

static void readers_should_see_consistent_states(void **state)
{
    struct err e = { "" };
    struct reader_arg r = { 0 };
    pthread_t th[2];
    char name[32], node_name[32];
    int i;

    (void)state;
    r.c = kube_cache_new(0, &e);
    for (i = 0; i < 4; i++) {
        snprintf(node_name, sizeof(node_name), "n%d", i);
        apply_one(r.c, KUBE_KIND_NODE, KUBE_EVENT_ADDED,
                  node_json(node_name, ""));
    }
    pthread_create(&th[0], NULL, reader, &r);
    pthread_create(&th[1], NULL, reader, &r);
    /* On a loaded machine the readers may not run before the writes end:
     * let them start first, so the reads overlap the writes. */
    while (atomic_load(&r.reads) == 0)
        sched_yield();
    for (i = 0; i < 400; i++) {
        snprintf(name, sizeof(name), "p%d", i % 50);
        snprintf(node_name, sizeof(node_name), "n%d", i % 4);
        apply_one(r.c, KUBE_KIND_POD,
                  i % 7 == 6 ? KUBE_EVENT_DELETED : KUBE_EVENT_ADDED,
                  pod_json(name, node_name, "10m", "Running", NULL));
    }
    atomic_store(&r.stop, 1);
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    assert_int_equal(atomic_load(&r.bad), 0);
    kube_cache_free(r.c);
}

/* ---- fed by real informers ---- */

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

static void quiet(void *arg, int level, const char *msg)
{
    (void)arg;
    (void)level;
    (void)msg;
}

static void cache_should_sync_from_informers_and_follow_watches(void **state)
{
    char nodes[2048], pods[4096], watch[4096];
    struct fh_response script[4];
    struct fake_http *fh;
    struct kube_conn conn = { 0 };
    struct kube_informer_opts o = { 0 };
    struct kube_informers_status st;
    struct err e = { "" };
    struct kube_client *cl;
    struct kube_cache *c;
    const struct cluster *snap;
    int i;
    int64_t cpu = 0;

    (void)state;
    snprintf(nodes, sizeof(nodes),
             "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[%s]}",
             node_json("n1", ""));
    snprintf(pods, sizeof(pods),
             "{\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[%s]}",
             pod_json("p1", "n1", "100m", "Running", NULL));
    snprintf(watch, sizeof(watch), "{\"type\":\"MODIFIED\",\"object\":%s}\n",
             pod_json("p1", "n1", "300m", "Running", NULL));
    script[0] = (struct fh_response){
        "GET /api/v1/nodes?limit", 200, nodes, 0, 0, false, 0, false
    };
    script[1] = (struct fh_response){
        "GET /api/v1/pods?limit", 200, pods, 0, 0, false, 0, false
    };
    script[2] = (struct fh_response){
        "/api/v1/pods?allowWatchBookmarks", 200, watch, 0, 0, true, -1, false
    };
    script[3] = (struct fh_response){
        "/api/v1/nodes?allowWatchBookmarks", 200, "", 0, 0, true, -1, false
    };
    fh = fh_start(script, 4);
    conn.server = strdup(fh_url(fh));
    cl = kube_client_new(&conn, NULL, &e);
    c = kube_cache_new(
        KUBE_KIND_BIT(KUBE_KIND_NODE) | KUBE_KIND_BIT(KUBE_KIND_POD), &e);
    assert_non_null(cl);
    assert_non_null(c);
    assert_false(kube_cache_synced(c));
    o.jitter = -1;
    o.backoff_base = 0.05;
    o.log = quiet;
    assert_int_equal(kube_cache_start(c, cl, &o, &e), 0);
    for (i = 0; i < 500 && cpu != 300; i++) {
        sleep_ms(10);
        snap = kube_cache_read_lock(c);
        cpu = snap->n_nodes ? snap->nodes[0].requested.milli_cpu : 0;
        kube_cache_read_unlock(c);
    }
    assert_int_equal(cpu, 300);
    assert_true(kube_cache_synced(c));
    kube_cache_status(c, &st);
    assert_true(st.synced);
    assert_int_equal(st.lists, 2);
    kube_cache_free(c);
    kube_client_free(cl);
    fh_stop(fh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pod_should_move_between_nodes_sums),
        cmocka_unit_test(cache_should_equal_the_final_state_after_a_script),
        cmocka_unit_test(relist_should_drop_what_was_not_listed),
        cmocka_unit_test(bad_object_should_be_skipped_and_reported),
        cmocka_unit_test(compact_pod_should_keep_what_predicates_read),
        cmocka_unit_test(
            compact_node_should_keep_only_the_avoid_pods_annotation),
        cmocka_unit_test(readers_should_see_consistent_states),
        cmocka_unit_test(cache_should_sync_from_informers_and_follow_watches),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
