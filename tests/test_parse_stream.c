/*
 * test_parse_stream.c: kube_parse_document reads a top-level object one
 * list item at a time; kube_parse_document_tree parses the whole text into
 * one tree. Both must give equal objects or the same error on every input:
 * "kind" after "items", <Kind>List, duplicate keys, errors inside items
 * (absolute byte, line and column), every truncation, byte mutations, and
 * the order in which errors are reported.
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

/* One kind's array in struct kube_objects, for the summaries. */
static const struct {
    const char *label;
    size_t n_off, arr_off;
} arrays[] = {
#define ARR(label, n, arr)                                                     \
    {                                                                          \
        label, offsetof(struct kube_objects, n),                               \
            offsetof(struct kube_objects, arr)                                 \
    }
    ARR("pod", n_pods, pods),
    ARR("node", n_nodes, nodes),
    ARR("svc", n_services, services),
    ARR("rc", n_rcs, rcs),
    ARR("rs", n_replica_sets, replica_sets),
    ARR("sts", n_stateful_sets, stateful_sets),
    ARR("pv", n_pvs, pvs),
    ARR("pvc", n_pvcs, pvcs),
    ARR("sc", n_storage_classes, storage_classes),
    ARR("csinode", n_csi_nodes, csi_nodes),
    ARR("ns", n_namespaces, namespaces),
#undef ARR
};

#define N_ARRAYS (sizeof(arrays) / sizeof(arrays[0]))

struct text {
    char *s;
    size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->s ? t->s + t->len : NULL, t->cap - t->len, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (t->len + (size_t)n < t->cap)
            break;
        t->cap = 2 * (t->len + (size_t)n + 64);
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    t->len += (size_t)n;
}

/* Every object's kind and name (each struct starts with its name). */
static void brief(const struct kube_objects *o, struct text *t)
{
    size_t i, j, n;
    void **arr;
    const char *name;

    for (i = 0; i < N_ARRAYS; i++) {
        memcpy(&n, (const char *)o + arrays[i].n_off, sizeof(n));
        memcpy(&arr, (const char *)o + arrays[i].arr_off, sizeof(arr));
        for (j = 0; j < n; j++) {
            memcpy(&name, arr[j], sizeof(name));
            put(t, "%s%s/%s", t->len ? " " : "", arrays[i].label, name);
        }
    }
    if (o->n_skipped)
        put(t, "%sskipped %zu", t->len ? " " : "", o->n_skipped);
}

/* brief(), plus enough of each pod and node to tell decodes apart. */
static void detail(const struct kube_objects *o, struct text *t)
{
    size_t i;

    brief(o, t);
    for (i = 0; i < o->n_pods; i++) {
        const struct kube_pod *p = o->pods[i];

        put(t,
            "\npod %s/%s uid=%s node=%s labels=%zu containers=%zu "
            "phase=%s tolerations=%zu",
            p->namespace, p->name, p->uid ? p->uid : "-", p->node_name,
            p->labels.n, p->n_containers, p->phase, p->n_tolerations);
    }
    for (i = 0; i < o->n_nodes; i++) {
        const struct kube_node *n = o->nodes[i];

        put(t, "\nnode %s labels=%zu taints=%zu images=%zu unsched=%d", n->name,
            n->labels.n, n->n_taints, n->n_images, n->unschedulable);
    }
}

/* What one loader made of a text. */
struct outcome {
    int rc;
    struct err e;
    struct text objs; /* detail() when rc == 0 */
};

static void outcome_free(struct outcome *r)
{
    free(r->objs.s);
}

typedef int loader_fn(struct arena *a, const char *json, size_t len,
                      struct kube_objects *objs, struct err *e);

