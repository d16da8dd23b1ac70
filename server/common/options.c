/*
 * options.c: `serve` flags and the INI config file (see options.h). Each
 * option is one row of opt_table (nginx directive style): its name, which
 * is both the flag and the INI key, a typed setter, the field's offset,
 * and the help text with the default that --help prints.
 */
#include "server/common/options.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* inih as built by Debian reads lines into a 200-byte buffer. */
#define OPTS_INI_MAX_LINE 200

enum otype {
    OT_STR,     /* any non-empty string */
    OT_INT,     /* integer in [min, max], "s" suffix allowed for seconds */
    OT_BYTES,   /* integer with optional Ki/Mi/Gi/K/M/G suffix */
    OT_ENUM,    /* one of names[] */
    OT_LISTEN,  /* HOST:PORT or [V6]:PORT */
    OT_CLUSTER, /* repeatable file name */
    OT_PREFIX,  /* URL path prefix */
    OT_URL,     /* http:// or https:// URL */
    OT_CONFIG,  /* --config: command line only */
    OT_HELP,    /* --help: command line only, takes no value */
    OT_BOOL,    /* --flag alone means true; --flag=false; INI true/false */
    OT_PLUGIN,  /* repeatable shared object (loaded by the caller) */
};

struct opt_def {
    const char *name; /* flag (--name or -name) and INI key */
    const char *alias;
    enum otype type;
    size_t off; /* into struct srv_options */
    long long min, max;
    const char *const *names; /* OT_ENUM values, in enum order */
    const char *metavar;
    const char *help;
    const char *def; /* default shown by --help */
};

#define OFF(f) offsetof(struct srv_options, f)

static const char *const compat_names[] = { "none", "legacy", NULL };
static const char *const scale_names[] = { "scaled", "raw", "auto", "rank",
                                           NULL };
static const char *const logfmt_names[] = { "text", "json", NULL };
static const char *const semantics_names[] = { "1.20", "1.21", "1.22", NULL };

