/*
 * fuzz_policy.c: libFuzzer target for Policy loading (policy/policy.h):
 * every input is loaded as JSON and as INI, each plain, with
 * POLICY_COMPAT_LEGACY, and with legacy names plus the
 * DefaultPodTopologySpread gate off. A policy that loads is written back
 * as canonical JSON and INI, and what is written must load again with
 * the same predicates and priorities; it is also printed (check, the
 * v1.22 profile, a KubeSchedulerConfiguration) and its plans evaluate one
 * demo pod against the demo cluster (deploy/demo), loaded once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/parse/parse.h"
#include "kube/cluster/snapshot_file.h"
#include "policy/policy.h"
#include "engine/evaluate.h"
#include "engine/engine_state.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const pod_files[] = {
    "deploy/demo/pods/web.json",
    "deploy/demo/pods/big.json",
    "deploy/demo/pods/high-comm.json",
    "deploy/demo/pods/pinned.json",
};
#define N_PODS (sizeof(pod_files) / sizeof(pod_files[0]))

static struct {
    struct cluster_ref *cluster;
    struct arena arena; /* the pods */
    struct kube_pod pods[N_PODS];
    const struct node_info **nodes;
    FILE *devnull;
} g;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *cluster =
        fuzz_repo_path((*argv)[0], "deploy/demo/cluster.json");
    struct err e;

    (void)argc;
    g.cluster = cluster_ref_load(&cluster, 1, &e);
    g.devnull = fopen("/dev/null", "w");
    if (!g.cluster || !g.devnull) {
        fprintf(stderr, "fuzz_policy: %s\n", g.cluster ? "/dev/null" : e.msg);
        exit(2);
    }
    arena_init(&g.arena, 0);
    for (size_t i = 0; i < N_PODS; i++) {
        size_t len;
        const char *path = fuzz_repo_path((*argv)[0], pod_files[i]);
        char *buf = kube_read_file(&g.arena, path, 1 << 20, &len, &e);

        if (!buf || kube_parse_pod(&g.arena, buf, len, &g.pods[i], &e) < 0) {
            fprintf(stderr, "fuzz_policy: %s\n", e.msg);
            exit(2);
        }
    }
    g.nodes = calloc(g.cluster->cluster.n_nodes + 1, sizeof(*g.nodes));
    if (!g.nodes)
        exit(2);
    for (size_t i = 0; i < g.cluster->cluster.n_nodes; i++)
        g.nodes[i] = &g.cluster->cluster.nodes[i];
    return 0;
}

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "policy: %s: %s\n", what, detail);
    abort();
}

/* Written text must load again into the same shape. */
static void check_reload(const struct policy *p, const char *text,
                         enum policy_format format)
{
    struct policy_load_opts o = { p->compat, p->gates, format, NULL,
                                  p->semantics };
    struct policy *q = NULL;
    struct err e;

    if (policy_load_buffer(format == POLICY_FORMAT_INI ? "w.ini" : "w.json",
                           text, strlen(text), &o, &q, &e) < 0)
        fail("the written policy does not load", e.msg);
    if (q->n_preds != p->n_preds || q->n_prios != p->n_prios)
        fail("the written policy resolves differently", text);
    for (size_t i = 0; i < p->n_preds; i++)
        if (q->preds[i].def != p->preds[i].def)
            fail("the written policy has other predicates", text);
    for (size_t i = 0; i < p->n_prios; i++)
        if (q->prios[i].def != p->prios[i].def ||
            q->prios[i].weight != p->prios[i].weight)
            fail("the written policy has other priorities", text);
    policy_free(q);
}

static void exercise(const struct policy *p, size_t which)
{
    struct policy_profile prof;
    struct eval_plans plans;
    struct eval_result res;
    struct arena a;
    struct err e;
    char *text;

    arena_init(&a, 0);
    if ((text = policy_write_json(&p->doc, &a, &e)) != NULL)
        check_reload(p, text, POLICY_FORMAT_JSON);
    if ((text = policy_write_ini(&p->doc, &a, &e)) != NULL)
        check_reload(p, text, POLICY_FORMAT_INI);
    policy_print_check(g.devnull, p, 0);
    policy_print_check(g.devnull, p, 1);
    policy_build_profile(p, &a, &prof, &e);
    policy_write_ksc(g.devnull, p, POLICY_KSC_V1BETA2, NULL, &e);
    policy_write_ksc(g.devnull, p, POLICY_KSC_V1, "http://127.0.0.1:8888", &e);
    if (eval_plans_build(p, &plans, &e) == 0)
        evaluate_pod(&plans, &g.pods[which % N_PODS], &g.cluster->cluster,
                     g.nodes, g.cluster->cluster.n_nodes,
                     EVAL_FILTER | EVAL_SCORE, &a, &res, &e);
    arena_destroy(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum policy_format formats[] = { POLICY_FORMAT_JSON,
                                                  POLICY_FORMAT_INI };
    static const unsigned modes[][2] = {
        { 0, 0 },
        { POLICY_COMPAT_LEGACY, 0 },
        { POLICY_COMPAT_LEGACY, POLICY_GATE_DEFAULT_POD_TOPOLOGY_SPREAD_OFF },
    };
    char *buf = malloc(size ? size : 1);

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    for (size_t f = 0; f < 2; f++) {
        for (size_t m = 0; m < 3; m++) {
            struct policy_load_opts o = { modes[m][0], modes[m][1], formats[f],
                                          NULL, KPE_SEM_DEFAULT };
            struct policy *p = NULL;
            struct err e;

            e.msg[0] = '\0';
            if (policy_load_buffer(f ? "fuzz.ini" : "fuzz.json", buf, size, &o,
                                   &p, &e) < 0) {
                if (e.msg[0] == '\0')
                    fail("a load failed without a message", "");
                continue;
            }
            exercise(p, size + m);
            policy_free(p);
        }
    }
    free(buf);
    return 0;
}
