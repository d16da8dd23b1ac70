/*
 * test_scheduler.c: the standalone scheduler's pure parts and its watch
 * side: FitError's summary, selectHost's random tie-break, message
 * truncation, assumed pods in the cache (no double counting when the
 * watch confirms), and the sink that feeds the queue (which pods are
 * queued, which events move unschedulable pods, relists).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/client/cache.h"
#include "kube/base/json_parse.h"
#include "kube/parse/parse.h"
#include "server/common/metrics.h"
#include "engine/engine_fit_error.h"
#include "engine/engine_select.h"
#include "server/scheduler/sched_fail.h"
#include "server/scheduler/scheduler.h"

/* ---- FitError ---- */

struct node_reasons {
    bool feasible;
    const char *reasons[3];
};

/* After FitError.Error() (v1.22 framework/types.go) as
 * TestGenericScheduler's "FitError" rows print it. */
static const struct {
    const char *name;
    struct node_reasons nodes[6];
    size_t n;
    const char *want;
} fit_cases[] = {
    { "the issue's example",
      { { false, { "Insufficient cpu" } },
        { false, { "node(s) didn't match node selector" } },
        { false, { "node(s) didn't match node selector" } } },
      3,
      "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match "
      "node selector." },
    { "several reasons on one node each count",
      { { false, { "Insufficient cpu", "Insufficient memory" } },
        { false, { "Insufficient memory" } } },
      2,
      "0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory." },
    { "sorted bytewise: 10 before 2",
      { { false, { "b" } },
        { false, { "b" } },
        { false, { "a" } },
        { false, { "a" } },
        { false, { "a" } },
        { false, { "c" } } },
      6,
      "0/6 nodes are available: 1 c, 2 b, 3 a." },
    { "feasible nodes count in N but add no reason",
      { { true, { NULL } },
        { false,
          { "node(s) had taint {k: v}, that the "
            "pod didn't tolerate" } } },
      2,
      "0/2 nodes are available: 1 node(s) had taint {k: v}, that the pod "
      "didn't tolerate." },
};

static void fit_error_should_count_and_sort_reasons(void **state)
{
    size_t c, i, k;

    (void)state;
    for (c = 0; c < sizeof(fit_cases) / sizeof(fit_cases[0]); c++) {
        struct eval_node nodes[6];
        struct pred_failure fails[6];
        struct eval_result r;
        struct arena a;
        const char *got;

        arena_init(&a, 0);
        memset(&r, 0, sizeof(r));
        memset(nodes, 0, sizeof(nodes));
        r.n_nodes = fit_cases[c].n;
        r.nodes = nodes;
        for (i = 0; i < fit_cases[c].n; i++) {
            const struct node_reasons *nr = &fit_cases[c].nodes[i];

            nodes[i].feasible = nr->feasible;
            fails[i].predicate = "P";
            fails[i].reasons = (const char **)nr->reasons;
            for (k = 0; k < 3 && nr->reasons[k]; k++)
                ;
            fails[i].n_reasons = k;
            nodes[i].verdict.n_failures = nr->feasible ? 0 : 1;
            nodes[i].verdict.failures = &fails[i];
        }
        got = engine_fit_error(&a, &r);
        if (!got || strcmp(got, fit_cases[c].want))
            fail_msg("%s: got \"%s\"\nwant \"%s\"", fit_cases[c].name,
                     got ? got : "(null)", fit_cases[c].want);
        arena_destroy(&a);
    }
}

/* ---- selectHost ---- */

static void select_host_should_take_the_best_total(void **state)
{
    static const struct {
        const char *name;
        int64_t totals[5];
        size_t n, want;
    } cases[] = {
        { "single node", { 3 }, 1, 0 },
        { "best last", { 1, 2, 9 }, 3, 2 },
        { "best first", { 9, 2, 1 }, 3, 0 },
        { "negative totals", { -5, -1, -3 }, 3, 1 },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t rng = 42;
        size_t got = engine_select_host(cases[i].totals, cases[i].n, &rng);

        if (got != cases[i].want)
            fail_msg("%s: picked %zu, want %zu", cases[i].name, got,
                     cases[i].want);
    }
}