/* clang-format off */
static const struct opt_def opt_table[] = {
    { "listen", NULL, OT_LISTEN, OFF(listen), 0, 0, NULL, "HOST:PORT",
      "address to serve on; [::1]:8888 for IPv6, :8888 for every address, "
      "port 0 for an ephemeral port", OPTS_DEFAULT_LISTEN },
    { "policy", NULL, OT_STR, OFF(policy_file), 0, 0, NULL, "FILE",
      "(required) legacy scheduler Policy (JSON, YAML or INI)", NULL },
    { "cluster", NULL, OT_CLUSTER, 0, 0, 0, NULL, "FILE",
      "cluster snapshot (nodes and pods) to schedule against; repeatable "
      "(flags replace the file's list)", "none" },
    { "kubeconfig", NULL, OT_STR, OFF(kubeconfig), 0, 0, NULL, "FILE",
      "kubeconfig for reading nodes and pods from an API server", "none" },
    { "context", NULL, OT_STR, OFF(context), 0, 0, NULL, "NAME",
      "kubeconfig context to use instead of its current-context", "none" },
    { "master", NULL, OT_URL, OFF(master), 0, 0, NULL, "URL",
      "API server URL, overrides the kubeconfig's server", "none" },
    { "url-prefix", NULL, OT_PREFIX, OFF(url_prefix), 0, 0, NULL, "PATH",
      "path before the verbs: /scheduler serves /scheduler/filter", "empty" },
    { "workers", NULL, OT_INT, OFF(workers), 1, 1024, NULL, "N",
      "HTTP worker threads", "number of online CPUs" },
    { "compat", NULL, OT_ENUM, OFF(compat), 0, 0, compat_names, "MODE",
      "none, or legacy: accept the predicates and priorities v1.22 "
      "dropped (CheckNodeCondition, ...)", "none" },
    { "semantics", NULL, OT_ENUM, OFF(semantics), 0, 0, semantics_names,
      "VERSION", "the kube-scheduler release whose answers the Policy gives: "
      "1.20 (v1.20.2), 1.21 or 1.22 (their latest patches); "
      "docs/VERSION-SEMANTICS.md lists what differs", "1.22" },
    { "tls-cert-file", NULL, OT_STR, OFF(tls_cert_file), 0, 0, NULL, "FILE",
      "PEM certificate (chain); serve HTTPS (TLS 1.2 or newer)", "none" },
    { "tls-key-file", NULL, OT_STR, OFF(tls_key_file), 0, 0, NULL, "FILE",
      "PEM private key for --tls-cert-file", "none" },
    { "tls-client-ca-file", NULL, OT_STR, OFF(tls_client_ca_file), 0, 0,
      NULL, "FILE", "PEM CA bundle; require and verify client certificates",
      "none" },
    { "max-body-bytes", NULL, OT_BYTES, OFF(max_body_bytes), 1024,
      (1ll << 34), NULL, "BYTES",
      "largest request body (Ki/Mi/Gi suffixes); 413 above it, from the "
      "headers. The default fits ExtenderArgs with ~1,000 full nodes of "
      "~15 KB (NodeNames for 5,000 nodes take ~150 KB) and, with "
      "--max-inflight-bytes, the shipped 256Mi memory limit",
      "16Mi" },
    { "max-inflight-bytes", NULL, OT_BYTES, OFF(max_inflight_bytes),
      1 << 20, (1ll << 40), NULL, "BYTES",
      "memory for all requests in flight: bodies being received, their "
      "parsing and answers until written. Above it reading pauses and new "
      "requests get 503, bodies over 1 MiB already at 7/8 of it or 8 MiB "
      "below it (kept for small requests); one request may use 8 x its "
      "body + 8 MiB, or 413",
      "128Mi" },
    { "max-header-bytes", NULL, OT_BYTES, OFF(max_header_bytes), 1024,
      (1ll << 24), NULL, "BYTES", "largest request line plus headers",
      "64Ki" },
    { "max-connections", NULL, OT_INT, OFF(max_connections), 1, 1000000,
      NULL, "N", "open connections at most; at the cap the connection "
      "silent for longest (250 ms or more) is closed, or accepting pauses for "
      "100 ms", "the open-file limit (raised to the hard limit) minus 64" },
    { "read-timeout", NULL, OT_INT, OFF(read_timeout), 1, 86400, NULL,
      "SECONDS", "drop a connection that sends or accepts nothing for this "
      "long while a request is read or its answer written", "30" },
    { "header-timeout", NULL, OT_INT, OFF(header_timeout), 1, 86400, NULL,
      "SECONDS", "drop a connection whose request line and headers have "
      "not all arrived this long after their first byte, however steadily "
      "they trickle in (slowloris)", "10" },
    { "body-timeout", NULL, OT_INT, OFF(body_timeout), 1, 86400, NULL,
      "SECONDS", "drop a connection whose whole request, body included, "
      "has not arrived this long after its first byte", "60" },
    { "eval-timeout", NULL, OT_INT, OFF(eval_timeout), 1, 86400, NULL,
      "SECONDS", "answer 503 to a request whose evaluation (queue wait "
      "included) has not finished this long after it was received; a "
      "thread stuck in it is replaced, up to twice --workers at once", "10" },
    { "plugin-timeout", NULL, OT_INT, OFF(plugin_timeout), 1, 86400, NULL,
      "SECONDS", "a single plugin call (filter, score, ...) running this "
      "long is logged with the plugin, the pod and the node, and /healthz "
      "fails from then on, so that the kubelet restarts the server",
      "30" },
    { "idle-timeout", NULL, OT_INT, OFF(idle_timeout), 1, 86400, NULL,
      "SECONDS", "close a keep-alive connection idle this long (keep it "
      "above the client's idle timeout: 90 s for kube-scheduler)", "120" },
    { "shutdown-grace", NULL, OT_INT, OFF(shutdown_grace), 0, 3600, NULL,
      "SECONDS", "on SIGTERM/SIGINT, wait this long at most for requests "
      "in flight", "10" },
    { "log-format", NULL, OT_ENUM, OFF(log_format), 0, 0, logfmt_names,
      "FORMAT", "text (klog layout) or json (one object per line)", "text" },
    { "v", NULL, OT_INT, OFF(verbosity), 0, 10, NULL, "N",
      "log verbosity; 2 logs one line per request", "0" },
    { "score-scale", NULL, OT_ENUM, OFF(score_scale), 0, 0, scale_names,
      "MODE", "how /prioritize answers (docs/protocol.md, \"Scores\"). scaled: the "
      "weighted average of the priority scores in 0..10 (total * 10 / (100 "
      "* sum of weights)), for the split shape where kube-scheduler adds "
      "its own; rank: the extender decides alone, v1.22's best node gets 10 "
      "and no other does; raw: the v1.22 totals unchanged; auto: rank when "
      "the Policy names predicates or priorities kube-scheduler has "
      "in-tree, scaled otherwise", "auto" },
    { "hold-timeout", NULL, OT_INT, OFF(hold_timeout), 0, 3600, NULL,
      "SECONDS", "when the Policy reads the pods on nodes, hold a pod on "
      "the node an answer leaves kube-scheduler (one feasible node, or the "
      "single top score) until the watch shows it bound, at most this "
      "long; 0: never hold (a burst can then over-commit)", "30" },
    { "policy-watch-interval", NULL, OT_INT, OFF(policy_watch_ms), 50,
      3600000, NULL, "MS",
      "check the policy file for changes this often and reload it",
      "1000" },
    { "feature-gates", NULL, OT_STR, OFF(feature_gates), 0, 0, NULL, "LIST",
      "v1.22 gates as Name=bool,...: DefaultPodTopologySpread, "
      "CSIMigration, CSIMigrationAWS, CSIMigrationGCE, CSIMigrationAzureDisk, "
      "CSIMigrationOpenStack", "the --semantics release's defaults" },
    { "debug-endpoints", NULL, OT_BOOL, OFF(debug_endpoints), 0, 0, NULL,
      NULL, "serve GET /debug/cache (the cluster as the verbs see it: "
      "nodes, their pods, summed requests) and GET /debug/calls (the last "
      "256 calls kube-scheduler made) for tests; they list pod names, so "
      "keep them off in production", "false" },
    { "plugin", NULL, OT_PLUGIN, 0, 0, 0, NULL, "FILE.so",
      "load predicates and priorities from a plugin built against "
      "kube-policy-extender/plugin.h; repeatable, also in the config file; "
      "loaded once at start (SIGHUP reloads the policy, not plugins)",
      "none" },
    { "config", NULL, OT_CONFIG, OFF(config_file), 0, 0, NULL, "FILE",
      "INI file with these options as key = value (top level or [serve]); "
      "flags override it", "none" },
    { "help", "h", OT_HELP, OFF(help), 0, 0, NULL, NULL,
      "show this help", NULL },
};
/* clang-format on */

