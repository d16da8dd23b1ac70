/*
 * parse_doc.h: what the whole-tree document path (parse.c) shares with the
 * one-item-at-a-time path (parse_stream.c): the table of modelled kinds
 * and the steps that read a document's members. Internal to kube/.
 */
#ifndef KUBE_PARSE_PARSE_DOC_H
#define KUBE_PARSE_PARSE_DOC_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/parse/parse_common.h"
#include "kube/model/types.h"

/* One row per modelled kind: its name, its decoder, where it is kept. */
struct kind_def {
    const char *name;
    enum kube_kind kind;
    size_t size; /* of the struct the decoder fills */
    jw_decode_fn *decode;
    size_t n_off;   /* offsetof the count in struct kube_objects */
    size_t arr_off; /* offsetof the pointer array */
};

#define PARSE_N_KINDS 12
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
 * A document's whole tree into objs (changed only on success), the step
 * both tree paths share: root must be an object, else "expected <what>,
 * got ...". Objects are allocated from a. Returns 0, or -1 with e set.
 */
int parse_tree_document(struct arena *a, const cJSON *root, const char *what,
                        struct kube_objects *objs, struct err *e);

/*
 * The checks before any parse: not empty, no NUL byte, nesting within
 * KUBE_PARSE_MAX_DEPTH. The offset of the first non-blank byte, or -1
 * with e set.
 */
long parse_precheck(const char *json, size_t len, struct err *e);

/* ---- one item at a time (parse_stream.c; the JSON and YAML readers) ---- */

/*
 * A document whose top level is an object, read member by member by a
 * reader: every member but the first "items" goes into root (which the
 * tree path's code then reads); the items come one at a time. The result
 * must be the tree path's, errors included (see parse_stream.c).
 */
/* What the document's first "kind" member says, so far. */
enum doc_kind { DOC_UNSEEN, DOC_LIST, DOC_OTHER };

struct doc_stream {
    struct kube_objects *o;    /* staging copy of the caller's objects */
    size_t cap[PARSE_N_KINDS]; /* room in o's arrays allocated here (0: none) */
    struct jw w;               /* items[i], decoding into the objects' arena */
    cJSON *root;               /* every member except the streamed items */
    enum doc_kind doc;
    const char *elem; /* the element kind of a <Kind>List, or NULL */
    char elem_buf[128];
    bool items_seen;    /* the first "items" member has been read */
    bool streamed;      /* ... and it was an array, read here */
    bool deferred;      /* items from defer_index on wait */
    size_t defer_index; /* the first item read in the second pass */
    bool kind_failed, decode_failed;
    struct err kind_e, decode_e; /* the first failure of each sort */
};

/* A member other than the streamed items: kept in root (key owned by it). */
void doc_stream_member(struct doc_stream *st, cJSON *v, char *key);

/*
 * Item i of the streamed items, just read. Returns true when it is the
 * first one that must wait for a second pass (the list's element kind is
 * not known yet): the reader saves its place before this item.
 */
bool doc_stream_item(struct doc_stream *st, const cJSON *it, size_t i);

/* In the second pass: item i, of the list's element kind elem. */
void doc_stream_take(struct doc_stream *st, const cJSON *it, size_t i,
                     const char *elem);

/* The second pass: read the items from st->defer_index on with take. */
typedef int doc_stream_reread_fn(void *arg, struct doc_stream *st,
                                 const char *elem, struct err *e);

/*
 * The reader's part: every member of the top-level object at its reader
 * (arg) into st, with doc_stream_member and doc_stream_item; top is the
 * arena for the members kept. Returns 0, or -1 with the reader's err set.
 */
typedef int doc_stream_read_fn(void *arg, struct doc_stream *st,
                               struct arena *top);

/*
 * One document whose top level is an object, streamed into objs: read
 * reads its members, reread (when items waited) the second pass, both
 * with arg. st is the caller's storage: after a failure its kind_failed
 * and decode_failed tell which sort of item failed first; its pointers
 * are stale once this returns. objs changes only on success. Returns 0,
 * or -1 with e set.
 */
int doc_stream_run(struct doc_stream *st, struct arena *a,
                   struct kube_objects *objs, doc_stream_read_fn *read,
                   doc_stream_reread_fn *reread, void *arg, struct err *e);

/*
 * The whole document read and valid: decide as parse_add_document does on
 * the tree (orig: the objects before this document), running the second
 * pass when items waited. Returns 0 or -1 with e set.
 */
int doc_stream_finish(struct doc_stream *st, const struct kube_objects *orig,
                      doc_stream_reread_fn *reread, void *arg, struct err *e);

#endif
