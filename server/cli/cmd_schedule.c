/*
 * cmd_schedule.c: the `schedule` subcommand: a standalone scheduler for
 * the pods whose spec.schedulerName is --scheduler-name, deciding with the
 * Policy against the live cluster and binding (scheduler.c), with
 * kube-scheduler's Lease leader election (leader.c) and serve's
 * operations endpoints (/healthz, /readyz, /metrics).
 *
 * Its own flags come from sched_flag_table; every other flag is serve's
 * (server/common/options.c): --policy, --kubeconfig, --master, --listen,
 * --compat, --semantics, --feature-gates, --log-format, --v, TLS, --config.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube/client/cache.h"
#include "kube/client/client.h"
#include "kube/client/informer.h"
#include "policy/policy.h"
#include "server/cli/cli.h"
#include "server/cli/cli_opts.h"
#include "server/source/cluster_source.h"
#include "engine/feature_gates.h"
#include "server/common/file_watch.h"
#include "server/http/http.h"
#include "server/scheduler/leader.h"
#include "server/common/log.h"
#include "server/common/options.h"
#include "server/scheduler/scheduler.h"
#include "engine/engine_state.h"

struct sched_flags {
    const char *scheduler_name;
    double seed;
    double qps;
    double burst;
    int leader_elect;
    double lease_duration, renew_deadline, retry_period;
    const char *lease_name;
    const char *lease_namespace;
    double bind_workers;
    double initial_backoff, max_backoff;
    double percentage_to_score;
    double event_retry;
    int help;
};

enum ftype { F_STR, F_NUM, F_INT, F_BOOL, F_DURATION };

struct sched_flag {
    const char *name;
    enum ftype type;
    size_t off;
    double min, max;
    const char *help;
};

#define FOFF(f) offsetof(struct sched_flags, f)

/* clang-format off */
static const struct sched_flag sched_flag_table[] = {
    { "scheduler-name", F_STR, FOFF(scheduler_name), 0, 0,
      "(required) schedule the pods whose spec.schedulerName is NAME; "
      "also the Lease's name. Never default-scheduler's pods unless named: "
      "they are kube-scheduler's" },
    { "seed", F_NUM, FOFF(seed), 0, 9007199254740991.0,
      "seed of the random choice among equally good nodes "
      "(default: from the clock)" },
    { "kube-api-qps", F_NUM, FOFF(qps), -1, 1e6,
      "API writes per second (Bindings, pod status, Events); -1: no limit "
      "(default: 50)" },
    { "kube-api-burst", F_NUM, FOFF(burst), 1, 1e6,
      "burst of API writes (default: 100)" },
    { "bind-workers", F_NUM, FOFF(bind_workers), 1, 1024,
      "Bindings posted in parallel, and as many Events (default: 16)" },
    { "percentage-of-nodes-to-score", F_INT, FOFF(percentage_to_score), 0,
      100,
      "stop filtering once this percentage of the nodes fit (at least "
      "100 nodes), as kube-scheduler's percentageOfNodesToScore; 0: "
      "adaptive, 50% minus 1% per 125 nodes, at least 5%; 100: every "
      "node (default: 0)" },
    { "pod-initial-backoff-seconds", F_NUM, FOFF(initial_backoff), 0.001, 3600,
      "first retry delay of an unschedulable pod (default: 1)" },
    { "pod-max-backoff-seconds", F_NUM, FOFF(max_backoff), 0.001, 3600,
      "longest retry delay (default: 10)" },
    { "event-retry-seconds", F_NUM, FOFF(event_retry), 0.001, 3600,
      "wait before posting again an Event the API server did not answer "
      "(12 tries, as client-go; a refused one is not retried) (default: "
      "10)" },
    { "leader-elect", F_BOOL, FOFF(leader_elect), 0, 0,
      "elect a leader on a Lease before scheduling; --leader-elect=false "
      "to run alone (default: true)" },
    { "leader-elect-lease-duration", F_DURATION, FOFF(lease_duration), 0, 0,
      "how long standbys wait before taking over a lease that is not "
      "renewed (default: 15s)" },
    { "leader-elect-renew-deadline", F_DURATION, FOFF(renew_deadline), 0, 0,
      "how long the leader retries renewing before it gives up and exits "
      "(default: 10s)" },
    { "leader-elect-retry-period", F_DURATION, FOFF(retry_period), 0, 0,
      "time between attempts to acquire or renew (default: 2s)" },
    { "leader-elect-resource-name", F_STR, FOFF(lease_name), 0, 0,
      "the Lease's name (default: the scheduler name)" },
    { "leader-elect-resource-namespace", F_STR, FOFF(lease_namespace), 0, 0,
      "the Lease's namespace (default: kube-system)" },
};
/* clang-format on */

