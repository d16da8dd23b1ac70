/*
 * parse_node.c: a v1.Node into struct kube_node: labels, unschedulable,
 * taints, allocatable and capacity, images, conditions and addresses.
 */
#include "kube/parse/parse_common.h"

#include <string.h>

static int decode_image(struct jw *w, const cJSON *o, void *out)
{
    struct kube_container_image *im = out;

    if (jw_string_array(w, o, "names", &im->names, &im->n_names) < 0)
        return -1;
    return jw_int64(w, o, "sizeBytes", &im->size_bytes, NULL);
}

static int decode_condition(struct jw *w, const cJSON *o, void *out)
{
    struct kube_node_condition *c = out;

    if (jw_string(w, o, "type", NULL, &c->type) < 0)
        return -1;
    return jw_string(w, o, "status", NULL, &c->status);
}

static int decode_address(struct jw *w, const cJSON *o, void *out)
{
    struct kube_node_address *ad = out;

    if (jw_string(w, o, "type", NULL, &ad->type) < 0)
        return -1;
    return jw_string(w, o, "address", NULL, &ad->address);
}

static int decode_status(struct jw *w, const cJSON *st, struct kube_node *n)
{
    int rc;

    if (kube_parse_resources(w, st, "allocatable", &n->allocatable, NULL) < 0 ||
        kube_parse_resources(w, st, "capacity", &n->capacity, NULL) < 0)
        return -1;
    n->images = jw_objects(w, st, "images", sizeof(*n->images), decode_image,
                           &n->n_images, &rc);
    if (rc < 0)
        return -1;
    n->conditions = jw_objects(w, st, "conditions", sizeof(*n->conditions),
                               decode_condition, &n->n_conditions, &rc);
    if (rc < 0)
        return -1;
    n->addresses = jw_objects(w, st, "addresses", sizeof(*n->addresses),
                              decode_address, &n->n_addresses, &rc);
    return rc;
}

int kube_decode_node(struct jw *w, const cJSON *j, struct kube_node *n)
{
    struct kube_meta m;
    const cJSON *spec, *status;
    size_t mark;

    memset(n, 0, sizeof(*n));
    if (jw_as_object(w, j) < 0 || kube_parse_meta(w, j, false, &m) < 0)
        return -1;
    n->name = m.name;
    n->uid = m.uid;
    n->resource_version = m.resource_version;
    n->labels = m.labels;
    n->annotations = m.annotations;
    if (jw_object(w, j, "spec", &spec) < 0 ||
        jw_object(w, j, "status", &status) < 0)
        return -1;
    mark = jw_push(w, "spec");
    if (jw_bool(w, spec, "unschedulable", &n->unschedulable) < 0 ||
        kube_parse_taints(w, spec, "taints", &n->taints, &n->n_taints) < 0)
        return -1;
    jw_pop(w, mark);
    mark = jw_push(w, "status");
    if (decode_status(w, status, n) < 0)
        return -1;
    jw_pop(w, mark);
    return 0;
}
