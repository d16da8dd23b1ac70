/*
 * args.h: Policy arguments, declared once per argument kind. A plugin
 * describes the argument it reads (its key in the entry's `argument`
 * object, its fields with type, default and doc) in a struct
 * kpe_arg_schema next to its code; the Policy readers and writers (JSON,
 * INI), `list` and the reference page work from that schema alone. The
 * value of one argument as written is a plain struct the schema's field
 * offsets point into; strings live in the arena of the policy being built.
 */
#ifndef FRAMEWORK_ARGS_H
#define FRAMEWORK_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"

/* Most items one argument list may hold (curl's `toobig`). */
#define POLICY_MAX_LIST 4096

struct policy_strlist {
    const char **v;
    size_t n;
};

/*
 * The lists NodeLabel's entries fold into: presentLabels / absentLabels
 * (the predicate), presentLabelsPreference / absentLabelsPreference (the
 * priority).
 */
struct kpe_label_lists {
    struct policy_strlist present;
    struct policy_strlist absent;
};

struct policy_shape_point {
    int32_t utilization;
    int32_t score; /* 0..10 in the legacy Policy */
};

struct policy_resource {
    const char *name;
    int64_t weight;
};

/* ---- schemas ---- */

enum kpe_arg_type {
    KPE_ARG_STRING,  /* const char * (NULL: not given) */
    KPE_ARG_BOOL,    /* bool */
    KPE_ARG_INT32,   /* int32_t */
    KPE_ARG_INT64,   /* int64_t */
    KPE_ARG_STRINGS, /* struct policy_strlist; INI: one line per string */
    KPE_ARG_OBJECTS, /* array of elem->size structs + a size_t count; INI:
                        one line per element, its two fields joined by ':' */
    /* Only in the typed arguments check shows (a descriptor's resolved
     * schema), never in a Policy: */
    KPE_ARG_ENUM,   /* an enum (int) shown as enum_names[value] */
    KPE_ARG_OBJECT, /* a nested struct described by elem; check's text
                       shows its fields flat, JSON nests them */
};

struct kpe_arg_schema;

struct kpe_arg_field {
    const char *name; /* JSON key; INI key after "<argument key>." */
    enum kpe_arg_type type;
    size_t offset;       /* of the member in the value struct */
    size_t count_offset; /* KPE_ARG_OBJECTS: of the size_t count */
    const struct kpe_arg_schema *elem; /* OBJECTS: one element; OBJECT */
    const char *const *enum_names;     /* KPE_ARG_ENUM: by value */
    const char *type_doc;              /* for list: "[]string" */
    /*
     * The default, as list shows it; NULL: required (Go's zero value when
     * left out). A string field with a default is left out when unset.
     */
    const char *def;
};

struct kpe_arg_schema {
    const char *key; /* the member of `argument`: "labelsPresence" */
    /* Position among v1.22's PredicateArgument / PriorityArgument members
     * (ours after them): the order writers and messages use. */
    int api_order;
    size_t size; /* of the value struct */
    const struct kpe_arg_field *fields;
    size_t n_fields;
    const char *note; /* for list: what the argument does, how entries fold */
    /* list: a set of values the plugin gets that no Policy argument sets */
    bool not_in_policy;
    /*
     * An entry without this argument runs with its defaults (as a v1.22
     * plugin's args are defaulted), rather than with none: the descriptor's
     * parse_args gets the defaults, never NULL. Loaded plugins' arguments
     * are all of this kind.
     */
    bool absent_is_default;
};

#define KPE_ARG_FIELDS(t) (t), (sizeof(t) / sizeof((t)[0]))

/* ---- the `argument` object of one entry, as written ---- */

#define KPE_MAX_ARGS 40 /* 7 built-in argument kinds + 32 from plugins */

struct kpe_arg_value {
    const struct kpe_arg_schema *schema;
    void *value;    /* schema->size bytes */
    uint64_t given; /* bit i: fields[i] was given (not left out, not null) */
};

/* Most fields one schema may have (one bit each in kpe_arg_value.given). */
#define KPE_MAX_ARG_FIELDS 64

/* The members given (not null), sorted by api_order. */
struct kpe_args_written {
    size_t n;
    struct kpe_arg_value v[KPE_MAX_ARGS];
};

/* The value of schema s in w, or NULL when it was not given. */
const void *kpe_args_get(const struct kpe_args_written *w,
                         const struct kpe_arg_schema *s);

/*
 * The value of s in w, added zeroed (from a) when it is not there yet.
 * NULL when out of memory or when w is full.
 */
void *kpe_args_add(struct kpe_args_written *w, const struct kpe_arg_schema *s,
                   struct arena *a);

/* Record that the fields of mask (bit i: fields[i]) of s's value in w
 * were given: what a reader calls after decoding them. */
void kpe_args_given(struct kpe_args_written *w, const struct kpe_arg_schema *s,
                    uint64_t mask);

/*
 * The value a plugin runs with, the one place defaults are applied (as
 * nginx's merge_loc_conf): a copy (from a) of s's value in w with every
 * field that was not given set to its default. When w has no value of s,
 * *out is NULL, or, when s->absent_is_default, a value of defaults only.
 * Applies string, bool, int32 and int64 defaults and "[]" (an empty list);
 * other fields keep what was written. 0, or -1 with e set (out of memory).
 */
int kpe_args_effective(const struct kpe_args_written *w,
                       const struct kpe_arg_schema *s, struct arena *a,
                       const void **out, struct err *e);

/* Set every field of value (s->size bytes) that has a default to it. */
void kpe_arg_defaults(const struct kpe_arg_schema *s, void *value);

/*
 * Whether field f's default (f->def; NULL: none) is one that
 * kpe_args_effective can apply: "true"/"false" for a bool, a decimal in
 * range for an int, "[]" for a list. 0, or -1 with e set (quoting it).
 */
int kpe_arg_default_check(const struct kpe_arg_field *f, struct err *e);

/*
 * Add s (NULL: nothing) to the set[0..*n) of at most max schemas, kept
 * unique and in api_order (*n grows). Returns 0, or -1 with e set (the key
 * quoted) when s is new and the set already holds max schemas.
 */
int kpe_arg_schemas_add(const struct kpe_arg_schema **set, size_t *n,
                        size_t max, const struct kpe_arg_schema *s,
                        struct err *e);

/*
 * The value entries fold into, kept in *folded (a descriptor's typed
 * arguments): created zeroed (size bytes, from a) by the first entry,
 * returned writable to every later one. NULL when out of memory.
 */
void *kpe_args_fold(const void **folded, size_t size, struct arena *a);

/* Append one string (NULL: "") to an arena list; 0 or -1 with e set. */
int kpe_strlist_push(struct arena *a, struct policy_strlist *l, const char *s,
                     struct err *e);

/* Append every string of src to an arena list; 0 or -1 with e set. */
int kpe_strlist_append(struct arena *a, struct policy_strlist *dst,
                       const struct policy_strlist *src, struct err *e);

#endif
