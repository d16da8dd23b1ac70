/*
 * vol_fixtures.c: the table runner for the volume predicate tests.
 */
#include "tests/support/vol_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "policy/policy.h"
#include "tests/support/pred_fixtures.h"

/* A copy of s from a with every ' turned into ". */
static const char *dq(struct arena *a, const char *s)
{
    char *d = arena_strdup(a, s);
    char *p;

    assert_non_null(d);
    for (p = d; *p; p++) {
        if (*p == '\'')
            *p = '"';
    }
    return d;
}

void vf_run(const char *plugin, const struct vf_case *c,
            const char *const *extra)
{
    vf_run_as(KPE_SEM_DEFAULT, plugin, c, extra);
}

void vf_run_as(enum kpe_semantics sem, const char *plugin,
               const struct vf_case *c, const char *const *extra)
{
    struct policy policy;
    struct arena a;
    struct fx_cluster fc;
    struct pred_result r;
    struct kube_node *node;
    enum pred_code got;
    const char *reasons;
    size_t i;

    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    for (i = 0; extra && extra[i]; i++)
        fx_cluster_add(&fc, dq(&a, extra[i]));
    for (i = 0; i < VF_MAX_OBJS && c->objs[i]; i++)
        fx_cluster_add(&fc, dq(&a, c->objs[i]));
    node = fx_node(&a, dq(&a, c->node));
    fx_cluster_add_node(&fc, node);
    fx_cluster_build(&fc);
    memset(&policy, 0, sizeof(policy));
    policy.semantics = sem;
    got = fx_run_filter(plugin, NULL, &policy, fx_pod(&a, dq(&a, c->pod)),
                        &fc.c, node->name, &a, &r);
    reasons = fx_reasons(&a, &r);
    if (got != c->want)
        fail_msg("%s \"%s\": code %d, want %d (reasons \"%s\")", plugin,
                 c->name, got, c->want, reasons);
    if (strcmp(reasons, c->want_reasons ? c->want_reasons : ""))
        fail_msg("%s \"%s\": reasons \"%s\", want \"%s\"", plugin, c->name,
                 reasons, c->want_reasons ? c->want_reasons : "");
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

void vf_run_table(const char *plugin, const struct vf_case *cases, size_t n,
                  const char *const *extra)
{
    size_t i;

    for (i = 0; i < n; i++)
        vf_run(plugin, &cases[i], extra);
}
