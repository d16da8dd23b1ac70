/*
 * options.h: the `serve` options, from flags and an INI file (--config).
 * Parsing is a pure function of argv and the file: defaults, then the
 * file, then the flags (flags win). One table drives the flags, the INI
 * keys and --help.
 */
#ifndef SERVER_COMMON_OPTIONS_H
#define SERVER_COMMON_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"

#define OPTS_DEFAULT_LISTEN   "127.0.0.1:8888"
#define OPTS_DEFAULT_MAX_BODY (16ull << 20) /* ~1,000 full nodes */
/* Requests in flight: fits the shipped 256Mi memory limit (SECURITY.md). */
#define OPTS_DEFAULT_MAX_INFLIGHT (128ll << 20)
#define OPTS_DEFAULT_MAX_HEADERS  (64 << 10)
#define OPTS_DEFAULT_READ_TIMEOUT 30
/* Absolute deadlines from a request's first byte (Go's ReadHeaderTimeout
 * and ReadTimeout, Envoy's request_headers_timeout). */
#define OPTS_DEFAULT_HEADER_TIMEOUT 10
#define OPTS_DEFAULT_BODY_TIMEOUT   60
/* An evaluation answers 503 past this (kube-scheduler's own extender
 * timeout is 5 s by default); a single plugin call running past
 * --plugin-timeout makes /healthz fail. */
#define OPTS_DEFAULT_EVAL_TIMEOUT   10
#define OPTS_DEFAULT_PLUGIN_TIMEOUT 30
#define OPTS_DEFAULT_IDLE_TIMEOUT   120 /* above Go's 90 s IdleConnTimeout */
#define OPTS_DEFAULT_GRACE          10
#define OPTS_MAX_CLUSTERS           64
#define OPTS_MAX_PLUGINS            16

enum opts_compat { OPTS_COMPAT_NONE, OPTS_COMPAT_LEGACY };
enum opts_score_scale {
    OPTS_SCORE_SCALED, /* proportional: the split shape */
    OPTS_SCORE_RAW,
    OPTS_SCORE_AUTO, /* rank when the Policy has in-tree names, else scaled */
    OPTS_SCORE_RANK, /* the extender decides alone */
};
#define OPTS_DEFAULT_HOLD_TIMEOUT 30
enum opts_log_format { OPTS_LOG_TEXT, OPTS_LOG_JSON };
/* --semantics, in release order; OPTS_SEM_1_22 - s releases back is
 * framework/semantics.h's value (this layer cannot include it). */
enum opts_semantics { OPTS_SEM_1_20, OPTS_SEM_1_21, OPTS_SEM_1_22 };

struct srv_options {
    const char *listen;      /* as given, e.g. "[::1]:8888" */
    const char *listen_host; /* "::1"; "" means every address */
    int listen_port;         /* 0 picks an ephemeral port */
    const char *policy_file;
    const char *cluster_files[OPTS_MAX_CLUSTERS];
    size_t n_cluster_files;
    const char *kubeconfig;
    const char *context; /* --context: instead of current-context */
    const char *master;
    const char *url_prefix; /* "" or "/x/y", no trailing '/' */
    int workers;            /* 0: number of online CPUs */
    int compat;             /* enum opts_compat */
    int semantics;          /* enum opts_semantics */
    const char *tls_cert_file;
    const char *tls_key_file;
    const char *tls_client_ca_file;
    long long max_body_bytes;
    long long max_header_bytes;
    int max_connections; /* 0: derived from the open-file limit */
    long long max_inflight_bytes;
    int read_timeout;   /* seconds */
    int header_timeout; /* seconds from a request's first byte */
    int body_timeout;   /* seconds from a request's first byte */
    int eval_timeout;   /* seconds for a handler on the pool */
    int plugin_timeout; /* seconds for one plugin call */
    int idle_timeout;   /* seconds */
    int shutdown_grace; /* seconds */
    int log_format;     /* enum opts_log_format */
    int verbosity;
    int score_scale;           /* enum opts_score_scale */
    int hold_timeout;          /* seconds a hold waits for the watch; 0 off */
    const char *feature_gates; /* --feature-gates as given, or NULL */
    int policy_watch_ms;       /* poll the policy file this often */
    int debug_endpoints;       /* serve GET /debug/cache */
    const char *config_file;
    /* `plugin` keys of the config file; --plugin flags are taken out of
     * argv and loaded by main() before any subcommand runs */
    const char *plugin_files[OPTS_MAX_PLUGINS];
    size_t n_plugin_files;
    int help; /* --help given: print opts_usage() and exit 0 */
};

/* Fill o with the defaults (no allocation). */
void opts_defaults(struct srv_options *o);

/*
 * Parse `serve` arguments (argv[0] is the subcommand name and is skipped).
 * Strings live in arena a. Returns 0, or -1 with e naming the flag (or
 * "FILE:LINE: key") and quoting the bad value; the caller exits 2.
 */
int opts_parse(struct srv_options *o, struct arena *a, int argc,
               char *const *argv, struct err *e);

/* Apply the INI file at path on top of o (used by opts_parse). */
int opts_load_file(struct srv_options *o, struct arena *a, const char *path,
                   struct err *e);

/* Write the --help text: every option, its INI key and its default. */
void opts_usage(FILE *f);

/* One option as documentation (the man page): its flag name, short
 * alias or NULL, value name or NULL, help and default or NULL. */
struct opts_doc {
    const char *name, *alias, *metavar, *help, *def;
};

/* Row i of serve's option table into d: 0, or -1 past the last. */
int opts_doc_row(size_t i, struct opts_doc *d);

#endif
