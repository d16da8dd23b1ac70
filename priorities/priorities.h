/*
 * priorities.h: the priority registry. One static const row per Policy
 * priority key (the rows of priorities/registry.c, served by the
 * framework's registry machinery), sorted byte-wise as kube-scheduler
 * v1.22 generates score plugins (legacy_registry.go AppendPriorityConfigs),
 * with the names v1.22 dropped (compat legacy only) and our own priorities.
 * Each priority's name and aliases live in its own file, beside its
 * descriptor (rdma_aware.c); other layers reach a priority through its
 * descriptor or the registry.
 */
#ifndef PRIORITIES_PRIORITIES_H
#define PRIORITIES_PRIORITIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "framework/args.h"
#include "framework/args_check.h"
#include "framework/high_comm_arg.h"
#include "framework/plugin.h"
#include "framework/registry.h"
#include "framework/semantics.h"
#include "priorities/plugins.h"

/* ---- row flags ---- */
#define PRIO_DEFAULT       0x01u /* in the set used when `priorities` is absent */
#define PRIO_SKIPPED       0x02u /* EqualPriority: validated, then dropped */
#define PRIO_CUSTOM_ONLY   0x04u /* internal key: needs folded custom args */
#define PRIO_LEGACY        0x08u /* dropped before v1.22: needs compat legacy */
#define PRIO_EXTENSION     0x10u /* ours: no v1.22 plugin */
#define PRIO_WEIGHT_LABELS 0x20u /* plugin weight = weight x label count */
#define PRIO_PLUGIN        0x40u /* loaded from a shared object (--plugin) */

/* ---- typed arguments ---- */

/* What a priority runs with: as struct pred_args (predicates.h). */
struct prio_args {
    const void *value;
};

/* As pred_parse_args_fn, for one priority entry's argument. */
typedef int prio_parse_args_fn(const void *written, struct arena *a,
                               struct prio_args *out, struct err *e);

/* What the Policy decides for a priority beyond its entries. */
struct prio_policy_facts {
    int32_t hard_pod_affinity_weight; /* hardPodAffinitySymmetricWeight */
    bool spread_system;           /* PodTopologySpread's defaulting is System */
    enum kpe_semantics semantics; /* whose argument validation applies */
};

/*
 * A descriptor's last step at load time (its defaults, nginx's merge):
 * complete out->value from the facts, after every entry was parsed.
 * Returns 0, or -1 with e set.
 */
typedef int prio_finish_fn(struct prio_args *out,
                           const struct prio_policy_facts *f, struct arena *a,
                           struct err *e);

/*
 * The value of the resource-scoring priorities, which v1.22 turns into
 * NodeResourcesFit's scoringStrategy: Least/MostAllocated score cpu=1,
 * memory=1; RequestedToCapacityRatio exactly its argument's resources
 * (none: nothing is scored) through its shape (rtcr set).
 */
struct prio_resources_arg {
    struct policy_shape_point *shape; /* score 0..10 as written */
    size_t n_shape;
    struct policy_resource *resources;
    size_t n_resources;
    bool rtcr;
};

enum prio_spread_defaulting {
    PRIO_SPREAD_SYSTEM = 0, /* SelectorSpreadPriority: system defaults */
    PRIO_SPREAD_LIST,       /* EvenPodsSpreadPriority alone: none */
};

/* The value of the spread priorities (PodTopologySpread's args). */
struct prio_spread_arg {
    enum prio_spread_defaulting defaulting;
};

/* The value of InterPodAffinityPriority (InterPodAffinity's args). */
struct prio_inter_pod_arg {
    int32_t hard_pod_affinity_weight;
};

#define PRIO_NEED_SPREAD                                                       \
    (KPE_NEED_ALL_PODS | KPE_NEED_SERVICES | KPE_NEED_CONTROLLERS)

/*
 * A priority descriptor: one per Policy key, defined next to its code and
 * listed once in registry.c, sorted by name as v1.22 generates score
 * plugins.
 */
struct prio_def {
    /* name (the resolved key), aliases, flags (PRIO_*),
     * needs, args (as written), doc */
    KPE_DEF_HEAD;
    int64_t default_weight; /* weight in the v1.22 default set; 0: none */
    const struct kpe_arg_schema *values; /* list: values no argument sets */
    /* its typed arguments (fields of struct prio_args), as check shows them */
    const struct kpe_arg_schema *resolved;
    prio_parse_args_fn *parse_args; /* NULL: takes no argument */
    /* PRIO_WEIGHT_LABELS: the plugin weight is the key weight x this */
    int64_t (*weight_count)(const struct prio_args *a);
    prio_finish_fn *finish; /* NULL: the value is what the entries made */
    /* v1.22's NodeResourcesFit scoringStrategy type for this key (value:
     * struct prio_resources_arg); NULL: not a resource scorer */
    const char *fit_strategy;
    const struct prio_plugin *plugins[2]; /* the v1.22 plugin, NULL-ended */
    const struct prio_plugin *own;      /* no v1.22 plugin: the code it runs */
    const struct prio_plugin *gate_off; /* DefaultPodTopologySpread off */
};

/* The descriptors policy/ names (defined in their plugins' files). */
extern const struct prio_def prio_equal_priority;
extern const struct prio_def prio_node_label;
extern const struct prio_def prio_service_affinity;
extern const struct prio_def prio_requested_to_capacity_ratio;
extern const struct prio_def prio_selector_spread_priority;
extern const struct prio_def prio_even_pods_spread_priority;
extern const struct prio_def prio_least_requested_priority;
extern const struct prio_def prio_most_requested_priority;

/* The descriptors sorted by name (= v1.22 plugin generation order). */
const struct prio_def *const *prio_registry(size_t *n);

/* The descriptor for a name or alias, or NULL. */
const struct prio_def *prio_lookup(const char *name);

/* The v1.22 plugins of d as refs into out[KPE_MAX_PLUGINS]; the count. */
size_t prio_def_refs(const struct prio_def *d,
                     const struct kpe_plugin_ref **out);

/*
 * The argument schemas of the descriptors, each once, in api_order, into
 * out[max]; the count. These are the members an entry's `argument` may
 * have.
 */
size_t prio_arg_schemas(const struct kpe_arg_schema **out, size_t max);

/* The descriptor whose argument s is (the one a custom name runs). */
const struct prio_def *prio_for_arg(const struct kpe_arg_schema *s);

/* Position of a descriptor in prio_registry(). */
size_t prio_index(const struct prio_def *d);

/* Most descriptors plugins may add (the runtime part of the registry). */
#define PRIO_MAX_RUNTIME 32

/* As pred_registry_add, for a priority descriptor. */
int prio_registry_add(const struct prio_def *d, struct err *e);

/*
 * After setting the args of d, an added descriptor: whether every argument
 * key still fits (kpe_registry_keys_fit). 0, or -1 with e set.
 */
int prio_registry_keys_fit(const struct prio_def *d, struct err *e);

/* How many descriptors plugins added. */
size_t prio_registry_runtime(void);

/* Forget the plugin descriptors past the first keep (rollback, unload). */
void prio_registry_truncate(size_t keep);

#endif
