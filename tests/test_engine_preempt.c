/*
 * test_engine_preempt.c: the DefaultPreemption decision (engine/
 * engine_preempt.h), with rows ported from kube-scheduler's
 * defaultpreemption/default_preemption_test.go (v1.20.2; the same rows
 * stand in v1.22): TestDryRunPreemption, TestSelectBestCandidate,
 * TestPodEligibleToPreemptOthers and TestNodesWherePreemptionMightHelp.
 * Upstream's fake filters are replaced by the Policy predicates they
 * stand for (PodFitsResources, MatchInterPodAffinity, EvenPodsSpread);
 * nodes have upstream's veryLargeRes (500m, 500) and 32 pods.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine_place.h"
#include "engine/engine_preempt.h"
#include "kube/cluster/cluster.h"
#include "policy/policy.h"
#include "tests/support/pred_fixtures.h"

#define LOW  0
#define NEG  (-100)
#define MID  100
#define HIGH 1000
#define VHI  10000

/* Resource sizes of upstream's table: small, medium, large, very large. */
enum res { NONE, S, M, L, VL };
static const int res_milli[] = { 0, 100, 200, 300, 500 };

/* One pod of a table row; node NULL: the preemptor. */
struct tpod {
    const char *name;
    const char *node;
    int prio;
    enum res req;
    int start;         /* status.startTime in seconds (0: none) */
    const char *extra; /* more JSON members of metadata/spec, or NULL */
};

#define FIT "{\"name\":\"PodFitsResources\"}"
#define IPA "{\"name\":\"MatchInterPodAffinity\"}"
#define PTS "{\"name\":\"EvenPodsSpread\"}"
#define FOO "\"labels\":{\"foo\":\"\"}"
#define APP "\"labels\":{\"app\":\"foo\"}"

