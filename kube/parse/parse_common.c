/*
 * parse_common.c: decoders shared by several kinds: ObjectMeta, label maps,
 * metav1.LabelSelector, v1.NodeSelector terms, taints and tolerations,
 * v1.ResourceList, pod affinity, and volume sources (see parse_common.h).
 */
#include "kube/parse/parse_common.h"

#include <string.h>

#include "kube/model/labels.h"
#include "kube/model/quantity.h"

/* ---- metadata ---- */

static int decode_owner_ref(struct jw *w, const cJSON *o, void *out)
{
    struct kube_owner_ref *r = out;

    if (jw_string(w, o, "apiVersion", NULL, &r->api_version) < 0 ||
        jw_string(w, o, "kind", NULL, &r->kind) < 0 ||
        jw_string(w, o, "name", NULL, &r->name) < 0 ||
        jw_string(w, o, "uid", NULL, &r->uid) < 0)
        return -1;
    return jw_bool(w, o, "controller", &r->controller);
}

int kube_parse_meta(struct jw *w, const cJSON *obj, bool namespaced,
                    struct kube_meta *m)
{
    const cJSON *md;
    bool deleting;
    int64_t ignored;
    size_t mark;
    int rc;

    memset(m, 0, sizeof(*m));
    if (jw_object(w, obj, "metadata", &md) < 0)
        return -1;
    mark = jw_push(w, "metadata");
    if (jw_string_req(w, md, "name", &m->name) < 0 ||
        jw_string(w, md, "namespace", namespaced ? "default" : NULL,
                  &m->namespace) < 0 ||
        jw_string(w, md, "uid", NULL, &m->uid) < 0 ||
        jw_string(w, md, "resourceVersion", NULL, &m->resource_version) < 0 ||
        jw_time(w, md, "creationTimestamp", &m->creation_timestamp, NULL) < 0 ||
        jw_time(w, md, "deletionTimestamp", &ignored, &deleting) < 0 ||
        kube_parse_labels(w, md, "labels", &m->labels) < 0 ||
        kube_parse_labels(w, md, "annotations", &m->annotations) < 0)
        return -1;
    m->deleting = deleting;
    m->owner_refs = jw_objects(w, md, "ownerReferences", sizeof(*m->owner_refs),
                               decode_owner_ref, &m->n_owner_refs, &rc);
    jw_pop(w, mark);
    return rc;
}

/* ---- label maps and selectors ---- */

int kube_parse_labels(struct jw *w, const cJSON *obj, const char *key,
                      struct kube_labels *out)
{
    const cJSON *m, *it;
    size_t i, mark;

    memset(out, 0, sizeof(*out));
    if (jw_object(w, obj, key, &m) < 0)
        return -1;
    if (!m)
        return 0;
    out->present = true;
    out->n = jw_count(m);
    out->items = jw_calloc(w, out->n, sizeof(*out->items));
    if (!out->items)
        return -1;
    mark = jw_push(w, key);
    for (it = m->child, i = 0; it; it = it->next, i++) {
        size_t m2 = jw_push(w, it->string);

        out->items[i].key = arena_strdup(w->a, it->string);
        if (!out->items[i].key)
            return jw_oom(w);
        if (jw_as_string(w, it, "", &out->items[i].value) < 0)
            return -1;
        jw_pop(w, m2);
    }
    jw_pop(w, mark);
    kube_labels_normalize(out);
    return 0;
}

enum req_context { REQ_POD, REQ_NODE, REQ_FIELD };

static const struct {
    const char *name;
    enum kube_selector_op op;
    bool node_only; /* Gt/Lt: not in metav1.LabelSelector */
} op_names[] = {
    { "In", KUBE_OP_IN, false },
    { "NotIn", KUBE_OP_NOT_IN, false },
    { "Exists", KUBE_OP_EXISTS, false },
    { "DoesNotExist", KUBE_OP_DOES_NOT_EXIST, false },
    { "Gt", KUBE_OP_GT, true },
    { "Lt", KUBE_OP_LT, true },
};