/* Load json (exactly len bytes, copied without a NUL after them). */
static void load(loader_fn *fn, const char *json, size_t len, struct outcome *r)
{
    char *copy = malloc(len ? len : 1);
    struct kube_objects o;
    struct arena a;

    assert_non_null(copy);
    memcpy(copy, json, len);
    memset(r, 0, sizeof(*r));
    memset(&o, 0, sizeof(o));
    arena_init(&a, 0);
    r->rc = fn(&a, copy, len, &o, &r->e);
    if (r->rc == 0)
        detail(&o, &r->objs);
    else
        r->objs.s = NULL;
    arena_destroy(&a);
    free(copy);
}

/*
 * Both loaders on the same text: equal verdicts, equal messages or equal
 * objects. On success *brief_out (when not NULL) gets the brief summary.
 * Returns the verdict.
 */
static int both(const char *name, const char *json, size_t len,
                struct err *e_out, struct text *brief_out)
{
    struct outcome s, t;
    int rc;

    load(kube_parse_document, json, len, &s);
    load(kube_parse_document_tree, json, len, &t);
    if (s.rc != t.rc)
        fail_msg("case %s: streamed rc %d (%s), tree rc %d (%s)", name, s.rc,
                 s.rc ? s.e.msg : "", t.rc, t.rc ? t.e.msg : "");
    if (s.rc != 0 && strcmp(s.e.msg, t.e.msg))
        fail_msg("case %s:\nstreamed: %s\n    tree: %s", name, s.e.msg,
                 t.e.msg);
    if (s.rc == 0 && strcmp(s.objs.s ? s.objs.s : "", t.objs.s ? t.objs.s : ""))
        fail_msg("case %s: objects differ\nstreamed: %s\n    tree: %s", name,
                 s.objs.s, t.objs.s);
    if (e_out)
        *e_out = s.e;
    if (brief_out && s.rc == 0) {
        /* The first line of detail() is the brief summary. */
        const char *nl = s.objs.s ? strchr(s.objs.s, '\n') : NULL;
        size_t n = s.objs.s ? (nl ? (size_t)(nl - s.objs.s) : s.objs.len) : 0;

        put(brief_out, "%.*s", (int)n, s.objs.s ? s.objs.s : "");
    }
    rc = s.rc;
    outcome_free(&s);
    outcome_free(&t);
    return rc;
}

#define POD(n)  "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"" n "\"}}"
#define NODE(n) "{\"kind\":\"Node\",\"metadata\":{\"name\":\"" n "\"}}"
#define BARE(n) "{\"metadata\":{\"name\":\"" n "\"}}"

struct doc_case {
    const char *name;
    const char *json;
    const char *want; /* brief summary on success, else the message */
    int rc;
};