#define ANTI_SPEC                                                              \
    "\"affinity\":{\"podAntiAffinity\":{"                                      \
    "\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":"  \
    "{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":\"Exists\"}]},"      \
    "\"topologyKey\":\"hostname\"}]}},"
#define SPREAD_ONE(key)                                                        \
    "{\"maxSkew\":1,\"topologyKey\":\"" key "\",\"whenUnsatisfiable\":"        \
    "\"DoNotSchedule\",\"labelSelector\":{\"matchExpressions\":[{\"key\":"     \
    "\"foo\",\"operator\":\"Exists\"}]}}"
#define SPREAD_SPEC                                                            \
    "\"topologySpreadConstraints\":[" SPREAD_ONE("zone") "," SPREAD_ONE(       \
        "hostname") "],"

/* extra: NULL, FOO or APP (labels), "ANTI" (foo and a required
 * anti-affinity to foo by hostname) or "SPREAD" (foo and upstream's two
 * spread constraints on foo, zone and hostname). */
static char *pod_json(struct arena *a, const struct tpod *p)
{
    const char *labels = "", *spec = "";
    char req[128] = "", start[64] = "", node[96] = "";

    if (p->extra && !strcmp(p->extra, "ANTI")) {
        labels = "," FOO;
        spec = ANTI_SPEC;
    } else if (p->extra && !strcmp(p->extra, "SPREAD")) {
        labels = "," FOO;
        spec = SPREAD_SPEC;
    } else if (p->extra) {
        labels = arena_sprintf(a, ",%s", p->extra);
    }
    if (p->req != NONE)
        snprintf(req, sizeof(req),
                 ",\"resources\":{\"requests\":{\"cpu\":\"%dm\","
                 "\"memory\":\"%d\"}}",
                 res_milli[p->req], res_milli[p->req]);
    if (p->start)
        snprintf(start, sizeof(start),
                 "\"startTime\":\"1970-01-01T00:00:%02dZ\"", p->start);
    if (p->node)
        snprintf(node, sizeof(node), "\"nodeName\":\"%s\",", p->node);
    return arena_sprintf(
        a,
        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":"
        "\"default\",\"uid\":\"%s\"%s},\"spec\":{%s%s\"priority\":%d,"
        "\"containers\":[{\"name\":\"c\"%s}]},\"status\":{%s}}",
        p->name, p->name, labels, node, spec, p->prio, req, start);
}

struct world {
    struct arena a;
    struct fx_cluster fc;
    struct policy *p;
    struct eval_plans plans;
    struct engine_preemptor pr;
    struct kube_pod *pod;
};

static const char *node_json(struct arena *a, const char *spec)
{
    /* "name" or "name/zone": hostname and zone labels as upstream. */
    const char *slash = strchr(spec, '/');
    char name[64];

    snprintf(name, sizeof(name), "%.*s",
             (int)(slash ? (size_t)(slash - spec) : strlen(spec)), spec);
    return arena_sprintf(
        a,
        "{\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":{"
        "\"hostname\":\"%s\"%s%s%s}},\"status\":{\"allocatable\":{\"cpu\":"
        "\"500m\",\"memory\":\"500\",\"pods\":\"32\"}}}",
        name, name, slash ? ",\"zone\":\"" : "", slash ? slash + 1 : "",
        slash ? "\"" : "");
}

static void world_up(struct world *w, const char *preds,
                     const char *const *nodes, const struct tpod *pods,
                     const struct tpod *preemptor)
{
    char *policy;
    struct policy_load_opts o = { .format = POLICY_FORMAT_JSON };
    struct err e;
    size_t i;

    memset(w, 0, sizeof(*w));
    arena_init(&w->a, 0);
    fx_cluster_init(&w->fc, &w->a);
    for (i = 0; nodes[i]; i++)
        fx_cluster_add(&w->fc, node_json(&w->a, nodes[i]));
    for (i = 0; pods && pods[i].name; i++)
        fx_cluster_add(&w->fc, pod_json(&w->a, &pods[i]));
    fx_cluster_build(&w->fc);
    policy = arena_sprintf(&w->a,
                           "{\"kind\":\"Policy\",\"apiVersion\":\"v1\","
                           "\"predicates\":[%s],\"priorities\":[]}",
                           preds);
    if (policy_load_buffer("t.json", policy, strlen(policy), &o, &w->p, &e) ||
        eval_plans_build(w->p, &w->plans, &e))
        fail_msg("%s", e.msg);
    w->pr.plan = &w->plans.pred;
    w->pr.cl = &w->fc.c;
    w->pr.now = 1000;
    w->pod = fx_pod(&w->a, pod_json(&w->a, preemptor));
}

static void world_down(struct world *w)
{
    policy_free(w->p);
    fx_cluster_free(&w->fc);
    arena_destroy(&w->a);
}

/* The failed pass for w->pod over every node (as engine_place leaves it). */
static void failed_pass(struct world *w, struct eval_result *r)
{
    const struct node_info **all =
        arena_alloc(&w->a, w->fc.c.n_nodes * sizeof(*all));
    struct err e;
    size_t i;

    for (i = 0; i < w->fc.c.n_nodes; i++)
        all[i] = &w->fc.c.nodes[i];
    if (eval_filter(&w->plans.pred, w->pod, &w->fc.c, all, w->fc.c.n_nodes, 0,
                    w->fc.c.n_nodes, &w->a, r, NULL, &e) < 0)
        fail_msg("%s", e.msg);
}

/* "node1:p1.1,p1.2#1 node2:p2" (#n: PDB violations), candidates sorted
 * by node name and victims by pod name as upstream's test compares. */
static const char *describe(struct arena *a, struct engine_victims *c, long n)
{
    char buf[1024] = "";
    long i, j;
    size_t k, m;

    for (i = 1; i < n; i++) {
        for (j = i; j > 0 && strcmp(c[j].node->node->name,
                                    c[j - 1].node->node->name) < 0;
             j--) {
            struct engine_victims t = c[j];

            c[j] = c[j - 1];
            c[j - 1] = t;
        }
    }
    for (i = 0; i < n; i++) {
        const struct kube_pod **p = c[i].pods;

        for (k = 1; k < c[i].n_pods; k++) {
            for (m = k; m > 0 && strcmp(p[m]->name, p[m - 1]->name) < 0; m--) {
                const struct kube_pod *t = p[m];

                p[m] = p[m - 1];
                p[m - 1] = t;
            }
        }
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
                 "%s%s:", i ? " " : "", c[i].node->node->name);
        for (k = 0; k < c[i].n_pods; k++)
            snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
                     k ? "," : "", p[k]->name);
        if (c[i].num_pdb_violations)
            snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "#%lld",
                     (long long)c[i].num_pdb_violations);
    }
    return arena_strdup(a, buf);
}

/* One TestDryRunPreemption row. */
struct dry_row {
    const char *name;
    const char *preds;
    const char *nodes[6];
    struct tpod pod;
    struct tpod pods[8];
    int pdb_allowed; /* -1: no PDB; else app=foo with this budget */
    const char *disrupted;
    int pct, abs;  /* DefaultPreemptionArgs; 0: defaults */
    size_t offset; /* upstream's rand.Seed(4) first draw */
    const char *want;
};

