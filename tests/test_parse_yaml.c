/*
 * test_parse_yaml.c: cluster snapshots and pods in YAML load into the same
 * objects as their JSON: the real kubectl's `-o yaml` and `-o json` of one
 * v1.20.2 cluster (tests/data/kubectl/, made by regen.sh there), every JSON
 * fixture read as YAML (JSON is YAML), --- streams, lists whose kind comes
 * after their items, and errors that say where.
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

#include "kube/parse/parse.h"
#include "kube/cluster/snapshot_file.h"
#include "tests/support/parse_fixtures.h"

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

static void pod_line(struct text *t, const struct kube_pod *p)
{
    size_t i;

    put(t, "\npod %s/%s uid=%s node=%s labels=%zu phase=%s tol=%zu prio=%d",
        p->namespace, p->name, p->uid ? p->uid : "-", p->node_name, p->labels.n,
        p->phase, p->n_tolerations, (int)p->priority);
    for (i = 0; i < p->n_containers; i++)
        put(t, " c=%s cpu=%lld mem=%lld ports=%zu", p->containers[i].name,
            (long long)p->containers[i].requests.milli_cpu,
            (long long)p->containers[i].requests.memory,
            p->containers[i].n_ports);
}

/* Enough of every object to tell two decodes apart. */
static void dump(const struct kube_objects *o, struct text *t)
{
    size_t i, k;

    put(t, "skipped=%zu services=%zu", o->n_skipped, o->n_services);
    for (i = 0; i < o->n_services; i++)
        put(t, " svc=%s", o->services[i]->name);
    for (i = 0; i < o->n_pods; i++)
        pod_line(t, o->pods[i]);
    for (i = 0; i < o->n_nodes; i++) {
        const struct kube_node *n = o->nodes[i];

        put(t, "\nnode %s labels=%zu taints=%zu unsched=%d cpu=%lld mem=%lld",
            n->name, n->labels.n, n->n_taints, n->unschedulable,
            (long long)n->allocatable.milli_cpu,
            (long long)n->allocatable.memory);
        for (k = 0; k < n->n_taints; k++)
            put(t, " taint=%s:%s", n->taints[k].key, n->taints[k].value);
    }
}

typedef int loader_fn(struct arena *a, const char *text, size_t len,
                      struct kube_objects *objs, struct err *e);

/* Load text with fn; the dump, or "error: <msg>" (malloc'd). */
static char *load(loader_fn *fn, const char *text, size_t len)
{
    struct kube_objects o;
    struct text t = { 0 };
    struct arena a;
    struct err e;

    memset(&o, 0, sizeof(o));
    arena_init(&a, 0);
    if (fn(&a, text, len, &o, &e) < 0)
        put(&t, "error: %s", e.msg);
    else
        dump(&o, &t);
    arena_destroy(&a);
    return t.s;
}

static char *load_path(const char *path)
{
    struct kube_objects o;
    struct text t = { 0 };
    struct arena a;
    struct err e;

    memset(&o, 0, sizeof(o));
    arena_init(&a, 0);
    if (kube_snapshot_load_files(&a, &path, 1, &o, &e) < 0)
        put(&t, "error: %s", e.msg);
    else
        dump(&o, &t);
    arena_destroy(&a);
    return t.s;
}

/* kubectl's YAML and JSON of the same cluster are the same objects. */
static void kubectl_yaml_should_load_as_its_json(void **state)
{
    char *y = load_path("tests/data/kubectl/cluster.yaml");
    char *j = load_path("tests/data/kubectl/cluster.json");

    (void)state;
    if (strncmp(j, "skipped=0 services=2", 20) || !strstr(j, "node rdma-1"))
        fail_msg("the JSON fixture does not load as expected: %s", j);
    if (strcmp(y, j))
        fail_msg("YAML:\n%s\nJSON:\n%s", y, j);
    free(y);
    free(j);
}

/* `kubectl get node X -o yaml` and pods joined with --- are a stream. */
static void a_stream_of_documents_should_load_each(void **state)
{
    char *s = load_path("tests/data/kubectl/stream.yaml");
    char *n = load_path("tests/data/kubectl/nodes.yaml");

    (void)state;
    if (!strstr(s, "services=0") || !strstr(s, "pod default/web-1") ||
        !strstr(s, "pod default/db-1") || !strstr(s, "node cordoned-1"))
        fail_msg("stream: %s", s);
    /* The stream's nodes are nodes.yaml's (a List of the same nodes). */
    if (!strstr(n, "node rdma-1") || !strstr(s, "\nnode") ||
        strcmp(strstr(s, "\nnode"), strstr(n, "\nnode")))
        fail_msg("stream nodes:\n%s\nnodes.yaml:\n%s", s, n);
    free(s);
    free(n);
}