/* TestSelectHost (v1.22 generic_scheduler_test.go): ties are broken at
 * random among the best only, each about equally often; a seed repeats. */
static void select_host_should_spread_ties_and_repeat_with_a_seed(void **state)
{
    const int64_t totals[] = { 5, 9, 1, 9, 9, 3 };
    size_t count[6] = { 0 }, i;
    uint64_t rng = 1, r1 = 77, r2 = 77;

    (void)state;
    for (i = 0; i < 3000; i++)
        count[engine_select_host(totals, 6, &rng)]++;
    assert_int_equal(count[0] + count[2] + count[5], 0);
    for (i = 0; i < 6; i++) {
        if (totals[i] == 9 && (count[i] < 800 || count[i] > 1200))
            fail_msg("node %zu chosen %zu times of 3000", i, count[i]);
    }
    for (i = 0; i < 100; i++)
        assert_int_equal(engine_select_host(totals, 6, &r1),
                         engine_select_host(totals, 6, &r2));
}

static void truncate_should_cap_messages_at_the_note_limit(void **state)
{
    char long_msg[2000];
    struct arena a;
    const char *t;

    (void)state;
    arena_init(&a, 0);
    memset(long_msg, 'x', sizeof(long_msg) - 1);
    long_msg[sizeof(long_msg) - 1] = '\0';
    t = sched_truncate_message(&a, long_msg);
    assert_int_equal(strlen(t), SCHED_MESSAGE_LIMIT);
    assert_string_equal(t + SCHED_MESSAGE_LIMIT - 4, " ...");
    long_msg[SCHED_MESSAGE_LIMIT] = '\0';
    assert_ptr_equal(sched_truncate_message(&a, long_msg), long_msg);
    arena_destroy(&a);
}

/* ---- events into the cache (and the sink) ---- */

static void apply(const struct kube_informer_sink *sink, enum kube_kind k,
                  enum kube_event_type t, const char *json)
{
    struct arena a;
    cJSON *root = NULL;
    struct err e = { "" };
    struct kube_watch_event ev;

    arena_init(&a, 0);
    if (json_arena_parse(&a, json, strlen(json), 0, &root, &e) < 0)
        fail_msg("bad test JSON: %s: %s", e.msg, json);
    ev.type = t;
    ev.object = root;
    if (sink->apply(sink->arg, k, &ev, 1, &e) < 0)
        fail_msg("apply: %s", e.msg);
    arena_destroy(&a);
}

static const char *pod_json(const char *name, const char *node,
                            const char *sched, const char *cpu,
                            const char *label)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ & 3];

    snprintf(b, sizeof(bufs[0]),
             "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\","
             "\"uid\":\"u-%s\",\"labels\":{\"l\":\"%s\"}},\"spec\":{"
             "\"schedulerName\":\"%s\",\"nodeName\":\"%s\",\"containers\":[{"
             "\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"%s\"}},"
             "\"ports\":[{\"containerPort\":80,\"hostPort\":8080}]}]},"
             "\"status\":{\"phase\":\"Pending\"}}",
             name, name, label, sched, node, cpu);
    return b;
}

static const char *node_json(const char *name, const char *cpu)
{
    static char b[512];

    snprintf(b, sizeof(b),
             "{\"metadata\":{\"name\":\"%s\"},\"status\":{\"allocatable\":{"
             "\"cpu\":\"%s\",\"memory\":\"8Gi\",\"pods\":\"110\"}}}",
             name, cpu);
    return b;
}

static const struct node_info *node(struct kube_cache *c, const char *name)
{
    const struct cluster *cl = kube_cache_read_lock(c);
    const struct node_info *ni = cluster_node(cl, name);

    kube_cache_read_unlock(c);
    if (!ni)
        fail_msg("no node %s", name);
    return ni; /* tests are single-threaded: stays valid */
}

static struct kube_pod *parse_pod(struct arena *a, const char *json)
{
    struct kube_pod *p = arena_calloc(a, 1, sizeof(*p));
    struct err e = { "" };
    cJSON *root = NULL;