static const struct dry_row dry_rows[] = {
    { "a pod that fits on both nodes when lower priority pods are preempted",
      FIT,
      { "node1", "node2" },
      { "p", NULL, HIGH, L, 0, NULL },
      { { "p1", "node1", MID, L, 0, NULL },
        { "p2", "node2", MID, L, 0, NULL } },
      -1,
      NULL,
      0,
      0,
      0,
      "node1:p1 node2:p2" },
    { "a pod that would fit on the nodes, but other pods running are higher "
      "priority, no preemption would happen",
      FIT,
      { "node1", "node2" },
      { "p", NULL, LOW, L, 0, NULL },
      { { "p1", "node1", MID, L, 0, NULL },
        { "p2", "node2", MID, L, 0, NULL } },
      -1,
      NULL,
      0,
      0,
      0,
      "" },
    { "medium priority pod is preempted, but lower priority one stays as it "
      "is small",
      FIT,
      { "node1", "node2" },
      { "p", NULL, HIGH, L, 0, NULL },
      { { "p1.1", "node1", LOW, S, 0, NULL },
        { "p1.2", "node1", MID, L, 0, NULL },
        { "p2", "node2", MID, L, 0, NULL } },
      -1,
      NULL,
      0,
      0,
      0,
      "node1:p1.2 node2:p2" },
    { "mixed priority pods are preempted",
      FIT,
      { "node1", "node2" },
      { "p", NULL, HIGH, L, 0, NULL },
      { { "p1.1", "node1", MID, S, 0, NULL },
        { "p1.2", "node1", LOW, S, 0, NULL },
        { "p1.3", "node1", MID, M, 0, NULL },
        { "p1.4", "node1", HIGH, S, 0, NULL },
        { "p2", "node2", HIGH, L, 0, NULL } },
      -1,
      NULL,
      0,
      0,
      0,
      "node1:p1.2,p1.3" },
    { "mixed priority pods are preempted, pick later StartTime one when "
      "priorities are equal",
      FIT,
      { "node1", "node2" },
      { "p", NULL, HIGH, L, 0, NULL },
      { { "p1.1", "node1", LOW, S, 5, NULL },
        { "p1.2", "node1", LOW, S, 4, NULL },
        { "p1.3", "node1", MID, M, 3, NULL },
        { "p1.4", "node1", HIGH, S, 2, NULL },
        { "p2", "node2", HIGH, L, 1, NULL } },
      -1,
      NULL,
      0,
      0,
      0,
      "node1:p1.1,p1.3" },
    { "pod with anti-affinity is preempted",
      FIT "," IPA,
      { "node1", "node2" },
      { "p", NULL, HIGH, S, 0, FOO },
      { { "p1.1", "node1", LOW, S, 0, "ANTI" },
        { "p1.2", "node1", MID, S, 0, NULL },
        { "p1.3", "node1", HIGH, S, 0, NULL },
        { "p2", "node2", HIGH, S, 0, NULL } },
      -1,
      NULL,
      0,
      0,
      0,
      "node1:p1.1" },
    { "preemption to resolve pod topology spread filter failure",
      PTS,
      { "node-a/zone1", "node-b/zone1", "node-x/zone2" },
      { "p", NULL, HIGH, NONE, 0, "SPREAD" },
      { { "pod-a1", "node-a", MID, NONE, 0, FOO },
        { "pod-a2", "node-a", LOW, NONE, 0, FOO },
        { "pod-b1", "node-b", LOW, NONE, 0, FOO },
        { "pod-x1", "node-x", HIGH, NONE, 0, FOO },
        { "pod-x2", "node-x", HIGH, NONE, 0, FOO } },
      -1,
      NULL,
      0,
      0,
      0,
      "node-a:pod-a2 node-b:pod-b1" },
    { "preemption with violation of same pdb",
      FIT,
      { "node1" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", MID, M, 0, APP },
        { "p1.2", "node1", MID, M, 0, APP } },
      1,
      NULL,
      0,
      0,
      0,
      "node1:p1.1,p1.2#1" },
    { "preemption with violation of the pdb with pod whose eviction was "
      "processed, the victim doesn't belong to DisruptedPods",
      FIT,
      { "node1" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", MID, M, 0, APP },
        { "p1.2", "node1", MID, M, 0, APP } },
      1,
      "p2",
      0,
      0,
      0,
      "node1:p1.1,p1.2#1" },
    { "preemption with violation of the pdb with pod whose eviction was "
      "processed, the victim belongs to DisruptedPods",
      FIT,
      { "node1" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", MID, M, 0, APP },
        { "p1.2", "node1", MID, M, 0, APP } },
      1,
      "p1.2",
      0,
      0,
      0,
      "node1:p1.1,p1.2" },
    { "preemption with violation of the pdb with pod whose eviction was "
      "processed, the victim which belongs to DisruptedPods is treated as "
      "'nonViolating'",
      FIT,
      { "node1" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", MID, M, 0, APP },
        { "p1.2", "node1", MID, M, 0, APP },
        { "p1.3", "node1", MID, M, 0, APP } },
      1,
      "p1.3",
      0,
      0,
      0,
      "node1:p1.1,p1.2,p1.3#1" },
    { "all nodes are possible candidates, but DefaultPreemptionArgs limits "
      "to 2",
      FIT,
      { "node1", "node2", "node3", "node4", "node5" },
      { "p", NULL, HIGH, L, 0, NULL },
      { { "p1", "node1", MID, L, 0, NULL },
        { "p2", "node2", MID, L, 0, NULL },
        { "p3", "node3", MID, L, 0, NULL },
        { "p4", "node4", MID, L, 0, NULL },
        { "p5", "node5", MID, L, 0, NULL } },
      -1,
      NULL,
      40,
      1,
      4,
      "node1:p1 node5:p5" },
    { "some nodes are not possible candidates, DefaultPreemptionArgs limits "
      "to 2",
      FIT,
      { "node1", "node2", "node3", "node4", "node5" },
      { "p", NULL, HIGH, L, 0, NULL },
      { { "p1", "node1", MID, L, 0, NULL },
        { "p2", "node2", VHI, L, 0, NULL },
        { "p3", "node3", MID, L, 0, NULL },
        { "p4", "node4", MID, L, 0, NULL },
        { "p5", "node5", VHI, L, 0, NULL } },
      -1,
      NULL,
      40,
      1,
      4,
      "node1:p1 node3:p3" },
    { "preemption looks past numCandidates until a non-PDB violating node is "
      "found",
      FIT,
      { "node1", "node2", "node3", "node4", "node5" },
      { "p", NULL, HIGH, L, 0, NULL },
      { { "p1", "node1", MID, L, 0, APP },
        { "p2", "node2", MID, L, 0, APP },
        { "p3", "node3", MID, L, 0, NULL },
        { "p4", "node4", MID, L, 0, NULL },
        { "p5", "node5", MID, L, 0, APP } },
      0,
      NULL,
      40,
      2,
      4,
      "node1:p1#1 node3:p3 node5:p5#1" },
};

