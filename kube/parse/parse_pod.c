/*
 * parse_pod.c: a v1.Pod into struct kube_pod: metadata, the spec fields the
 * legacy predicates and priorities read (containers, affinity, tolerations,
 * volumes, spread constraints, overhead) and status.
 */
#include "kube/parse/parse_common.h"

#include <string.h>

static int decode_port(struct jw *w, const cJSON *o, void *out)
{
    struct kube_container_port *p = out;
    bool present;

    if (jw_int32(w, o, "containerPort", &p->container_port, &present) < 0)
        return -1;
    if (!present)
        return jw_fail_key(w, "containerPort", "missing required field");
    if (jw_int32(w, o, "hostPort", &p->host_port, NULL) < 0 ||
        jw_string(w, o, "protocol", "TCP", &p->protocol) < 0)
        return -1;
    return jw_string(w, o, "hostIP", "", &p->host_ip);
}

static int decode_container(struct jw *w, const cJSON *o, void *out)
{
    struct kube_container *c = out;
    const cJSON *res;
    size_t mark;
    int rc;

    if (jw_string_req(w, o, "name", &c->name) < 0 ||
        jw_string(w, o, "image", NULL, &c->image) < 0 ||
        jw_object(w, o, "resources", &res) < 0)
        return -1;
    mark = jw_push(w, "resources");
    if (kube_parse_resources(w, res, "requests", &c->requests, NULL) < 0 ||
        kube_parse_resources(w, res, "limits", &c->limits, NULL) < 0)
        return -1;
    jw_pop(w, mark);
    c->ports = jw_objects(w, o, "ports", sizeof(*c->ports), decode_port,
                          &c->n_ports, &rc);
    return rc;
}

static int decode_volume(struct jw *w, const cJSON *o, void *out)
{
    struct kube_volume *v = out;

    if (jw_string_req(w, o, "name", &v->name) < 0)
        return -1;
    return kube_parse_volume_source(w, o, false, v);
}

static int decode_spread(struct jw *w, const cJSON *o, void *out)
{
    struct kube_topology_spread_constraint *c = out;
    bool present;

    if (jw_int32(w, o, "maxSkew", &c->max_skew, &present) < 0)
        return -1;
    if (!present)
        return jw_fail_key(w, "maxSkew", "missing required field");
    if (jw_string_req(w, o, "topologyKey", &c->topology_key) < 0 ||
        jw_string_req(w, o, "whenUnsatisfiable", &c->when_unsatisfiable) < 0)
        return -1;
    return kube_parse_label_selector(w, o, "labelSelector", &c->selector);
}

static int decode_condition(struct jw *w, const cJSON *o, void *out)
{
    struct kube_pod_condition *c = out;

    if (jw_string(w, o, "type", NULL, &c->type) < 0 ||
        jw_string(w, o, "status", NULL, &c->status) < 0)
        return -1;
    return jw_string(w, o, "reason", NULL, &c->reason);
}

/* Generic ephemeral volumes stand for the PVC "<pod>-<volume>". */
static int name_ephemeral_claims(struct jw *w, struct kube_pod *p)
{
    size_t i;

    for (i = 0; i < p->n_volumes; i++) {
        struct kube_volume *v = &p->volumes[i];

        if (v->kind != KUBE_VOL_EPHEMERAL)
            continue;
        v->id = arena_sprintf(w->a, "%s-%s", p->name, v->name);
        if (!v->id)
            return jw_oom(w);
    }
    return 0;
}

static int decode_containers(struct jw *w, const cJSON *spec,
                             struct kube_pod *p)
{
    int rc;

    p->containers = jw_objects(w, spec, "containers", sizeof(*p->containers),
                               decode_container, &p->n_containers, &rc);
    if (rc < 0)
        return -1;
    p->init_containers =
        jw_objects(w, spec, "initContainers", sizeof(*p->init_containers),
                   decode_container, &p->n_init_containers, &rc);
    return rc;
}

static int decode_spec(struct jw *w, const cJSON *spec, struct kube_pod *p)
{
    int rc;

    if (jw_string(w, spec, "nodeName", "", &p->node_name) < 0 ||
        jw_string(w, spec, "schedulerName", "default-scheduler",
                  &p->scheduler_name) < 0 ||
        jw_int32(w, spec, "priority", &p->priority, &p->has_priority) < 0 ||
        jw_string(w, spec, "preemptionPolicy", "", &p->preemption_policy) < 0 ||
        kube_parse_labels(w, spec, "nodeSelector", &p->node_selector) < 0 ||
        kube_parse_affinity(w, spec, "affinity", &p->affinity) < 0 ||
        kube_parse_tolerations(w, spec, "tolerations", &p->tolerations,
                               &p->n_tolerations) < 0 ||
        decode_containers(w, spec, p) < 0 ||
        kube_parse_resources(w, spec, "overhead", &p->overhead,
                             &p->has_overhead) < 0)
        return -1;
    p->volumes = jw_objects(w, spec, "volumes", sizeof(*p->volumes),
                            decode_volume, &p->n_volumes, &rc);
    if (rc < 0 || name_ephemeral_claims(w, p) < 0)
        return -1;
    p->spread_constraints = jw_objects(
        w, spec, "topologySpreadConstraints", sizeof(*p->spread_constraints),
        decode_spread, &p->n_spread_constraints, &rc);
    return rc;
}

static int decode_status(struct jw *w, const cJSON *st, struct kube_pod *p)
{
    int rc;

    if (jw_string(w, st, "phase", "", &p->phase) < 0 ||
        jw_string(w, st, "nominatedNodeName", NULL, &p->nominated_node_name) <
            0 ||
        jw_time(w, st, "startTime", &p->start_time, &p->has_start_time) < 0)
        return -1;
    p->conditions = jw_objects(w, st, "conditions", sizeof(*p->conditions),
                               decode_condition, &p->n_conditions, &rc);
    return rc;
}

int kube_decode_pod(struct jw *w, const cJSON *j, struct kube_pod *p)
{
    struct kube_meta m;
    const cJSON *spec, *status;
    size_t mark;

    memset(p, 0, sizeof(*p));
    if (jw_as_object(w, j) < 0 || kube_parse_meta(w, j, true, &m) < 0)
        return -1;
    p->name = m.name;
    p->namespace = m.namespace;
    p->uid = m.uid;
    p->resource_version = m.resource_version;
    p->creation_timestamp = m.creation_timestamp;
    p->deleting = m.deleting;
    p->labels = m.labels;
    p->annotations = m.annotations;
    p->n_owner_refs = m.n_owner_refs;
    p->owner_refs = m.owner_refs;
    if (jw_object(w, j, "spec", &spec) < 0 ||
        jw_object(w, j, "status", &status) < 0)
        return -1;
    mark = jw_push(w, "spec");
    if (decode_spec(w, spec, p) < 0)
        return -1;
    jw_pop(w, mark);
    mark = jw_push(w, "status");
    if (decode_status(w, status, p) < 0)
        return -1;
    jw_pop(w, mark);
    return 0;
}