    if (json_arena_parse(a, json, strlen(json), 0, &root, &e) < 0 ||
        kube_pod_from_cjson(a, root, NULL, p, &e) < 0)
        fail_msg("pod: %s", e.msg);
    return p;
}

static void assumed_pod_should_count_once_until_the_watch_confirms(void **s)
{
    struct err e = { "" };
    struct kube_cache *c = kube_cache_new(0, &e);
    struct kube_informer_sink sink;
    struct arena a;
    struct kube_pod *p;

    (void)s;
    arena_init(&a, 0);
    kube_cache_sink(c, &sink);
    apply(&sink, KUBE_KIND_NODE, KUBE_EVENT_ADDED, node_json("n1", "4"));
    apply(&sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
          pod_json("p", "", "me", "500m", "a"));
    assert_int_equal(node(c, "n1")->requested.milli_cpu, 0);

    p = parse_pod(&a, pod_json("p", "", "me", "500m", "a"));
    assert_int_equal(kube_cache_assume_pod(c, p, "n1"), 1);
    assert_true(kube_cache_pod_assumed(c, "default", "p"));
    assert_int_equal(node(c, "n1")->requested.milli_cpu, 500);
    assert_int_equal(node(c, "n1")->n_ports, 1);
    /* Assuming again (a retry) replaces, never adds. */
    assert_int_equal(kube_cache_assume_pod(c, p, "n1"), 1);
    assert_int_equal(node(c, "n1")->requested.milli_cpu, 500);
    /* A status update without nodeName keeps the assumption. */
    apply(&sink, KUBE_KIND_POD, KUBE_EVENT_MODIFIED,
          pod_json("p", "", "me", "500m", "a"));
    assert_int_equal(node(c, "n1")->requested.milli_cpu, 500);
    /* The bound pod arrives: it replaces the assumed copy. */
    apply(&sink, KUBE_KIND_POD, KUBE_EVENT_MODIFIED,
          pod_json("p", "n1", "me", "500m", "a"));
    assert_false(kube_cache_pod_assumed(c, "default", "p"));
    assert_int_equal(node(c, "n1")->requested.milli_cpu, 500);
    assert_int_equal(node(c, "n1")->n_pods, 1);
    assert_int_equal(kube_cache_forget_pod(c, "default", "p"), 0);
    assert_int_equal(node(c, "n1")->n_pods, 1);
    /* The cache already has it on a node: no assumption. */
    assert_int_equal(kube_cache_assume_pod(c, p, "n1"), KUBE_CACHE_POD_BOUND);
    assert_int_equal(node(c, "n1")->requested.milli_cpu, 500);
    kube_cache_free(c);
    arena_destroy(&a);
}

static void assumed_pod_should_go_on_forget_delete_or_expiry(void **s)
{
    struct err e = { "" };
    struct kube_cache *c = kube_cache_new(0, &e);
    struct kube_informer_sink sink;
    struct kube_cache_stats st;
    struct arena a;
    struct kube_pod *p, *q;

    (void)s;
    arena_init(&a, 0);
    kube_cache_sink(c, &sink);
    apply(&sink, KUBE_KIND_NODE, KUBE_EVENT_ADDED, node_json("n1", "4"));
    p = parse_pod(&a, pod_json("p", "", "me", "1", "a"));
    q = parse_pod(&a, pod_json("q", "", "me", "2", "a"));
    apply(&sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
          pod_json("q", "", "me", "2", "a"));

    assert_int_equal(kube_cache_assume_pod(c, p, "n1"), 1);
    assert_int_equal(kube_cache_forget_pod(c, "default", "p"), 1);
    assert_int_equal(node(c, "n1")->requested.milli_cpu, 0);

    assert_int_equal(kube_cache_assume_pod(c, q, "n1"), 1);
    apply(&sink, KUBE_KIND_POD, KUBE_EVENT_DELETED,
          pod_json("q", "", "me", "2", "a"));
    assert_false(kube_cache_pod_assumed(c, "default", "q"));
    assert_int_equal(node(c, "n1")->requested.milli_cpu, 0);

    /* Binding finished: kept until its deadline, then dropped. */
    assert_int_equal(kube_cache_assume_pod(c, p, "n1"), 1);
    assert_int_equal(kube_cache_cleanup_assumed(c, 1e9), 0); /* binding */
    kube_cache_finish_binding(c, "default", "p", 100);
    assert_int_equal(kube_cache_cleanup_assumed(c, 99), 0);
    assert_int_equal(kube_cache_cleanup_assumed(c, 100), 1);
    assert_int_equal(node(c, "n1")->requested.milli_cpu, 0);

    /* Unknown node: not assumed, and no orphan left behind. */
    assert_int_equal(kube_cache_assume_pod(c, p, "nope"), 0);
    kube_cache_stats(c, &st);
    assert_int_equal(st.orphan_pods, 0);
    assert_false(kube_cache_pod_assumed(c, "default", "p"));
    kube_cache_free(c);
    arena_destroy(&a);
}

