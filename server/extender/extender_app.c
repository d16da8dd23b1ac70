/*
 * extender_app.c: the extender application inside `serve`: the published
 * policy and cluster state, the extender verbs (filter, prioritize,
 * preempt), GET /policy, and the SIGHUP reload that keeps the running
 * policy when the new one is invalid.
 */
#include "server/extender/extender_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/client/cache.h"
#include "kube/client/client.h"
#include "kube/base/clock.h"
#include "kube/base/json_writer.h"
#include "policy/policy.h"
#include "server/source/cluster_source.h"
#include "server/extender/call_ring.h"
#include "server/extender/extender.h"
#include "engine/feature_gates.h"
#include "engine/plugin_call.h"
#include "server/http/http.h"
#include "server/common/log.h"

/*
 * The cluster a request evaluates against: the live cache (read-locked
 * until cluster_release) or the state's static snapshot.
 */
static const struct cluster *cluster_acquire(struct extender_app *ctx,
                                             const struct app_state *st)
{
    if (ctx->cache)
        return kube_cache_read_lock(ctx->cache);
    return &st->cluster->cluster;
}

static void cluster_release(struct extender_app *ctx)
{
    if (ctx->cache)
        kube_cache_read_unlock(ctx->cache);
}

static struct app_state *state_or_reply(struct server *s,
                                        struct srv_response *resp)
{
    struct extender_app *ctx = s->app;
    struct app_state *st = app_acquire(&ctx->app);

    if (!st)
        srv_reply_text(resp, 503, "not ready: policy not loaded\n");
    return st;
}

/* One call for GET /debug/calls (only with --debug-endpoints). */
static void note_call(struct extender_app *ctx, const char *verb,
                      const struct kube_pod *pod, size_t nodes,
                      const char *answer, double t0)
{
    if (ctx->calls)
        call_ring_add(ctx->calls, verb, pod ? pod->namespace : NULL,
                      pod ? pod->name : NULL, nodes, answer, kube_now() - t0);
}

/* Predicate failures per predicate and nodes evaluated. */
static void record_filter_stats(struct server *s, struct extender_app *ctx,
                                const struct ext_stats *stats)
{
    size_t i;

    metrics_counter_add(ctx->nodes_evaluated, stats->nodes);
    metrics_counter_add(ctx->nodes_feasible, stats->feasible);
    for (i = 0; i < stats->n_preds; i++) {
        char label[256], esc[200];

        metrics_escape_label(esc, sizeof(esc), stats->preds[i].predicate);
        snprintf(label, sizeof(label), "predicate=\"%s\"", esc);
        metrics_counter_add(
            metrics_counter(s->metrics, "kpe_predicate_failures_total",
                            "Nodes rejected by each predicate in filter calls.",
                            label),
            stats->preds[i].failures);
    }
}

static void on_filter(struct server *s, const struct srv_request *req,
                      struct srv_response *resp, void *arg)
{
    struct extender_app *ctx = s->app;
    struct app_state *st = app_acquire(&ctx->app);
    struct ext_stats stats = { 0 };
    struct ext_decision dec = { 0 };
    const struct cluster *cl;
    size_t len = 0;
    char *out, answer[96];
    double t0 = kube_now();

    (void)arg;
    if (!st) {
        note_call(ctx, "filter", NULL, 0, "error: policy not loaded", t0);
        out = ext_filter_error("extender not ready: policy not loaded", &len);
        srv_reply_owned(resp, 200, "application/json", out, len);
        return;
    }
    serve_holds_sweep(&ctx->holds);
    cl = cluster_acquire(ctx, st);
    out = ext_filter(&st->plans, cl, req->arena, req->body, req->body_len, &len,
                     &stats, &dec);
    cluster_release(ctx);
    if (st->role.n_pod_dependent)
        serve_holds_settle(&ctx->holds, &dec);
    /* Names in stats belong to the policy: record before releasing it. */
    record_filter_stats(s, ctx, &stats);
    app_release(st);
    if (ctx->calls) {
        snprintf(answer, sizeof(answer),
                 dec.pod ? "%zu of %zu passed" : "error (see its Error)",
                 dec.n_feasible, dec.n_nodes);
        note_call(ctx, "filter", dec.pod, dec.n_nodes, answer, t0);
    }
    srv_reply_owned(resp, 200, "application/json", out, len);
}

