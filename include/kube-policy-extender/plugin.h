/*
 * kube-policy-extender/plugin.h: the ABI of loadable predicate and priority
 * plugins (`--plugin FILE.so`). This header is all a plugin includes; `make
 * install` puts it in $(PREFIX)/include. A plugin is one shared object:
 *
 *   #include <kube-policy-extender/plugin.h>
 *   KPE_PLUGIN_MAGIC;
 *   int kpe_plugin_init(const struct kpe_plugin_host *host, int api_version)
 *   {
 *       if (api_version != KPE_PLUGIN_API_VERSION)
 *           return -1;
 *       return host->register_predicate(host, &my_predicate);
 *   }
 *
 * built with `cc -shared -fPIC -I$(PREFIX)/include -o my.so my.c`. Pods and
 * nodes are opaque: a plugin reads them only through the host's accessor
 * functions, so the server may change its internals without breaking it.
 * Everything a plugin registers (names, docs, reasons, schemas) must stay
 * valid while the plugin is loaded: static storage in the .so.
 *
 * Models: redis modules (RedisModule_Init with an API version) and
 * PostgreSQL's PG_MODULE_MAGIC.
 */
#ifndef KUBE_POLICY_EXTENDER_PLUGIN_H
#define KUBE_POLICY_EXTENDER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this ABI. It changes whenever a struct below changes
 * shape or meaning; the server loads only plugins built for its version.
 */
#define KPE_PLUGIN_API_VERSION 1

/*
 * Put KPE_PLUGIN_MAGIC once in a plugin (file scope): it records the
 * version the plugin was built against, which the server reads before it
 * calls anything (PostgreSQL's PG_MODULE_MAGIC).
 */
#define KPE_PLUGIN_MAGIC                                                       \
    const int kpe_plugin_api_version = KPE_PLUGIN_API_VERSION
extern const int kpe_plugin_api_version;
#define KPE_PLUGIN_MAGIC_SYMBOL "kpe_plugin_api_version"
#define KPE_PLUGIN_ENTRY_SYMBOL "kpe_plugin_init"

/* Opaque: read through the accessors of struct kpe_plugin_host. */
struct kpe_pod;
struct kpe_node;

/* What a filter returns (the v1.22 framework's Status codes). */
enum kpe_fit {
    KPE_FIT = 0,
    KPE_UNFIT = 1,              /* Unschedulable: preemption may help */
    KPE_UNFIT_UNRESOLVABLE = 2, /* UnschedulableAndUnresolvable */
    KPE_FIT_ERROR = 3,          /* internal error: the pod is not scheduled */
};

/* Scores are 0..KPE_MAX_SCORE (framework.MaxNodeScore). */
#define KPE_MAX_SCORE 100

/* ---- flags of a descriptor ---- */
/* Reads node_requested(): the server keeps the pods on each node. */
#define KPE_USES_NODE_REQUESTED 0x01u
/* Priority: scale raw scores to 0..100 by the highest one. */
#define KPE_SCORE_NORMALIZE 0x02u
/* Priority, with KPE_SCORE_NORMALIZE: the lowest raw score is best. */
#define KPE_SCORE_REVERSE 0x04u

/* ---- an optional argument, read from the Policy entry ---- */

enum kpe_plugin_arg_type {
    KPE_PLUGIN_ARG_STRING = 1,  /* const char * (NULL: not given) */
    KPE_PLUGIN_ARG_BOOL = 2,    /* bool (C99 _Bool) */
    KPE_PLUGIN_ARG_INT64 = 3,   /* int64_t */
    KPE_PLUGIN_ARG_STRINGS = 4, /* struct kpe_strings; INI: one per line */
};

struct kpe_strings {
    const char **v;
    size_t n;
};

struct kpe_plugin_arg_field {
    const char *name; /* JSON key; INI key "<argument key>.<name>" */
    int type;         /* enum kpe_plugin_arg_type */
    size_t offset;    /* of the member in the plugin's argument struct */
    const char *def;  /* the default, as `list` shows it; NULL: none */
};

/*
 * The argument {"argument": {"<key>": {fields...}}}. The server reads it
 * from JSON, YAML or INI into a zeroed struct of `size` bytes (strings
 * live as long as the policy) and hands that struct to the filter or
 * score function as `arg`; when an entry gives no argument, arg is NULL.
 */
