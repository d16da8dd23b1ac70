/*
 * parse.c: JSON documents into kube/types.h structs (see parse.h). Checks
 * nesting depth first, parses with json_arena (cJSON-shaped nodes in a
 * scratch arena; syntax errors by byte, line and column), and dispatches
 * objects, List and <Kind>List through one table of kinds. The tree never
 * outlives the call.
 */
#include "kube/parse.h"

#include "kube/json_arena.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/parse_common.h"

#define DECODER(fn)                                                            \
    static int fn##_any(struct jw *w, const cJSON *j, void *out)               \
    {                                                                          \
        return fn(w, j, out);                                                  \
    }

DECODER(kube_decode_pod)
DECODER(kube_decode_node)
DECODER(kube_decode_service)
DECODER(kube_decode_rc)
DECODER(kube_decode_workload)
DECODER(kube_decode_pv)
DECODER(kube_decode_pvc)
DECODER(kube_decode_storage_class)
DECODER(kube_decode_csi_node)
DECODER(kube_decode_namespace)

#define OBJS(n, arr)                                                           \
    offsetof(struct kube_objects, n), offsetof(struct kube_objects, arr)

/* One row per modelled kind: its name, its decoder, where it is kept. */
static const struct kind_def {
    const char *name;
    enum kube_kind kind;
    size_t size; /* of the struct the decoder fills */
    jw_decode_fn *decode;
    size_t n_off;   /* offsetof the count in struct kube_objects */
    size_t arr_off; /* offsetof the pointer array */
} kinds[] = {
    { "Pod", KUBE_KIND_POD, sizeof(struct kube_pod), kube_decode_pod_any,
      OBJS(n_pods, pods) },
    { "Node", KUBE_KIND_NODE, sizeof(struct kube_node), kube_decode_node_any,
      OBJS(n_nodes, nodes) },
    { "Service", KUBE_KIND_SERVICE, sizeof(struct kube_service),
      kube_decode_service_any, OBJS(n_services, services) },
    { "ReplicationController", KUBE_KIND_REPLICATION_CONTROLLER,
      sizeof(struct kube_replication_controller), kube_decode_rc_any,
      OBJS(n_rcs, rcs) },
    { "ReplicaSet", KUBE_KIND_REPLICA_SET, sizeof(struct kube_workload),
      kube_decode_workload_any, OBJS(n_replica_sets, replica_sets) },
    { "StatefulSet", KUBE_KIND_STATEFUL_SET, sizeof(struct kube_workload),
      kube_decode_workload_any, OBJS(n_stateful_sets, stateful_sets) },
    { "PersistentVolume", KUBE_KIND_PERSISTENT_VOLUME,
      sizeof(struct kube_persistent_volume), kube_decode_pv_any,
      OBJS(n_pvs, pvs) },
    { "PersistentVolumeClaim", KUBE_KIND_PERSISTENT_VOLUME_CLAIM,
      sizeof(struct kube_persistent_volume_claim), kube_decode_pvc_any,
      OBJS(n_pvcs, pvcs) },
    { "StorageClass", KUBE_KIND_STORAGE_CLASS,
      sizeof(struct kube_storage_class), kube_decode_storage_class_any,
      OBJS(n_storage_classes, storage_classes) },
    { "CSINode", KUBE_KIND_CSI_NODE, sizeof(struct kube_csi_node),
      kube_decode_csi_node_any, OBJS(n_csi_nodes, csi_nodes) },
    { "Namespace", KUBE_KIND_NAMESPACE, sizeof(struct kube_namespace),
      kube_decode_namespace_any, OBJS(n_namespaces, namespaces) },
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static const struct kind_def *find_kind(const char *name)
{
    size_t i;

    for (i = 0; name && i < N_KINDS; i++)
        if (!strcmp(kinds[i].name, name))
            return &kinds[i];
    return NULL;
}

enum kube_kind kube_kind_from_string(const char *kind)
{
    const struct kind_def *k = find_kind(kind);

    return k ? k->kind : KUBE_KIND_UNKNOWN;
}

/* ---- text to tree ---- */

/* Line and column (both from 1) of byte offset off. */
static void line_col(const char *s, size_t off, size_t *line, size_t *col)
{
    size_t i, start = 0;

    *line = 1;
    for (i = 0; i < off; i++) {
        if (s[i] == '\n') {
            (*line)++;
            start = i + 1;
        }
    }
    *col = off - start + 1;
}

static int fail_at(struct err *e, const char *s, size_t off, const char *what)
{
    size_t line, col;

    line_col(s, off, &line, &col);
    return err_set(e, "%s at byte offset %zu (line %zu, column %zu)", what, off,
                   line, col);
}

/* Refuse NUL bytes and nesting deeper than KUBE_PARSE_MAX_DEPTH. */
static int prescan(const char *s, size_t len, struct err *e)
{
    size_t i, depth = 0;
    bool in_str = false, esc = false;
    char what[80];

    for (i = 0; i < len; i++) {
        char c = s[i];

        if (c == '\0')
            return fail_at(e, s, i, "JSON syntax error: NUL byte");
        if (in_str) {
            if (esc)
                esc = false;
            else if (c == '\\')
                esc = true;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            if (++depth > KUBE_PARSE_MAX_DEPTH) {
                snprintf(what, sizeof(what),
                         "document nested deeper than %d levels",
                         KUBE_PARSE_MAX_DEPTH);
                return fail_at(e, s, i, what);
            }
        } else if ((c == '}' || c == ']') && depth > 0) {
            depth--;
        }
    }
    return 0;
}

/*
 * The checks before any parsing: not blank, no NUL byte, not too deep.
 * Returns the offset of the first byte that is not blank, or -1 with e set.
 */
static long precheck(const char *json, size_t len, struct err *e)
{
    size_t i;

    for (i = 0; json && i < len && json[i] && strchr(" \t\r\n", json[i]); i++)
        ;
    if (!json || i == len)
        return err_set(e, "empty document");
    if (prescan(json, len, e) < 0)
        return -1;
    return (long)i;
}

/*
 * Parse json[0..len) into a tree allocated from `tree` (released with the
 * arena, never cJSON_Delete); NULL with e set.
 */
static cJSON *parse_text(struct arena *tree, const char *json, size_t len,
                         struct err *e)
{
    cJSON *root = NULL;

    if (precheck(json, len, e) < 0)
        return NULL;
    if (json_arena_parse(tree, json, len, 0, &root, e) < 0)
        return NULL;
    return root;
}

/* The root of a document must be an object. */
static cJSON *parse_object(struct arena *tree, const char *json, size_t len,
                           struct err *e)
{
    cJSON *root = parse_text(tree, json, len, e);
    struct jw w;

    if (root && !cJSON_IsObject(root)) {
        jw_init(&w, NULL, e, NULL);
        jw_fail_type(&w, "a JSON object at the top level", root);
        return NULL;
    }
    return root;
}

/* ---- documents ---- */

/* Pointer members of kube_objects are read and written by offset. */
static void *get_ptr(const struct kube_objects *o, size_t off)
{
    void *p;

    memcpy(&p, (const char *)o + off, sizeof(p));
    return p;
}

static void set_ptr(struct kube_objects *o, size_t off, void *p)
{
    memcpy((char *)o + off, &p, sizeof(p));
}

static size_t *count_of(struct kube_objects *o, const struct kind_def *k)
{
    return (size_t *)(void *)((char *)o + k->n_off);
}

/* Decode j as kind k and append it to o (whose arrays have room). */
static int add_object(struct jw *w, const struct kind_def *k, const cJSON *j,
                      struct kube_objects *o)
{
    void *obj = jw_calloc(w, 1, k->size);
    size_t *n = count_of(o, k);
    char *arr = get_ptr(o, k->arr_off);

    if (!obj || k->decode(w, j, obj) < 0)
        return -1;
    memcpy(arr + *n * sizeof(void *), &obj, sizeof(obj));
    (*n)++;
    return 0;
}

/* Make room for more[i] objects of kinds[i], keeping what o has. */
static int grow(struct jw *w, struct kube_objects *o, const size_t *more)
{
    size_t i;

    for (i = 0; i < N_KINDS; i++) {
        size_t n = *count_of(o, &kinds[i]);
        char *arr;

        if (!more[i])
            continue;
        arr = jw_calloc(w, n + more[i], sizeof(void *));
        if (!arr)
            return -1;
        if (n)
            memcpy(arr, get_ptr(o, kinds[i].arr_off), n * sizeof(void *));
        set_ptr(o, kinds[i].arr_off, arr);
    }
    return 0;
}

/*
 * The kind of list item `it` (at the walk's path): its own "kind", else
 * the list's element kind dflt. *k is NULL for kinds we do not model.
 */
static int item_kind(struct jw *w, const cJSON *it, const char *dflt,
                     const struct kind_def **k)
{
    const char *name;

    if (!cJSON_IsObject(it))
        return jw_fail_type(w, "an object", it);
    if (jw_string(w, it, "kind", dflt, &name) < 0)
        return -1;
    if (!name)
        return jw_fail_key(w, "kind", "missing required field");
    *k = find_kind(name);
    return 0;
}

/* A List (elem NULL) or <Kind>List (elem "Kind"): every item, in order. */
static int add_list(struct jw *w, const cJSON *root, const char *elem,
                    struct kube_objects *o)
{
    size_t more[N_KINDS] = { 0 };
    const struct kind_def *k;
    const cJSON *items, *it;
    size_t i, n, mark;

    if (jw_array(w, root, "items", &items, &n) < 0)
        return -1;
    for (it = items ? items->child : NULL, i = 0; it; it = it->next, i++) {
        mark = jw_push(w, "items");
        jw_push_index(w, i);
        if (item_kind(w, it, elem, &k) < 0)
            return -1;
        jw_pop(w, mark);
        if (k)
            more[k - kinds]++;
    }
    if (grow(w, o, more) < 0)
        return -1;
    for (it = items ? items->child : NULL, i = 0; it; it = it->next, i++) {
        mark = jw_push(w, "items");
        jw_push_index(w, i);
        if (item_kind(w, it, elem, &k) < 0)
            return -1;
        if (!k)
            o->n_skipped++;
        else if (add_object(w, k, it, o) < 0)
            return -1;
        jw_pop(w, mark);
    }
    return 0;
}

/* The element kind of "<Kind>List", copied into buf; NULL otherwise. */
static const char *list_elem(const char *kind, char *buf, size_t sz)
{
    size_t n = strlen(kind);

    if (n <= 4 || strcmp(kind + n - 4, "List") || n - 4 >= sz)
        return NULL;
    memcpy(buf, kind, n - 4);
    buf[n - 4] = '\0';
    return buf;
}

static int add_document(struct jw *w, const cJSON *root, struct kube_objects *o)
{
    size_t more[N_KINDS] = { 0 };
    const struct kind_def *k;
    const char *kind;
    char elem[128];

    if (jw_string_req(w, root, "kind", &kind) < 0)
        return -1;
    if (!strcmp(kind, "List"))
        return add_list(w, root, NULL, o);
    if (list_elem(kind, elem, sizeof(elem)))
        return add_list(w, root, elem, o);
    k = find_kind(kind);
    if (!k) {
        o->n_skipped++;
        return 0;
    }
    more[k - kinds] = 1;
    if (grow(w, o, more) < 0)
        return -1;
    return add_object(w, k, root, o);
}

int kube_parse_document_tree(struct arena *a, const char *json, size_t len,
                             struct kube_objects *objs, struct err *e)
{
    struct kube_objects tmp = *objs;
    struct arena tree;
    struct jw w;
    cJSON *root;
    int rc = -1;

    arena_init(&tree, 0);
    root = parse_object(&tree, json, len, e);
    if (root) {
        jw_init(&w, a, e, NULL);
        rc = add_document(&w, root, &tmp);
    }
    arena_destroy(&tree);
    if (rc == 0)
        *objs = tmp;
    return rc;
}

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

/* What the document's first "kind" member says, so far. */
enum doc_kind { DOC_UNSEEN, DOC_LIST, DOC_OTHER };

struct stream {
    struct kube_objects *o; /* staging copy of the caller's objects */
    size_t cap[N_KINDS];    /* room in o's arrays allocated here (0: none) */
    struct jw w;            /* items[i], decoding into the objects' arena */
    cJSON *root;            /* every member except the streamed items */
    enum doc_kind doc;
    const char *elem; /* the element kind of a <Kind>List, or NULL */
    char elem_buf[128];
    bool items_seen;          /* the first "items" member has been read */
    bool streamed;            /* ... and it was an array, read here */
    bool deferred;            /* items from defer_index on wait */
    size_t defer_index;       /* the first item read in the second pass */
    struct json_reader again; /* the reader just before that item */
    bool kind_failed, decode_failed;
    struct err kind_e, decode_e; /* the first failure of each sort */
};

/* Decode item j as kind k and append it, doubling the arrays' room. */
static int stream_add(struct stream *st, const struct kind_def *k,
                      const cJSON *j)
{
    size_t ki = (size_t)(k - kinds), *n = count_of(st->o, k), cap;
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
            memcpy(arr, get_ptr(st->o, k->arr_off), *n * sizeof(void *));
        set_ptr(st->o, k->arr_off, arr);
        st->cap[ki] = cap;
    }
    arr = get_ptr(st->o, k->arr_off);
    memcpy(arr + *n * sizeof(void *), &obj, sizeof(obj));
    (*n)++;
    return 0;
}