#define N_OPTS (sizeof(opt_table) / sizeof(opt_table[0]))

void opts_defaults(struct srv_options *o)
{
    memset(o, 0, sizeof(*o));
    o->listen = OPTS_DEFAULT_LISTEN;
    o->listen_host = "127.0.0.1";
    o->listen_port = 8888;
    o->url_prefix = "";
    o->compat = OPTS_COMPAT_NONE;
    o->semantics = OPTS_SEM_1_22;
    o->policy_watch_ms = 1000;
    o->max_body_bytes = (long long)OPTS_DEFAULT_MAX_BODY;
    o->max_inflight_bytes = OPTS_DEFAULT_MAX_INFLIGHT;
    o->max_header_bytes = OPTS_DEFAULT_MAX_HEADERS;
    o->read_timeout = OPTS_DEFAULT_READ_TIMEOUT;
    o->header_timeout = OPTS_DEFAULT_HEADER_TIMEOUT;
    o->body_timeout = OPTS_DEFAULT_BODY_TIMEOUT;
    o->eval_timeout = OPTS_DEFAULT_EVAL_TIMEOUT;
    o->plugin_timeout = OPTS_DEFAULT_PLUGIN_TIMEOUT;
    o->idle_timeout = OPTS_DEFAULT_IDLE_TIMEOUT;
    o->shutdown_grace = OPTS_DEFAULT_GRACE;
    o->log_format = OPTS_LOG_TEXT;
    o->score_scale = OPTS_SCORE_AUTO;
    o->hold_timeout = OPTS_DEFAULT_HOLD_TIMEOUT;
}

