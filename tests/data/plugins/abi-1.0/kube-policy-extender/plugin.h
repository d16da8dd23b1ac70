/*
 * kube-policy-extender/plugin.h: the ABI of loadable predicate and priority
 * plugins (`--plugin FILE.so`). This header is all a plugin includes; `make
 * install` puts it in $(PREFIX)/include. A plugin is one shared object:
 *
 *   #include <kube-policy-extender/plugin.h>
 *   KPE_PLUGIN_MAGIC;
 *   int kpe_plugin_init(const struct kpe_plugin_host *host)
 *   {
 *       return host->register_predicate(host, &my_predicate);
 *   }
 *
 * built with `cc -shared -fPIC -I$(PREFIX)/include -o my.so my.c`. Pods and
 * nodes are opaque: a plugin reads them only through the host's accessor
 * functions, so the server may change its internals without breaking it.
 * Everything a plugin registers (names, docs, reasons, schemas) must stay
 * valid while the plugin is loaded: static storage in the .so.
 *
 * The ABI grows without breaking what is built: its version is
 * major.minor; a minor release only appends members at the end of a
 * struct (a new accessor, a new descriptor field), never changes or
 * removes one; each struct that crosses the boundary carries its size, so
 * both sides read only what the other has. A server loads a plugin built
 * for its major and any minor up to its own. Models: PostgreSQL's
 * PG_MODULE_MAGIC (a function returning a sized struct, as dlsym is only
 * guaranteed for functions) and the Redis module API (functions added,
 * never changed).
 */
#ifndef KUBE_POLICY_EXTENDER_PLUGIN_H
#define KUBE_POLICY_EXTENDER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this ABI: a new major breaks plugins built before it
 * (the server refuses them); a new minor only appends.
 */
#define KPE_PLUGIN_API_MAJOR 1
#define KPE_PLUGIN_API_MINOR 0

/*
 * What KPE_PLUGIN_MAGIC records: the version and the struct sizes the
 * plugin was built with. Members are only ever appended; size comes
 * first so that any server can read any plugin's magic.
 */
struct kpe_plugin_magic {
    size_t size; /* sizeof(struct kpe_plugin_magic) of the plugin's header */
    int api_major;
    int api_minor;
    size_t host_size; /* sizeof(struct kpe_plugin_host) it was built with */
};

/*
 * Put KPE_PLUGIN_MAGIC once in a plugin (file scope, followed by ';'): it
 * defines the function kpe_plugin_magic() that the server calls before
 * anything else (PostgreSQL's PG_MODULE_MAGIC).
 */
#define KPE_PLUGIN_MAGIC                                                       \
    const struct kpe_plugin_magic *kpe_plugin_magic(void)                      \
    {                                                                          \
        static const struct kpe_plugin_magic m = {                             \
            sizeof(struct kpe_plugin_magic), KPE_PLUGIN_API_MAJOR,             \
            KPE_PLUGIN_API_MINOR, sizeof(struct kpe_plugin_host)               \
        };                                                                     \
        return &m;                                                             \
    }                                                                          \
    extern int kpe_plugin_magic_needs_a_semicolon
#define KPE_PLUGIN_MAGIC_SYMBOL "kpe_plugin_magic"
#define KPE_PLUGIN_ENTRY_SYMBOL "kpe_plugin_init"
struct kpe_plugin_host;
const struct kpe_plugin_magic *kpe_plugin_magic(void);

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
    size_t size;     /* of the plugin's argument struct */
    const struct kpe_plugin_arg_field *fields;
    size_t n_fields;
    const char *note; /* one line for `list` */
};
/*
 * struct kpe_plugin_args and struct kpe_plugin_arg_field never grow (an
 * array's stride is its element's size): a later minor that needs more
 * adds a new struct, reached from a member appended to a descriptor.
 */

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

/*
 * The descriptors start with their own size: set .size =
 * sizeof(struct kpe_predicate) (or kpe_priority); the server reads the
 * members that size covers and takes later ones, appended by a newer
 * minor, as zero.
 */
struct kpe_predicate {
    size_t size;
    const char *name;           /* the Policy name: unique, [A-Za-z0-9_-] */
    unsigned flags;             /* KPE_USES_NODE_REQUESTED */
    const char *doc;            /* one line for `list` */
    const char *const *reasons; /* every reason it gives, NULL-ended */
    kpe_filter_fn *filter;
    const struct kpe_plugin_args *args; /* NULL: takes no argument */
};

struct kpe_priority {
    size_t size;
    const char *name; /* the Policy name: unique, [A-Za-z0-9_-] */
    unsigned flags;   /* KPE_USES_NODE_REQUESTED, KPE_SCORE_* */
    const char *doc;  /* one line for `list` */
    kpe_score_fn *score;
    const struct kpe_plugin_args *args; /* NULL: takes no argument */
};

/*
 * What the server hands kpe_plugin_init; the pointer stays valid while the
 * plugin is loaded, so a plugin may keep it. A server of a newer minor
 * hands a longer table: a plugin reads only the members its header has
 * (size says how many the server filled). The register functions keep
 * pointers into the descriptor: it must outlive the plugin. They return 0, or
 * -1 when the server refuses it (the reason is reported by the server); the
 * plugin then returns nonzero from kpe_plugin_init. Registration happens
 * once, at start, before any policy is read and before any thread runs.
 *
 * The accessors may be called from several threads at once, only from
 * inside a filter or score call, with that call's pod and node. Strings
 * they return live as long as the call. Resource amounts: "cpu" in
 * millicores, "memory" and "ephemeral-storage" in bytes, extended
 * resources as counts; 0 when absent. "pods" counts pods: a pod requests
 * 1, a node's requested "pods" is the number of pods on it, its
 * allocatable "pods" the most it takes.
 */
struct kpe_plugin_host {
    size_t size;   /* sizeof(struct kpe_plugin_host) of the server */
    int api_major; /* the server's KPE_PLUGIN_API_MAJOR */
    int api_minor; /* the server's KPE_PLUGIN_API_MINOR */
    void *ctx;     /* the server's, for the register functions */
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
    /* ---- 1.0 ends here; a minor appends below, never above ---- */
};

/* The entry point every plugin defines. Returns 0 on success. */
int kpe_plugin_init(const struct kpe_plugin_host *host);

#ifdef __cplusplus
}
#endif

#endif