/* Look the operator up; an unknown one sets *invalid (first problem). */
static void set_op(struct jw *w, const char *name, enum req_context ctx,
                   struct kube_requirement *r, const char **invalid)
{
    static const char *what[] = { "pod", "node", "node field" };
    char q[160];
    size_t i;

    for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++) {
        if (!strcmp(name, op_names[i].name) &&
            (ctx != REQ_POD || !op_names[i].node_only)) {
            r->op = op_names[i].op;
            return;
        }
    }
    r->op = KUBE_OP_IN;
    if (!*invalid)
        *invalid = arena_sprintf(w->a, "%s is not a valid %s selector operator",
                                 err_quote(q, sizeof(q), name, 64), what[ctx]);
}

/* obj.key: an array of {key, operator, values} requirements. */
static int parse_requirements(struct jw *w, const cJSON *obj, const char *key,
                              enum req_context ctx,
                              struct kube_requirement **out, size_t *n,
                              const char **invalid)
{
    const cJSON *arr, *it;
    size_t i, mark;

    *out = NULL;
    if (jw_array(w, obj, key, &arr, n) < 0)
        return -1;
    if (!arr)
        return 0;
    *out = jw_calloc(w, *n, sizeof(**out));
    if (!*out)
        return -1;
    mark = jw_push(w, key);
    for (it = arr->child, i = 0; it; it = it->next, i++) {
        struct kube_requirement *r = &(*out)[i];
        const cJSON *o = cJSON_IsNull(it) ? NULL : it;
        size_t m2 = jw_push_index(w, i);
        const char *op;

        if (jw_as_object(w, o) < 0 || jw_string(w, o, "key", "", &r->key) < 0 ||
            jw_string(w, o, "operator", "", &op) < 0 ||
            jw_string_array(w, o, "values", &r->values, &r->n_values) < 0)
            return -1;
        set_op(w, op, ctx, r, invalid);
        jw_pop(w, m2);
    }
    jw_pop(w, mark);
    return 0;
}

int kube_parse_label_selector(struct jw *w, const cJSON *obj, const char *key,
                              struct kube_label_selector **out)
{
    const cJSON *sel;
    struct kube_label_selector *s;
    struct kube_labels ml;
    struct kube_requirement *exprs;
    size_t n_exprs, i, mark;
    const char *invalid = NULL;

    *out = NULL;
    if (jw_object(w, obj, key, &sel) < 0)
        return -1;
    if (!sel)
        return 0;
    mark = jw_push(w, key);
    if (kube_parse_labels(w, sel, "matchLabels", &ml) < 0 ||
        parse_requirements(w, sel, "matchExpressions", REQ_POD, &exprs,
                           &n_exprs, &invalid) < 0)
        return -1;
    s = jw_calloc(w, 1, sizeof(*s));
    if (!s || !(s->reqs = jw_calloc(w, ml.n + n_exprs, sizeof(*s->reqs))))
        return -1;
    for (i = 0; i < ml.n; i++) {
        struct kube_requirement *r = &s->reqs[s->n_reqs++];

        r->key = ml.items[i].key;
        r->op = KUBE_OP_IN;
        r->n_values = 1;
        r->values = jw_calloc(w, 1, sizeof(*r->values));
        if (!r->values)
            return -1;
        r->values[0] = ml.items[i].value;
    }
    for (i = 0; i < n_exprs; i++)
        s->reqs[s->n_reqs++] = exprs[i];
    s->invalid = invalid;
    if (!invalid)
        kube_label_selector_validate(w->a, s);
    jw_pop(w, mark);
    *out = s;
    return 0;
}

/* ---- node selectors ---- */

int kube_parse_node_selector_term(struct jw *w, const cJSON *v,
                                  struct kube_node_selector_term *out)
{
    const char *invalid = NULL;

    memset(out, 0, sizeof(*out));
    if (parse_requirements(w, v, "matchExpressions", REQ_NODE, &out->exprs,
                           &out->n_exprs, &invalid) < 0 ||
        parse_requirements(w, v, "matchFields", REQ_FIELD, &out->fields,
                           &out->n_fields, &invalid) < 0)
        return -1;
    out->invalid = invalid;
    if (!invalid)
        kube_node_selector_term_validate(w->a, out);
    return 0;
}

