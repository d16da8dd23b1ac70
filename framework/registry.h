/*
 * registry.h: one registry machinery for every kind of descriptor
 * (predicates, priorities), built-in or loaded from a plugin: the static
 * rows in run order, a runtime part plugins append to at start, lookup by
 * name or alias, positions, the argument keys the descriptors read, and
 * the checks a runtime addition passes. Each kind keeps its rows (one line
 * per descriptor) and wraps this with its own descriptor type, whose
 * first member is the struct kpe_def head below (sqlite's aBuiltinFunc[]
 * plus a runtime tail, as redis adds module commands to its table).
 */
#ifndef FRAMEWORK_REGISTRY_H
#define FRAMEWORK_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "framework/args.h"
#include "kube/base/err.h"

/*
 * The members every descriptor starts with, in this order. A descriptor
 * type puts them first through KPE_DEF_HEAD, so that its rows are read
 * here as struct kpe_def (see KPE_DEF_HEAD).
 */
#define KPE_DEF_HEAD_MEMBERS                                                   \
    const char *name;           /* the Policy name */                          \
    const char *const *aliases; /* other spellings, NULL-ended; or NULL */     \
    unsigned flags;             /* the kind's own flags */                     \
    unsigned needs;             /* KPE_NEED_* */                               \
    const struct kpe_arg_schema *args; /* its argument as written, or NULL */  \
    const char *doc;                   /* one line for list and the docs */

struct kpe_def {
    KPE_DEF_HEAD_MEMBERS
};

/*
 * The first member of a descriptor type: the head as `head`, and its
 * members by their own names (d->name), with designated initialisers
 * (.name = ...) reaching them directly.
 */
#define KPE_DEF_HEAD                                                           \
    union {                                                                    \
        struct kpe_def head;                                                   \
        struct {                                                               \
            KPE_DEF_HEAD_MEMBERS                                               \
        };                                                                     \
    }

/*
 * One kind's registry. The static part (rows, n_rows, kind names, limits,
 * plugin_named) is set by its owner; all[] and n_runtime belong to the
 * functions below. The runtime part is written only at start, before any
 * policy is read and before any thread runs; read-only afterwards.
 */
struct kpe_registry {
    const char *kind;        /* "predicate": in messages */
    const char *plugin_kind; /* "filter plugin": a v1.22 plugin's kind */
    const struct kpe_def *const *rows; /* the built-ins, in run order */
    size_t n_rows;
    const struct kpe_def **all; /* n_rows + max_runtime slots */
    size_t max_runtime;
    size_t n_runtime;
    /* True when a built-in v1.22 plugin of the kind has this name. */
    bool (*plugin_named)(const char *name);
};

/* Every descriptor, built-in then runtime; *n gets the count. */
const struct kpe_def *const *kpe_registry_view(const struct kpe_registry *r,
                                               size_t *n);

/* The descriptor for a name, else for an alias, or NULL (name NULL too). */
const struct kpe_def *kpe_registry_lookup(const struct kpe_registry *r,
                                          const char *name);

/* Position of d in kpe_registry_view() (its run position); n if absent. */
size_t kpe_registry_index(const struct kpe_registry *r,
                          const struct kpe_def *d);

/*
 * The argument schemas of the descriptors, each once, in api_order, into
 * out[max]; the count. kpe_registry_add keeps the set within
 * KPE_MAX_ARGS, so max = KPE_MAX_ARGS always holds it.
 */
size_t kpe_registry_arg_schemas(const struct kpe_registry *r,
                                const struct kpe_arg_schema **out, size_t max);

/* The first descriptor whose argument s is (what a custom name runs). */
const struct kpe_def *kpe_registry_for_arg(const struct kpe_registry *r,
                                           const struct kpe_arg_schema *s);

/*
 * Append d (which must outlive its use) to the runtime part. Refuses a
 * name or alias already known, a name a built-in v1.22 plugin has, more
 * than max_runtime additions, and an argument key that would not fit the
 * KPE_MAX_ARGS keys of the kind. Returns 0, or -1 with e set (the name
 * quoted).
 */
int kpe_registry_add(struct kpe_registry *r, const struct kpe_def *d,
                     struct err *e);

/*
 * Whether the argument keys of every descriptor still fit KPE_MAX_ARGS,
 * for an owner that sets d->args after adding d. 0, or -1 with e set
 * ("<kind> \"<d's name>\": more than 40 argument keys ...").
 */
int kpe_registry_keys_fit(const struct kpe_registry *r, const struct kpe_def *d,
                          struct err *e);

/* Forget the runtime descriptors past the first keep (rollback, unload). */
void kpe_registry_truncate(struct kpe_registry *r, size_t keep);

#endif