static const char *foo_values[] = { "foo" };
static struct kube_requirement app_foo = { "app", KUBE_OP_IN, 1, foo_values,
                                           0 };
static struct kube_label_selector app_sel = { 1, &app_foo, NULL };

static void dry_run_preemption_rows(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(dry_rows) / sizeof(dry_rows[0]); i++) {
        const struct dry_row *r = &dry_rows[i];
        struct kube_label dis = { r->disrupted, "2021-01-01T00:00:00Z" };
        struct kube_pdb pdb = {
            "pdb", "default", &app_sel, r->pdb_allowed, { 0 }
        };
        const struct kube_pdb *pdbs[1] = { &pdb };
        struct engine_victims *c;
        struct eval_result failed;
        struct world w;
        struct err e;
        long n;

        world_up(&w, r->preds, r->nodes, r->pods, &r->pod);
        if (r->disrupted) {
            pdb.disrupted.n = 1;
            pdb.disrupted.items = &dis;
        }
        if (r->pdb_allowed >= 0) {
            w.pr.pdbs = pdbs;
            w.pr.n_pdbs = 1;
        }
        w.pr.min_candidates_percent = r->pct;
        w.pr.min_candidates_absolute = r->abs;
        failed_pass(&w, &failed);
        n = engine_preempt_candidates(&w.pr, w.pod, &failed, r->offset, &w.a,
                                      &c, &e);
        if (n < 0)
            fail_msg("%s: %s", r->name, e.msg);
        if (strcmp(describe(&w.a, c, n), r->want))
            fail_msg("%s: got \"%s\", want \"%s\"", r->name,
                     describe(&w.a, c, n), r->want);
        world_down(&w);
    }
}

/* TestDryRunPreemption "preemption offset across multiple scheduling
 * cycles and wrap around": offsets 4, 1, 3 (upstream's rand.Seed(4)). */
static void dry_run_should_start_at_the_offset_and_wrap(void **state)
{
    static const char *const nodes[] = { "node1", "node2", "node3",
                                         "node4", "node5", NULL };
    static const struct tpod pods[] = {
        { "p1", "node1", MID, L, 0, NULL }, { "p2", "node2", MID, L, 0, NULL },
        { "p3", "node3", MID, L, 0, NULL }, { "p4", "node4", MID, L, 0, NULL },
        { "p5", "node5", MID, L, 0, NULL }, { NULL, NULL, 0, NONE, 0, NULL }
    };
    static const struct tpod tp = { "tp1", NULL, HIGH, L, 0, NULL };
    static const size_t offsets[] = { 4, 1, 3 };
    static const char *const want[] = { "node1:p1 node5:p5",
                                        "node2:p2 node3:p3",
                                        "node4:p4 node5:p5" };
    struct engine_victims *c;
    struct eval_result failed;
    struct world w;
    struct err e;
    size_t i;
    long n;

    (void)state;
    world_up(&w, FIT, nodes, pods, &tp);
    w.pr.min_candidates_percent = 40;
    w.pr.min_candidates_absolute = 1;
    failed_pass(&w, &failed);
    for (i = 0; i < 3; i++) {
        n = engine_preempt_candidates(&w.pr, w.pod, &failed, offsets[i], &w.a,
                                      &c, &e);
        assert_true(n >= 0);
        assert_string_equal(describe(&w.a, c, n), want[i]);
    }
    world_down(&w);
}