/* The scoring --score-scale asks for, with auto resolved by the policy. */
static void prio_opts(const struct extender_app *ctx,
                      const struct app_state *st, int scale,
                      struct ext_prio_opts *o)
{
    switch (scale) {
    case OPTS_SCORE_RAW:
        o->mode = EXT_SCORE_RAW;
        break;
    case OPTS_SCORE_SCALED:
        o->mode = EXT_SCORE_PROPORTIONAL;
        break;
    case OPTS_SCORE_RANK:
        o->mode = EXT_SCORE_RANK;
        break;
    default:
        o->mode = st->role.sole ? EXT_SCORE_RANK : EXT_SCORE_PROPORTIONAL;
        break;
    }
    o->single_top = o->mode == EXT_SCORE_RANK && st->role.n_pod_dependent &&
                    serve_holds_enabled(&ctx->holds);
}

/*
 * prioritize: a HostPriorityList. A failure is logged, counted and
 * answered with an empty list (HTTP 200), which every kube-scheduler
 * decodes: the extender then adds nothing to the node scores.
 */
static void on_prioritize(struct server *s, const struct srv_request *req,
                          struct srv_response *resp, void *arg)
{
    struct extender_app *ctx = s->app;
    struct app_state *st = app_acquire(&ctx->app);
    struct ext_decision dec = { 0 };
    struct ext_prio_opts po;
    const struct cluster *cl;
    struct err e = { "" };
    size_t len = 0;
    char *out, answer[96];
    double t0 = kube_now();

    (void)arg;
    if (!st) {
        err_set(&e, "extender not ready: policy not loaded");
        out = NULL;
    } else {
        prio_opts(ctx, st, s->opts.score_scale, &po);
        serve_holds_sweep(&ctx->holds);
        cl = cluster_acquire(ctx, st);
        out = ext_prioritize(&st->plans, cl, req->arena, req->body,
                             req->body_len, &po, &len, &dec, &e);
        cluster_release(ctx);
        if (out && po.single_top)
            serve_holds_settle(&ctx->holds, &dec);
        app_release(st);
    }
    if (!out) {
        LOG_WARN("%s: %s (answered with an empty list)", req->path, e.msg);
        metrics_counter_add(ctx->prioritize_errors, 1);
        out = ext_prioritize_empty(&len);
    }
    if (ctx->calls) {
        if (*e.msg)
            snprintf(answer, sizeof(answer), "error: %.80s", e.msg);
        else
            snprintf(answer, sizeof(answer), "scored %zu (%zu feasible)",
                     dec.n_nodes, dec.n_feasible);
        note_call(ctx, "prioritize", dec.pod, dec.n_nodes, answer, t0);
    }
    srv_reply_owned(resp, 200, "application/json", out, len);
}

/*
 * preempt has no Error field: a failure is a 400 whose status
 * kube-scheduler logs (and fails the preemption unless the extender is
 * ignorable).
 */
static void on_preempt(struct server *s, const struct srv_request *req,
                       struct srv_response *resp, void *arg)
{
    struct extender_app *ctx = s->app;
    struct app_state *st = state_or_reply(s, resp);
    const struct cluster *cl;
    struct err e = { "" };
    size_t len = 0;
    char *out, answer[96];
    double t0 = kube_now();

    (void)arg;
    if (!st) {
        note_call(ctx, "preempt", NULL, 0, "error: policy not loaded", t0);
        return;
    }
    cl = cluster_acquire(ctx, st);
    out = ext_preempt(&st->plans, cl, req->arena, req->body, req->body_len,
                      &len, &e);
    cluster_release(ctx);
    app_release(st);
    snprintf(answer, sizeof(answer), "%s%.80s",
             out ? "answered" : "error: ", out ? "" : e.msg);
    note_call(ctx, "preempt", NULL, 0, answer, t0);
    if (!out) {
        LOG_WARN("%s: %s", req->path, e.msg);
        out = ext_filter_error(e.msg, &len);
        srv_reply_owned(resp, 400, "application/json", out, len);
        return;
    }
    srv_reply_owned(resp, 200, "application/json", out, len);
}