/* ---- the scheduler's sink ---- */

struct fixture {
    struct kube_cache *cache;
    struct metrics *m;
    struct app app;
    struct scheduler s;
    struct kube_informer_sink sink;
};

/* The scheduler as release sem (--semantics). */
static void fixture_up_as(struct fixture *f, enum kpe_semantics sem)
{
    struct sched_options o = { .scheduler_name = "me",
                               .seed = 1,
                               .bind_workers = 1 };
    struct err e = { "" };

    memset(f, 0, sizeof(*f));
    f->cache = kube_cache_new(0, &e);
    f->m = metrics_new();
    app_init(&f->app, "deploy/demo/policy.json", NULL, 0, 0);
    f->app.semantics = sem;
    if (!f->cache || !f->m || app_load(&f->app, &e) < 0 ||
        sched_init(&f->s, &o, &f->app, f->cache, NULL, NULL, f->m, &e) < 0)
        fail_msg("fixture: %s", e.msg);
    sched_sink(&f->s, &f->sink);
}

static void fixture_up(struct fixture *f)
{
    fixture_up_as(f, KPE_SEM_DEFAULT);
}

static void fixture_down(struct fixture *f)
{
    sched_destroy(&f->s);
    kube_cache_free(f->cache);
    app_destroy(&f->app);
    metrics_free(f->m);
}

static size_t queued(struct fixture *f)
{
    return sched_pending(&f->s, SCHED_Q_ACTIVE) +
           sched_pending(&f->s, SCHED_Q_BACKOFF) +
           sched_pending(&f->s, SCHED_Q_UNSCHEDULABLE) +
           sched_pending(&f->s, SCHED_Q_IN_FLIGHT);
}

/* addPodToSchedulingQueue's filter (v1.22 eventhandlers.go): unassigned
 * pods responsible to this scheduler only. */
static void sink_should_queue_only_our_pending_pods(void **s)
{
    static const struct {
        const char *name;
        const char *node, *sched;
        size_t want;
    } cases[] = {
        { "ours and pending", "", "me", 1 },
        { "another scheduler's", "", "default-scheduler", 0 },
        { "ours but bound", "n1", "me", 0 },
    };
    size_t i;

    (void)s;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fixture f;

        fixture_up(&f);
        apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
              pod_json("p", cases[i].node, cases[i].sched, "1", "a"));
        if (queued(&f) != cases[i].want)
            fail_msg("%s: %zu queued, want %zu", cases[i].name, queued(&f),
                     cases[i].want);
        fixture_down(&f);
    }
}