static const struct doc_case doc_cases[] = {
    /* where "kind" is */
    { "List, kind first",
      "{\"kind\":\"List\",\"items\":[" POD("a") "," NODE("n") "]}",
      "pod/a node/n", 0 },
    { "List, kind after items",
      "{\"apiVersion\":\"v1\",\"items\":[" POD("a") "," NODE("n") "," POD(
          "b") "],\"kind\":\"List\",\"metadata\":{}}",
      "pod/a pod/b node/n", 0 },
    { "PodList, kind after kindless items",
      "{\"items\":[" BARE("a") "," BARE("b") "],\"kind\":\"PodList\"}",
      "pod/a pod/b", 0 },
    { "NodeList, kinded then kindless then kinded items, kind last",
      "{\"items\":[" POD("p1") "," BARE("n1") "," POD("p2") "," BARE(
          "n2") "],\"kind\":\"NodeList\"}",
      "pod/p1 pod/p2 node/n1 node/n2", 0 },
    { "PodList, kind first",
      "{\"kind\":\"PodList\",\"items\":[" BARE("a") "," NODE("n") "]}",
      "pod/a node/n", 0 },
    { "List, kind after a kindless item",
      "{\"items\":[" POD("a") "," BARE("b") "],\"kind\":\"List\"}",
      "items[1].kind: missing required field", -1 },
    { "no kind at all", "{\"items\":[" POD("a") "]}",
      "kind: missing required field", -1 },
    { "null kind after items", "{\"items\":[" POD("a") "],\"kind\":null}",
      "kind: missing required field", -1 },
    { "kind a number after items", "{\"items\":[1],\"kind\":7}",
      "kind: expected a string, got number", -1 },
    { "Pod with items, kind last",
      "{\"metadata\":{\"name\":\"p\"},\"items\":[" NODE(
          "n") ",3,\"x\"],\"kind\":\"Pod\"}",
      "pod/p", 0 },
    { "Pod with items, kind first",
      "{\"kind\":\"Pod\",\"items\":[1,[],{\"kind\":5}],\"metadata\":{"
      "\"name\":\"p\"}}",
      "pod/p", 0 },
    { "unknown kind with items, kind last",
      "{\"items\":[" POD("a") "],\"kind\":\"Event\"}", "skipped 1", 0 },
    { "unknown items skipped",
      "{\"items\":[{\"kind\":\"Event\"}," POD("a") ",{\"kind\":\"PodList\"}],"
                                                   "\"kind\":\"List\"}",
      "pod/a skipped 2", 0 },
    { "empty items", "{\"kind\":\"List\",\"items\":[]}", "", 0 },
    { "empty items, kind last", "{\"items\":[ ],\"kind\":\"List\"}", "", 0 },
    { "items null", "{\"items\":null,\"kind\":\"List\"}", "", 0 },

    /* duplicate keys: lookups see the first */
    { "duplicate items, both arrays",
      "{\"kind\":\"List\",\"items\":[" POD("a") "],\"items\":[" POD("b") "]}",
      "pod/a", 0 },
    { "duplicate items, first null",
      "{\"kind\":\"List\",\"items\":null,\"items\":[" POD("b") "]}", "", 0 },
    { "duplicate items, first an object",
      "{\"items\":{},\"items\":[" POD("b") "],\"kind\":\"List\"}",
      "items: expected an array, got object", -1 },
    { "duplicate items, second has a syntax error",
      "{\"kind\":\"List\",\"items\":[],\"items\":[tru]}",
      "invalid JSON at byte 35 (line 1, column 36): invalid literal near "
      "\"tru]}\"",
      -1 },
    { "duplicate kind, first wins",
      "{\"items\":[" POD("a") "],\"kind\":\"List\",\"kind\":\"Pod\"}", "pod/a",
      0 },
    { "duplicate kind, first null",
      "{\"kind\":null,\"items\":[" POD("a") "],\"kind\":\"List\"}",
      "kind: missing required field", -1 },
    { "duplicate kind, Pod before List",
      "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"items\":[" POD(
          "a") "],\"kind\":\"List\"}",
      "pod/p", 0 },
    { "key with an escaped NUL reads as items",
      "{\"kind\":\"List\",\"items\\u0000x\":[" POD("a") "],\"items\":[]}",
      "pod/a", 0 },

    /* items that are not objects */
    { "number item", "{\"kind\":\"List\",\"items\":[" POD("a") ",1]}",
      "items[1]: expected an object, got number", -1 },
    { "null item, kind last", "{\"items\":[null],\"kind\":\"PodList\"}",
      "items[0]: expected an object, got null", -1 },
    { "array item, kind last",
      "{\"items\":[" BARE("a") ",[]],\"kind\":"
                               "\"PodList\"}",
      "items[1]: expected an object, got array", -1 },
    { "string item", "{\"kind\":\"NodeList\",\"items\":[\"n\"]}",
      "items[0]: expected an object, got string \"n\"", -1 },
    { "item kind not a string", "{\"items\":[{\"kind\":[]}],\"kind\":\"List\"}",
      "items[0].kind: expected a string, got array", -1 },

    /* which error comes first */
    { "a bad kind in a later item beats a decode error",
      "{\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\"}," POD("b") ",7]}",
      "items[2]: expected an object, got number", -1 },
    { "a bad kind after deferral beats an earlier decode error",
      "{\"items\":[{\"kind\":\"Pod\"}," BARE("b") "],\"kind\":\"List\"}",
      "items[1].kind: missing required field", -1 },
    { "the first decode error wins",
      "{\"kind\":\"List\",\"items\":[" POD(
          "a") ",{\"kind\":\"Pod\","
               "\"metadata\":{}},{\"kind\":\"Node\"}]}",
      "items[1].metadata.name: missing required field", -1 },
    { "a decode error in a deferred item",
      "{\"items\":[" BARE("a") ",{\"metadata\":{\"name\":5}}],\"kind\":"
                               "\"PodList\"}",
      "items[1].metadata.name: expected a string, got number", -1 },
    { "a syntax error after a decode error",
      "{\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\"}],\"x\":[1,]}",
      "invalid JSON at byte 47 (line 1, column 48): trailing comma in "
      "array near \"]}\"",
      -1 },
    { "a kind error in a non-list is not an error",
      "{\"items\":[5],\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ns\"}}",
      "ns/ns", 0 },

    /* syntax, positions counted over the whole text */
    { "syntax error inside item 3",
      "{\n \"kind\": \"List\",\n \"items\": [\n  " POD("a") ",\n  " POD(
          "b") ",\n  " POD("c") ",\n  {\"kind\": \"Pod\", \"metadata\" "
                                "{}}\n ]\n}",
      "invalid JSON at byte 186 (line 7, column 30): expected ':' after "
      "object key near \"{}}\"",
      -1 },
    { "truncated inside an item",
      "{\"kind\":\"List\",\"items\":[" POD("a") ",{\"kind\":\"Po",
      "invalid JSON at byte 71 (line 1, column 72): unterminated string "
      "(no closing quote) near \"\\\"Po\"",
      -1 },
    { "truncated between items", "{\"kind\":\"List\",\"items\":[" POD("a") ",",
      "unexpected end of input at byte 63", -1 },
    { "truncated after items", "{\"kind\":\"List\",\"items\":[]",
      "unexpected end of input at byte 25", -1 },
    { "trailing garbage", "{\"kind\":\"List\",\"items\":[]} {}",
      "invalid JSON at byte 27 (line 1, column 28): trailing data after "
      "JSON value near \"{}\"",
      -1 },
    { "trailing comma in items",
      "{\"kind\":\"List\",\"items\":[" POD("a") ",]}",
      "invalid JSON at byte 63 (line 1, column 64): trailing comma in "
      "array near \"]}\"",
      -1 },
    { "trailing comma in the document", "{\"kind\":\"List\",}",
      "invalid JSON at byte 15 (line 1, column 16): trailing comma in "
      "object near \"}\"",
      -1 },
    { "missing comma between items", "{\"kind\":\"List\",\"items\":[{} {}]}",
      "invalid JSON at byte 27 (line 1, column 28): expected ',' or ']' "
      "after array element near \"{}]}\"",
      -1 },
    { "key not a string", "{\"kind\":\"List\",7:1}",
      "invalid JSON at byte 15 (line 1, column 16): expected string for "
      "object key near \"7:1}\"",
      -1 },
    { "empty object", " {} ", "kind: missing required field", -1 },
    { "open brace only", "{", "unexpected end of input at byte 1", -1 },
    { "top-level array", "[{\"kind\":\"Pod\"}]",
      "expected a JSON object at the top level, got array", -1 },
    { "blank", " \n", "empty document", -1 },
};