static void kubectl_pod_yaml_should_be_its_json(void **state)
{
    struct arena a;
    struct kube_pod py, pj;
    struct text ty = { 0 }, tj = { 0 };
    struct err e;
    size_t ly, lj;
    char *y = tparse_read_file("tests/data/kubectl/pod.yaml", &ly);
    char *j = tparse_read_file("tests/data/kubectl/pod.json", &lj);

    (void)state;
    arena_init(&a, 0);
    if (kube_parse_pod_text(&a, y, ly, &py, &e) < 0)
        fail_msg("pod.yaml: %s", e.msg);
    if (kube_parse_pod_text(&a, j, lj, &pj, &e) < 0)
        fail_msg("pod.json: %s", e.msg);
    pod_line(&ty, &py);
    pod_line(&tj, &pj);
    assert_string_equal(ty.s, tj.s);
    assert_non_null(strstr(ty.s, "pod default/pending"));
    assert_non_null(strstr(ty.s, "cpu=3000"));
    /* A cluster file is not a pod. */
    free(y);
    y = tparse_read_file("tests/data/kubectl/nodes.yaml", &ly);
    assert_int_equal(kube_parse_pod_text(&a, y, ly, &py, &e), -1);
    assert_string_equal(e.msg, "kind: expected \"Pod\", got \"List\"");
    arena_destroy(&a);
    free(ty.s);
    free(tj.s);
    free(y);
    free(j);
}

/* JSON is YAML: every JSON fixture loads alike through either reader. */
static void json_fixtures_should_load_alike_as_yaml(void **state)
{
    static const char *const paths[] = {
        "tests/data/podlist.json", /* a PodList, kind after kind-less items */
        "tests/data/objects_list.json",
        "deploy/demo/cluster.json",
        "tests/data/kubectl/cluster.json",
    };
    size_t i, len;

    (void)state;
    for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        char *text = tparse_read_file(paths[i], &len);
        char *j = load(kube_parse_document, text, len);
        char *y = load(kube_parse_yaml, text, len);

        if (!strncmp(j, "error", 5) || strcmp(j, y))
            fail_msg("%s:\nJSON: %s\nYAML: %s", paths[i], j, y);
        free(j);
        free(y);
        free(text);
    }
}

struct dcase {
    const char *name;
    const char *yaml;
    const char *json; /* the same document in JSON, or NULL */
    const char *want; /* a substring of the dump, or "error: <exact>" */
};

static const struct dcase doc_cases[] = {
    { "a NodeList whose kind comes after kind-less items",
      "apiVersion: v1\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n"
      "kind: NodeList\n",
      "{\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":\"a\"}},"
      "{\"metadata\":{\"name\":\"b\"}}],\"kind\":\"NodeList\"}",
      "\nnode a labels=0 taints=0 unsched=0 cpu=0 mem=0\nnode b" },
    { "not a list after all: its items do not count",
      "items:\n- {kind: Node, metadata: {name: a}}\nkind: ConfigMap\n",
      "{\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}}],"
      "\"kind\":\"ConfigMap\"}",
      "skipped=1 services=0" },
    { "a second document whose kind comes after kind-less items",
      "kind: Node\nmetadata: {name: x}\n---\nitems:\n- metadata: {name: a}\n"
      "- metadata: {name: b}\nkind: NodeList\n",
      NULL,
      "\nnode x labels=0 taints=0 unsched=0 cpu=0 mem=0\nnode a "
      "labels=0 taints=0 unsched=0 cpu=0 mem=0\nnode b" },
    { "empty documents are skipped",
      "---\n---\nkind: Node\nmetadata: "
      "{name: a}\n---\n",
      NULL, "\nnode a" },
    { "an item that fails names its line",
      "kind: List\nitems:\n- kind: Node\n  metadata: {name: a}\n"
      "- kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n"
      "    - name: c\n      resources: {requests: {cpu: 1.5.3}}\n",
      NULL,
      "error: line 5, column 3: items[1].spec.containers[0].resources."
      "requests.cpu: invalid quantity \"1.5.3\"" },
    { "a kind error after a decode error: the kind error and its line",
      "kind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n  spec:\n"
      "    containers: 5\n- kind: 7\n",
      "{\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"name\":"
      "\"p\"},\"spec\":{\"containers\":5}},{\"kind\":7}]}",
      "error: line 7, column 3: items[1].kind: expected a string, got "
      "number" },
    { "a later document's error names the document",
      "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: "
      "[x]}\n",
      NULL,
      "error: document 2 (line 4): metadata.name: expected a string, got "
      "array" },
    { "a syntax error in a later document",
      "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: "
      "a\n",
      NULL,
      "error: invalid YAML at line 6, column 1: did not find expected ',' "
      "or '}' (while parsing a flow mapping at line 5, column 11)" },
    { "a list's item of a kind we do not model is counted",
      "kind: List\nitems:\n- {kind: ConfigMap, metadata: {name: x}}\n", NULL,
      "skipped=1" },
    { "a scalar document", "hello\n", NULL,
      "error: expected a mapping at the top level, got string \"hello\"" },
    { "a sequence document", "- a\n", NULL,
      "error: expected a mapping at the top level, got array" },
};