struct kpe_plugin_args {
    const char *key; /* "rdmaAware": unique among every argument key */
    size_t size;
    const struct kpe_plugin_arg_field *fields;
    size_t n_fields;
    const char *note; /* one line for `list` */
};

/*
 * Filter and score functions run on the server's worker threads, several
 * at once: they must not write shared state without their own locking.
 *
 * Filter: decide whether pod fits node. Returns an enum kpe_fit; on a
 * failure *reason may be set to a static string (one of the descriptor's
 * reasons; left NULL, the first one is used).
 */
typedef int kpe_filter_fn(const void *arg, const struct kpe_pod *pod,
                          const struct kpe_node *node, const char **reason);

/*
 * Score: the raw score of node for pod into *score: 0..KPE_MAX_SCORE, or
 * any value >= 0 with KPE_SCORE_NORMALIZE. Returns 0, or -1 to fail the
 * pod (an internal error).
 */
typedef int kpe_score_fn(const void *arg, const struct kpe_pod *pod,
                         const struct kpe_node *node, int64_t *score);

struct kpe_predicate {
    const char *name;           /* the Policy name: unique, [A-Za-z0-9_-] */
    unsigned flags;             /* KPE_USES_NODE_REQUESTED */
    const char *doc;            /* one line for `list` */
    const char *const *reasons; /* every reason it gives, NULL-ended */
    kpe_filter_fn *filter;
    const struct kpe_plugin_args *args; /* NULL: takes no argument */
};

struct kpe_priority {
    const char *name; /* the Policy name: unique, [A-Za-z0-9_-] */
    unsigned flags;   /* KPE_USES_NODE_REQUESTED, KPE_SCORE_* */
    const char *doc;  /* one line for `list` */
    kpe_score_fn *score;
    const struct kpe_plugin_args *args; /* NULL: takes no argument */
};

/*
 * What the server hands kpe_plugin_init; the pointer stays valid while the
 * plugin is loaded, so a plugin may keep it. The register functions copy
 * nothing: the descriptor must outlive the plugin. They return 0, or -1
 * when the server refuses it (the reason is reported by the server); the
 * plugin then returns nonzero from kpe_plugin_init. Registration happens
 * once, at start, before any policy is read and before any thread runs.
 *
 * The accessors may be called from several threads at once, only from
 * inside a filter or score call, with that call's pod and node. Strings
 * they return live as long as the call. Resource amounts: "cpu" in
 * millicores, "memory" and "ephemeral-storage" in bytes, "pods" and
 * extended resources as counts; 0 when absent.
 */
struct kpe_plugin_host {
    int api_version; /* KPE_PLUGIN_API_VERSION of the server */
    void *ctx;       /* the server's, for the register functions */
    int (*register_predicate)(const struct kpe_plugin_host *host,
                              const struct kpe_predicate *p);
    int (*register_priority)(const struct kpe_plugin_host *host,
                             const struct kpe_priority *p);

    const char *(*pod_name)(const struct kpe_pod *pod);
    const char *(*pod_namespace)(const struct kpe_pod *pod);
    /* The value of a label, "" for a key with an empty value; NULL: none. */
    const char *(*pod_label)(const struct kpe_pod *pod, const char *key);
    /* spec.nodeName, "" when unset. */
    const char *(*pod_node_name)(const struct kpe_pod *pod);
    /* The pod's effective request (v1.22 computePodResourceRequest). */
    int64_t (*pod_request)(const struct kpe_pod *pod, const char *resource);

    const char *(*node_name)(const struct kpe_node *node);
    const char *(*node_label)(const struct kpe_node *node, const char *key);
    int64_t (*node_allocatable)(const struct kpe_node *node,
                                const char *resource);
    /* Sum of the requests of the pods on the node (needs the flag
     * KPE_USES_NODE_REQUESTED on the descriptor). */
    int64_t (*node_requested)(const struct kpe_node *node,
                              const char *resource);
};

/* The entry point every plugin defines. Returns 0 on success. */
int kpe_plugin_init(const struct kpe_plugin_host *host, int api_version);

#ifdef __cplusplus
}
#endif

#endif