/* bind: POST the Binding through the API client; errors go in Error. */
static void on_bind(struct server *s, const struct srv_request *req,
                    struct srv_response *resp, void *arg)
{
    struct extender_app *ctx = s->app;
    struct ext_binding b = { NULL, NULL, NULL, NULL };
    struct err e = { "" };
    const char *error = NULL;
    size_t len = 0;
    char *out;
    int rc;
    double t0 = kube_now();

    (void)arg;
    if (ext_decode_binding(req->arena, req->body, req->body_len, &b, &e) < 0)
        error = e.msg;
    else if (!ctx->client)
        error = "bind: no API server configured (--kubeconfig, --master or "
                "in-cluster)";
    else if ((rc = kube_client_bind(ctx->client, b.pod_namespace, b.pod_name,
                                    *b.pod_uid ? b.pod_uid : NULL, b.node,
                                    &e)) != 0)
        error =
            rc == KUBE_CLIENT_ALREADY_BOUND
                ? arena_sprintf(req->arena, "pod %s/%s is already bound: %s",
                                b.pod_namespace, b.pod_name, e.msg)
                : e.msg;
    if (error) {
        LOG_WARN("bind: %s", error);
        if (b.pod_name)
            serve_holds_release(&ctx->holds, b.pod_namespace, b.pod_name);
    }
    if (ctx->calls) {
        char answer[96];

        snprintf(answer, sizeof(answer), "%s%.80s",
                 error ? "error: " : "bound to ", error ? error : b.node);
        call_ring_add(ctx->calls, "bind", b.pod_namespace, b.pod_name,
                      b.node ? 1 : 0, answer, kube_now() - t0);
    }
    out = ext_binding_result(error, &len);
    srv_reply_owned(resp, 200, "application/json", out, len);
}

/* The effective policy as `check --output json` prints it (malloc'd). */
static char *policy_effective_json(const struct policy *p, size_t *len,
                                   struct err *e)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    if (!f) {
        err_set(e, "out of memory");
        return NULL;
    }
    policy_print_check(f, p, 1);
    if (fclose(f) != 0) {
        free(buf);
        err_set(e, "out of memory");
        return NULL;
    }
    return buf;
}

static void on_policy(struct server *s, const struct srv_request *req,
                      struct srv_response *resp, void *arg)
{
    struct app_state *st = state_or_reply(s, resp);
    struct err e = { "" };
    size_t len = 0;
    char *out;

    (void)arg;
    (void)req;
    if (!st)
        return;
    out = policy_effective_json(st->policy, &len, &e);
    app_release(st);
    if (!out) {
        srv_reply_text(resp, 500, e.msg);
        return;
    }
    srv_reply_owned(resp, 200, "application/json", out, len);
}

/*
 * The cluster as the verbs see it, for tests and soak runs that compare it
 * with the API server (malloc'd JSON): {"nodes": [{"name", "pods":
 * ["ns/name", ...], "requested": {"milliCPU", "memory", "ephemeralStorage",
 * "scalars": {...}}}], "pods": accounted, "orphanPods": n}. Pod names are
 * in the node's order, not sorted.
 */
