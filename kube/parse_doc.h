/*
 * parse_doc.h: what the whole-tree document path (parse.c) shares with the
 * one-item-at-a-time path (parse_stream.c): the table of modelled kinds
 * and the steps that read a document's members. Internal to kube/.
 */
#ifndef KUBE_PARSE_DOC_H
#define KUBE_PARSE_DOC_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "kube/parse_common.h"
#include "kube/types.h"

/* One row per modelled kind: its name, its decoder, where it is kept. */
struct kind_def {
    const char *name;
    enum kube_kind kind;
    size_t size; /* of the struct the decoder fills */
    jw_decode_fn *decode;
    size_t n_off;   /* offsetof the count in struct kube_objects */
    size_t arr_off; /* offsetof the pointer array */
};

#define PARSE_N_KINDS 11
extern const struct kind_def parse_kinds[PARSE_N_KINDS];

/* The row for a kind name, or NULL when we do not model it. */
const struct kind_def *parse_find_kind(const char *name);

/* Members of struct kube_objects by offset: a pointer array and a count. */
void *parse_get_ptr(const struct kube_objects *o, size_t off);
void parse_set_ptr(struct kube_objects *o, size_t off, void *p);
size_t *parse_count_of(struct kube_objects *o, const struct kind_def *k);

/*
 * The kind of list item `it` (at the walk's path): its own "kind", else
 * the list's element kind dflt. *k is NULL for kinds we do not model.
 */
int parse_item_kind(struct jw *w, const cJSON *it, const char *dflt,
                    const struct kind_def **k);

/* The element kind of "<Kind>List", copied into buf; NULL otherwise. */
const char *parse_list_elem(const char *kind, char *buf, size_t sz);

/* A whole document's tree (object, List or <Kind>List) into o. */
int parse_add_document(struct jw *w, const cJSON *root, struct kube_objects *o);

/*
 * The checks before any parse: not empty, no NUL byte, nesting within
 * KUBE_PARSE_MAX_DEPTH. The offset of the first non-blank byte, or -1
 * with e set.
 */
long parse_precheck(const char *json, size_t len, struct err *e);

#endif
