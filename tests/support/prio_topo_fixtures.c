/*
 * topo_fixtures.c: the spec builders of topo_fixtures.h.
 */
#include "tests/support/prio_topo_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#define TF_MAX_NODES 16

/* Copy the next ';'-separated entry of *s into buf; 0 when none is left. */
static int next_entry(const char **s, char *buf, size_t n)
{
    const char *end;
    size_t len;

    while (**s == ';')
        (*s)++;
    if (!**s)
        return 0;
    end = strchr(*s, ';');
    len = end ? (size_t)(end - *s) : strlen(*s);
    assert_true(len < n);
    memcpy(buf, *s, len);
    buf[len] = '\0';
    *s += len;
    return 1;
}

const char *ptf_labels_json(struct arena *a, const char *spec)
{
    char out[2048], item[256];
    const char *p = spec ? spec : "";
    size_t o = 0;

    out[o++] = '{';
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *eq;

        assert_true(len < sizeof(item));
        memcpy(item, p, len);
        item[len] = '\0';
        eq = strchr(item, '=');
        assert_non_null(eq);
        *eq = '\0';
        o += (size_t)snprintf(out + o, sizeof(out) - o, "%s\"%s\":\"%s\"",
                              o > 1 ? "," : "", item, eq + 1);
        assert_true(o < sizeof(out));
        p += len;
        if (*p == ',')
            p++;
    }
    out[o++] = '}';
    out[o] = '\0';
    return arena_strdup(a, out);
}

void ptf_add_nodes(struct fx_cluster *fc, const char *spec, const char **names,
                   size_t *n)
{
    char entry[1024];
    const char *s = spec ? spec : "";

    while (next_entry(&s, entry, sizeof(entry))) {
        char *colon = strchr(entry, ':');
        struct kube_node *node;

        if (entry[0] == '{') { /* a whole Node as JSON */
            node = fx_node(fc->a, arena_strdup(fc->a, entry));
            fx_cluster_add_node(fc, node);
            if (names)
                names[(*n)++] = node->name;
            continue;
        }
        if (colon)
            *colon = '\0';
        node = fx_node(
            fc->a, arena_sprintf(
                       fc->a,
                       "{\"metadata\":{\"name\":\"%s\","
                       "\"labels\":%s}}",
                       entry, ptf_labels_json(fc->a, colon ? colon + 1 : "")));
        fx_cluster_add_node(fc, node);
        if (names) {
            assert_true(*n < TF_MAX_NODES);
            names[(*n)++] = node->name;
        }
    }
}

void ptf_add_pods(struct fx_cluster *fc, const char *spec)
{
    char entry[1024];
    const char *s = spec ? spec : "";

    while (next_entry(&s, entry, sizeof(entry))) {
        char *colon = strchr(entry, ':');
        char *at = strchr(entry, '@');
        char *slash = strchr(entry, '/');
        const char *name = entry;
        const char *ns = "";
        int terminating = 0;

        assert_non_null(at);
        if (colon)
            *colon = '\0';
        *at = '\0';
        if (at[strlen(at + 1)] == '!') {
            at[strlen(at + 1)] = '\0';
            terminating = 1;
        }
        if (slash && slash < at) {
            *slash = '\0';
            ns = arena_sprintf(fc->a, "\"namespace\":\"%s\",", entry);
            name = slash + 1;
        }
        fx_cluster_add_pod(
            fc,
            fx_pod(fc->a,
                   arena_sprintf(
                       fc->a,
                       "{\"metadata\":{%s\"name\":\"%s\",\"labels\":%s%s},"
                       "\"spec\":{\"nodeName\":\"%s\"}}",
                       ns, name, ptf_labels_json(fc->a, colon ? colon + 1 : ""),
                       terminating ? ",\"deletionTimestamp\":"
                                     "\"2021-01-01T00:00:00Z\""
                                   : "",
                       at + 1)));
    }
}

void ptf_add_docs(struct fx_cluster *fc, const char *const *docs)
{
    size_t i;

    for (i = 0; docs && docs[i]; i++)
        fx_cluster_add(fc, docs[i]);
}

int ptf_run_case(const char *plugin, const void *args,
                 const struct ptf_case *tc)
{
    return ptf_run_case_as(KPE_SEM_DEFAULT, plugin, args, tc);
}

int ptf_run_case_as(enum kpe_semantics sem, const char *plugin,
                    const void *args, const struct ptf_case *tc)
{
    int bad = 0;
    const char *names[TF_MAX_NODES];
    int64_t got[TF_MAX_NODES];
    struct fx_cluster fc;
    struct arena a;
    struct err e;
    size_t n = 0, i;

    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    ptf_add_nodes(&fc, tc->nodes, names, &n);
    ptf_add_nodes(&fc, tc->failed, NULL, NULL);
    ptf_add_pods(&fc, tc->pods);
    ptf_add_docs(&fc, tc->docs);
    fx_cluster_build(&fc);
    if (fx_run_score_as(sem, plugin, args, fx_pod(&a, tc->pod), &fc.c, names, n,
                        &a, got, &e) < 0)
        fail_msg("%s: %s: error %s", plugin, tc->name, e.msg);
    for (i = 0; i < n; i++) {
        if (got[i] != tc->want[i]) {
            print_error("%s: %s (as %s): node %s scored %lld, want %lld\n",
                        plugin, tc->name, kpe_semantics_name(sem), names[i],
                        (long long)got[i], (long long)tc->want[i]);
            bad = 1;
        }
    }
    fx_cluster_free(&fc);
    arena_destroy(&a);
    return bad;
}