static char *cluster_debug_json(const struct cluster *c, size_t *len)
{
    struct jsonw w;
    size_t i, j;

    jsonw_init(&w, 0);
    jsonw_begin_object(&w);
    jsonw_key(&w, "nodes");
    jsonw_begin_array(&w);
    for (i = 0; i < c->n_nodes; i++) {
        const struct node_info *ni = &c->nodes[i];
        const struct kube_resources *r = &ni->requested;

        jsonw_begin_object(&w);
        jsonw_key(&w, "name");
        jsonw_string(&w, ni->node->name);
        jsonw_key(&w, "pods");
        jsonw_begin_array(&w);
        for (j = 0; j < ni->n_pods; j++) {
            char *key = NULL;

            if (asprintf(&key, "%s/%s", ni->pods[j]->namespace,
                         ni->pods[j]->name) < 0) {
                jsonw_free(&w);
                return NULL;
            }
            jsonw_string(&w, key);
            free(key);
        }
        jsonw_end_array(&w);
        jsonw_key(&w, "requested");
        jsonw_begin_object(&w);
        jsonw_key(&w, "milliCPU");
        jsonw_int(&w, r->milli_cpu);
        jsonw_key(&w, "memory");
        jsonw_int(&w, r->memory);
        jsonw_key(&w, "ephemeralStorage");
        jsonw_int(&w, r->ephemeral_storage);
        jsonw_key(&w, "scalars");
        jsonw_begin_object(&w);
        for (j = 0; j < r->n_scalars; j++) {
            jsonw_key(&w, r->scalars[j].name);
            jsonw_int(&w, r->scalars[j].value);
        }
        jsonw_end_object(&w);
        jsonw_end_object(&w);
        jsonw_end_object(&w);
    }
    jsonw_end_array(&w);
    jsonw_key(&w, "pods");
    jsonw_int(&w, (int64_t)c->n_pods);
    jsonw_key(&w, "orphanPods");
    jsonw_int(&w, (int64_t)c->n_orphan_pods);
    jsonw_end_object(&w);
    return jsonw_take(&w, len);
}

/* GET /debug/calls (only with --debug-endpoints). */
static void on_debug_calls(struct server *s, const struct srv_request *req,
                           struct srv_response *resp, void *arg)
{
    struct extender_app *ctx = s->app;
    size_t len = 0;
    char *out = call_ring_json(ctx->calls, &len);

    (void)req;
    (void)arg;
    if (!out) {
        srv_reply_text(resp, 500, "out of memory\n");
        return;
    }
    srv_reply_owned(resp, 200, "application/json", out, len);
}

/* GET /debug/cache (only with --debug-endpoints). */
static void on_debug_cache(struct server *s, const struct srv_request *req,
                           struct srv_response *resp, void *arg)
{
    struct extender_app *ctx = s->app;
    struct app_state *st = state_or_reply(s, resp);
    const struct cluster *cl;
    size_t len = 0;
    char *out;

    (void)arg;
    (void)req;
    if (!st)
        return;
    cl = cluster_acquire(ctx, st);
    out = cluster_debug_json(cl, &len);
    cluster_release(ctx);
    app_release(st);
    srv_reply_owned(resp, 200, "application/json", out, len);
}

/* Say which deployment shape the served policy fits and what stays unsafe
 * (the same words as `check`, shorter). */
static void log_role(struct extender_app *ctx, const struct server *s)
{
    struct app_state *st = app_acquire(&ctx->app);
    const struct policy_role *r;
    int scale = s->opts.score_scale;

    if (!st)
        return;
    r = &st->role;
    if (!r->sole)
        LOG_INFO("policy fits the split shape: kube-scheduler keeps its "
                 "in-tree predicates and priorities; prioritize answers in "
                 "proportion (set the extender's weight to the sum of the "
                 "served priorities' weights: convert --to "
                 "scheduler-policy)");
    else
        LOG_INFO("policy names predicates or priorities kube-scheduler has "
                 "in-tree: the extender must decide alone (kube-scheduler's "
                 "Policy with predicates: [] and priorities: []); "
                 "prioritize ranks, the best node alone gets 10");
    if (r->n_pod_dependent) {
        bool holds = serve_holds_enabled(&ctx->holds);
        bool ranked =
            scale == OPTS_SCORE_RANK || (scale == OPTS_SCORE_AUTO && r->sole);

        if (!holds || !ranked)
            LOG_WARN("UNSAFE under a burst: the policy reads the pods on "
                     "nodes (%s, ...) and this server will not hold the "
                     "pods it decides (%s): kube-scheduler can over-commit "
                     "nodes. Serve the split shape instead (check explains)",
                     r->pod_dependent[0],
                     !holds ? "no live cluster or --hold-timeout 0"
                            : "--score-scale is not rank");
        else
            LOG_INFO("the policy reads the pods on nodes: holding each pod "
                     "on the node an answer singles out for up to %d s "
                     "(one replica only: holds are per process)",
                     s->opts.hold_timeout);
    }
    app_release(st);
}

