/*
 * parse.c: JSON documents into kube/model/types.h structs (see parse.h). Checks
 * nesting depth first, parses with json_arena (cJSON-shaped nodes in a
 * scratch arena; syntax errors by byte, line and column), and dispatches
 * objects, List and <Kind>List through one table of kinds. The tree never
 * outlives the call. This is the whole-tree path and single objects;
 * parse_stream.c reads big documents one item at a time with the same
 * results.
 */
#include "kube/base/doc_format.h"
#include "kube/parse/parse.h"

#include "kube/base/json_parse.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/parse/parse_common.h"
#include "kube/parse/parse_doc.h"

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
DECODER(kube_decode_pdb)

#define OBJS(n, arr)                                                           \
    offsetof(struct kube_objects, n), offsetof(struct kube_objects, arr)

/* One row per modelled kind (struct kind_def in parse_doc.h). */
const struct kind_def parse_kinds[] = {
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
    { "PodDisruptionBudget", KUBE_KIND_PDB, sizeof(struct kube_pdb),
      kube_decode_pdb_any, OBJS(n_pdbs, pdbs) },
};

#define N_KINDS (sizeof(parse_kinds) / sizeof(parse_kinds[0]))
_Static_assert(N_KINDS == PARSE_N_KINDS, "PARSE_N_KINDS must count the kinds");

const struct kind_def *parse_find_kind(const char *name)
{
    size_t i;

    for (i = 0; name && i < N_KINDS; i++)
        if (!strcmp(parse_kinds[i].name, name))
            return &parse_kinds[i];
    return NULL;
}

enum kube_kind kube_kind_from_string(const char *kind)
{
    const struct kind_def *k = parse_find_kind(kind);

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
long parse_precheck(const char *json, size_t len, struct err *e)
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

    doc_skip_bom(&json, &len);
    if (parse_precheck(json, len, e) < 0)
        return NULL;
    if (json_arena_parse(tree, json, len, 0, &root, e) < 0)
        return NULL;
    return root;
}

#define TOP_OBJECT "a JSON object at the top level"

/* The root of a document must be an object. */
static cJSON *parse_object(struct arena *tree, const char *json, size_t len,
                           struct err *e)
{
    cJSON *root = parse_text(tree, json, len, e);
    struct jw w;

    if (root && !cJSON_IsObject(root)) {
        jw_init(&w, NULL, e, NULL);
        jw_fail_type(&w, TOP_OBJECT, root);
        return NULL;
    }
    return root;
}

/* ---- documents ---- */

/* Pointer members of kube_objects are read and written by offset. */
void *parse_get_ptr(const struct kube_objects *o, size_t off)
{
    void *p;

    memcpy(&p, (const char *)o + off, sizeof(p));
    return p;
}

void parse_set_ptr(struct kube_objects *o, size_t off, void *p)
{
    memcpy((char *)o + off, &p, sizeof(p));
}

size_t *parse_count_of(struct kube_objects *o, const struct kind_def *k)
{
    return (size_t *)(void *)((char *)o + k->n_off);
}

/* Decode j as kind k and append it to o (whose arrays have room). */
static int add_object(struct jw *w, const struct kind_def *k, const cJSON *j,
                      struct kube_objects *o)
{
    void *obj = jw_calloc(w, 1, k->size);
    size_t *n = parse_count_of(o, k);
    char *arr = parse_get_ptr(o, k->arr_off);

    if (!obj || k->decode(w, j, obj) < 0)
        return -1;
    memcpy(arr + *n * sizeof(void *), &obj, sizeof(obj));
    (*n)++;
    return 0;
}

/* Make room for more[i] objects of parse_kinds[i], keeping what o has. */
static int grow(struct jw *w, struct kube_objects *o, const size_t *more)
{
    size_t i;

    for (i = 0; i < N_KINDS; i++) {
        size_t n = *parse_count_of(o, &parse_kinds[i]);
        char *arr;

        if (!more[i])
            continue;
        arr = jw_calloc(w, n + more[i], sizeof(void *));
        if (!arr)
            return -1;
        if (n)
            memcpy(arr, parse_get_ptr(o, parse_kinds[i].arr_off),
                   n * sizeof(void *));
        parse_set_ptr(o, parse_kinds[i].arr_off, arr);
    }
    return 0;
}