/* Check and decode item i (elem: the list's element kind, if known). */
static void take_item(struct stream *st, const cJSON *it, size_t i,
                      const char *elem)
{
    const struct kind_def *k;
    size_t mark = jw_push(&st->w, "items");

    jw_push_index(&st->w, i);
    st->w.e = &st->kind_e;
    if (item_kind(&st->w, it, elem, &k) < 0) {
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

/* Item i, just read; `before` is the reader as it was before it. */
static void read_item(struct stream *st, const cJSON *it, size_t i,
                      const struct json_reader *before)
{
    if (st->doc == DOC_OTHER || st->kind_failed || st->deferred)
        return;
    if (st->doc == DOC_UNSEEN && cJSON_IsObject(it) && !jw_get(it, "kind")) {
        /* Its kind is the list's element kind, not known yet. */
        st->deferred = true;
        st->defer_index = i;
        st->again = *before;
        return;
    }
    take_item(st, it, i, st->elem);
}

/* The items array at the reader, one element at a time. */
static int read_items(struct stream *st, struct json_reader *r,
                      struct arena *scratch)
{
    struct json_reader before;
    size_t i;
    cJSON *it;
    int rc;

    if (json_reader_enter(r) < 0)
        return -1;
    for (i = 0; (rc = json_reader_next(r, NULL, NULL)) == 1; i++) {
        before = *r;
        rc = json_reader_value(r, scratch, &it);
        if (rc == 0)
            read_item(st, it, i, &before);
        arena_destroy(scratch);
        if (rc < 0)
            return -1;
    }
    return rc;
}

/* The second pass: the items from st->again on, the list's kind known. */
static int reread_items(struct stream *st, const char *elem,
                        struct arena *scratch, struct err *e)
{
    struct json_reader r = st->again;
    size_t i = st->defer_index;
    cJSON *it;
    int rc;

    r.e = e;
    do {
        rc = json_reader_value(&r, scratch, &it);
        if (rc == 0)
            take_item(st, it, i++, elem);
        arena_destroy(scratch);
        if (rc < 0)
            return -1;
    } while (!st->kind_failed && (rc = json_reader_next(&r, NULL, NULL)) == 1);
    return rc < 0 ? -1 : 0;
}

/* The first "kind" member v tells whether items matter, and how. */
static void note_kind(struct stream *st, const cJSON *v)
{
    st->doc = DOC_OTHER;
    if (!cJSON_IsString(v))
        return; /* reported later, from the tree, as the tree path does */
    if (!strcmp(v->valuestring, "List")) {
        st->doc = DOC_LIST;
    } else {
        st->elem =
            list_elem(v->valuestring, st->elem_buf, sizeof(st->elem_buf));
        if (st->elem)
            st->doc = DOC_LIST;
    }
}

static void add_member(cJSON *root, cJSON *v, char *key)
{
    v->string = key;
    if (root->child) {
        root->child->prev->next = v;
        v->prev = root->child->prev;
    } else {
        root->child = v;
    }
    root->child->prev = v;
}

/* Every member of the top-level object, the first "items" streamed. */
static int read_document(struct stream *st, struct json_reader *r,
                         struct arena *top, struct arena *scratch)
{
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
                if (read_items(st, r, scratch) < 0)
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
        add_member(st->root, v, key);
        if (st->doc == DOC_UNSEEN && !strcmp(key, "kind"))
            note_kind(st, v);
    }
    return rc;
}

/* The valid document read: decide as add_document does on the tree. */
static int finish_document(struct stream *st, const struct kube_objects *orig,
                           struct arena *scratch, struct err *e)
{
    const char *kind, *elem = NULL;
    struct jw *w = &st->w;
    char buf[128];

    w->e = e;
    if (jw_string_req(w, st->root, "kind", &kind) < 0)
        return -1;
    if (strcmp(kind, "List"))
        elem = list_elem(kind, buf, sizeof(buf));
    if (!st->streamed || (strcmp(kind, "List") && !elem)) {
        /* Nothing read on speculation counts. */
        *st->o = *orig;
        return add_document(w, st->root, st->o);
    }
    if (st->deferred && !st->kind_failed &&
        reread_items(st, elem, scratch, e) < 0)
        return -1;
    if (st->kind_failed || st->decode_failed) {
        if (e)
            *e = st->kind_failed ? st->kind_e : st->decode_e;
        return -1;
    }
    return 0;
}

/* kube_parse_document for text whose top level is an object. */
static int stream_document(struct arena *a, const char *json, size_t len,
                           struct kube_objects *objs, struct err *e)
{
    struct kube_objects tmp = *objs;
    struct arena top, scratch;
    struct json_reader r;
    struct stream *st;
    int rc = -1;

    arena_init(&top, 0);
    arena_init(&scratch, 0);
    st = arena_calloc(&top, 1, sizeof(*st));
    if (!st) {
        err_set(e, "out of memory");
        goto out;
    }
    st->o = &tmp;
    jw_init(&st->w, a, NULL, NULL);
    st->root = arena_calloc(&top, 1, sizeof(cJSON));
    if (!st->root) {
        err_set(e, "out of memory");
        goto out;
    }
    st->root->type = cJSON_Object;
    json_reader_init(&r, json, len, e);
    if (read_document(st, &r, &top, &scratch) < 0)
        goto out;
    rc = finish_document(st, objs, &scratch, e);
out:
    arena_destroy(&scratch);
    arena_destroy(&top);
    if (rc == 0)
        *objs = tmp;
    return rc;
}

int kube_parse_document(struct arena *a, const char *json, size_t len,
                        struct kube_objects *objs, struct err *e)
{
    long first = precheck(json, len, e);

    if (first < 0)
        return -1;
    if (json[first] != '{')
        return kube_parse_document_tree(a, json, len, objs, e);
    return stream_document(a, json, len, objs, e);
}

/* ---- single objects ---- */

/* A standalone object's kind, when present, must be `want`. */
static int check_kind(struct jw *w, const cJSON *root, const char *want)
{
    const char *kind;
    char q[160];

    if (jw_string(w, root, "kind", NULL, &kind) < 0)
        return -1;
    if (kind && strcmp(kind, want))
        return jw_fail_key(w, "kind", "expected \"%s\", got %s", want,
                           err_quote(q, sizeof(q), kind, 64));
    return 0;
}

int kube_parse_pod(struct arena *a, const char *json, size_t len,
                   struct kube_pod *out, struct err *e)
{
    struct arena tree;
    cJSON *root;
    struct jw w;
    int rc = -1;

    arena_init(&tree, 0);
    root = parse_object(&tree, json, len, e);
    if (root) {
        jw_init(&w, a, e, NULL);
        rc = check_kind(&w, root, "Pod");
        if (rc == 0)
            rc = kube_decode_pod(&w, root, out);
    }
    arena_destroy(&tree);
    return rc;
}

int kube_parse_node(struct arena *a, const char *json, size_t len,
                    struct kube_node *out, struct err *e)
{
    struct arena tree;
    cJSON *root;
    struct jw w;
    int rc = -1;

    arena_init(&tree, 0);
    root = parse_object(&tree, json, len, e);
    if (root) {
        jw_init(&w, a, e, NULL);
        rc = check_kind(&w, root, "Node");
        if (rc == 0)
            rc = kube_decode_node(&w, root, out);
    }
    arena_destroy(&tree);
    return rc;
}

int kube_pod_from_cjson(struct arena *a, const struct cJSON *j,
                        const char *path, struct kube_pod *out, struct err *e)
{
    struct jw w;

    jw_init(&w, a, e, path);
    if (!cJSON_IsObject(j))
        return jw_fail_type(&w, "an object", j);
    return kube_decode_pod(&w, j, out);
}

int kube_node_from_cjson(struct arena *a, const struct cJSON *j,
                         const char *path, struct kube_node *out, struct err *e)
{
    struct jw w;

    jw_init(&w, a, e, path);
    if (!cJSON_IsObject(j))
        return jw_fail_type(&w, "an object", j);
    return kube_decode_node(&w, j, out);
}

int kube_object_from_cjson(struct arena *a, enum kube_kind kind,
                           const struct cJSON *j, const char *path, void **out,
                           struct err *e)
{
    const struct kind_def *k = NULL;
    struct jw w;
    void *obj;
    size_t i;

    *out = NULL;
    for (i = 0; i < N_KINDS; i++)
        if (kinds[i].kind == kind)
            k = &kinds[i];
    jw_init(&w, a, e, path);
    if (!k)
        return jw_fail(&w, "kind %d is not modelled", (int)kind);
    if (!cJSON_IsObject(j))
        return jw_fail_type(&w, "an object", j);
    obj = jw_calloc(&w, 1, k->size);
    if (!obj || k->decode(&w, j, obj) < 0)
        return -1;
    *out = obj;
    return 0;
}
