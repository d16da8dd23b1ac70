/*
 * plugin_cost.c: the per-node cost of a predicate loaded from a plugin
 * against the same rule built in (issue 17 point 4), with nothing else in
 * the measurement: HighCommPodFilter's filter and the plugin RdmaAware's
 * filter (reached through its registry row, as the engine reaches it)
 * each run over every node of a cluster for one pod, in interleaved
 * rounds; prints each round's ns per node, the medians and the ratio.
 *
 *   make build/opt/bench/plugin_cost
 *   build/opt/bench/plugin_cost CLUSTER.json POD.json rdma_filter.so [ROUNDS]
 *
 * bench/plugin_bench.sh runs it after the end-to-end comparison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/plugin_load.h"
#include "kube/cluster/snapshot_file.h"
#include "kube/parse/parse.h"
#include "kube/model/resources.h"
#include "policy/policy.h"
#include "predicates/predicates.h"

#define HIGH_COMM "HighCommPodFilter"

#define MAX_ROUNDS 99

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct policy *one_predicate(const char *name)
{
    char buf[256];
    struct policy *p = NULL;
    struct err e;

    snprintf(buf, sizeof(buf),
             "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":"
             "[{\"name\":\"%s\"}],\"priorities\":[]}",
             name);
    if (policy_load_buffer(name, buf, strlen(buf), NULL, &p, &e) < 0) {
        fprintf(stderr, "plugin_cost: %s\n", e.msg);
        exit(1);
    }
    return p;
}

static const struct pred_args *args_of(const struct policy *p, const char *name)
{
    size_t i;

    for (i = 0; i < p->n_preds; i++) {
        if (!strcmp(p->preds[i].def->name, name))
            return &p->preds[i].args;
    }
    return NULL;
}

/* One pass over every node: ns per node; *unfit counts the rejections. */
static double pass(const struct pred_plugin *pl, const struct pred_args *args,
                   struct pred_cycle *cy, const struct cluster *c, size_t reps,
                   size_t *unfit)
{
    struct pred_result r;
    double t0 = now_ns();
    size_t i, k;

    *unfit = 0;
    for (k = 0; k < reps; k++) {
        for (i = 0; i < c->n_nodes; i++) {
            pred_result_init(&r, cy->arena);
            if (pl->filter(cy, args, NULL, &c->nodes[i], &r) != PRED_FIT)
                ++*unfit;
        }
    }
    return (now_ns() - t0) / (double)(reps * c->n_nodes);
}

int main(int argc, char **argv)
{
    struct arena a;
    struct err e;
    struct kube_objects objs = { 0 };
    struct cluster c;
    struct kube_pod pod;
    struct pred_cycle cy;
    struct policy *pa, *pb;
    const struct pred_plugin *fa, *fb;
    double ta[MAX_ROUNDS], tb[MAX_ROUNDS], ma, mb;
    size_t rounds = argc > 4 ? (size_t)atoi(argv[4]) : 15, reps = 20, r;
    size_t ua, ub, len;
    const char *files[1];
    char *text;

    if (argc < 4 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: plugin_cost CLUSTER.json POD.json PLUGIN.so "
                        "[ROUNDS 1..99]\n");
        return 2;
    }
    arena_init(&a, 0);
    files[0] = argv[1];
    if (engine_plugin_load(argv[3], &e) < 0 ||
        kube_snapshot_load_files(&a, files, 1, &objs, &e) < 0 ||
        !(text =
              kube_read_file(&a, argv[2], KUBE_SNAPSHOT_MAX_FILE, &len, &e)) ||
        kube_parse_pod_text(&a, text, len, &pod, &e) < 0 ||
        cluster_build(&c, &objs, &e) < 0) {
        fprintf(stderr, "plugin_cost: %s\n", e.msg);
        return 1;
    }
    pa = one_predicate(HIGH_COMM);
    pb = one_predicate("RdmaAware");
    fa = pred_plugin_find(HIGH_COMM);
    fb = pred_plugin_find("RdmaAware");
    memset(&cy, 0, sizeof(cy));
    cy.pod = &pod;
    cy.cluster = &c;
    cy.arena = &a;
    kube_pod_request(&a, &pod, &cy.pod_request);
    pass(fa, args_of(pa, HIGH_COMM), &cy, &c, reps, &ua); /* warm */
    pass(fb, args_of(pb, "RdmaAware"), &cy, &c, reps, &ub);
    if (ua != ub) {
        fprintf(stderr, "plugin_cost: the two disagree (%zu vs %zu unfit)\n",
                ua, ub);
        return 1;
    }
    printf("%zu nodes, %zu unfit for the pod; %zu rounds of %zu passes each\n",
           c.n_nodes, ua / reps, rounds, reps);
    for (r = 0; r < rounds; r++) {
        if (r % 2) {
            tb[r] = pass(fb, args_of(pb, "RdmaAware"), &cy, &c, reps, &ub);
            ta[r] = pass(fa, args_of(pa, HIGH_COMM), &cy, &c, reps, &ua);
        } else {
            ta[r] = pass(fa, args_of(pa, HIGH_COMM), &cy, &c, reps, &ua);
            tb[r] = pass(fb, args_of(pb, "RdmaAware"), &cy, &c, reps, &ub);
        }
        printf("round %zu: built-in %.2f ns/node  plugin %.2f ns/node\n", r + 1,
               ta[r], tb[r]);
    }
    ma = median(ta, rounds);
    mb = median(tb, rounds);
    printf("median: built-in HighCommPodFilter %.2f ns/node, plugin RdmaAware "
           "%.2f ns/node; plugin/built-in = %.3f\n",
           ma, mb, mb / ma);
    policy_free(pa);
    policy_free(pb);
    cluster_free(&c);
    arena_destroy(&a);
    engine_plugins_unload();
    return 0;
}