/* "error: line 7, column 3: X" as the JSON reader says it: "error: X". */
static const char *without_line(char *msg)
{
    char *p = msg, *colon;

    if (strncmp(p, "error: line ", 12))
        return msg;
    colon = strstr(p + 12, ": ");
    if (!colon)
        return msg;
    memmove(p + 7, colon + 2, strlen(colon + 2) + 1);
    return msg;
}

static void documents_should_load_as_their_json(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(doc_cases) / sizeof(doc_cases[0]); i++) {
        const struct dcase *c = &doc_cases[i];
        char *y = load(kube_parse_yaml, c->yaml, strlen(c->yaml));
        char *j = c->json ? load(kube_parse_document, c->json, strlen(c->json))
                          : NULL;
        bool ok = !strncmp(c->want, "error: ", 7) ? !strcmp(y, c->want)
                                                  : !!strstr(y, c->want);

        if (!ok || (j && strcmp(j, without_line(y)))) {
            print_error("%s:\n  YAML %s\n  JSON %s\n  want %s\n", c->name, y,
                        j ? j : "-", c->want);
            bad++;
        }
        free(y);
        free(j);
    }
    if (bad)
        fail_msg("%d case(s) failed", bad);
}

/* From a file, the second pass rewinds it and finds its document. */
static void a_file_should_be_read_again_for_late_kinds(void **state)
{
    char path[] = "/tmp/kpe-yaml-XXXXXX";
    int fd = mkstemp(path);
    char *got;
    FILE *f;

    (void)state;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("kind: Node\nmetadata: {name: x}\n---\nkind: Namespace\n"
          "metadata: {name: ns}\n---\nitems:\n- metadata: {name: a}\n"
          "- metadata: {name: b}\nkind: NodeList\n",
          f);
    fclose(f);
    got = load_path(path);
    if (!strstr(got, "\nnode x labels=0 taints=0 unsched=0 cpu=0 mem=0\nnode "
                     "a labels=0 taints=0 unsched=0 cpu=0 mem=0\nnode b"))
        fail_msg("%s", got);
    free(got);
    unlink(path);
}

/* File type by content: an INI or a text file is named as such. */
static void other_formats_should_be_named(void **state)
{
    char path[] = "/tmp/kpe-yaml-XXXXXX";
    int fd = mkstemp(path);
    char *got;
    FILE *f;

    (void)state;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("[policy]\npredicates = none\n", f);
    fclose(f);
    got = load_path(path);
    if (!strstr(got, "looks like INI; expected Kubernetes objects in JSON "
                     "or YAML"))
        fail_msg("%s", got);
    free(got);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("just some words\n", f);
    fclose(f);
    got = load_path(path);
    if (!strstr(got, "line 1: \"just some words\" looks like plain text"))
        fail_msg("%s", got);
    free(got);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kubectl_yaml_should_load_as_its_json),
        cmocka_unit_test(a_stream_of_documents_should_load_each),
        cmocka_unit_test(kubectl_pod_yaml_should_be_its_json),
        cmocka_unit_test(json_fixtures_should_load_alike_as_yaml),
        cmocka_unit_test(documents_should_load_as_their_json),
        cmocka_unit_test(a_file_should_be_read_again_for_late_kinds),
        cmocka_unit_test(other_formats_should_be_named),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
