/*
 * policy.h: a kube-scheduler v1.22 Policy, loaded (JSON or INI), validated
 * and resolved the way v1.22's createFromPolicy does, into one struct
 * policy that owns all its memory (its own arena). A failed load leaves
 * nothing behind, so a server can keep the running policy.
 *
 * Errors: "FILE: LOCATION: what; did you mean ...". LOCATION is the JSON
 * path (predicates[3].name) or the INI line (policy.ini:12); an unknown
 * key is one (the strict decoder of v1.20-v1.22). Warnings (ignored
 * arguments, extra YAML documents) never fail a load: they are kept
 * in policy->warnings and written to opts->warnings when that is set.
 */
#ifndef POLICY_POLICY_H
#define POLICY_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "framework/semantics.h"
#include "policy/policy_doc.h"
#include "predicates/predicates.h"
#include "priorities/priorities.h"

/* Load options. */
#define POLICY_COMPAT_LEGACY 0x1u /* accept names v1.22 dropped */

enum policy_format {
    POLICY_FORMAT_AUTO = 0, /* by content (kube/base/doc_format.h) */
    POLICY_FORMAT_JSON,
    POLICY_FORMAT_INI,
    POLICY_FORMAT_YAML,
};

/* Feature gates that change how a Policy resolves (v1.22 defaults: on). */
#define POLICY_GATE_DEFAULT_POD_TOPOLOGY_SPREAD_OFF 0x1u

struct policy_load_opts {
    unsigned compat;              /* POLICY_COMPAT_* */
    unsigned gates;               /* POLICY_GATE_*: gates turned off */
    enum policy_format format;    /* how to read the file */
    FILE *warnings;               /* also print warnings here; NULL: don't */
    enum kpe_semantics semantics; /* --semantics (0: 1.22) */
};

/* Why an entry is in the resolved policy. */
#define POLICY_ORIGIN_FILE      0x1u /* named in the file */
#define POLICY_ORIGIN_DEFAULT   0x2u /* `predicates`/`priorities` absent */
#define POLICY_ORIGIN_MANDATORY 0x4u /* mandatory predicate */

/* One predicate key, in run order. */
struct policy_pred {
    const struct pred_def *def;
    struct pred_args args; /* folded over every entry of this key */
    const char **names;    /* configured names that produced it */
    size_t n_names;
    unsigned origin; /* POLICY_ORIGIN_* */
};

/*
 * One score plugin as v1.22 builds it: usually one key; PodTopologySpread
 * can come from EvenPodsSpreadPriority and SelectorSpreadPriority together.
 */
struct policy_prio {
    const struct prio_def *def;     /* first key in generation order */
    const struct prio_def *keys[2]; /* every key folded into this plugin */
    size_t n_keys;
    int64_t key_weight; /* weight of def's key (last entry of the key wins) */
    int32_t weight;     /* effective plugin weight (quirks applied) */
    struct prio_args args;
    const char **names; /* configured names that fed it */
    size_t n_names;
    unsigned origin;
};

/* One `priorities` entry by its own name (for explain). */
struct policy_prio_entry_ref {
    const char *name;
    int64_t weight;
    const struct prio_def *def;     /* the key it resolved to */
    const struct policy_prio *prio; /* NULL: dropped (EqualPriority) */
    bool overridden; /* a later entry of the same key replaced its weight */
};

struct policy {
    struct arena arena;           /* owns everything below */
    const char *source;           /* file name as given */
    unsigned compat;              /* POLICY_COMPAT_* it was loaded with */
    unsigned gates;               /* POLICY_GATE_* it was loaded with */
    enum kpe_semantics semantics; /* the release it is evaluated as */
    struct policy_doc doc;        /* the document as written */
    struct policy_pred *preds;
    size_t n_preds;
    struct policy_prio *prios; /* in v1.22 score-plugin order */
    size_t n_prios;
    struct policy_prio_entry_ref *entries; /* file order */
    size_t n_entries;
    const struct policy_extender **extenders; /* v1.22 call order */
    size_t n_extenders;
    int32_t hard_pod_affinity_weight; /* effective: 0 in the file -> 1 */
    bool always_check_all_predicates;
    unsigned needs; /* KPE_NEED_* of everything enabled */
    /* extenders' managedResources with ignoredByScheduler, in order */
    const char *const *ignored_resources;
    size_t n_ignored_resources;
    const char **warnings;
    size_t n_warnings;
};

/*
 * Read, parse, validate and resolve a policy file. On success *out is a
 * new policy (free with policy_free); on failure *out is untouched, e
 * says why, and nothing is left allocated. opts may be NULL.
 */
int policy_load_file(const char *path, const struct policy_load_opts *opts,
                     struct policy **out, struct err *e);

/* The same for a buffer; `name` is used in messages. */
int policy_load_buffer(const char *name, const char *buf, size_t len,
                       const struct policy_load_opts *opts, struct policy **out,
                       struct err *e);

/* Release a policy and everything it owns. NULL is fine. */
void policy_free(struct policy *p);

/* ---- used by the parsers and registries (policy.c) ---- */