static void documents_should_load_alike_streamed_and_whole(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(doc_cases) / sizeof(doc_cases[0]); i++) {
        const struct doc_case *c = &doc_cases[i];
        struct text got = { 0 };
        struct err e;
        int rc = both(c->name, c->json, strlen(c->json), &e, &got);

        if (rc != c->rc)
            fail_msg("case %s: rc %d (%s), want %d", c->name, rc,
                     rc ? e.msg : "", c->rc);
        if (rc != 0 && strcmp(e.msg, c->want))
            fail_msg("case %s:\n got: %s\nwant: %s", c->name, e.msg, c->want);
        if (rc == 0 && strcmp(got.s ? got.s : "", c->want))
            fail_msg("case %s:\n got: %s\nwant: %s", c->name,
                     got.s ? got.s : "", c->want);
        free(got.s);
    }
}

/* The fixtures, as kubectl writes them ("kind" after "items"). */
static const char *const fixtures[] = {
    "tests/data/podlist.json",
    "tests/data/objects_list.json",
    "deploy/demo/cluster.json",
};

/* text with `"kind": "<kind>",` put first in its top-level object. */
static char *kind_first(const char *text, size_t len, const char *kind,
                        size_t *out_len)
{
    const char *brace = memchr(text, '{', len);
    size_t head, n;
    char *s;

    assert_non_null(brace);
    head = (size_t)(brace - text) + 1;
    n = len + strlen(kind) + 16;
    s = malloc(n);
    assert_non_null(s);
    *out_len = (size_t)snprintf(s, n, "%.*s\"kind\":\"%s\",%s", (int)head, text,
                                kind, text + head);
    return s;
}

