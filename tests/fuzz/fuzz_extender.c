/*
 * fuzz_extender.c: libFuzzer target for the extender verbs
 * (server/extender/extender.h): every input is one request body for ext_filter,
 * ext_prioritize (0..10 and raw scores) and ext_preempt, over the demo
 * cluster and policy (deploy/demo), loaded once with app_init + app_load.
 * Every answer must be valid JSON, and a verb that fails must say why.
 * The input buffer is exactly `size` bytes, with no NUL after it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/base/json_parse.h"
#include "server/extender/extender.h"
#include "engine/engine_state.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct {
    struct app app;
    const char *cluster;
    struct app_state *st;
} g;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *policy = fuzz_repo_path((*argv)[0], "deploy/demo/policy.json");
    struct err e;

    (void)argc;
    g.cluster = fuzz_repo_path((*argv)[0], "deploy/demo/cluster.json");
    app_init(&g.app, policy, &g.cluster, 1, 0);
    if (app_load(&g.app, &e) < 0) {
        fprintf(stderr, "fuzz_extender: %s\n", e.msg);
        exit(2);
    }
    g.st = app_acquire(&g.app);
    return 0;
}

static void fail(const char *verb, const char *what, const char *detail)
{
    fprintf(stderr, "extender %s: %s: %.2000s\n", verb, what, detail);
    abort();
}

/* An answer (malloc'd, len bytes) must be one JSON value; frees it. */
static void check_answer(const char *verb, char *out, size_t len,
                         const struct err *e)
{
    struct arena a;
    struct cJSON *root;
    struct err pe;

    if (!out) {
        if (!e || e->msg[0] == '\0')
            fail(verb, "failed without a message", "");
        return;
    }
    arena_init(&a, 0);
    if (json_arena_parse(&a, out, len, 0, &root, &pe) < 0)
        fail(verb, pe.msg, out);
    arena_destroy(&a);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *body = malloc(size ? size : 1);
    struct arena a;
    struct err e;
    size_t len;
    char *out;

    if (!body)
        return 0;
    memcpy(body, data, size);

    arena_init(&a, 0);
    len = 0;
    out = ext_filter(&g.st->plans, &g.st->cluster->cluster, &a, body, size,
                     &len, NULL, NULL);
    if (!out)
        fail("filter", "out of memory", "");
    check_answer("filter", out, len, NULL);
    arena_destroy(&a);

    for (int mode = 0; mode < 4; mode++) {
        struct ext_prio_opts po = { mode < 3 ? (enum ext_score_mode)mode
                                             : EXT_SCORE_RANK,
                                    mode == 3 };
        struct ext_decision dec;

        arena_init(&a, 0);
        e.msg[0] = '\0';
        out = ext_prioritize(&g.st->plans, &g.st->cluster->cluster, &a, body,
                             size, &po, &len, &dec, &e);
        check_answer("prioritize", out, len, &e);
        arena_destroy(&a);
    }

    arena_init(&a, 0);
    e.msg[0] = '\0';
    out = ext_preempt(&g.st->plans, &g.st->cluster->cluster, &a, body, size,
                      &len, &e);
    check_answer("preempt", out, len, &e);
    arena_destroy(&a);
    free(body);
    return 0;
}