#define N_FLAGS (sizeof(sched_flag_table) / sizeof(sched_flag_table[0]))

static void usage(FILE *f)
{
    size_t i;

    fprintf(f, "Usage: kube-policy-extender schedule --scheduler-name NAME "
               "--policy FILE\n"
               "           [--kubeconfig FILE | --master URL] "
               "[--listen HOST:PORT] [OPTIONS]\n\n"
               "Schedule the pending pods that name this scheduler with "
               "the Policy, against\nthe live cluster, and bind them.\n\n"
               "Scheduler options:\n");
    for (i = 0; i < N_FLAGS; i++)
        fprintf(f, "  --%s%s\n      %s\n", sched_flag_table[i].name,
                sched_flag_table[i].type == F_BOOL ? "[=BOOL]" : " VALUE",
                sched_flag_table[i].help);
    fprintf(
        f,
        "\nAlso serve's options (see `kube-policy-extender serve "
        "--help`): --policy,\n--kubeconfig, --master, --listen (the "
        "operations endpoints /healthz,\n/readyz, /metrics), "
        "--compat, --semantics, --feature-gates, --log-format, --v,\n"
        "--workers, --tls-*, --config. SIGTERM releases the lease and exits 0; "
        "a leader that\ncannot renew its lease exits 1. SIGHUP "
        "reloads the policy.\n");
}

int cli_schedule_doc_row(size_t i, struct opts_doc *d)
{
    if (i >= N_FLAGS)
        return -1;
    d->name = sched_flag_table[i].name;
    d->alias = NULL;
    d->metavar = sched_flag_table[i].type == F_BOOL ? "[=BOOL]" : "VALUE";
    d->help = sched_flag_table[i].help;
    d->def = NULL; /* written in the help */
    return 0;
}

static const struct sched_flag *find_flag(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < N_FLAGS; i++) {
        if (strlen(sched_flag_table[i].name) == len &&
            !strncmp(sched_flag_table[i].name, name, len))
            return &sched_flag_table[i];
    }
    return NULL;
}

static int set_flag(struct sched_flags *f, const struct sched_flag *d,
                    const char *v, struct err *e)
{
    char *field = (char *)f + d->off, *end, q[160];
    double n;

    switch (d->type) {
    case F_STR:
        if (!*v)
            break;
        memcpy(field, &v, sizeof(v));
        return 0;
    case F_BOOL:
        if (strcmp(v, "true") && strcmp(v, "false"))
            break;
        *(int *)(void *)field = !strcmp(v, "true");
        return 0;
    case F_DURATION:
        if (leader_parse_duration(v, &n) < 0 || n <= 0)
            return err_set(e,
                           "--%s: invalid value %s: want a duration such "
                           "as 15s or 500ms",
                           d->name, err_quote(q, sizeof(q), v, 120));
        *(double *)(void *)field = n;
        return 0;
    case F_NUM:
    case F_INT:
        n = strtod(v, &end);
        if (end == v || *end || !(n >= d->min && n <= d->max) ||
            (d->type == F_INT && n != (double)(long)n))
            return err_set(e, "--%s: invalid value %s: want %s from %g to %g",
                           d->name, err_quote(q, sizeof(q), v, 120),
                           d->type == F_INT ? "an integer" : "a number", d->min,
                           d->max);
        *(double *)(void *)field = n;
        return 0;
    }
    return err_set(e, "--%s: invalid value %s", d->name,
                   err_quote(q, sizeof(q), v, 120));
}