static void sink_should_forget_pods_bound_deleted_or_not_relisted(void **s)
{
    struct fixture f;

    (void)s;
    fixture_up(&f);
    apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
          pod_json("a", "", "me", "1", "x"));
    apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
          pod_json("b", "", "me", "1", "x"));
    apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
          pod_json("c", "", "me", "1", "x"));
    assert_int_equal(queued(&f), 3);
    apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_MODIFIED,
          pod_json("a", "n9", "me", "1", "x"));
    apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_DELETED,
          pod_json("b", "", "me", "1", "x"));
    assert_int_equal(queued(&f), 1);
    /* A relist that does not mention c: c is gone. */
    f.sink.list_begin(f.sink.arg, KUBE_KIND_POD);
    apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
          pod_json("d", "", "me", "1", "x"));
    f.sink.list_end(f.sink.arg, KUBE_KIND_POD);
    assert_int_equal(queued(&f), 1);
    assert_non_null(sched_queue_find(&f.s.q, "default/d"));
    assert_null(sched_queue_find(&f.s.q, "default/c"));
    fixture_down(&f);
}

/* Which events move an unschedulable pod (v1.22 eventhandlers.go):
 * NodeAdd, a node update that changes what filters read, AssignedPodDelete,
 * PV/PVC/Service/StorageClass/CSINode events; not heartbeats, not a
 * pending pod's status update. */
static void sink_should_move_unschedulable_pods_on_cluster_events(void **s)
{
    static const struct {
        const char *name;
        enum kube_kind kind;
        enum kube_event_type type;
        const char *json;
        bool moves;
    } cases[] = {
        { "node added", KUBE_KIND_NODE, KUBE_EVENT_ADDED,
          "{\"metadata\":{\"name\":\"n2\"}}", true },
        { "node allocatable changed", KUBE_KIND_NODE, KUBE_EVENT_MODIFIED,
          "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":"
          "{\"cpu\":\"64\"}}}",
          true },
        { "node heartbeat only", KUBE_KIND_NODE, KUBE_EVENT_MODIFIED,
          "{\"metadata\":{\"name\":\"n1\",\"resourceVersion\":\"9\"},"
          "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\","
          "\"pods\":\"110\"},\"conditions\":[{\"type\":\"Ready\",\"status\":"
          "\"True\",\"lastHeartbeatTime\":\"2024-01-01T00:00:00Z\"}]}}",
          false },
        { "node deleted", KUBE_KIND_NODE, KUBE_EVENT_DELETED,
          "{\"metadata\":{\"name\":\"n1\"}}", false },
        { "assigned pod deleted", KUBE_KIND_POD, KUBE_EVENT_DELETED,
          "{\"metadata\":{\"name\":\"o\",\"namespace\":\"default\"},"
          "\"spec\":{\"nodeName\":\"n1\",\"containers\":[]}}",
          true },
        { "service added", KUBE_KIND_SERVICE, KUBE_EVENT_ADDED,
          "{\"metadata\":{\"name\":\"svc\",\"namespace\":\"default\"}}", true },
        { "the pod's own status update", KUBE_KIND_POD, KUBE_EVENT_MODIFIED,
          NULL, false },
    };
    size_t i;

    (void)s;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fixture f;
        struct sched_qitem *it;

        fixture_up(&f);
        apply(&f.sink, KUBE_KIND_NODE, KUBE_EVENT_ADDED,
              "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":{"
              "\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"},"
              "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
              "\"lastHeartbeatTime\":\"2023-01-01T00:00:00Z\"}]}}");
        apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
              pod_json("p", "", "me", "8", "x"));
        /* Pretend a scheduling attempt failed, long enough ago. */
        pthread_mutex_lock(&f.s.lock);
        it = sched_queue_pop(&f.s.q);
        sched_queue_requeue(&f.s.q, it, -100);
        pthread_mutex_unlock(&f.s.lock);
        assert_int_equal(sched_pending(&f.s, SCHED_Q_UNSCHEDULABLE), 1);
        apply(&f.sink, cases[i].kind, cases[i].type,
              cases[i].json ? cases[i].json
                            : pod_json("p", "", "me", "8", "x"));
        if ((sched_pending(&f.s, SCHED_Q_ACTIVE) == 1) != cases[i].moves)
            fail_msg("%s: active %zu, unschedulable %zu", cases[i].name,
                     sched_pending(&f.s, SCHED_Q_ACTIVE),
                     sched_pending(&f.s, SCHED_Q_UNSCHEDULABLE));
        fixture_down(&f);
    }
}