static const struct opt_def *find_opt(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < N_OPTS; i++) {
        const struct opt_def *d = &opt_table[i];

        if (strlen(d->name) == len && !strncmp(d->name, name, len))
            return d;
        if (d->alias && strlen(d->alias) == len &&
            !strncmp(d->alias, name, len))
            return d;
    }
    return NULL;
}

static int bad_value(struct err *e, const char *where, const char *value,
                     const char *want)
{
    char q[160];

    return err_set(e, "%s: invalid value %s: %s", where,
                   err_quote(q, sizeof(q), value, 120), want);
}

/* Parse a decimal integer with an optional suffix from sfx[] (mult[]). */
static int parse_scaled(const char *v, const char *const *sfx,
                        const long long *mult, long long *out)
{
    char *end;
    long long n;
    size_t i;

    if (!isdigit((unsigned char)v[0]))
        return -1;
    errno = 0;
    n = strtoll(v, &end, 10);
    if (errno)
        return -1;
    if (!*end) {
        *out = n;
        return 0;
    }
    for (i = 0; sfx[i]; i++) {
        if (!strcmp(end, sfx[i])) {
            if (n > LLONG_MAX / mult[i])
                return -1;
            *out = n * mult[i];
            return 0;
        }
    }
    return -1;
}

static int set_int(const struct opt_def *d, struct srv_options *o,
                   const char *where, const char *v, struct err *e)
{
    static const char *const sfx[] = { "s", NULL };
    static const long long mult[] = { 1 };
    static const char *const none[] = { NULL };
    int seconds = strstr(d->metavar, "SECONDS") != NULL;
    char want[96];
    long long n;

    snprintf(want, sizeof(want), "want an integer from %lld to %lld%s", d->min,
             d->max, seconds ? " (seconds)" : "");
    if (parse_scaled(v, seconds ? sfx : none, mult, &n) != 0 || n < d->min ||
        n > d->max)
        return bad_value(e, where, v, want);
    *(int *)(void *)((char *)o + d->off) = (int)n;
    return 0;
}

static int set_bytes(const struct opt_def *d, struct srv_options *o,
                     const char *where, const char *v, struct err *e)
{
    static const char *const sfx[] = { "Ki", "Mi", "Gi", "K", "M", "G", NULL };
    static const long long mult[] = { 1ll << 10, 1ll << 20, 1ll << 30,
                                      1000,      1000000,   1000000000 };
    char want[128];
    long long n;

    snprintf(want, sizeof(want),
             "want bytes from %lld to %lld, optionally with a Ki, Mi or Gi "
             "suffix",
             d->min, d->max);
    if (parse_scaled(v, sfx, mult, &n) != 0 || n < d->min || n > d->max)
        return bad_value(e, where, v, want);
    *(long long *)(void *)((char *)o + d->off) = n;
    return 0;
}

static int set_enum(const struct opt_def *d, struct srv_options *o,
                    const char *where, const char *v, struct err *e)
{
    char want[96] = "want one of";
    int i;

    for (i = 0; d->names[i]; i++) {
        if (!strcmp(v, d->names[i])) {
            *(int *)(void *)((char *)o + d->off) = i;
            return 0;
        }
    }
    for (i = 0; d->names[i]; i++) {
        strncat(want, i ? ", " : " ", sizeof(want) - strlen(want) - 1);
        strncat(want, d->names[i], sizeof(want) - strlen(want) - 1);
    }
    return bad_value(e, where, v, want);
}

