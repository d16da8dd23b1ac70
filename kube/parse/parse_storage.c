/*
 * parse_storage.c: PersistentVolume, PersistentVolumeClaim, StorageClass
 * and CSINode, as the volume predicates (binding, zone, limits) read them.
 */
#include "kube/parse/parse_common.h"

#include <string.h>

/* spec.<key> (a ResourceList): the Value() of its "storage" entry. */
static int parse_storage(struct jw *w, const cJSON *obj, const char *key,
                         int64_t *out)
{
    struct kube_resources r;
    size_t i;

    *out = 0;
    if (kube_parse_resources(w, obj, key, &r, NULL) < 0)
        return -1;
    for (i = 0; i < r.n_scalars; i++)
        if (!strcmp(r.scalars[i].name, "storage"))
            *out = r.scalars[i].value;
    return 0;
}

static int decode_claim_ref(struct jw *w, const cJSON *spec,
                            struct kube_persistent_volume *pv)
{
    const cJSON *ref;
    size_t mark;

    if (jw_object(w, spec, "claimRef", &ref) < 0)
        return -1;
    if (!ref)
        return 0;
    mark = jw_push(w, "claimRef");
    if (jw_string(w, ref, "namespace", "", &pv->claim_ref_namespace) < 0 ||
        jw_string(w, ref, "name", "", &pv->claim_ref_name) < 0 ||
        jw_string(w, ref, "uid", "", &pv->claim_ref_uid) < 0)
        return -1;
    jw_pop(w, mark);
    return 0;
}

static int decode_pv_source(struct jw *w, const cJSON *spec,
                            struct kube_persistent_volume *pv)
{
    struct kube_volume v;
    const cJSON *csi;
    size_t mark;

    memset(&v, 0, sizeof(v));
    if (kube_parse_volume_source(w, spec, true, &v) < 0)
        return -1;
    pv->kind = v.kind;
    pv->volume_id = v.id;
    if (v.kind == KUBE_VOL_AZURE_DISK) {
        mark = jw_push(w, "azureDisk");
        if (jw_string(w, jw_get(spec, "azureDisk"), "diskURI", "",
                      &pv->azure_disk_uri) < 0)
            return -1;
        jw_pop(w, mark);
        return 0;
    }
    if (v.kind != KUBE_VOL_CSI)
        return 0;
    csi = jw_get(spec, "csi");
    pv->csi_driver = v.id;
    mark = jw_push(w, "csi");
    if (jw_string(w, csi, "volumeHandle", "", &pv->csi_handle) < 0)
        return -1;
    jw_pop(w, mark);
    pv->volume_id = pv->csi_handle;
    return 0;
}

static int decode_pv_spec(struct jw *w, const cJSON *spec,
                          struct kube_persistent_volume *pv)
{
    const cJSON *na;
    size_t mark;

    if (parse_storage(w, spec, "capacity", &pv->capacity_storage) < 0 ||
        jw_string_array(w, spec, "accessModes", &pv->access_modes,
                        &pv->n_access_modes) < 0 ||
        jw_string(w, spec, "storageClassName", "", &pv->storage_class_name) <
            0 ||
        jw_string(w, spec, "volumeMode", "", &pv->volume_mode) < 0 ||
        decode_claim_ref(w, spec, pv) < 0 ||
        jw_object(w, spec, "nodeAffinity", &na) < 0)
        return -1;
    mark = jw_push(w, "nodeAffinity");
    if (kube_parse_node_selector(w, na, "required", &pv->node_affinity) < 0)
        return -1;
    jw_pop(w, mark);
    return decode_pv_source(w, spec, pv);
}

/* The status.phase string of j (NULL when absent). */
static int decode_phase(struct jw *w, const cJSON *j, const char **phase)
{
    const cJSON *st;
    size_t mark;

    if (jw_object(w, j, "status", &st) < 0)
        return -1;
    mark = jw_push(w, "status");
    if (jw_string(w, st, "phase", NULL, phase) < 0)
        return -1;
    jw_pop(w, mark);
    return 0;
}

int kube_decode_pv(struct jw *w, const cJSON *j,
                   struct kube_persistent_volume *pv)
{
    struct kube_meta m;
    const cJSON *spec;
    size_t mark;

    memset(pv, 0, sizeof(*pv));
    if (jw_as_object(w, j) < 0 || kube_parse_meta(w, j, false, &m) < 0 ||
        jw_object(w, j, "spec", &spec) < 0)
        return -1;
    pv->name = m.name;
    pv->labels = m.labels;
    pv->annotations = m.annotations;
    pv->deleting = m.deleting;
    mark = jw_push(w, "spec");
    if (decode_pv_spec(w, spec, pv) < 0)
        return -1;
    jw_pop(w, mark);
    return decode_phase(w, j, &pv->phase);
}

static int decode_pvc_spec(struct jw *w, const cJSON *spec,
                           struct kube_persistent_volume_claim *c)
{
    const cJSON *res;
    size_t mark;