/* One TestSelectBestCandidate row: nodes, the pods, the node chosen. */
struct best_row {
    const char *name;
    const char *nodes[5];
    struct tpod pod;
    struct tpod pods[13];
    const char *want;
};

#define E0 1 /* upstream's epochTime; startTime 0 reads as none here */

static const struct best_row best_rows[] = {
    { "No node needs preemption",
      { "node1" },
      { "p", NULL, HIGH, L, 0, NULL },
      { { "p1", "node1", MID, S, E0, NULL } },
      "node1" },
    { "node with min highest priority pod is picked",
      { "node1", "node2", "node3" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", MID, M, E0, NULL },
        { "p1.2", "node1", MID, L, E0, NULL },
        { "p2.1", "node2", MID, M, E0, NULL },
        { "p2.2", "node2", LOW, M, E0, NULL },
        { "p3.1", "node3", LOW, M, E0, NULL },
        { "p3.2", "node3", LOW, M, E0, NULL } },
      "node3" },
    { "when highest priorities are the same, minimum sum of priorities is "
      "picked",
      { "node1", "node2", "node3" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", MID, M, E0, NULL },
        { "p1.2", "node1", MID, L, E0, NULL },
        { "p2.1", "node2", MID, L, E0, NULL },
        { "p2.2", "node2", LOW, M, E0, NULL },
        { "p3.1", "node3", MID, M, E0, NULL },
        { "p3.2", "node3", MID, M, E0, NULL } },
      "node2" },
    { "when highest priority and sum are the same, minimum number of pods is "
      "picked",
      { "node1", "node2", "node3" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", MID, S, E0, NULL },
        { "p1.2", "node1", NEG, S, E0, NULL },
        { "p1.3", "node1", MID, S, E0, NULL },
        { "p1.4", "node1", NEG, S, E0, NULL },
        { "p2.1", "node2", MID, L, E0, NULL },
        { "p2.2", "node2", NEG, M, E0, NULL },
        { "p3.1", "node3", MID, M, E0, NULL },
        { "p3.2", "node3", NEG, S, E0, NULL },
        { "p3.3", "node3", LOW, S, E0, NULL } },
      "node2" },
    { "sum of adjusted priorities is considered",
      { "node1", "node2", "node3" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", MID, S, E0, NULL },
        { "p1.2", "node1", NEG, S, E0, NULL },
        { "p1.3", "node1", NEG, S, E0, NULL },
        { "p2.1", "node2", MID, L, E0, NULL },
        { "p2.2", "node2", NEG, M, E0, NULL },
        { "p3.1", "node3", MID, M, E0, NULL },
        { "p3.2", "node3", NEG, S, E0, NULL },
        { "p3.3", "node3", LOW, S, E0, NULL } },
      "node2" },
    { "non-overlapping lowest high priority, sum priorities, and number of "
      "pods",
      { "node1", "node2", "node3", "node4" },
      { "p", NULL, VHI, VL, 0, NULL },
      { { "p1.1", "node1", MID, S, E0, NULL },
        { "p1.2", "node1", LOW, S, E0, NULL },
        { "p1.3", "node1", LOW, S, E0, NULL },
        { "p2.1", "node2", HIGH, L, E0, NULL },
        { "p3.1", "node3", MID, M, E0, NULL },
        { "p3.2", "node3", LOW, S, E0, NULL },
        { "p3.3", "node3", LOW, S, E0, NULL },
        { "p3.4", "node3", LOW, M, E0, NULL },
        { "p4.1", "node4", MID, M, E0, NULL },
        { "p4.2", "node4", MID, S, E0, NULL },
        { "p4.3", "node4", MID, S, E0, NULL },
        { "p4.4", "node4", NEG, S, E0, NULL } },
      "node1" },
    { "same priority, same number of victims, different start time for each "
      "node's pod",
      { "node1", "node2", "node3" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", MID, M, 2, NULL },
        { "p1.2", "node1", MID, M, 2, NULL },
        { "p2.1", "node2", MID, M, 3, NULL },
        { "p2.2", "node2", MID, M, 3, NULL },
        { "p3.1", "node3", MID, M, 1, NULL },
        { "p3.2", "node3", MID, M, 1, NULL } },
      "node2" },
    { "same priority, same number of victims, different start time for all "
      "pods",
      { "node1", "node2", "node3" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", MID, M, 4, NULL },
        { "p1.2", "node1", MID, M, 2, NULL },
        { "p2.1", "node2", MID, M, 5, NULL },
        { "p2.2", "node2", MID, M, 1, NULL },
        { "p3.1", "node3", MID, M, 3, NULL },
        { "p3.2", "node3", MID, M, 6, NULL } },
      "node3" },
    { "different priority, same number of victims, different start time for "
      "all pods",
      { "node1", "node2", "node3" },
      { "p", NULL, HIGH, VL, 0, NULL },
      { { "p1.1", "node1", LOW, M, 4, NULL },
        { "p1.2", "node1", MID, M, 2, NULL },
        { "p2.1", "node2", MID, M, 6, NULL },
        { "p2.2", "node2", LOW, M, 1, NULL },
        { "p3.1", "node3", LOW, M, 3, NULL },
        { "p3.2", "node3", MID, M, 5, NULL } },
      "node2" },
};