static int set_listen(struct srv_options *o, struct arena *a, const char *where,
                      const char *v, struct err *e)
{
    const char *colon, *host = v;
    size_t hlen;
    long long port;
    char *end;

    if (v[0] == '[') {
        const char *close = strchr(v, ']');

        if (!close || close[1] != ':' || close == v + 1)
            return bad_value(e, where, v, "want [IPV6]:PORT");
        host = v + 1;
        hlen = (size_t)(close - host);
        colon = close + 1;
    } else {
        colon = strrchr(v, ':');
        if (!colon)
            return bad_value(e, where, v, "want HOST:PORT");
        hlen = (size_t)(colon - v);
        if (memchr(v, ':', hlen))
            return bad_value(e, where, v,
                             "want HOST:PORT; write IPv6 addresses in "
                             "brackets, [::1]:8888");
    }
    errno = 0;
    port = strtoll(colon + 1, &end, 10);
    if (!isdigit((unsigned char)colon[1]) || *end || errno || port > 65535)
        return bad_value(e, where, v, "want a port from 0 to 65535");
    o->listen = arena_strdup(a, v);
    o->listen_host = arena_strndup(a, host, hlen);
    o->listen_port = (int)port;
    if (!o->listen || !o->listen_host)
        return err_set(e, "%s: out of memory", where);
    return 0;
}

static int set_prefix(struct srv_options *o, struct arena *a, const char *where,
                      const char *v, struct err *e)
{
    size_t n = strlen(v);
    const char *c;

    if (n && v[0] != '/')
        return bad_value(e, where, v, "want a path starting with '/'");
    for (c = v; *c; c++) {
        if (*c == '?' || *c == '#' || *c == '%' || isspace((unsigned char)*c) ||
            iscntrl((unsigned char)*c))
            return bad_value(e, where, v,
                             "want a plain path without '?', '#', '%' or "
                             "spaces");
    }
    while (n && v[n - 1] == '/')
        n--;
    o->url_prefix = arena_strndup(a, v, n);
    return o->url_prefix ? 0 : err_set(e, "%s: out of memory", where);
}

/* Apply one option value; where is "--name" or the INI key. */
static int apply(const struct opt_def *d, struct srv_options *o,
                 struct arena *a, const char *where, const char *v,
                 struct err *e)
{
    const char **field = (const char **)(void *)((char *)o + d->off);

    switch (d->type) {
    case OT_INT:
        return set_int(d, o, where, v, e);
    case OT_BYTES:
        return set_bytes(d, o, where, v, e);
    case OT_ENUM:
        return set_enum(d, o, where, v, e);
    case OT_LISTEN:
        return set_listen(o, a, where, v, e);
    case OT_PREFIX:
        return set_prefix(o, a, where, v, e);
    case OT_CLUSTER:
        if (!*v)
            return bad_value(e, where, v, "want a file name");
        if (o->n_cluster_files == OPTS_MAX_CLUSTERS)
            return err_set(e, "%s: more than %d cluster files", where,
                           OPTS_MAX_CLUSTERS);
        field = &o->cluster_files[o->n_cluster_files++];
        break;
    case OT_PLUGIN:
        if (!*v)
            return bad_value(e, where, v, "want a file name");
        if (o->n_plugin_files == OPTS_MAX_PLUGINS)
            return err_set(e, "%s: more than %d plugin files", where,
                           OPTS_MAX_PLUGINS);
        field = &o->plugin_files[o->n_plugin_files++];
        break;
    case OT_URL:
        if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
            return bad_value(e, where, v, "want an http:// or https:// URL");
        break;
    case OT_STR:
    case OT_CONFIG:
        if (!*v)
            return bad_value(e, where, v, "want a file name");
        break;
    case OT_HELP:
        o->help = 1;
        return 0;
    case OT_BOOL:
        if (strcmp(v, "true") && strcmp(v, "false"))
            return bad_value(e, where, v, "want true or false");
        *(int *)(void *)((char *)o + d->off) = !strcmp(v, "true");
        return 0;
    }
    *field = arena_strdup(a, v);
    return *field ? 0 : err_set(e, "%s: out of memory", where);
}