    if (jw_string(w, spec, "volumeName", "", &c->volume_name) < 0 ||
        jw_string(w, spec, "storageClassName", "", &c->storage_class_name) <
            0 ||
        jw_string_array(w, spec, "accessModes", &c->access_modes,
                        &c->n_access_modes) < 0 ||
        jw_object(w, spec, "resources", &res) < 0)
        return -1;
    c->has_storage_class_name = jw_get(spec, "storageClassName") != NULL;
    mark = jw_push(w, "resources");
    if (parse_storage(w, res, "requests", &c->request_storage) < 0)
        return -1;
    jw_pop(w, mark);
    if (kube_parse_label_selector(w, spec, "selector", &c->selector) < 0)
        return -1;
    return jw_string(w, spec, "volumeMode", NULL, &c->volume_mode);
}

int kube_decode_pvc(struct jw *w, const cJSON *j,
                    struct kube_persistent_volume_claim *c)
{
    struct kube_meta m;
    const cJSON *spec;
    size_t mark;

    memset(c, 0, sizeof(*c));
    if (jw_as_object(w, j) < 0 || kube_parse_meta(w, j, true, &m) < 0 ||
        jw_object(w, j, "spec", &spec) < 0)
        return -1;
    c->name = m.name;
    c->namespace = m.namespace;
    c->uid = m.uid;
    c->labels = m.labels;
    c->annotations = m.annotations;
    c->n_owner_refs = m.n_owner_refs;
    c->owner_refs = m.owner_refs;
    c->deleting = m.deleting;
    mark = jw_push(w, "spec");
    if (decode_pvc_spec(w, spec, c) < 0)
        return -1;
    jw_pop(w, mark);
    return decode_phase(w, j, &c->phase);
}

/* One allowedTopologies term: matchLabelExpressions as In requirements. */
static int decode_topology_term(struct jw *w, const cJSON *o, void *out)
{
    struct kube_topology_term *t = out;
    const cJSON *arr, *it;
    size_t i, mark;

    if (jw_array(w, o, "matchLabelExpressions", &arr, &t->n_exprs) < 0)
        return -1;
    t->exprs = jw_calloc(w, t->n_exprs, sizeof(*t->exprs));
    if (!t->exprs)
        return -1;
    mark = jw_push(w, "matchLabelExpressions");
    for (it = arr ? arr->child : NULL, i = 0; it; it = it->next, i++) {
        struct kube_requirement *r = &t->exprs[i];
        const cJSON *e = cJSON_IsNull(it) ? NULL : it;
        size_t m2 = jw_push_index(w, i);

        r->op = KUBE_OP_IN;
        if (jw_as_object(w, e) < 0 || jw_string(w, e, "key", "", &r->key) < 0 ||
            jw_string_array(w, e, "values", &r->values, &r->n_values) < 0)
            return -1;
        jw_pop(w, m2);
    }
    jw_pop(w, mark);
    return 0;
}

int kube_decode_storage_class(struct jw *w, const cJSON *j,
                              struct kube_storage_class *sc)
{
    struct kube_meta m;
    int rc;

    memset(sc, 0, sizeof(*sc));
    if (jw_as_object(w, j) < 0 || kube_parse_meta(w, j, false, &m) < 0 ||
        jw_string(w, j, "provisioner", NULL, &sc->provisioner) < 0 ||
        jw_string(w, j, "volumeBindingMode", "", &sc->volume_binding_mode) < 0)
        return -1;
    sc->name = m.name;
    sc->allowed_topologies =
        jw_objects(w, j, "allowedTopologies", sizeof(*sc->allowed_topologies),
                   decode_topology_term, &sc->n_allowed_topologies, &rc);
    return rc;
}

static int decode_csi_driver(struct jw *w, const cJSON *o, void *out)
{
    struct kube_csi_node_driver *d = out;
    const cJSON *alloc;
    size_t mark;

    if (jw_string_req(w, o, "name", &d->name) < 0 ||
        jw_string(w, o, "nodeID", NULL, &d->node_id) < 0 ||
        jw_string_array(w, o, "topologyKeys", &d->topology_keys,
                        &d->n_topology_keys) < 0 ||
        jw_object(w, o, "allocatable", &alloc) < 0)
        return -1;
    mark = jw_push(w, "allocatable");
    if (jw_int32(w, alloc, "count", &d->allocatable_count,
                 &d->has_allocatable_count) < 0)
        return -1;
    jw_pop(w, mark);
    return 0;
}

int kube_decode_csi_node(struct jw *w, const cJSON *j, struct kube_csi_node *cn)
{
    struct kube_meta m;
    const cJSON *spec;
    size_t mark;
    int rc;

    memset(cn, 0, sizeof(*cn));
    if (jw_as_object(w, j) < 0 || kube_parse_meta(w, j, false, &m) < 0 ||
        jw_object(w, j, "spec", &spec) < 0)
        return -1;
    cn->name = m.name;
    cn->annotations = m.annotations;
    mark = jw_push(w, "spec");
    cn->drivers = jw_objects(w, spec, "drivers", sizeof(*cn->drivers),
                             decode_csi_driver, &cn->n_drivers, &rc);
    if (rc < 0)
        return -1;
    jw_pop(w, mark);
    return 0;
}
