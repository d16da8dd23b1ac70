/*
 * parse_workloads.c: Service, ReplicationController, ReplicaSet,
 * StatefulSet and Namespace: the names and selectors that selector
 * spreading and service affinity read; PodDisruptionBudget: what
 * preemption counts.
 */
#include "kube/parse/parse_common.h"

#include <string.h>

/* metadata plus the spec object of j (NULL when absent). */
static int decode_head(struct jw *w, const cJSON *j, bool namespaced,
                       struct kube_meta *m, const cJSON **spec)
{
    if (jw_as_object(w, j) < 0 || kube_parse_meta(w, j, namespaced, m) < 0)
        return -1;
    return jw_object(w, j, "spec", spec);
}

/* A plain map selector at spec.selector. */
static int decode_map_selector(struct jw *w, const cJSON *spec,
                               struct kube_labels *out)
{
    size_t mark = jw_push(w, "spec");

    if (kube_parse_labels(w, spec, "selector", out) < 0)
        return -1;
    jw_pop(w, mark);
    return 0;
}

int kube_decode_service(struct jw *w, const cJSON *j, struct kube_service *out)
{
    struct kube_meta m;
    const cJSON *spec;

    memset(out, 0, sizeof(*out));
    if (decode_head(w, j, true, &m, &spec) < 0)
        return -1;
    out->name = m.name;
    out->namespace = m.namespace;
    return decode_map_selector(w, spec, &out->selector);
}

int kube_decode_rc(struct jw *w, const cJSON *j,
                   struct kube_replication_controller *out)
{
    struct kube_meta m;
    const cJSON *spec;

    memset(out, 0, sizeof(*out));
    if (decode_head(w, j, true, &m, &spec) < 0)
        return -1;
    out->name = m.name;
    out->namespace = m.namespace;
    return decode_map_selector(w, spec, &out->selector);
}

int kube_decode_workload(struct jw *w, const cJSON *j,
                         struct kube_workload *out)
{
    struct kube_meta m;
    const cJSON *spec;
    size_t mark;

    memset(out, 0, sizeof(*out));
    if (decode_head(w, j, true, &m, &spec) < 0)
        return -1;
    out->name = m.name;
    out->namespace = m.namespace;
    mark = jw_push(w, "spec");
    if (kube_parse_label_selector(w, spec, "selector", &out->selector) < 0)
        return -1;
    jw_pop(w, mark);
    return 0;
}

int kube_decode_namespace(struct jw *w, const cJSON *j,
                          struct kube_namespace *out)
{
    struct kube_meta m;

    memset(out, 0, sizeof(*out));
    if (jw_as_object(w, j) < 0 || kube_parse_meta(w, j, false, &m) < 0)
        return -1;
    out->name = m.name;
    out->labels = m.labels;
    return 0;
}

int kube_decode_pdb(struct jw *w, const cJSON *j, struct kube_pdb *out)
{
    struct kube_meta m;
    const cJSON *spec, *status;
    size_t mark;

    memset(out, 0, sizeof(*out));
    if (decode_head(w, j, true, &m, &spec) < 0 ||
        jw_object(w, j, "status", &status) < 0)
        return -1;
    out->name = m.name;
    out->namespace = m.namespace;
    mark = jw_push(w, "spec");
    if (kube_parse_label_selector(w, spec, "selector", &out->selector) < 0)
        return -1;
    jw_pop(w, mark);
    mark = jw_push(w, "status");
    if (jw_int32(w, status, "disruptionsAllowed", &out->disruptions_allowed,
                 NULL) < 0 ||
        kube_parse_labels(w, status, "disruptedPods", &out->disrupted) < 0)
        return -1;
    jw_pop(w, mark);
    return 0;
}