/*
 * Read the flag at argv[*i]: *d gets its row, *v its value (NULL for
 * --help), *i moves past what was used. Returns 0 or -1 with e set.
 */
static int next_flag(int argc, char *const *argv, int *i,
                     const struct opt_def **d, const char **v, struct err *e)
{
    const char *arg = argv[*i], *name, *eq;
    char q[160];

    if (arg[0] != '-' || !arg[1])
        return err_set(e, "unexpected argument %s",
                       err_quote(q, sizeof(q), arg, 120));
    name = arg + (arg[1] == '-' ? 2 : 1);
    eq = strchr(name, '=');
    *d = find_opt(name, eq ? (size_t)(eq - name) : strlen(name));
    if (!*d)
        return err_set(e, "unknown option '%.*s'",
                       (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg);
    if ((*d)->type == OT_HELP) {
        if (eq)
            return err_set(e, "--help takes no value");
        *v = NULL;
    } else if ((*d)->type == OT_BOOL) {
        *v = eq ? eq + 1 : "true";
    } else if (eq) {
        *v = eq + 1;
    } else if (*i + 1 < argc) {
        *v = argv[++*i];
    } else {
        return err_set(e, "option '--%s' needs a value (%s)", (*d)->name,
                       (*d)->metavar);
    }
    ++*i;
    return 0;
}

struct ini_state {
    struct srv_options *o;
    struct arena *a;
    struct err err; /* the first error; its line comes from ini_parse */
    int failed;
};

static int ini_on_key(void *user, const char *section, const char *name,
                      const char *value)
{
    struct ini_state *st = user;
    const struct opt_def *d = find_opt(name, strlen(name));
    char q[160];

    if (st->failed)
        return 0;
    st->failed = 1;
    if (*section && strcmp(section, "serve")) {
        err_set(&st->err, "unknown section %s (want [serve] or none)",
                err_quote(q, sizeof(q), section, 120));
        return 0;
    }
    if (!d || d->type == OT_CONFIG || d->type == OT_HELP) {
        err_set(&st->err, "unknown key %s", err_quote(q, sizeof(q), name, 120));
        return 0;
    }
    if (apply(d, st->o, st->a, name, value, &st->err) != 0)
        return 0;
    st->failed = 0;
    return 1;
}

/* inih would split a line longer than its buffer; refuse such files. */
static int check_line_lengths(const char *path, struct err *e)
{
    FILE *f = fopen(path, "r");
    size_t len = 0;
    int line = 1, c;

    if (!f)
        return 0; /* ini_parse reports it */
    while ((c = getc(f)) != EOF) {
        if (c == '\n') {
            line++;
            len = 0;
        } else if (++len > OPTS_INI_MAX_LINE - 2) {
            fclose(f);
            return err_set(e, "%s:%d: line longer than %d bytes", path, line,
                           OPTS_INI_MAX_LINE - 2);
        }
    }
    fclose(f);
    return 0;
}

int opts_load_file(struct srv_options *o, struct arena *a, const char *path,
                   struct err *e)
{
    struct ini_state st = { o, a, { "" }, 0 };
    int rc;

    if (check_line_lengths(path, e) != 0)
        return -1;
    rc = ini_parse(path, ini_on_key, &st);
    if (rc == -1)
        return err_set(e, "%s: cannot open: %s", path, strerror(errno));
    if (rc == -2)
        return err_set(e, "%s: out of memory", path);
    if (rc > 0) {
        if (!st.failed)
            return err_set(e, "%s:%d: syntax error (want key = value)", path,
                           rc);
        err_set(e, "%s", st.err.msg);
        return err_prefix(e, "%s:%d: ", path, rc);
    }
    return 0;
}

static int check_combination(const struct srv_options *o, struct err *e)
{
    if (!!o->tls_cert_file != !!o->tls_key_file)
        return err_set(e, "--tls-cert-file and --tls-key-file go together "
                          "(only one was given)");
    if (o->tls_client_ca_file && !o->tls_cert_file)
        return err_set(e, "--tls-client-ca-file needs --tls-cert-file and "
                          "--tls-key-file");
    return 0;
}

int opts_parse(struct srv_options *o, struct arena *a, int argc,
               char *const *argv, struct err *e)
{
    const struct opt_def *d;
    const char *v, *config = NULL;
    char where[64];
    int i, cluster_flag = 0;

    opts_defaults(o);
    /* Pass 1: find --config (and check the flags' syntax). */
    for (i = 1; i < argc;) {
        if (next_flag(argc, argv, &i, &d, &v, e) != 0)
            return -1;
        if (d->type == OT_CONFIG)
            config = v;
    }
    if (config) {
        if (apply(find_opt("config", 6), o, a, "--config", config, e) != 0)
            return -1;
        if (opts_load_file(o, a, o->config_file, e) != 0)
            return -1;
    }
    /* Pass 2: flags override the file. */
    for (i = 1; i < argc;) {
        next_flag(argc, argv, &i, &d, &v, e);
        if (d->type == OT_CLUSTER && !cluster_flag) {
            o->n_cluster_files = 0;
            cluster_flag = 1;
        }
        snprintf(where, sizeof(where), "--%s", d->name);
        if (apply(d, o, a, where, v ? v : "", e) != 0)
            return -1;
    }
    return check_combination(o, e);
}

/* Print help and its default as a paragraph indented by 6 columns. */
static void wrap(FILE *f, const char *help, const char *def)
{
    char text[512];
    const char *p = text;
    int col = 0;

    snprintf(text, sizeof(text), "%s%s%s%s", help, def ? " (default: " : "",
             def ? def : "", def ? ")" : "");
    while (*p) {
        size_t w = strcspn(p, " ");

        if (col && col + 1 + (int)w > 72) {
            fputc('\n', f);
            col = 0;
        }
        fprintf(f, "%s%.*s", col ? " " : "      ", (int)w, p);
        col += (int)w + 1;
        p += w;
        while (*p == ' ')
            p++;
    }
    fputc('\n', f);
}

void opts_usage(FILE *f)
{
    size_t i;

    fprintf(f, "Usage: kube-policy-extender serve [OPTIONS]\n\n"
               "Serve the scheduler-extender HTTP API. Every option is also "
               "an INI key\n(--config FILE); flags override the file.\n\n"
               "Options:\n");
    for (i = 0; i < N_OPTS; i++) {
        const struct opt_def *d = &opt_table[i];
        char flag[64];

        snprintf(flag, sizeof(flag), "%s%s%s%s%s", d->alias ? "-" : "",
                 d->alias ? d->alias : "", d->alias ? ", --" : "--", d->name,
                 "");
        if (d->metavar) {
            strncat(flag, " ", sizeof(flag) - strlen(flag) - 1);
            strncat(flag, d->metavar, sizeof(flag) - strlen(flag) - 1);
        }
        fprintf(f, "  %s\n", flag);
        wrap(f, d->help, d->def);
    }
    fprintf(f, "\nVerbosity is also accepted as -v N and --v=N. SIGTERM or "
               "SIGINT drains and\nexits 0; SIGHUP reloads.\n");
}

int opts_doc_row(size_t i, struct opts_doc *d)
{
    const struct opt_def *o;

    if (i >= N_OPTS)
        return -1;
    o = &opt_table[i];
    d->name = o->name;
    d->alias = o->alias;
    d->metavar = o->type == OT_BOOL ? "[=BOOL]" : o->metavar;
    d->help = o->help;
    d->def = o->def;
    return 0;
}