/*
 * The kind of list item `it` (at the walk's path): its own "kind", else
 * the list's element kind dflt. *k is NULL for kinds we do not model.
 */
int parse_item_kind(struct jw *w, const cJSON *it, const char *dflt,
                    const struct kind_def **k)
{
    const char *name;

    if (!cJSON_IsObject(it))
        return jw_fail_type(w, "an object", it);
    if (jw_string(w, it, "kind", dflt, &name) < 0)
        return -1;
    if (!name)
        return jw_fail_key(w, "kind", "missing required field");
    *k = parse_find_kind(name);
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
        if (parse_item_kind(w, it, elem, &k) < 0)
            return -1;
        jw_pop(w, mark);
        if (k)
            more[k - parse_kinds]++;
    }
    if (grow(w, o, more) < 0)
        return -1;
    for (it = items ? items->child : NULL, i = 0; it; it = it->next, i++) {
        mark = jw_push(w, "items");
        jw_push_index(w, i);
        if (parse_item_kind(w, it, elem, &k) < 0)
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
const char *parse_list_elem(const char *kind, char *buf, size_t sz)
{
    size_t n = strlen(kind);

    if (n <= 4 || strcmp(kind + n - 4, "List") || n - 4 >= sz)
        return NULL;
    memcpy(buf, kind, n - 4);
    buf[n - 4] = '\0';
    return buf;
}

int parse_add_document(struct jw *w, const cJSON *root, struct kube_objects *o)
{
    size_t more[N_KINDS] = { 0 };
    const struct kind_def *k;
    const char *kind;
    char elem[128];

    if (jw_string_req(w, root, "kind", &kind) < 0)
        return -1;
    if (!strcmp(kind, "List"))
        return add_list(w, root, NULL, o);
    if (parse_list_elem(kind, elem, sizeof(elem)))
        return add_list(w, root, elem, o);
    k = parse_find_kind(kind);
    if (!k) {
        o->n_skipped++;
        return 0;
    }
    more[k - parse_kinds] = 1;
    if (grow(w, o, more) < 0)
        return -1;
    return add_object(w, k, root, o);
}

int parse_tree_document(struct arena *a, const cJSON *root, const char *what,
                        struct kube_objects *objs, struct err *e)
{
    struct kube_objects tmp = *objs;
    struct jw w;
    int rc;

    jw_init(&w, a, e, NULL);
    if (!cJSON_IsObject(root))
        return jw_fail_type(&w, what, root);
    rc = parse_add_document(&w, root, &tmp);
    if (rc == 0)
        *objs = tmp;
    return rc;
}

int kube_parse_document_tree(struct arena *a, const char *json, size_t len,
                             struct kube_objects *objs, struct err *e)
{
    struct arena tree;
    cJSON *root;
    int rc = -1;

    arena_init(&tree, 0);
    root = parse_text(&tree, json, len, e);
    if (root)
        rc = parse_tree_document(a, root, TOP_OBJECT, objs, e);
    arena_destroy(&tree);
    return rc;
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
    int rc = -1;

    arena_init(&tree, 0);
    root = parse_object(&tree, json, len, e);
    if (root)
        rc = kube_pod_from_document(a, root, out, e);
    arena_destroy(&tree);
    return rc;
}

/*
 * The workloads whose pod template a pod file may hold, with the path to
 * the template; `owned`: the pod gets a controller reference to it (a
 * Deployment's pods belong to a ReplicaSet the file does not name).
 */
static const struct {
    const char *kind;
    const char *api_version;
    const char *path[4];
    bool owned;
} pod_templates[] = {
    { "Deployment", "apps/v1", { "spec", "template" }, false },
    { "ReplicaSet", "apps/v1", { "spec", "template" }, true },
    { "StatefulSet", "apps/v1", { "spec", "template" }, true },
    { "DaemonSet", "apps/v1", { "spec", "template" }, true },
    { "Job", "batch/v1", { "spec", "template" }, true },
    { "ReplicationController", "v1", { "spec", "template" }, true },
    { "CronJob",
      "batch/v1",
      { "spec", "jobTemplate", "spec", "template" },
      false },
};

#define N_POD_TEMPLATES (sizeof(pod_templates) / sizeof(pod_templates[0]))

/*
 * Decode the template at the row's path of workload root as a pod named
 * after the workload, in its namespace unless the template names one.
 * The template's metadata is read through a stack overlay that adds the
 * missing name and namespace members; the tree itself is not changed.
 */
static int decode_template(struct jw *w, const cJSON *root, size_t row,
                           struct kube_pod *out)
{
    struct kube_meta wm;
    const cJSON *t = root, *meta;
    cJSON ov_tmpl, ov_meta, ov_name, ov_ns;
    size_t i, mark = w->len;
    struct kube_owner_ref *ref;

    if (kube_parse_meta(w, root, true, &wm) < 0)
        return -1;
    for (i = 0; i < 4 && pod_templates[row].path[i]; i++) {
        jw_push(w, pod_templates[row].path[i]);
        t = jw_get(t, pod_templates[row].path[i]);
        if (!t)
            return jw_fail(w, "missing: a %s file needs its pod template",
                           pod_templates[row].kind);
    }
    if (jw_as_object(w, t) < 0)
        return -1;
    meta = jw_get(t, "metadata");
    memset(&ov_tmpl, 0, sizeof(ov_tmpl));
    memset(&ov_meta, 0, sizeof(ov_meta));
    memset(&ov_name, 0, sizeof(ov_name));
    memset(&ov_ns, 0, sizeof(ov_ns));
    ov_tmpl.type = cJSON_Object;
    ov_tmpl.child = &ov_meta;
    ov_meta.next = t->child; /* a later "metadata" is shadowed */
    ov_meta.type = cJSON_Object;
    ov_meta.string = (char *)"metadata";
    ov_meta.child = cJSON_IsObject(meta) ? meta->child : NULL;
    if (!jw_get(meta, "namespace")) {
        ov_ns.type = cJSON_String;
        ov_ns.string = (char *)"namespace";
        ov_ns.valuestring = (char *)wm.namespace;
        ov_ns.next = ov_meta.child;
        ov_meta.child = &ov_ns;
    }
    if (!jw_get(meta, "name")) {
        ov_name.type = cJSON_String;
        ov_name.string = (char *)"name";
        ov_name.valuestring = (char *)wm.name;
        ov_name.next = ov_meta.child;
        ov_meta.child = &ov_name;
    }
    if (kube_decode_pod(w, &ov_tmpl, out) < 0)
        return -1;
    jw_pop(w, mark);
    if (!pod_templates[row].owned || out->n_owner_refs)
        return 0;
    ref = jw_calloc(w, 1, sizeof(*ref));
    if (!ref)
        return jw_oom(w);
    ref->api_version = pod_templates[row].api_version;
    ref->kind = pod_templates[row].kind;
    ref->name = wm.name;
    ref->uid = wm.uid;
    ref->controller = true;
    out->owner_refs = ref;
    out->n_owner_refs = 1;
    return 0;
}

int kube_pod_from_document(struct arena *a, const cJSON *root,
                           struct kube_pod *out, struct err *e)
{
    struct jw w;
    const char *kind;
    size_t i;

    jw_init(&w, a, e, NULL);
    if (!cJSON_IsObject(root))
        return jw_fail_type(&w, "a JSON object at the top level", root);
    if (jw_string(&w, root, "kind", NULL, &kind) < 0)
        return -1;
    for (i = 0; kind && i < N_POD_TEMPLATES; i++) {
        if (!strcmp(kind, pod_templates[i].kind))
            return decode_template(&w, root, i, out);
    }
    if (check_kind(&w, root, "Pod") < 0)
        return -1;
    return kube_decode_pod(&w, root, out);
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
        if (parse_kinds[i].kind == kind)
            k = &parse_kinds[i];
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

int kube_objects_put(struct kube_objects *objs, enum kube_kind kind, void **arr,
                     size_t n)
{
    size_t i;

    for (i = 0; i < N_KINDS; i++) {
        if (parse_kinds[i].kind != kind)
            continue;
        parse_set_ptr(objs, parse_kinds[i].arr_off, arr);
        *parse_count_of(objs, &parse_kinds[i]) = n;
        return 0;
    }
    return -1;
}