static int decode_term(struct jw *w, const cJSON *o, void *out)
{
    return kube_parse_node_selector_term(w, o, out);
}

int kube_parse_node_selector(struct jw *w, const cJSON *obj, const char *key,
                             struct kube_node_selector **out)
{
    const cJSON *ns;
    struct kube_node_selector *s;
    size_t mark;
    int rc;

    *out = NULL;
    if (jw_object(w, obj, key, &ns) < 0)
        return -1;
    if (!ns)
        return 0;
    s = jw_calloc(w, 1, sizeof(*s));
    if (!s)
        return -1;
    mark = jw_push(w, key);
    s->terms = jw_objects(w, ns, "nodeSelectorTerms", sizeof(*s->terms),
                          decode_term, &s->n_terms, &rc);
    jw_pop(w, mark);
    *out = s;
    return rc;
}

/* ---- taints and tolerations ---- */

static int decode_toleration(struct jw *w, const cJSON *o, void *out)
{
    struct kube_toleration *t = out;

    if (jw_string(w, o, "key", "", &t->key) < 0 ||
        jw_string(w, o, "operator", "", &t->op) < 0 ||
        jw_string(w, o, "value", "", &t->value) < 0)
        return -1;
    return jw_string(w, o, "effect", "", &t->effect);
}

int kube_parse_tolerations(struct jw *w, const cJSON *obj, const char *key,
                           struct kube_toleration **out, size_t *n)
{
    int rc;

    *out = jw_objects(w, obj, key, sizeof(**out), decode_toleration, n, &rc);
    return rc;
}

static int decode_taint(struct jw *w, const cJSON *o, void *out)
{
    struct kube_taint *t = out;

    if (jw_string_req(w, o, "key", &t->key) < 0 ||
        jw_string(w, o, "value", "", &t->value) < 0)
        return -1;
    return jw_string_req(w, o, "effect", &t->effect);
}

int kube_parse_taints(struct jw *w, const cJSON *obj, const char *key,
                      struct kube_taint **out, size_t *n)
{
    int rc;

    *out = jw_objects(w, obj, key, sizeof(**out), decode_taint, n, &rc);
    return rc;
}

/* ---- resource lists ---- */

/*
 * A quantity written as a JSON string or (as Quantity accepts) a number,
 * in a resource list: never negative.
 */
static int parse_quantity(struct jw *w, const cJSON *v, struct kube_quantity *q)
{
    char num[40], quoted[160];
    struct err qe;
    const char *s;

    if (cJSON_IsString(v))
        s = v->valuestring;
    else if (cJSON_IsNumber(v))
        s = jw_number_source(v, num, sizeof(num));
    else
        return jw_fail_type(w, "a quantity string", v);
    if (kube_quantity_parse(s, q, &qe) < 0)
        return jw_fail(w, "invalid quantity %s",
                       err_quote(quoted, sizeof(quoted), s, 64));
    /* Resource lists hold no negative amounts: the API server refuses
     * them (ValidateResourceQuantityValue) and a fit test would count a
     * negative request as free capacity. */
    if (q->nanos < 0)
        return jw_fail(w,
                       "invalid quantity %s: must be greater than or "
                       "equal to 0",
                       err_quote(quoted, sizeof(quoted), s, 64));
    return 0;
}

static void set_resource(struct kube_resources *r, const char *name,
                         struct kube_quantity q)
{
    size_t i;

    if (!strcmp(name, "cpu")) {
        r->has |= KUBE_RES_CPU;
        r->milli_cpu = kube_quantity_milli_value(q);
        r->cpu_value = kube_quantity_value(q);
    } else if (!strcmp(name, "memory")) {
        r->has |= KUBE_RES_MEMORY;
        r->memory = kube_quantity_value(q);
    } else if (!strcmp(name, "ephemeral-storage")) {
        r->has |= KUBE_RES_EPHEMERAL_STORAGE;
        r->ephemeral_storage = kube_quantity_value(q);
    } else if (!strcmp(name, "pods")) {
        r->has |= KUBE_RES_PODS;
        r->pods = kube_quantity_value(q);
    } else {
        /* A repeated key replaces the earlier value, as in a Go map. */
        for (i = 0; i < r->n_scalars && strcmp(r->scalars[i].name, name); i++)
            ;
        if (i == r->n_scalars)
            r->scalars[r->n_scalars++].name = name;
        r->scalars[i].value = kube_quantity_value(q);
    }
}