static void fixtures_should_load_alike_in_either_key_order(void **state)
{
    static const char *const kinds[] = { "PodList", "List", "List" };
    size_t i, len, len2;

    (void)state;
    for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
        char *text = tparse_read_file(fixtures[i], &len);
        char *moved = kind_first(text, len, kinds[i], &len2);
        struct text a = { 0 }, b = { 0 };

        if (both(fixtures[i], text, len, NULL, &a) != 0)
            fail_msg("%s does not load", fixtures[i]);
        if (both(fixtures[i], moved, len2, NULL, &b) != 0)
            fail_msg("%s with kind first does not load", fixtures[i]);
        if (a.len < 10 || strcmp(a.s, b.s))
            fail_msg("%s: kind last gives %s, kind first %s", fixtures[i], a.s,
                     b.s);
        free(a.s);
        free(b.s);
        free(moved);
        free(text);
    }
}

static void every_truncation_should_fail_alike(void **state)
{
    size_t i, n, len, step;
    char name[128];
    char *text;

    (void)state;
    for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
        text = tparse_read_file(fixtures[i], &len);
        /* Every prefix of the small files, every 13th of the demo. */
        step = len > 50000 ? 13 : 1;
        for (n = 0; n < len; n += step) {
            snprintf(name, sizeof(name), "%s cut at %zu", fixtures[i], n);
            if (both(name, text, n, NULL, NULL) == 0 && n + 1 < len)
                fail_msg("case %s: a prefix loaded", name);
        }
        free(text);
    }
}

static void byte_mutations_should_fail_or_load_alike(void **state)
{
    static const char json[] =
        "{\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\","
        "\"labels\":{\"x\":\"1\"}},\"spec\":{\"nodeName\":\"n\"}},"
        "{\"metadata\":{\"name\":\"b\"}},{\"kind\":\"Node\",\"metadata\":"
        "{\"name\":\"n\"},\"spec\":{\"unschedulable\":true}}],\n"
        "\"kind\":\"PodList\",\"items\":[],\"metadata\":{}}";
    static const char subst[] = "{}[],:\"x0 \n\\";
    char buf[sizeof(json)], name[64];
    size_t i, j;

    (void)state;
    for (i = 0; i + 1 < sizeof(json); i++) {
        for (j = 0; j + 1 < sizeof(subst); j++) {
            memcpy(buf, json, sizeof(json));
            buf[i] = subst[j];
            snprintf(name, sizeof(name), "byte %zu set to '%c'", i, subst[j]);
            both(name, buf, sizeof(json) - 1, NULL, NULL);
        }
        /* Dropping the byte moves everything after it. */
        memcpy(buf, json, i);
        memcpy(buf + i, json + i + 1, sizeof(json) - i - 1);
        snprintf(name, sizeof(name), "byte %zu dropped", i);
        both(name, buf, sizeof(json) - 2, NULL, NULL);
    }
}

