/*
 * parse_stream.c: kube_parse_document (see parse.h) one item at a time:
 * the whole-tree path's results and errors (parse.c) without a tree of
 * the whole text, so a snapshot of 5,000 nodes loads in a third of the
 * memory.
 */
#include "kube/parse/parse.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "kube/base/doc_format.h"
#include "kube/base/json_parse.h"
#include "kube/parse/parse_common.h"
#include "kube/parse/parse_doc.h"

/* ---- documents, one item at a time ---- */

/*
 * A document whose top level is an object is read member by member. Every
 * member but the first "items" goes into a small tree (root), which the
 * tree path's code then reads. When that "items" is an array, its elements
 * are parsed one at a time into a scratch arena and decoded at once.
 *
 * The result must be the tree path's, errors included, which decides in
 * this order: syntax anywhere, the document's kind, then the first item
 * whose kind is bad, then the first item that fails to decode. So item
 * failures are only noted while reading, and reported once the whole
 * text is known to be valid. The document's "kind" may come after
 * "items" (kubectl sorts keys): until it is known, items carrying their
 * own kind are decoded on speculation (dropped if the document is not a
 * list), and from the first item without one, items wait for a second
 * pass that starts at a saved reader.
 */

/* Decode item j as kind k and append it, doubling the arrays' room. */
static int stream_add(struct doc_stream *st, const struct kind_def *k,
                      const cJSON *j)
{
    size_t ki = (size_t)(k - parse_kinds), *n = parse_count_of(st->o, k), cap;
    void *obj = jw_calloc(&st->w, 1, k->size);
    char *arr;

    if (!obj || k->decode(&st->w, j, obj) < 0)
        return -1;
    if (*n >= st->cap[ki]) {
        cap = *n < 8 ? 16 : 2 * *n;
        arr = jw_calloc(&st->w, cap, sizeof(void *));
        if (!arr)
            return -1;
        if (*n)
            memcpy(arr, parse_get_ptr(st->o, k->arr_off), *n * sizeof(void *));
        parse_set_ptr(st->o, k->arr_off, arr);
        st->cap[ki] = cap;
    }
    arr = parse_get_ptr(st->o, k->arr_off);
    memcpy(arr + *n * sizeof(void *), &obj, sizeof(obj));
    (*n)++;
    return 0;
}

/* Check and decode item i (elem: the list's element kind, if known). */
void doc_stream_take(struct doc_stream *st, const cJSON *it, size_t i,
                     const char *elem)
{
    const struct kind_def *k;
    size_t mark = jw_push(&st->w, "items");

    jw_push_index(&st->w, i);
    st->w.e = &st->kind_e;
    if (parse_item_kind(&st->w, it, elem, &k) < 0) {
        st->kind_failed = true;
    } else if (!st->decode_failed) {
        st->w.e = &st->decode_e;
        if (!k)
            st->o->n_skipped++;
        else if (stream_add(st, k, it) < 0)
            st->decode_failed = true;
    }
    jw_pop(&st->w, mark);
}

bool doc_stream_item(struct doc_stream *st, const cJSON *it, size_t i)
{
    if (st->doc == DOC_OTHER || st->kind_failed || st->deferred)
        return false;
    if (st->doc == DOC_UNSEEN && cJSON_IsObject(it) && !jw_get(it, "kind")) {
        /* Its kind is the list's element kind, not known yet. */
        st->deferred = true;
        st->defer_index = i;
        return true;
    }
    doc_stream_take(st, it, i, st->elem);
    return false;
}

/* The JSON reader's state, and where a second pass starts. */
struct json_pass {
    struct json_reader r;
    struct json_reader again; /* the reader just before that item */
    struct arena *scratch;
};

/* The items array at the reader, one element at a time. */
static int read_items(struct doc_stream *st, struct json_reader *r,
                      struct json_pass *pass)
{
    struct arena *scratch = pass->scratch;
    struct json_reader before;
    size_t i;
    cJSON *it;
    int rc;

    if (json_reader_enter(r) < 0)
        return -1;
    for (i = 0; (rc = json_reader_next(r, NULL, NULL)) == 1; i++) {
        before = *r;
        rc = json_reader_value(r, scratch, &it);
        if (rc == 0 && doc_stream_item(st, it, i))
            pass->again = before;
        arena_destroy(scratch);
        if (rc < 0)
            return -1;
    }
    return rc;
}

/* The second pass: the items from pass->again on, the list's kind known. */
static int reread_items(void *arg, struct doc_stream *st, const char *elem,
                        struct err *e)
{
    struct json_pass *pass = arg;
    struct arena *scratch = pass->scratch;
    struct json_reader r = pass->again;
    size_t i = st->defer_index;
    cJSON *it;
    int rc;

    r.e = e;
    do {
        rc = json_reader_value(&r, scratch, &it);
        if (rc == 0)
            doc_stream_take(st, it, i++, elem);
        arena_destroy(scratch);
        if (rc < 0)
            return -1;
    } while (!st->kind_failed && (rc = json_reader_next(&r, NULL, NULL)) == 1);
    return rc < 0 ? -1 : 0;
}