int kube_parse_resources(struct jw *w, const cJSON *obj, const char *key,
                         struct kube_resources *out, bool *present)
{
    const cJSON *m, *it;
    size_t mark;

    memset(out, 0, sizeof(*out));
    if (present)
        *present = false;
    if (jw_object(w, obj, key, &m) < 0)
        return -1;
    if (!m)
        return 0;
    if (present)
        *present = true;
    out->scalars = jw_calloc(w, jw_count(m), sizeof(*out->scalars));
    if (!out->scalars)
        return -1;
    mark = jw_push(w, key);
    for (it = m->child; it; it = it->next) {
        size_t m2 = jw_push(w, it->string);
        struct kube_quantity q;
        const char *name;

        if (cJSON_IsNull(it)) {
            jw_pop(w, m2);
            continue;
        }
        if (parse_quantity(w, it, &q) < 0)
            return -1;
        name = arena_strdup(w->a, it->string);
        if (!name)
            return jw_oom(w);
        set_resource(out, name, q);
        jw_pop(w, m2);
    }
    jw_pop(w, mark);
    return 0;
}

/* ---- affinity ---- */

static int decode_preferred_node_term(struct jw *w, const cJSON *o, void *out)
{
    struct kube_preferred_term *t = out;
    const cJSON *pref;
    size_t mark;
    int rc;

    if (jw_int32(w, o, "weight", &t->weight, NULL) < 0 ||
        jw_object(w, o, "preference", &pref) < 0)
        return -1;
    mark = jw_push(w, "preference");
    rc = kube_parse_node_selector_term(w, pref, &t->term);
    jw_pop(w, mark);
    return rc;
}

static int decode_pod_term(struct jw *w, const cJSON *o, void *out)
{
    struct kube_pod_affinity_term *t = out;

    if (kube_parse_label_selector(w, o, "labelSelector", &t->selector) < 0 ||
        jw_string_array(w, o, "namespaces", &t->namespaces, &t->n_namespaces) <
            0 ||
        kube_parse_label_selector(w, o, "namespaceSelector",
                                  &t->namespace_selector) < 0)
        return -1;
    return jw_string(w, o, "topologyKey", "", &t->topology_key);
}

static int decode_weighted_pod_term(struct jw *w, const cJSON *o, void *out)
{
    struct kube_weighted_pod_affinity_term *t = out;
    const cJSON *term;
    size_t mark;
    int rc;

    if (jw_int32(w, o, "weight", &t->weight, NULL) < 0 ||
        jw_object(w, o, "podAffinityTerm", &term) < 0)
        return -1;
    mark = jw_push(w, "podAffinityTerm");
    rc = decode_pod_term(w, term, &t->term);
    jw_pop(w, mark);
    return rc;
}

#define REQUIRED_KEY  "requiredDuringSchedulingIgnoredDuringExecution"
#define PREFERRED_KEY "preferredDuringSchedulingIgnoredDuringExecution"

static int parse_pod_affinity(struct jw *w, const cJSON *obj, const char *key,
                              struct kube_pod_affinity *out)
{
    const cJSON *pa;
    size_t mark;
    int rc;

    if (jw_object(w, obj, key, &pa) < 0)
        return -1;
    if (!pa)
        return 0;
    mark = jw_push(w, key);
    out->required = jw_objects(w, pa, REQUIRED_KEY, sizeof(*out->required),
                               decode_pod_term, &out->n_required, &rc);
    if (rc < 0)
        return -1;
    out->preferred =
        jw_objects(w, pa, PREFERRED_KEY, sizeof(*out->preferred),
                   decode_weighted_pod_term, &out->n_preferred, &rc);
    jw_pop(w, mark);
    return rc;
}