/*
 * Take our flags out of argv; the rest (with argv[0]) goes to rest[] for
 * serve's parser. Returns 0 or -1 with e set.
 */
static int split_args(int argc, char **argv, struct sched_flags *f, char **rest,
                      int *n_rest, struct err *e)
{
    int i;

    *n_rest = 0;
    rest[(*n_rest)++] = argv[0];
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *name, *eq;
        const struct sched_flag *d;

        name = a[0] == '-' ? a + (a[1] == '-' ? 2 : 1) : NULL;
        if (name && (!strcmp(name, "help") || !strcmp(name, "h"))) {
            f->help = 1;
            continue;
        }
        eq = name ? strchr(name, '=') : NULL;
        d = name ? find_flag(name, eq ? (size_t)(eq - name) : strlen(name))
                 : NULL;
        if (!d) {
            rest[(*n_rest)++] = argv[i];
            /* serve's flags take a value, as the next word or after '='. */
            if (name && !eq && i + 1 < argc)
                rest[(*n_rest)++] = argv[++i];
            continue;
        }
        if (eq) {
            if (set_flag(f, d, eq + 1, e) < 0)
                return -1;
        } else if (d->type == F_BOOL) {
            f->leader_elect = 1;
        } else if (i + 1 < argc) {
            if (set_flag(f, d, argv[++i], e) < 0)
                return -1;
        } else {
            return err_set(e, "--%s: missing value", d->name);
        }
    }
    rest[*n_rest] = NULL;
    return 0;
}

/* ---- the running process ---- */

struct sched_ctx {
    struct srv_options o;
    struct sched_flags f;
    struct app app;
    bool app_ready;
    struct kube_client *client, *eclient, *lclient;
    struct kube_cache *cache;
    struct scheduler sched;
    bool sched_ready;
    struct leader_elector le;
    char identity[320];
    struct server *srv;
    struct file_watch policy_watch;
    struct cluster_source source; /* informers' sync watcher */
};

static void on_started_leading(void *arg)
{
    struct sched_ctx *c = arg;

    sched_set_active(&c->sched, true);
}

/* kube-scheduler: "leaderelection lost", then exit at once. */
static void on_stopped_leading(void *arg)
{
    struct sched_ctx *c = arg;

    sched_set_active(&c->sched, false);
    LOG_ERROR("leaderelection lost: exiting so the supervisor restarts us");
    fflush(stderr);
    _exit(1);
}

static int start_leading(struct sched_ctx *c, struct err *e)
{
    struct leader_elector *le = &c->le;

    if (!c->f.leader_elect) {
        sched_set_active(&c->sched, true);
        return 0;
    }
    leader_identity(c->identity, sizeof(c->identity));
    le->cfg.namespace = c->f.lease_namespace;
    le->cfg.name = c->f.lease_name ? c->f.lease_name : c->f.scheduler_name;
    le->cfg.identity = c->identity;
    le->cfg.lease_duration = c->f.lease_duration;
    le->cfg.renew_deadline = c->f.renew_deadline;
    le->cfg.retry_period = c->f.retry_period;
    le->client = c->lclient;
    le->on_started = on_started_leading;
    le->on_stopped = on_stopped_leading;
    le->arg = c;
    return leader_start(le, e);
}

/* Readiness follows the first full list; then the scheduler may start
 * (kube-scheduler waits for the cache sync before leader election). Runs
 * on the sync watcher's thread. */
static void on_synced(void *arg)
{
    struct sched_ctx *c = arg;
    struct err e = { "" };

    if (start_leading(c, &e) < 0) {
        LOG_ERROR("%s", e.msg);
        srv_stop(c->srv);
    }
}