/* The first "kind" member v tells whether items matter, and how. */
static void note_kind(struct doc_stream *st, const cJSON *v)
{
    st->doc = DOC_OTHER;
    if (!cJSON_IsString(v))
        return; /* reported later, from the tree, as the tree path does */
    if (!strcmp(v->valuestring, "List")) {
        st->doc = DOC_LIST;
    } else {
        st->elem =
            parse_list_elem(v->valuestring, st->elem_buf, sizeof(st->elem_buf));
        if (st->elem)
            st->doc = DOC_LIST;
    }
}

void doc_stream_member(struct doc_stream *st, cJSON *v, char *key)
{
    cJSON *root = st->root;

    v->string = key;
    if (root->child) {
        root->child->prev->next = v;
        v->prev = root->child->prev;
    } else {
        root->child = v;
    }
    root->child->prev = v;
    if (st->doc == DOC_UNSEEN && !strcmp(key, "kind"))
        note_kind(st, v);
}

/*
 * Start reading a document into *staging (a copy of the caller's objects;
 * copied back on success). Item objects are allocated from a; root is an
 * empty object from the reader's own arena.
 */
static void doc_stream_init(struct doc_stream *st, struct kube_objects *staging,
                            struct arena *a, cJSON *root)
{
    memset(st, 0, sizeof(*st));
    st->o = staging;
    jw_init(&st->w, a, NULL, NULL);
    st->root = root;
    root->type = cJSON_Object;
}

/* Every member of the top-level object, the first "items" streamed. */
static int read_document(void *arg, struct doc_stream *st, struct arena *top)
{
    struct json_pass *pass = arg;
    struct json_reader *r = &pass->r;
    struct arena *scratch = pass->scratch;
    char *key;
    cJSON *v;
    int rc;

    if (json_reader_enter(r) < 0)
        return -1;
    while ((rc = json_reader_next(r, top, &key)) == 1) {
        if (!strcmp(key, "items") && !st->items_seen) {
            st->items_seen = true;
            if (json_reader_peek(r) == '[') {
                st->streamed = true;
                if (read_items(st, r, pass) < 0)
                    return -1;
                continue;
            }
        } else if (!strcmp(key, "items")) {
            /* Lookups never see a later duplicate: only check it. */
            rc = json_reader_value(r, scratch, &v);
            arena_destroy(scratch);
            if (rc < 0)
                return -1;
            continue;
        }
        if (json_reader_value(r, top, &v) < 0)
            return -1;
        doc_stream_member(st, v, key);
    }
    return rc;
}

int doc_stream_finish(struct doc_stream *st, const struct kube_objects *orig,
                      doc_stream_reread_fn *reread, void *arg, struct err *e)
{
    const char *kind, *elem = NULL;
    struct jw *w = &st->w;
    char buf[128];

    w->e = e;
    if (jw_string_req(w, st->root, "kind", &kind) < 0)
        return -1;
    if (strcmp(kind, "List"))
        elem = parse_list_elem(kind, buf, sizeof(buf));
    if (!st->streamed || (strcmp(kind, "List") && !elem)) {
        /* Nothing read on speculation counts. */
        *st->o = *orig;
        return parse_add_document(w, st->root, st->o);
    }
    if (st->deferred && !st->kind_failed && reread(arg, st, elem, e) < 0)
        return -1;
    if (st->kind_failed || st->decode_failed) {
        if (e)
            *e = st->kind_failed ? st->kind_e : st->decode_e;
        return -1;
    }
    return 0;
}

int doc_stream_run(struct doc_stream *st, struct arena *a,
                   struct kube_objects *objs, doc_stream_read_fn *read,
                   doc_stream_reread_fn *reread, void *arg, struct err *e)
{
    struct kube_objects tmp = *objs;
    struct arena top;
    cJSON *root;
    int rc = -1;

    memset(st, 0, sizeof(*st));
    arena_init(&top, 0);
    root = arena_calloc(&top, 1, sizeof(*root));
    if (!root) {
        err_set(e, "out of memory");
        goto out;
    }
    doc_stream_init(st, &tmp, a, root);
    if (read(arg, st, &top) < 0)
        goto out;
    rc = doc_stream_finish(st, objs, reread, arg, e);
out:
    arena_destroy(&top);
    if (rc == 0)
        *objs = tmp;
    return rc;
}

/* kube_parse_document for text whose top level is an object. */
static int stream_document(struct arena *a, const char *json, size_t len,
                           struct kube_objects *objs, struct err *e)
{
    struct arena scratch;
    struct json_pass pass;
    struct doc_stream st;
    int rc;

    arena_init(&scratch, 0);
    pass.scratch = &scratch;
    json_reader_init(&pass.r, json, len, e);
    rc = doc_stream_run(&st, a, objs, read_document, reread_items, &pass, e);
    arena_destroy(&scratch);
    return rc;
}

int kube_parse_document(struct arena *a, const char *json, size_t len,
                        struct kube_objects *objs, struct err *e)
{
    long first;

    /* As the tree path does: offsets in messages count from after it. */
    doc_skip_bom(&json, &len);
    first = parse_precheck(json, len, e);

    if (first < 0)
        return -1;
    if (json[first] != '{')
        return kube_parse_document_tree(a, json, len, objs, e);
    return stream_document(a, json, len, objs, e);
}
