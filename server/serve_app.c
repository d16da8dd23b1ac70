/*
 * serve_app.c: the extender application inside `serve`: the published
 * policy and cluster state, the extender verbs (filter, prioritize,
 * preempt), GET /policy, and the SIGHUP reload that keeps the running
 * policy when the new one is invalid.
 */
#include "server/serve_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policy/policy.h"
#include "server/extender.h"
#include "server/feature_gates.h"
#include "server/http.h"
#include "server/log.h"

static struct app_state *state_or_reply(struct server *s,
                                        struct srv_response *resp)
{
    struct serve_ctx *ctx = s->app;
    struct app_state *st = app_acquire(&ctx->app);

    if (!st)
        srv_reply_text(resp, 503, "not ready: policy not loaded\n");
    return st;
}

/* Predicate failures per predicate and nodes evaluated. */
static void record_filter_stats(struct server *s, struct serve_ctx *ctx,
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
    struct serve_ctx *ctx = s->app;
    struct app_state *st = app_acquire(&ctx->app);
    struct ext_stats stats = { 0 };
    size_t len = 0;
    char *out;

    (void)arg;
    out =
        st ? ext_filter(st, req->arena, req->body, req->body_len, &len, &stats)
           : ext_filter_error("extender not ready: policy not loaded", &len);
    /* Names in stats belong to the policy: record before releasing it. */
    record_filter_stats(s, ctx, &stats);
    app_release(st);
    srv_reply_owned(resp, 200, "application/json", out, len);
}

static void on_prioritize(struct server *s, const struct srv_request *req,
                          struct srv_response *resp, void *arg)
{
    struct app_state *st = state_or_reply(s, resp);
    struct err e = { "" };
    size_t len = 0;
    char *out;

    (void)arg;
    if (!st)
        return;
    out = ext_prioritize(st, req->arena, req->body, req->body_len,
                         s->opts.score_scale == OPTS_SCORE_RAW, &len, &e);
    app_release(st);
    if (!out) {
        /* HostPriorityList has no Error field: kube-scheduler ignores a
         * failed prioritize call, and logs the status. */
        LOG_WARN("prioritize: %s", e.msg);
        srv_reply_owned(resp, 400, "application/json",
                        ext_filter_error(e.msg, &len), len);
        return;
    }
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

static void on_preempt(struct server *s, const struct srv_request *req,
                       struct srv_response *resp, void *arg)
{
    struct app_state *st = state_or_reply(s, resp);
    struct err e = { "" };
    size_t len = 0;
    char *out;

    (void)arg;
    if (!st)
        return;
    out = ext_preempt(st, req->arena, req->body, req->body_len, &len, &e);
    app_release(st);
    if (!out) {
        /* ExtenderPreemptionResult has no Error field either. */
        LOG_WARN("preempt: %s", e.msg);
        srv_reply_owned(resp, 400, "application/json",
                        ext_filter_error(e.msg, &len), len);
        return;
    }
    srv_reply_owned(resp, 200, "application/json", out, len);
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

static int on_reload(struct server *s, void *arg)
{
    struct serve_ctx *ctx = arg;
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
    return 0;
}

static int register_all(struct server *s, struct serve_ctx *ctx, struct err *e)
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
    if (srv_register_verb(s, "filter", on_filter, NULL, e) < 0 ||
        srv_register_verb(s, "prioritize", on_prioritize, NULL, e) < 0 ||
        srv_register_verb(s, "preempt", on_preempt, NULL, e) < 0 ||
        srv_register_route(s, "/policy", SRV_GET, on_policy, NULL, e) < 0)
        return -1;
    s->app = ctx;
    s->reload = on_reload;
    s->reload_arg = ctx;
    return 0;
}

static int load(struct server *s, struct serve_ctx *ctx, struct err *e)
{
    if (!s->opts.policy_file)
        return err_set(e, "--policy is required (a Policy file, JSON or INI)");
    if (app_load(&ctx->app, e) < 0) {
        metrics_counter_add(ctx->reloads_failed, 1);
        return -1;
    }
    metrics_counter_add(ctx->reloads_ok, 1);
    metrics_gauge_set(ctx->reload_time, (double)time(NULL));
    LOG_INFO("serving policy %s over %zu cluster file(s)", s->opts.policy_file,
             s->opts.n_cluster_files);
    srv_set_ready(s, 1, NULL);
    return 0;
}

static void on_policy_file_change(void *arg)
{
    struct serve_ctx *ctx = arg;

    LOG_INFO("policy file %s changed: reloading", ctx->srv->opts.policy_file);
    on_reload(ctx->srv, ctx);
}

int serve_app_init(struct serve_ctx *ctx, struct server *s, struct err *e)
{
    const struct srv_options *o = &s->opts;

    unsigned gates = 0;

    if (o->feature_gates && feature_gates_apply(o->feature_gates, &gates, e))
        return -1;
    app_init(&ctx->app, o->policy_file, o->cluster_files, o->n_cluster_files,
             o->compat == OPTS_COMPAT_LEGACY ? POLICY_COMPAT_LEGACY : 0);
    ctx->app.gates = gates;
    ctx->ready = 1;
    if (register_all(s, ctx, e) < 0)
        return -1;
    srv_set_ready(s, 0, "policy and cluster not loaded");
    ctx->srv = s;
    if (load(s, ctx, e) < 0)
        return -1;
    if (file_watch_start(&ctx->policy_watch, o->policy_file, o->policy_watch_ms,
                         on_policy_file_change, ctx) < 0)
        return err_set(e, "cannot start the policy file watcher");
    return 0;
}

void serve_app_stop(struct serve_ctx *ctx)
{
    file_watch_stop(&ctx->policy_watch);
}

void serve_app_destroy(struct serve_ctx *ctx)
{
    serve_app_stop(ctx);
    if (ctx->ready)
        app_destroy(&ctx->app);
    ctx->ready = 0;
}