static int on_reload(struct server *s, void *arg)
{
    struct sched_ctx *c = arg;
    struct err e = { "" };

    if (app_reload_policy(&c->app, &e) < 0) {
        LOG_ERROR("policy reload refused, the running policy stays: %s", e.msg);
        return -1;
    }
    LOG_INFO("policy reloaded from %s", s->opts.policy_file);
    return 0;
}

static void on_policy_change(void *arg)
{
    struct sched_ctx *c = arg;

    on_reload(c->srv, c);
}

static int check_options(const struct sched_ctx *c, struct err *e)
{
    const struct srv_options *o = &c->o;

    if (!o->policy_file)
        return err_set(e, "missing required option '--policy' (a Policy "
                          "file, JSON, YAML or INI)");
    if (o->n_cluster_files)
        return err_set(e, "--cluster is a static snapshot: schedule needs "
                          "a live API server (--kubeconfig, --master or "
                          "in-cluster)");
    if (cluster_source_pick(o, NULL) != CLUSTER_SOURCE_API)
        return err_set(e, "no API server: give --kubeconfig or --master "
                          "(or run in-cluster)");
    if (c->f.leader_elect) {
        struct leader_config lc = { c->f.lease_namespace,
                                    "x",
                                    "x",
                                    c->f.lease_duration,
                                    c->f.renew_deadline,
                                    c->f.retry_period };

        if (leader_config_check(&lc, e) < 0)
            return -1;
    }
    /* Without it we would schedule default-scheduler's pods next to
     * kube-scheduler, and take a Lease named after it. */
    if (!c->f.scheduler_name)
        return err_set(e, "missing required option '--scheduler-name'");
    return 0;
}

/* Load the policy, connect, and start everything but the HTTP server. */
static int setup(struct sched_ctx *c, struct err *e)
{
    struct kube_client_opts co = { 0 }, lo = { 0 };
    struct sched_options so = { 0 };
    struct kube_informer_sink sink;
    unsigned gates = 0;

    if (c->o.feature_gates &&
        feature_gates_apply(c->o.feature_gates, &gates, e) < 0)
        return -1;
    app_init(&c->app, c->o.policy_file, NULL, 0,
             c->o.compat == OPTS_COMPAT_LEGACY ? POLICY_COMPAT_LEGACY : 0);
    c->app.gates = gates;
    c->app.semantics = (enum kpe_semantics)(c->o.semantics - OPTS_SEM_1_22);
    c->app_ready = true;
    if (app_load(&c->app, e) < 0)
        return -1;
    co.qps = c->f.qps;
    co.burst = (int)c->f.burst;
    co.user_agent = "kube-policy-extender/scheduler";
    lo.request_timeout_ms = (long)(c->f.renew_deadline * 500);
    if (lo.request_timeout_ms < 1000)
        lo.request_timeout_ms = 1000;
    lo.connect_timeout_ms = lo.request_timeout_ms;
    lo.user_agent = "kube-policy-extender/leader-election";
    if (!(c->client = cluster_source_client(&c->o, &co, e)) ||
        !(c->eclient = cluster_source_client(&c->o, &co, e)) ||
        !(c->lclient = cluster_source_client(&c->o, &lo, e)) ||
        !(c->cache = kube_cache_new(KUBE_KINDS_SCHEDULE, e)))
        return err_prefix(e, "API server: ");
    so.scheduler_name = c->f.scheduler_name;
    so.seed = (uint64_t)c->f.seed;
    so.bind_workers = (int)c->f.bind_workers;
    so.initial_backoff = c->f.initial_backoff;
    so.max_backoff = c->f.max_backoff;
    so.event_retry = c->f.event_retry;
    so.percentage_of_nodes_to_score = (int)c->f.percentage_to_score;
    if (sched_init(&c->sched, &so, &c->app, c->cache, c->client, c->eclient,
                   c->srv->metrics, e) < 0)
        return -1;
    c->sched_ready = true;
    if (sched_start(&c->sched, e) < 0)
        return -1;
    sched_sink(&c->sched, &sink);
    c->source.srv = c->srv;
    c->source.cache = c->cache;
    c->source.poll_ms = 50;
    c->source.kinds = KUBE_KINDS_SCHEDULE;
    c->source.on_synced = on_synced;
    c->source.arg = c;
    if (cluster_source_start_informers(&c->source, c->client, &sink, e) < 0)
        return err_prefix(e, "API server: ");
    srv_set_ready(c->srv, 0, "waiting for the first list of every kind");
    if (cluster_source_watch_sync(&c->source, e) < 0)
        return -1;
    c->srv->reload = on_reload;
    c->srv->reload_arg = c;
    if (file_watch_start(&c->policy_watch, c->o.policy_file,
                         c->o.policy_watch_ms, on_policy_change, c) < 0)
        return err_set(e, "cannot start the policy file watcher");
    LOG_INFO("scheduling pods with schedulerName %s by policy %s%s",
             c->f.scheduler_name, c->o.policy_file,
             c->f.leader_elect ? " once elected leader" : "");
    return 0;
}