int kube_parse_affinity(struct jw *w, const cJSON *obj, const char *key,
                        struct kube_affinity *out)
{
    const cJSON *aff, *na;
    size_t mark, m2;
    int rc;

    memset(out, 0, sizeof(*out));
    if (jw_object(w, obj, key, &aff) < 0)
        return -1;
    if (!aff)
        return 0;
    mark = jw_push(w, key);
    if (jw_object(w, aff, "nodeAffinity", &na) < 0)
        return -1;
    m2 = jw_push(w, "nodeAffinity");
    if (kube_parse_node_selector(w, na, REQUIRED_KEY, &out->node_required) < 0)
        return -1;
    out->node_preferred =
        jw_objects(w, na, PREFERRED_KEY, sizeof(*out->node_preferred),
                   decode_preferred_node_term, &out->n_node_preferred, &rc);
    if (rc < 0)
        return -1;
    jw_pop(w, m2);
    if (parse_pod_affinity(w, aff, "podAffinity", &out->pod_affinity) < 0 ||
        parse_pod_affinity(w, aff, "podAntiAffinity", &out->pod_anti_affinity) <
            0)
        return -1;
    jw_pop(w, mark);
    return 0;
}

/* ---- volume sources ---- */

static const struct {
    const char *key;
    enum kube_volume_kind kind;
    const char *id_key; /* NULL: no identifying field */
    bool pv;            /* also a PersistentVolume source */
} volume_sources[] = {
    { "persistentVolumeClaim", KUBE_VOL_PVC, "claimName", false },
    { "ephemeral", KUBE_VOL_EPHEMERAL, NULL, false },
    { "gcePersistentDisk", KUBE_VOL_GCE_PD, "pdName", true },
    { "awsElasticBlockStore", KUBE_VOL_AWS_EBS, "volumeID", true },
    { "azureDisk", KUBE_VOL_AZURE_DISK, "diskName", true },
    { "cinder", KUBE_VOL_CINDER, "volumeID", true },
    { "iscsi", KUBE_VOL_ISCSI, "iqn", true },
    { "rbd", KUBE_VOL_RBD, "image", true },
    { "csi", KUBE_VOL_CSI, "driver", true },
};

/* The kind-specific fields of source src (an object at the path). */
static int parse_source_fields(struct jw *w, const cJSON *src,
                               struct kube_volume *v)
{
    switch (v->kind) {
    case KUBE_VOL_AWS_EBS:
        return jw_int32(w, src, "partition", &v->ebs_partition, NULL);
    case KUBE_VOL_ISCSI:
        if (jw_string(w, src, "targetPortal", "", &v->iscsi_target_portal) < 0)
            return -1;
        return jw_int32(w, src, "lun", &v->iscsi_lun, NULL);
    case KUBE_VOL_RBD:
        if (jw_string(w, src, "pool", "rbd", &v->rbd_pool) < 0)
            return -1;
        return jw_string_array(w, src, "monitors", &v->rbd_monitors,
                               &v->n_rbd_monitors);
    default:
        return 0;
    }
}

int kube_parse_volume_source(struct jw *w, const cJSON *obj, bool pv,
                             struct kube_volume *out)
{
    const cJSON *src = NULL;
    size_t i, mark;
    int rc;

    out->kind = KUBE_VOL_OTHER;
    out->id = "";
    for (i = 0; i < sizeof(volume_sources) / sizeof(volume_sources[0]); i++) {
        if ((pv && !volume_sources[i].pv) ||
            !jw_get(obj, volume_sources[i].key))
            continue;
        if (jw_object(w, obj, volume_sources[i].key, &src) < 0)
            return -1;
        break;
    }
    if (!src)
        return 0;
    out->kind = volume_sources[i].kind;
    mark = jw_push(w, volume_sources[i].key);
    if ((volume_sources[i].id_key &&
         jw_string(w, src, volume_sources[i].id_key, "", &out->id) < 0) ||
        jw_bool(w, src, "readOnly", &out->read_only) < 0 ||
        jw_string(w, src, "fsType", NULL, &out->fs_type) < 0)
        return -1;
    rc = parse_source_fields(w, src, out);
    jw_pop(w, mark);
    return rc;
}