static int on_reload(struct server *s, void *arg)
{
    struct extender_app *ctx = arg;
    struct err e = { "" };

    if (app_reload_policy(&ctx->app, &e) < 0) {
        metrics_counter_add(ctx->reloads_failed, 1);
        LOG_ERROR("policy reload refused, the running policy keeps serving: "
                  "%s",
                  e.msg);
        return -1;
    }
    metrics_counter_add(ctx->reloads_ok, 1);
    metrics_gauge_set(ctx->reload_time, (double)time(NULL));
    LOG_INFO("policy reloaded from %s", s->opts.policy_file);
    log_role(ctx, s);
    return 0;
}

/* ---- the pool's view of plugin calls (http_offload.h) ---------------- */

static void *probe_begin(void)
{
    /* A plugin overflowing the stack of a pool thread is named too. */
    plugin_call_thread_stack();
    return plugin_call_self();
}

static void probe_end(void *rec)
{
    (void)rec;
    plugin_call_thread_stack_free();
}

static unsigned long probe_seq(const void *rec)
{
    return plugin_call_seq(rec);
}

static int probe_describe(const void *rec, char *buf, size_t n)
{
    return plugin_call_describe(rec, buf, n);
}

static const struct srv_thread_probe plugin_probe = {
    probe_begin,
    probe_end,
    probe_seq,
    probe_describe,
};

static int register_all(struct server *s, struct extender_app *ctx,
                        struct err *e)
{
    ctx->reloads_ok = metrics_counter(s->metrics, "kpe_policy_reloads_total",
                                      "Policy loads and reloads by result.",
                                      "result=\"success\"");
    ctx->reloads_failed = metrics_counter(
        s->metrics, "kpe_policy_reloads_total",
        "Policy loads and reloads by result.", "result=\"failure\"");
    ctx->nodes_evaluated = metrics_counter(
        s->metrics, "kpe_filter_nodes_total",
        "Nodes evaluated by filter calls, by result.", "result=\"evaluated\"");
    ctx->nodes_feasible = metrics_counter(
        s->metrics, "kpe_filter_nodes_total",
        "Nodes evaluated by filter calls, by result.", "result=\"feasible\"");
    ctx->reload_time = metrics_gauge(
        s->metrics, "kpe_policy_last_reload_success_timestamp_seconds",
        "Time of the last successful policy load.", "");
    serve_holds_init(&ctx->holds, NULL, s->opts.hold_timeout, s->metrics);
    ctx->prioritize_errors = metrics_counter(
        s->metrics, "kpe_prioritize_errors_total",
        "prioritize calls answered with an empty list because the request "
        "could not be scored (the cause is logged).",
        NULL);
    if (srv_register_verb(s, "filter", on_filter, NULL, e) < 0 ||
        srv_register_verb(s, "prioritize", on_prioritize, NULL, e) < 0 ||
        srv_register_verb(s, "preempt", on_preempt, NULL, e) < 0 ||
        srv_register_verb(s, "bind", on_bind, NULL, e) < 0 ||
        srv_register_route(s, "/policy", SRV_GET, on_policy, NULL, e) < 0)
        return -1;
    if (s->opts.debug_endpoints) {
        ctx->calls = malloc(sizeof(*ctx->calls));
        if (!ctx->calls)
            return err_set(e, "out of memory");
        call_ring_init(ctx->calls);
        if (srv_register_route(s, "/debug/cache", SRV_GET, on_debug_cache, NULL,
                               e) < 0 ||
            srv_register_route(s, "/debug/calls", SRV_GET, on_debug_calls, NULL,
                               e) < 0)
            return -1;
    }
    s->app = ctx;
    s->reload = on_reload;
    s->reload_arg = ctx;
    s->probe = &plugin_probe;
    return 0;
}