/* Stop in dependency order: no decisions, no binds, release, no watch. */
static void teardown(struct sched_ctx *c)
{
    file_watch_stop(&c->policy_watch);
    cluster_source_stop(&c->source);
    if (c->sched_ready)
        sched_stop(&c->sched);
    leader_stop(&c->le);
    kube_informers_stop(c->source.infs);
    srv_free(c->srv);
    if (c->sched_ready)
        sched_destroy(&c->sched);
    kube_cache_free(c->cache);
    kube_client_free(c->client);
    kube_client_free(c->eclient);
    kube_client_free(c->lclient);
    if (c->app_ready)
        app_destroy(&c->app);
}

static void flag_defaults(struct sched_flags *f)
{
    memset(f, 0, sizeof(*f));
    f->leader_elect = 1;
    f->lease_duration = LEADER_DEFAULT_LEASE_DURATION;
    f->renew_deadline = LEADER_DEFAULT_RENEW_DEADLINE;
    f->retry_period = LEADER_DEFAULT_RETRY_PERIOD;
    f->lease_namespace = LEADER_DEFAULT_NAMESPACE;
}

int cli_schedule(int argc, char **argv)
{
    struct sched_ctx *c = calloc(1, sizeof(*c));
    char **rest = calloc((size_t)argc + 1, sizeof(*rest));
    struct err e = { "" };
    struct arena a;
    int n_rest = 0, rc = 2;

    srv_block_signals();
    arena_init(&a, 0);
    if (!c || !rest) {
        fprintf(stderr, "kube-policy-extender schedule: out of memory\n");
        goto out;
    }
    flag_defaults(&c->f);
    if (split_args(argc, argv, &c->f, rest, &n_rest, &e) < 0 ||
        (!c->f.help && (opts_parse(&c->o, &a, n_rest, rest, &e) < 0 ||
                        check_options(c, &e) < 0))) {
        cli_usage_error("schedule", "%s", e.msg);
        goto out;
    }
    if (c->f.help || c->o.help) {
        usage(stdout);
        rc = 0;
        goto out;
    }
    rc = 1;
    if (cli_load_plugins("schedule", c->o.plugin_files, c->o.n_plugin_files) !=
        0)
        goto out;
    log_configure(stderr,
                  c->o.log_format == OPTS_LOG_JSON ? LOG_FORMAT_JSON
                                                   : LOG_FORMAT_TEXT,
                  c->o.verbosity);
    if (!c->o.workers)
        c->o.workers = 1; /* the operations endpoints need no more */
    c->srv = srv_new(&c->o, &e);
    if (!c->srv || setup(c, &e) < 0 || srv_start(c->srv, &e) != 0 ||
        srv_run(c->srv, &e) != 0)
        LOG_ERROR("%s", e.msg);
    else
        rc = 0;
    teardown(c);
out:
    arena_destroy(&a);
    free(rest);
    free(c);
    return rc;
}