static void select_best_candidate_rows(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(best_rows) / sizeof(best_rows[0]); i++) {
        const struct best_row *r = &best_rows[i];
        struct engine_victims best;
        struct eval_result failed;
        struct world w;
        struct err e;
        int rc;

        world_up(&w, FIT, r->nodes, r->pods, &r->pod);
        failed_pass(&w, &failed);
        rc = engine_preempt(&w.pr, w.pod, &failed, 0, &w.a, &best, NULL, &e);
        if (rc != 1)
            fail_msg("%s: rc %d (%s)", r->name, rc, rc < 0 ? e.msg : "");
        if (strcmp(best.node->node->name, r->want))
            fail_msg("%s: got %s, want %s", r->name, best.node->node->name,
                     r->want);
        world_down(&w);
    }
}

/* TestPodEligibleToPreemptOthers. */
static void pod_eligible_to_preempt_others_rows(void **state)
{
    static const char *const nodes[] = { "node1", NULL };
    static const struct {
        const char *name;
        const char *pod;
        bool terminating_victim;
        enum pred_code nominated_status; /* PRED_FIT: none recorded */
        bool want;
    } rows[] = {
        { "Pod with nominated node",
          "{\"metadata\":{\"name\":\"p\",\"uid\":\"p\"},\"spec\":{"
          "\"priority\":1000},\"status\":{\"nominatedNodeName\":\"node1\"}}",
          true, PRED_UNFIT_UNRESOLVABLE, true },
        { "Pod with nominated node, but without nominated node status",
          "{\"metadata\":{\"name\":\"p\",\"uid\":\"p\"},\"spec\":{"
          "\"priority\":1000},\"status\":{\"nominatedNodeName\":\"node1\"}}",
          true, PRED_FIT, false },
        { "Pod without nominated node",
          "{\"metadata\":{\"name\":\"p\",\"uid\":\"p\"},\"spec\":{"
          "\"priority\":1000}}",
          false, PRED_FIT, true },
        { "Pod with 'PreemptNever' preemption policy",
          "{\"metadata\":{\"name\":\"p\",\"uid\":\"p\"},\"spec\":{"
          "\"priority\":1000,\"preemptionPolicy\":\"Never\"}}",
          false, PRED_FIT, false },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct arena a;
        struct fx_cluster fc;
        struct eval_result r;
        struct eval_node en;

        arena_init(&a, 0);
        fx_cluster_init(&fc, &a);
        fx_cluster_add(&fc, node_json(&a, nodes[0]));
        if (rows[i].terminating_victim)
            fx_cluster_add(&fc, "{\"kind\":\"Pod\",\"metadata\":{\"name\":"
                                "\"p1\",\"uid\":\"p1\",\"deletionTimestamp\":"
                                "\"2021-01-01T00:00:00Z\"},\"spec\":{"
                                "\"nodeName\":\"node1\",\"priority\":0}}");
        fx_cluster_build(&fc);
        memset(&r, 0, sizeof(r));
        memset(&en, 0, sizeof(en));
        en.ni = &fc.c.nodes[0];
        en.verdict.code = rows[i].nominated_status;
        r.nodes = &en;
        r.n_nodes = rows[i].nominated_status != PRED_FIT;
        if (engine_preempt_eligible(fx_pod(&a, rows[i].pod), &fc.c, &r) !=
            rows[i].want)
            fail_msg("%s: want %d", rows[i].name, rows[i].want);
        fx_cluster_free(&fc);
        arena_destroy(&a);
    }
}

/* TestNodesWherePreemptionMightHelp: the failed pass's codes per node
 * (U Unschedulable, X UnschedulableAndUnresolvable, - none recorded);
 * every potential node holds a victim that makes room. */
