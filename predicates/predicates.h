/*
 * predicates.h: the predicate registry. One static const row per Policy
 * predicate name (the rows of predicates/registry.c, served by the
 * framework's registry machinery), in kube-scheduler v1.22's run
 * order (legacy_registry.go predicateOrdering), with the names v1.22
 * dropped (loaded only with `compat legacy`) and our own predicates
 * interleaved. Each predicate's name, aliases and reasons live in its own
 * file, beside its descriptor (high_comm.c); a reason other files match is
 * exported from that plugin's header (node_unschedulable.h, ...), and
 * other layers reach a predicate through its descriptor or the registry.
 */
#ifndef PREDICATES_PREDICATES_H
#define PREDICATES_PREDICATES_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "framework/plugin.h"
#include "framework/args.h"
#include "framework/args_check.h"
#include "framework/high_comm_arg.h"
#include "framework/registry.h"
#include "predicates/plugins.h"

/* ---- row flags ---- */
#define PRED_MANDATORY   0x01u /* always added (v1.22 mandatoryPredicates) */
#define PRED_DEFAULT     0x02u /* in the set used when `predicates` is absent */
#define PRED_LEGACY      0x04u /* dropped before v1.22: needs compat legacy */
#define PRED_EXTENSION   0x08u /* ours: no v1.22 plugin, served by extender */
#define PRED_CUSTOM_ONLY 0x10u /* v1.22 key reached through an argument */
#define PRED_PLUGIN      0x20u /* loaded from a shared object (--plugin) */

#define PRED_NEED_VOLUMES                                                      \
    (KPE_NEED_PODS_ON_NODE | KPE_NEED_PVS | KPE_NEED_PVCS |                    \
     KPE_NEED_STORAGE_CLASSES | KPE_NEED_CSINODES)

/* ---- typed arguments, produced at load time ---- */

/*
 * What a predicate runs with: the value of its descriptor's resolved
 * schema when it has one (e.g. its entries folded), else of its args
 * schema with the defaults applied; NULL when it takes no argument or no
 * entry gave one (policy arena). Each plugin declares its value's type in
 * its own file; nothing here knows one.
 */
struct pred_args {
    const void *value;
};

/*
 * Turn one entry's argument (the value of the descriptor's args schema,
 * defaults applied; NULL: none given) into out->value, or fold it into
 * the value an earlier entry left there. Strings are copied into `a`.
 * Returns 0, or -1 with e set (no location prefix).
 */
typedef int pred_parse_args_fn(const void *written, struct arena *a,
                               struct pred_args *out, struct err *e);

/*
 * A predicate descriptor: one per Policy name, defined next to its code
 * (the file of the v1.22 plugin it maps to, or its own file), and listed
 * once in registry.c, whose order is the run order.
 */
struct pred_def {
    /* name, aliases, flags (PRED_*), needs, args (as written), doc */
    KPE_DEF_HEAD;
    /* its typed arguments (fields of struct pred_args), as check shows them */
    const struct kpe_arg_schema *resolved;
    pred_parse_args_fn *parse_args; /* NULL: takes no argument */
    /* the v1.22 filter plugins it maps to, NULL-ended */
    const struct pred_plugin *plugins[KPE_MAX_PLUGINS];
    const struct pred_plugin *own; /* no v1.22 plugin: the code it runs */
};

/* The descriptors policy/ names (defined in their plugins' files). */
extern const struct pred_def pred_general_predicates;
extern const struct pred_def pred_pod_fits_resources;
extern const struct pred_def pred_check_node_label_presence;
extern const struct pred_def pred_check_service_affinity;

/* The descriptors in run order; *n gets their count. */
const struct pred_def *const *pred_registry(size_t *n);

/* The descriptor for a name or alias, or NULL. */
const struct pred_def *pred_lookup(const char *name);

/* The v1.22 plugins of d as refs into out[KPE_MAX_PLUGINS]; the count. */
size_t pred_def_refs(const struct pred_def *d,
                     const struct kpe_plugin_ref **out);

/*
 * The argument schemas of the descriptors, each once, in api_order, into
 * out[max]; the count. These are the members an entry's `argument` may
 * have.
 */
size_t pred_arg_schemas(const struct kpe_arg_schema **out, size_t max);

/* The descriptor whose argument s is (the one a custom name runs). */
const struct pred_def *pred_for_arg(const struct kpe_arg_schema *s);

/* Position of a descriptor in pred_registry() (its run position). */
size_t pred_index(const struct pred_def *d);

/* Most descriptors plugins may add (the runtime part of the registry). */
#define PRED_MAX_RUNTIME 32

/*
 * Append a plugin's descriptor d (which must outlive its use) after the
 * static rows (kpe_registry_add). Call only at start, before any policy
 * is read and before threads run. Returns 0, or -1 with e set.
 */
int pred_registry_add(const struct pred_def *d, struct err *e);

/*
 * After setting the args of d, an added descriptor: whether every argument
 * key still fits (kpe_registry_keys_fit). 0, or -1 with e set.
 */
int pred_registry_keys_fit(const struct pred_def *d, struct err *e);

/* How many descriptors plugins added. */
size_t pred_registry_runtime(void);

/* Forget the plugin descriptors past the first keep (rollback, unload). */
void pred_registry_truncate(size_t keep);

#endif
