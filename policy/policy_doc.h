/*
 * policy_doc.h: a Policy document as written (JSON or INI), before
 * resolution: the v1 Policy types of kube-scheduler v1.22
 * (staging/src/k8s.io/kube-scheduler/config/v1/types.go) as plain structs,
 * plus our highComm argument. Both parsers fill one struct policy_doc;
 * policy.c validates and resolves it; the writers print it back. Strings
 * live in the arena of the policy being built.
 */
#ifndef POLICY_POLICY_DOC_H
#define POLICY_POLICY_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "framework/args.h"

/* Where an entry came from, for error messages. */
struct policy_loc {
    const char *path; /* JSON path ("predicates[3]"); NULL for INI */
    int line;         /* INI line of the section header; 0 for JSON */
};

struct policy_pred_entry {
    const char *name;
    bool has_argument;           /* "argument" present and not null */
    struct kpe_args_written arg; /* its members (predicate schemas) */
    struct policy_loc loc;
};

struct policy_prio_entry {
    const char *name;
    int64_t weight;
    bool has_argument;
    struct kpe_args_written arg; /* its members (priority schemas) */
    struct policy_loc loc;
};

/* ExtenderTLSConfig; the *_data members stay base64 text (validated). */
struct policy_tls {
    bool insecure;
    const char *server_name;
    const char *cert_file;
    const char *key_file;
    const char *ca_file;
    const char *cert_data;
    const char *key_data;
    const char *ca_data;
};

struct policy_managed_resource {
    const char *name;
    bool ignored_by_scheduler;
};

/* LegacyExtender. Strings are "" when absent. */
struct policy_extender {
    const char *url_prefix;
    const char *filter_verb;
    const char *preempt_verb;
    const char *prioritize_verb;
    const char *bind_verb;
    int64_t weight;
    bool enable_https;
    bool has_tls;
    struct policy_tls tls;
    int64_t http_timeout_ns; /* Go time.Duration; 0 = default (5 s) */
    bool node_cache_capable;
    struct policy_managed_resource *managed_resources;
    size_t n_managed_resources;
    bool ignorable;
    struct policy_loc loc;
};

/* A `predicates`/`priorities` key: absent or null, or a list (maybe []). */
enum policy_list_mode {
    POLICY_LIST_DEFAULT = 0, /* absent/null: the v1.22 default set */
    POLICY_LIST_LISTED,      /* the entries given; none when n == 0 */
};

struct policy_doc {
    const char *kind;        /* "Policy" */
    const char *api_version; /* "v1" or "kubescheduler.config.k8s.io/v1" */
    enum policy_list_mode predicates_mode;
    struct policy_pred_entry *preds;
    size_t n_preds;
    enum policy_list_mode priorities_mode;
    struct policy_prio_entry *prios;
    size_t n_prios;
    struct policy_extender *extenders;
    size_t n_extenders;
    int32_t hard_pod_affinity_symmetric_weight;
    bool always_check_all_predicates;
    int ini;  /* 1 when parsed from INI (locations are lines) */
    int yaml; /* 1 when parsed from YAML (turned into JSON first) */
};

/* Caps on what one document may hold (curl's `toobig`). */
#define POLICY_MAX_FILE_BYTES (4u * 1024u * 1024u)
#define POLICY_MAX_ENTRIES    4096

#endif