/* Enough items that every kind's array grows many times, in order. */
static void thousands_of_items_should_keep_their_order(void **state)
{
    struct text doc = { 0 }, got = { 0 };
    struct kube_objects o;
    struct arena a;
    struct err e;
    size_t i;

    (void)state;
    put(&doc, "{\"items\":[");
    for (i = 0; i < 3000; i++) {
        if (i % 3 == 2)
            put(&doc, "%s{\"kind\":\"Node\",\"metadata\":{\"name\":\"n%zu\"}}",
                i ? "," : "", i);
        else
            put(&doc, "%s{\"metadata\":{\"name\":\"p%zu\"}}", i ? "," : "", i);
    }
    put(&doc, "],\"kind\":\"PodList\"}");
    assert_int_equal(both("3000 items", doc.s, doc.len, NULL, &got), 0);
    arena_init(&a, 0);
    memset(&o, 0, sizeof(o));
    assert_int_equal(kube_parse_document(&a, doc.s, doc.len, &o, &e), 0);
    assert_int_equal(o.n_pods, 2000);
    assert_int_equal(o.n_nodes, 1000);
    for (i = 0; i < 3000; i++) {
        char want[32];

        snprintf(want, sizeof(want), "%c%zu", i % 3 == 2 ? 'n' : 'p', i);
        assert_string_equal(i % 3 == 2 ? o.nodes[i / 3]->name
                                       : o.pods[i / 3 * 2 + i % 3]->name,
                            want);
    }
    arena_destroy(&a);
    free(doc.s);
    free(got.s);
}

/* Documents accumulate; a failed one leaves the objects as they were. */
static void
documents_should_accumulate_and_failures_change_nothing(void **state)
{
    static const char *const docs[] = {
        "{\"kind\":\"List\",\"items\":[" POD("a") "," NODE("n1") "]}",
        "{\"items\":[" BARE("b") "," BARE("c") "],\"kind\":\"PodList\"}",
        "{\"items\":[" NODE("n2") "],\"kind\":\"List\"}",
        POD("d"),
    };
    static const char bad[] =
        "{\"items\":[" POD("x") "," POD("y") ",5],\"kind\":\"List\"}";
    struct kube_objects o, before;
    struct text got = { 0 };
    struct arena a;
    struct err e;
    size_t i;

    (void)state;
    arena_init(&a, 0);
    memset(&o, 0, sizeof(o));
    for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        if (kube_parse_document(&a, docs[i], strlen(docs[i]), &o, &e) < 0)
            fail_msg("document %zu: %s", i, e.msg);
    }
    brief(&o, &got);
    assert_string_equal(got.s, "pod/a pod/b pod/c pod/d node/n1 node/n2");
    before = o;
    assert_int_equal(kube_parse_document(&a, bad, strlen(bad), &o, &e), -1);
    assert_string_equal(e.msg, "items[2]: expected an object, got number");
    assert_memory_equal(&o, &before, sizeof(o));
    got.len = 0;
    brief(&o, &got);
    assert_string_equal(got.s, "pod/a pod/b pod/c pod/d node/n1 node/n2");
    arena_destroy(&a);
    free(got.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(documents_should_load_alike_streamed_and_whole),
        cmocka_unit_test(fixtures_should_load_alike_in_either_key_order),
        cmocka_unit_test(every_truncation_should_fail_alike),
        cmocka_unit_test(byte_mutations_should_fail_or_load_alike),
        cmocka_unit_test(thousands_of_items_should_keep_their_order),
        cmocka_unit_test(
            documents_should_accumulate_and_failures_change_nothing),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