static void nodes_where_preemption_might_help_rows(void **state)
{
    static const char *const nodes[] = { "node1", "node2", "node3", "node4",
                                         NULL };
    static const struct tpod pods[] = { { "p1", "node1", MID, L, 0, NULL },
                                        { "p2", "node2", MID, L, 0, NULL },
                                        { "p3", "node3", MID, L, 0, NULL },
                                        { "p4", "node4", MID, L, 0, NULL },
                                        { NULL, NULL, 0, NONE, 0, NULL } };
    static const struct tpod tp = { "p", NULL, HIGH, L, 0, NULL };
    static const struct {
        const char *name, *codes, *want;
    } rows[] = {
        { "No node should be attempted", "XXXX", "" },
        { "ErrReasonAffinityNotMatch should be tried", "UXX-",
          "node1:p1 node4:p4" },
        { "pod with both pod affinity and anti-affinity should be tried",
          "UX--", "node1:p1 node3:p3 node4:p4" },
        { "ErrReasonAffinityRulesNotMatch should not be tried", "XU--",
          "node2:p2 node3:p3 node4:p4" },
        { "UnschedulableAndUnresolvable status should be skipped but "
          "Unschedulable should be tried",
          "-XUX", "node1:p1 node3:p3" },
    };
    size_t i, k;

    (void)state;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct eval_node en[4];
        struct eval_result r;
        struct engine_victims *c;
        struct world w;
        struct err e;
        long n;

        world_up(&w, FIT, nodes, pods, &tp);
        memset(&r, 0, sizeof(r));
        memset(en, 0, sizeof(en));
        r.nodes = en;
        for (k = 0; k < 4; k++) {
            if (rows[i].codes[k] == '-')
                continue;
            en[r.n_nodes].ni = &w.fc.c.nodes[k];
            en[r.n_nodes++].verdict.code =
                rows[i].codes[k] == 'X' ? PRED_UNFIT_UNRESOLVABLE : PRED_UNFIT;
        }
        n = engine_preempt_candidates(&w.pr, w.pod, &r, 0, &w.a, &c, &e);
        assert_true(n >= 0);
        if (strcmp(describe(&w.a, c, n), rows[i].want))
            fail_msg("%s: got \"%s\"", rows[i].name, describe(&w.a, c, n));
        world_down(&w);
    }
}

/*
 * addNominatedPods: a pod nominated to node1 (priority HIGH, 300m) keeps
 * its room from pods of lower priority, not from pods of higher one; a
 * pod is never in its own way.
 */
static void nominated_pods_should_keep_their_room(void **state)
{
    static const char *const nodes[] = { "node1", NULL };
    static const struct tpod nominee = { "n", NULL, HIGH, L, 0, NULL };
    static const struct tpod low = { "low", NULL, MID, L, 0, NULL };
    static const struct tpod top = { "top", NULL, VHI, L, 0, NULL };
    struct engine_nominee nom;
    struct engine_nominees noms;
    struct engine_placer pl;
    struct eval_result r;
    const struct node_info *ni;
    const char *msg;
    struct world w;

    (void)state;
    world_up(&w, FIT, nodes, NULL, &low);
    nom.pod = fx_pod(&w.a, pod_json(&w.a, &nominee));
    nom.node = "node1";
    engine_placer_init(&pl, 100, 1);
    /* Without the nomination the low pod fits... */
    assert_int_equal(
        engine_place(&pl, &w.plans, w.pod, &w.fc.c, &w.a, &r, &ni, &msg), 0);
    /* ...with it, node1 has no room left for it. */
    assert_int_equal(engine_nominees_index(&w.a, &nom, 1, &noms), 0);
    pl.nominees = &noms;
    assert_int_equal(
        engine_place(&pl, &w.plans, w.pod, &w.fc.c, &w.a, &r, &ni, &msg), 1);
    assert_string_equal(msg, "0/1 nodes are available: 1 Insufficient cpu, "
                             "1 Insufficient memory.");
    /* A pod of higher priority does not wait for it. */
    assert_int_equal(engine_place(&pl, &w.plans,
                                  fx_pod(&w.a, pod_json(&w.a, &top)), &w.fc.c,
                                  &w.a, &r, &ni, &msg),
                     0);
    /* Nor does the nominee itself. */
    assert_int_equal(
        engine_place(&pl, &w.plans, nom.pod, &w.fc.c, &w.a, &r, &ni, &msg), 0);
    engine_placer_free(&pl);
    world_down(&w);
}

/* selectVictimsOnNode counts the nominated pods too: the victims must
 * make room for the preemptor and for a higher nominee. */