/* A pending pod "w" of ours whose required pod affinity wants l=x in the
 * pod's own namespace (default). */
static const char affine_pod[] =
    "{\"metadata\":{\"name\":\"w\",\"namespace\":\"default\","
    "\"uid\":\"u-w\"},\"spec\":{\"schedulerName\":\"me\","
    "\"containers\":[{\"name\":\"c\"}],\"affinity\":{\"podAffinity\":{"
    "\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":"
    "{\"matchLabels\":{\"l\":\"x\"}},\"topologyKey\":\"zone\"}]}}},"
    "\"status\":{\"phase\":\"Pending\"}}";

/* An assigned pod o in namespace ns with label l=label. */
static const char *assigned_json(const char *ns, const char *label)
{
    static char b[512];

    snprintf(b, sizeof(b),
             "{\"metadata\":{\"name\":\"o\",\"namespace\":\"%s\","
             "\"uid\":\"u-o\",\"labels\":{\"l\":\"%s\"}},\"spec\":{"
             "\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\"}]}}",
             ns, label);
    return b;
}

/* AssignedPodAdded / AssignedPodUpdated (v1.20.2 eventhandlers.go
 * addPodToCache and updatePodInCache; scheduling_queue.go
 * getUnschedulablePodsWithMatchingAffinityTerm, whose test is
 * TestPriorityQueue_AssignedPodAdded): a bound pod's add or update moves
 * the unschedulable pods with a required affinity term it matches, and
 * only those. Before, a pod waiting for an affine pod was retried only
 * after 60 s. */
static void sink_should_move_affine_pods_when_a_bound_pod_matches(void **s)
{
    static const struct {
        const char *name;
        enum kube_event_type type;
        const char *ns, *label;
        bool moves;
    } cases[] = {
        { "matching pod bound (added)", KUBE_EVENT_ADDED, "default", "x",
          true },
        { "matching pod updated", KUBE_EVENT_MODIFIED, "default", "x", true },
        { "pod with other labels", KUBE_EVENT_ADDED, "default", "y", false },
        { "matching labels, other namespace", KUBE_EVENT_ADDED, "other", "x",
          false },
    };
    size_t i;

    (void)s;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fixture f;
        struct sched_qitem *it;

        fixture_up(&f);
        apply(&f.sink, KUBE_KIND_NODE, KUBE_EVENT_ADDED, node_json("n1", "4"));
        apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
              pod_json("p", "", "me", "1", "a"));
        apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED, affine_pod);
        pthread_mutex_lock(&f.s.lock);
        while ((it = sched_queue_pop(&f.s.q)))
            sched_queue_requeue(&f.s.q, it, -100);
        pthread_mutex_unlock(&f.s.lock);
        assert_int_equal(sched_pending(&f.s, SCHED_Q_UNSCHEDULABLE), 2);
        apply(&f.sink, KUBE_KIND_POD, cases[i].type,
              assigned_json(cases[i].ns, cases[i].label));
        if (sched_pending(&f.s, SCHED_Q_ACTIVE) != (cases[i].moves ? 1u : 0u) ||
            (cases[i].moves &&
             sched_queue_find(&f.s.q, "default/w")->state != SCHED_Q_ACTIVE))
            fail_msg("%s: active %zu, unschedulable %zu", cases[i].name,
                     sched_pending(&f.s, SCHED_Q_ACTIVE),
                     sched_pending(&f.s, SCHED_Q_UNSCHEDULABLE));
        fixture_down(&f);
    }
}

/* movePodsToActiveOrBackoffQueue records the move request even when no
 * pod waits: a pod in flight while another pod is bound goes to backoff
 * when it fails, not to the unschedulable set
 * (TestPriorityQueue_AddUnschedulableIfNotPresent_Backoff's rule). */
