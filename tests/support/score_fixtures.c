/*
 * score_fixtures.c: table runner for score plugin tests (see the header).
 */
#include "tests/support/score_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kube/base/err.h"
#include "tests/support/pred_fixtures.h"

const char *sfx_json(struct arena *a, const char *s)
{
    char *out = arena_strdup(a, s), *p;

    assert_non_null(out);
    for (p = out; *p; p++) {
        if (*p == '\'')
            *p = '"';
    }
    return out;
}

/* Build the case's cluster, run the plugin; want_err NULL: expect scores. */
static void run(enum kpe_semantics sem, const char *plugin, const void *args,
                const struct sfx_case *c, const char *want_err)
{
    const char *names[SFX_MAX];
    int64_t got[SFX_MAX];
    struct fx_cluster fc;
    struct arena a;
    struct err e;
    size_t n = 0, i;
    int rc;

    arena_init(&a, 0);
    fx_cluster_init(&fc, &a);
    for (n = 0; n < SFX_MAX && c->nodes[n]; n++) {
        struct kube_node *node = fx_node(&a, sfx_json(&a, c->nodes[n]));

        names[n] = node->name;
        fx_cluster_add_node(&fc, node);
    }
    for (i = 0; i < SFX_MAX && c->pods[i]; i++)
        fx_cluster_add_pod(&fc, fx_pod(&a, sfx_json(&a, c->pods[i])));
    fx_cluster_build(&fc);
    memset(got, 0, sizeof(got));
    err_clear(&e);
    rc = fx_run_score_as(sem, plugin, args, fx_pod(&a, sfx_json(&a, c->pod)),
                         &fc.c, names, n, &a, got, &e);
    if (want_err) {
        if (rc == 0)
            fail_msg("%s \"%s\": no error, want \"%s\"", plugin, c->name,
                     want_err);
        if (strcmp(e.msg, want_err))
            fail_msg("%s \"%s\": error \"%s\", want \"%s\"", plugin, c->name,
                     e.msg, want_err);
    } else if (rc != 0) {
        fail_msg("%s \"%s\": unexpected error: %s", plugin, c->name, e.msg);
    }
    for (i = 0; !want_err && i < n; i++) {
        if (got[i] != c->want[i])
            fail_msg("%s \"%s\" (as %s): node %s scored %lld, want %lld",
                     plugin, c->name, kpe_semantics_name(sem), names[i],
                     (long long)got[i], (long long)c->want[i]);
    }
    fx_cluster_free(&fc);
    arena_destroy(&a);
}

void sfx_run(const char *plugin, const void *args, const struct sfx_case *c)
{
    run(KPE_SEM_DEFAULT, plugin, args, c, NULL);
}

void sfx_run_error(const char *plugin, const void *args,
                   const struct sfx_case *c, const char *want)
{
    run(KPE_SEM_DEFAULT, plugin, args, c, want);
}

void sfx_run_table(const char *plugin, const void *args,
                   const struct sfx_case *cases, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        sfx_run(plugin, args, &cases[i]);
}

void sfx_run_table_as(enum kpe_semantics sem, const char *plugin,
                      const void *args, const struct sfx_case *cases, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        run(sem, plugin, args, &cases[i], NULL);
}