static void victims_should_make_room_for_nominated_pods(void **state)
{
    static const char *const nodes[] = { "node1", NULL };
    static const struct tpod pods[] = { { "v1", "node1", LOW, S, 0, NULL },
                                        { "v2", "node1", LOW, S, 0, NULL },
                                        { "v3", "node1", LOW, M, 0, NULL },
                                        { NULL, NULL, 0, NONE, 0, NULL } };
    static const struct tpod nominee = { "n", NULL, VHI, M, 0, NULL };
    static const struct tpod tp = { "p", NULL, HIGH, M, 0, NULL };
    struct engine_victims best;
    struct engine_nominee nom;
    struct engine_nominees noms;
    struct eval_result failed;
    struct world w;
    struct err e;

    (void)state;
    world_up(&w, FIT, nodes, pods, &tp);
    failed_pass(&w, &failed);
    /* 400m used of 500m: evicting v3 (200m) makes room for p alone. */
    assert_int_equal(
        engine_preempt(&w.pr, w.pod, &failed, 0, &w.a, &best, NULL, &e), 1);
    assert_string_equal(describe(&w.a, &best, 1), "node1:v3");
    /* With a 200m nominee of higher priority, one more must go. */
    nom.pod = fx_pod(&w.a, pod_json(&w.a, &nominee));
    nom.node = "node1";
    assert_int_equal(engine_nominees_index(&w.a, &nom, 1, &noms), 0);
    w.pr.nominees = &noms;
    assert_int_equal(
        engine_preempt(&w.pr, w.pod, &failed, 0, &w.a, &best, NULL, &e), 1);
    assert_string_equal(describe(&w.a, &best, 1), "node1:v2,v3");
    world_down(&w);
}

/*
 * engine_nominated_on through the by-node index: the pods nominated to a
 * node, of the pod's priority or more, the pod itself left out, in the
 * order of the nominations; a nomination without a node (out of memory)
 * matches none. Checked against a plain walk of every nomination, on
 * every node name and a few absent ones, for pods of several priorities.
 */
static void nominated_on_should_match_a_walk_of_every_nomination(void **state)
{
    static const char *const where[] = { "node2", "node1", "node1", NULL,
                                         "node1", "node1", "node3", "node10",
                                         "node1", "node2" };
    static const int prio[] = { HIGH, LOW, VHI, HIGH, HIGH,
                                HIGH, MID, VHI, MID,  HIGH };
    static const char *const ask[] = { "node0", "node1", "node10", "node2",
                                       "node3", "node4", "" };
    enum { N = sizeof(where) / sizeof(where[0]) };
    struct engine_nominee nom[N];
    struct engine_nominees ix;
    const struct kube_pod *got[N], *want[N];
    const struct kube_pod *who[3];
    struct world w;
    size_t i, k, q, n_got, n_want;

    (void)state;
    world_up(&w, FIT, (const char *const[]){ "node1", NULL }, NULL,
             &(struct tpod){ "x", NULL, LOW, S, 0, NULL });
    for (i = 0; i < N; i++) {
        struct tpod t = {
            arena_sprintf(&w.a, "n%zu", i), NULL, prio[i], S, 0, NULL
        };

        nom[i].pod = fx_pod(&w.a, pod_json(&w.a, &t));
        nom[i].node = where[i];
    }
    assert_int_equal(engine_nominees_index(&w.a, nom, N, &ix), 0);
    who[0] = nom[5].pod; /* nominated itself, on node1 */
    who[1] = fx_pod(
        &w.a, pod_json(&w.a, &(struct tpod){ "p", NULL, MID, S, 0, NULL }));
    who[2] = fx_pod(
        &w.a, pod_json(&w.a, &(struct tpod){ "q", NULL, LOW, S, 0, NULL }));
    for (q = 0; q < 3; q++) {
        for (k = 0; k < sizeof(ask) / sizeof(ask[0]); k++) {
            n_want = 0;
            for (i = 0; i < N; i++) {
                if (where[i] && !strcmp(where[i], ask[k]) &&
                    engine_pod_priority(nom[i].pod) >=
                        engine_pod_priority(who[q]) &&
                    !engine_same_pod(nom[i].pod, who[q]))
                    want[n_want++] = nom[i].pod;
            }
            n_got = engine_nominated_on(&ix, who[q], ask[k], got);
            assert_int_equal(n_got, n_want);
            for (i = 0; i < n_got; i++)
                assert_ptr_equal(got[i], want[i]);
        }
    }
    /* The pod nominated itself sees node1's others of HIGH or more, in
     * order: n2 (VHI), n4 (HIGH); not n1 (LOW), n5 (itself), n8 (MID). */
    n_got = engine_nominated_on(&ix, who[0], "node1", got);
    assert_int_equal(n_got, 2);
    assert_ptr_equal(got[0], nom[2].pod);
    assert_ptr_equal(got[1], nom[4].pod);
    world_down(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dry_run_preemption_rows),
        cmocka_unit_test(dry_run_should_start_at_the_offset_and_wrap),
        cmocka_unit_test(select_best_candidate_rows),
        cmocka_unit_test(pod_eligible_to_preempt_others_rows),
        cmocka_unit_test(nodes_where_preemption_might_help_rows),
        cmocka_unit_test(nominated_pods_should_keep_their_room),
        cmocka_unit_test(victims_should_make_room_for_nominated_pods),
        cmocka_unit_test(nominated_on_should_match_a_walk_of_every_nomination),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