/* Record a warning (printf-style) in p->warnings. */
void policy_warn(struct policy *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Parse a document into p->doc (strings in p->arena). JSON: cJSON with
 * the length + 1 / require-NUL rule; no cJSON tree survives. Returns 0, or
 * -1 with e set (prefixed with the location, not the file name).
 */
int policy_parse_json(struct policy *p, const char *buf, size_t len,
                      struct err *e);
int policy_parse_ini(struct policy *p, const char *buf, size_t len,
                     struct err *e);
/*
 * YAML, as v1.20-v1.22's universal decoder reads it: the first document,
 * turned into JSON (kube/base/yaml_reader.h), then read as policy_parse_json
 * reads its tree; the same paths in errors.
 */
int policy_parse_yaml(struct policy *p, const char *buf, size_t len,
                      struct err *e);

/* Print a document as canonical JSON / INI, into arena memory. */
char *policy_write_json(const struct policy_doc *d, struct arena *a,
                        struct err *e);
char *policy_write_ini(const struct policy_doc *d, struct arena *a,
                       struct err *e);

/*
 * Closest of `n` candidates to `name` by edit distance (case-insensitive
 * bonus), or NULL when none is close enough to suggest.
 */
const char *policy_suggest(const char *name, const char *const *cands,
                           size_t n);

/* The closest predicate / priority name the registries know. */
const char *policy_suggest_predicate(const char *name, unsigned compat);
const char *policy_suggest_priority(const char *name, unsigned compat);

/* ---- check output (policy_print.c) ---- */

/* Print the effective configuration: text, or JSON when json != 0. */
int policy_print_check(FILE *f, const struct policy *p, int json);

/* ---- the profile v1.22 builds (policy_convert.c) ---- */

#define POLICY_EP_COUNT 9 /* queueSort .. bind, see policy_ep_names */

struct policy_plugin {
    const char *name;
    int32_t weight; /* score only; 0 elsewhere */
};

struct policy_profile {
    struct policy_plugin *points[POLICY_EP_COUNT];
    size_t n_points[POLICY_EP_COUNT];
};

enum policy_ep {
    POLICY_EP_QUEUE_SORT = 0,
    POLICY_EP_PRE_FILTER,
    POLICY_EP_FILTER,
    POLICY_EP_POST_FILTER,
    POLICY_EP_PRE_SCORE,
    POLICY_EP_SCORE,
    POLICY_EP_RESERVE,
    POLICY_EP_PRE_BIND,
    POLICY_EP_BIND,
};

/* "queueSort", "preFilter", "filter", "postFilter", ... */
extern const char *const policy_ep_names[POLICY_EP_COUNT];

/* The plugins per extension point v1.22 enables for p (memory from a). */
int policy_build_profile(const struct policy *p, struct arena *a,
                         struct policy_profile *out, struct err *e);

enum policy_ksc_version {
    POLICY_KSC_V1BETA2 = 0, /* kubescheduler.config.k8s.io/v1beta2 (1.22) */
    POLICY_KSC_V1,          /* kubescheduler.config.k8s.io/v1 (1.25+) */
};

/* Write a KubeSchedulerConfiguration for p (YAML) to f. */
int policy_write_ksc(FILE *f, const struct policy *p, enum policy_ksc_version v,
                     const char *extender_url, struct err *e);

/* ---- the split deployment (policy_split.c) ---- */

struct policy_split_opts {
    const char *url;         /* the extender's urlPrefix */
    int64_t http_timeout_ns; /* Go time.Duration */
    bool node_cache_capable;
};

/*
 * Split p into kube-scheduler's Policy (every entry its legacy registry
 * knows, p's own extenders, then an entry for this server with the verbs
 * it needs) and this server's Policy (the other entries). *ext_weight gets
 * the weight of that entry: the sum of the weights of the priorities it
 * serves. Memory from a. 0, or -1 with e set.
 */
int policy_split(const struct policy *p, struct arena *a,
                 const struct policy_split_opts *o, struct policy_doc *sched,
                 struct policy_doc *ext, int64_t *ext_weight, struct err *e);

/*
 * The weight kube-scheduler's entry for this server needs in the split
 * shape: the sum of the resolved weights of p's priorities that
 * kube-scheduler lacks, so that the 0..10 answer x weight x 10 equals
 * their in-process weighted score.
 */
int64_t policy_extender_weight(const struct policy *p);

#define POLICY_ROLE_MAX_NAMES 32

/*
 * What serving p makes of the extender. sole: p has predicates or
 * priorities kube-scheduler also has in-tree (beyond the two mandatory
 * ones), so the deployment is one where kube-scheduler leaves the decision
 * to the extender (its Policy's `predicates: []`, `priorities: []`):
 * prioritize ranks (the best node alone gets 10). Otherwise the split
 * shape: prioritize answers in proportion (x weight x 10 = the in-process
 * weighted score). pod_dependent: the configured predicates and priorities
 * that read the pods on nodes; they are stale during a burst unless the
 * extender accounts for its own decisions.
 */
struct policy_role {
    bool sole;
    size_t n_in_tree;
    const char *pod_dependent[POLICY_ROLE_MAX_NAMES];
    size_t n_pod_dependent;
};

void policy_extender_role(const struct policy *p, struct policy_role *r);

#endif