static int load(struct server *s, struct extender_app *ctx, struct err *e)
{
    if (!s->opts.policy_file)
        return err_set(
            e, "--policy is required (a Policy file, JSON, YAML or INI)");
    if (app_load(&ctx->app, e) < 0) {
        metrics_counter_add(ctx->reloads_failed, 1);
        return -1;
    }
    metrics_counter_add(ctx->reloads_ok, 1);
    metrics_gauge_set(ctx->reload_time, (double)time(NULL));
    return 0;
}

/* --kubeconfig, --master or in-cluster: connect, start the informers and
 * the watcher that marks the server ready once the cache has listed every
 * kind; until then /readyz says what the connection reports (e.g.
 * "nodes: HTTP 401"). */
static int start_live(struct extender_app *ctx, struct server *s, struct err *e)
{
    ctx->client = cluster_source_client(&s->opts, NULL, e);
    if (!ctx->client)
        return -1;
    ctx->cache = kube_cache_new(0, e);
    if (!ctx->cache)
        return -1;
    ctx->source.srv = s;
    ctx->source.cache = ctx->cache;
    ctx->source.poll_ms = 100;
    if (cluster_source_start_informers(&ctx->source, ctx->client, NULL, e) < 0)
        return -1;
    ctx->holds.cache = ctx->cache;
    return cluster_source_watch_sync(&ctx->source, e);
}

/* Where the cluster comes from: files, the API server, or nothing. */
static int pick_source(const struct srv_options *o, bool *live, struct err *e)
{
    bool conflict;
    enum cluster_source_kind k = cluster_source_pick(o, &conflict);

    *live = false;
    if (conflict)
        return err_set(e, "--cluster serves a static snapshot; it cannot be "
                          "combined with --kubeconfig or --master");
    if (k == CLUSTER_SOURCE_FILES)
        return 0;
    *live = k == CLUSTER_SOURCE_API;
    if (!*live)
        LOG_WARN("no cluster source (--cluster, --kubeconfig, --master or "
                 "in-cluster): only requests with full Node objects can be "
                 "decided, and without the pods on them");
    return 0;
}

static void on_policy_file_change(void *arg)
{
    struct extender_app *ctx = arg;

    LOG_INFO("policy file %s changed: reloading", ctx->srv->opts.policy_file);
    on_reload(ctx->srv, ctx);
}

int extender_app_init(struct extender_app *ctx, struct server *s, struct err *e)
{
    const struct srv_options *o = &s->opts;

    unsigned gates = 0;
    bool live;

    if (o->feature_gates && feature_gates_apply(o->feature_gates, &gates, e))
        return -1;
    app_init(&ctx->app, o->policy_file, o->cluster_files, o->n_cluster_files,
             o->compat == OPTS_COMPAT_LEGACY ? POLICY_COMPAT_LEGACY : 0);
    ctx->app.gates = gates;
    ctx->app.semantics = (enum kpe_semantics)(o->semantics - OPTS_SEM_1_22);
    ctx->ready = 1;
    if (register_all(s, ctx, e) < 0)
        return -1;
    srv_set_ready(s, 0, "policy and cluster not loaded");
    ctx->srv = s;
    if (pick_source(o, &live, e) < 0 || load(s, ctx, e) < 0)
        return -1;
    if (!live)
        srv_set_ready(s, 1, NULL);
    else if (start_live(ctx, s, e) < 0)
        return err_prefix(e, "API server: ");
    log_role(ctx, s);
    if (file_watch_start(&ctx->policy_watch, o->policy_file, o->policy_watch_ms,
                         on_policy_file_change, ctx) < 0)
        return err_set(e, "cannot start the policy file watcher");
    return 0;
}

void extender_app_stop(struct extender_app *ctx)
{
    file_watch_stop(&ctx->policy_watch);
    cluster_source_stop(&ctx->source);
}

void extender_app_destroy(struct extender_app *ctx)
{
    extender_app_stop(ctx);
    kube_cache_free(ctx->cache);
    kube_client_free(ctx->client);
    ctx->cache = NULL;
    ctx->client = NULL;
    if (ctx->calls) {
        call_ring_destroy(ctx->calls);
        free(ctx->calls);
        ctx->calls = NULL;
    }
    if (ctx->ready)
        app_destroy(&ctx->app);
    ctx->ready = 0;
}
