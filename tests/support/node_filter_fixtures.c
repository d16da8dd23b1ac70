/*
 * node_filter_fixtures.c: table runner for node-level filter plugin tests.
 */
#include "tests/support/node_filter_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kube/base/arena.h"
#include "tests/support/pred_fixtures.h"

/* A copy of s from a with every ' turned into ". */
static const char *dequote(struct arena *a, const char *s)
{
    char *d = arena_strdup(a, s);

    assert_non_null(d);
    for (char *p = d; *p; p++)
        if (*p == '\'')
            *p = '"';
    return d;
}

int p1_run_case(const char *plugin, const void *args, const struct p1_case *c)
{
    struct arena a;
    struct fx_cluster fc;
    struct pred_result r;
    struct kube_node *node;
    struct kube_pod *pod;
    enum pred_code got;
    const char *reasons;
    const char *want = c->reasons ? c->reasons : "";
    int bad = 0;

    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    node = fx_node(&a, dequote(&a, c->node));
    fx_cluster_add_node(&fc, node);
    for (size_t i = 0; i < P1_MAX_EXISTING && c->existing[i]; i++) {
        struct kube_pod *e = fx_pod(&a, dequote(&a, c->existing[i]));

        e->node_name = node->name;
        fx_cluster_add_pod(&fc, e);
    }
    fx_cluster_build(&fc);
    pod = fx_pod(&a, dequote(&a, c->pod));
    got = fx_run_filter(plugin, args, NULL, pod, &fc.c, node->name, &a, &r);
    reasons = fx_reasons(&a, &r);
    if (got != c->want) {
        print_error("%s \"%s\": code %d, want %d (reasons \"%s\")\n", plugin,
                    c->name, (int)got, (int)c->want, reasons);
        bad = 1;
    } else if (strcmp(reasons, want)) {
        print_error("%s \"%s\": reasons \"%s\", want \"%s\"\n", plugin, c->name,
                    reasons, want);
        bad = 1;
    }
    fx_cluster_free(&fc);
    arena_destroy(&a);
    return bad;
}

int p1_run_cases(const char *plugin, const void *args,
                 const struct p1_case *cases, size_t n)
{
    int failed = 0;

    for (size_t i = 0; i < n; i++)
        failed += p1_run_case(plugin, args, &cases[i]);
    return failed;
}