static void sink_should_send_a_failing_pod_to_backoff_after_a_bind(void **s)
{
    struct fixture f;
    struct sched_qitem *it;

    (void)s;
    fixture_up(&f);
    apply(&f.sink, KUBE_KIND_NODE, KUBE_EVENT_ADDED, node_json("n1", "4"));
    apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED, affine_pod);
    pthread_mutex_lock(&f.s.lock);
    it = sched_queue_pop(&f.s.q);
    pthread_mutex_unlock(&f.s.lock);
    apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
          assigned_json("default", "y"));
    pthread_mutex_lock(&f.s.lock);
    sched_queue_requeue(&f.s.q, it, 0);
    pthread_mutex_unlock(&f.s.lock);
    assert_int_equal(sched_pending(&f.s, SCHED_Q_BACKOFF), 1);
    assert_int_equal(sched_pending(&f.s, SCHED_Q_UNSCHEDULABLE), 0);
    fixture_down(&f);
}

/* v1.20.2's updateNodeInCache: with no pod unschedulable, any update of
 * a node (a heartbeat too) is a move request (the Unknown event), so a pod
 * in flight that fails goes to backoff; #98899 (v1.21) moves only on a
 * change filters read, so as 1.21 and 1.22 it waits. */
static void node_update_should_be_a_move_request_as_1_20(void **s)
{
    static const struct {
        enum kpe_semantics sem;
        enum sched_qstate want;
    } cases[] = {
        { KPE_SEM_1_20, SCHED_Q_BACKOFF },
        { KPE_SEM_1_21, SCHED_Q_UNSCHEDULABLE },
        { KPE_SEM_1_22, SCHED_Q_UNSCHEDULABLE },
    };
    size_t i;

    (void)s;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fixture f;
        struct sched_qitem *it;

        fixture_up_as(&f, cases[i].sem);
        apply(&f.sink, KUBE_KIND_NODE, KUBE_EVENT_ADDED,
              "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":{"
              "\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"},"
              "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
              "\"lastHeartbeatTime\":\"2023-01-01T00:00:00Z\"}]}}");
        apply(&f.sink, KUBE_KIND_POD, KUBE_EVENT_ADDED,
              pod_json("p", "", "me", "8", "x"));
        pthread_mutex_lock(&f.s.lock);
        it = sched_queue_pop(&f.s.q);
        pthread_mutex_unlock(&f.s.lock);
        apply(
            &f.sink, KUBE_KIND_NODE, KUBE_EVENT_MODIFIED,
            "{\"metadata\":{\"name\":\"n1\",\"resourceVersion\":\"9\"},"
            "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\","
            "\"pods\":\"110\"},\"conditions\":[{\"type\":\"Ready\",\"status\":"
            "\"True\",\"lastHeartbeatTime\":\"2024-01-01T00:00:00Z\"}]}}");
        pthread_mutex_lock(&f.s.lock);
        sched_queue_requeue(&f.s.q, it, 0);
        pthread_mutex_unlock(&f.s.lock);
        if (sched_queue_find(&f.s.q, "default/p")->state != cases[i].want)
            fail_msg("as %s: state %d, want %d",
                     kpe_semantics_name(cases[i].sem),
                     (int)sched_queue_find(&f.s.q, "default/p")->state,
                     (int)cases[i].want);
        fixture_down(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fit_error_should_count_and_sort_reasons),
        cmocka_unit_test(select_host_should_take_the_best_total),
        cmocka_unit_test(select_host_should_spread_ties_and_repeat_with_a_seed),
        cmocka_unit_test(truncate_should_cap_messages_at_the_note_limit),
        cmocka_unit_test(
            assumed_pod_should_count_once_until_the_watch_confirms),
        cmocka_unit_test(assumed_pod_should_go_on_forget_delete_or_expiry),
        cmocka_unit_test(sink_should_queue_only_our_pending_pods),
        cmocka_unit_test(sink_should_forget_pods_bound_deleted_or_not_relisted),
        cmocka_unit_test(sink_should_move_unschedulable_pods_on_cluster_events),
        cmocka_unit_test(sink_should_move_affine_pods_when_a_bound_pod_matches),
        cmocka_unit_test(
            sink_should_send_a_failing_pod_to_backoff_after_a_bind),
        cmocka_unit_test(node_update_should_be_a_move_request_as_1_20),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
