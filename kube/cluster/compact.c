/*
 * compact.c: the cache's own copies of pods and nodes, each one
 * malloc'd block holding the struct and everything it points to, with
 * only the fields the v1.22 predicates and priorities read of objects
 * already in the cluster (see kube_pod_compact in compact.h for the list).
 * One free() drops a replaced version.
 */
#include "kube/cluster/compact.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cluster/cluster.h"

/* A bump allocator over one buffer. */
struct pk {
    char *base;
    size_t off, cap;
    bool overflow;
};

static void *pk_alloc(struct pk *p, size_t n, size_t align)
{
    size_t off = (p->off + align - 1) & ~(align - 1);

    if (n == 0)
        return NULL;
    if (off + n > p->cap) {
        p->overflow = true;
        return NULL;
    }
    p->off = off + n;
    return p->base + off;
}

/* An array of n elements of type t, zeroed; NULL for n == 0 or overflow. */
#define PK_ARRAY(p, n, t)                                                      \
    ((t *)pk_zero(pk_alloc((p), (n) * sizeof(t), _Alignof(t)), (n) * sizeof(t)))

static void *pk_zero(void *ptr, size_t n)
{
    if (ptr)
        memset(ptr, 0, n);
    return ptr;
}

static const char *pk_str(struct pk *p, const char *s)
{
    size_t n;
    char *d;

    if (!s)
        return NULL;
    n = strlen(s) + 1;
    d = pk_alloc(p, n, 1);
    if (d)
        memcpy(d, s, n);
    return d;
}

static const char **pk_strs(struct pk *p, const char *const *s, size_t n)
{
    const char **d = PK_ARRAY(p, n, const char *);
    size_t i;

    for (i = 0; d && i < n; i++)
        d[i] = pk_str(p, s[i]);
    return d;
}

static void pk_labels(struct pk *p, struct kube_labels *d,
                      const struct kube_labels *s)
{
    size_t i;

    d->present = s->present;
    d->n = s->n;
    d->items = PK_ARRAY(p, s->n, struct kube_label);
    for (i = 0; d->items && i < s->n; i++) {
        d->items[i].key = pk_str(p, s->items[i].key);
        d->items[i].value = pk_str(p, s->items[i].value);
    }
}

static struct kube_requirement *
pk_reqs(struct pk *p, const struct kube_requirement *s, size_t n)
{
    struct kube_requirement *d = PK_ARRAY(p, n, struct kube_requirement);
    size_t i;

    for (i = 0; d && i < n; i++) {
        d[i] = s[i];
        d[i].key = pk_str(p, s[i].key);
        d[i].values = pk_strs(p, s[i].values, s[i].n_values);
    }
    return d;
}

static struct kube_label_selector *
pk_selector(struct pk *p, const struct kube_label_selector *s)
{
    struct kube_label_selector *d;

    if (!s)
        return NULL;
    d = PK_ARRAY(p, 1, struct kube_label_selector);
    if (!d)
        return NULL;
    d->n_reqs = s->n_reqs;
    d->reqs = pk_reqs(p, s->reqs, s->n_reqs);
    d->invalid = pk_str(p, s->invalid);
    return d;
}

static void pk_term(struct pk *p, struct kube_pod_affinity_term *d,
                    const struct kube_pod_affinity_term *s)
{
    d->selector = pk_selector(p, s->selector);
    d->n_namespaces = s->n_namespaces;
    d->namespaces = pk_strs(p, s->namespaces, s->n_namespaces);
    d->namespace_selector = pk_selector(p, s->namespace_selector);
    d->topology_key = pk_str(p, s->topology_key);
}

static void pk_pod_affinity(struct pk *p, struct kube_pod_affinity *d,
                            const struct kube_pod_affinity *s)
{
    size_t i;

    d->n_required = s->n_required;
    d->required = PK_ARRAY(p, s->n_required, struct kube_pod_affinity_term);
    for (i = 0; d->required && i < s->n_required; i++)
        pk_term(p, &d->required[i], &s->required[i]);
    d->n_preferred = s->n_preferred;
    d->preferred =
        PK_ARRAY(p, s->n_preferred, struct kube_weighted_pod_affinity_term);
    for (i = 0; d->preferred && i < s->n_preferred; i++) {
        d->preferred[i].weight = s->preferred[i].weight;
        pk_term(p, &d->preferred[i].term, &s->preferred[i].term);
    }
}

static void pk_resources(struct pk *p, struct kube_resources *d,
                         const struct kube_resources *s)
{
    size_t i;

    *d = *s;
    d->scalars = PK_ARRAY(p, s->n_scalars, struct kube_scalar);
    for (i = 0; d->scalars && i < s->n_scalars; i++) {
        d->scalars[i].name = pk_str(p, s->scalars[i].name);
        d->scalars[i].value = s->scalars[i].value;
    }
}

/* Requests, and host ports for app containers; no image, no limits. */
static struct kube_container *pk_containers(struct pk *p,
                                            const struct kube_container *s,
                                            size_t n, bool ports)
{
    struct kube_container *d = PK_ARRAY(p, n, struct kube_container);
    size_t i, j;

    for (i = 0; d && i < n; i++) {
        d[i].name = pk_str(p, s[i].name);
        pk_resources(p, &d[i].requests, &s[i].requests);
        if (!ports)
            continue;
        d[i].n_ports = s[i].n_ports;
        d[i].ports = PK_ARRAY(p, s[i].n_ports, struct kube_container_port);
        for (j = 0; d[i].ports && j < s[i].n_ports; j++) {
            d[i].ports[j] = s[i].ports[j];
            d[i].ports[j].protocol = pk_str(p, s[i].ports[j].protocol);
            d[i].ports[j].host_ip = pk_str(p, s[i].ports[j].host_ip);
        }
    }
    return d;
}

/* Volumes of the kinds a predicate inspects (not KUBE_VOL_OTHER). */
static void pk_volumes(struct pk *p, struct kube_pod *d,
                       const struct kube_pod *s)
{
    size_t i, n = 0;

    for (i = 0; i < s->n_volumes; i++)
        n += s->volumes[i].kind != KUBE_VOL_OTHER;
    d->volumes = PK_ARRAY(p, n, struct kube_volume);
    for (i = 0; d->volumes && i < s->n_volumes; i++) {
        const struct kube_volume *v = &s->volumes[i];
        struct kube_volume *o = &d->volumes[d->n_volumes];

        if (v->kind == KUBE_VOL_OTHER)
            continue;
        *o = *v;
        o->name = pk_str(p, v->name);
        o->id = pk_str(p, v->id);
        o->rbd_pool = pk_str(p, v->rbd_pool);
        o->rbd_monitors = pk_strs(p, v->rbd_monitors, v->n_rbd_monitors);
        o->iscsi_target_portal = pk_str(p, v->iscsi_target_portal);
        o->fs_type = pk_str(p, v->fs_type);
        d->n_volumes++;
    }
}

static void pk_pod(struct pk *p, const struct kube_pod *s)
{
    struct kube_pod *d = PK_ARRAY(p, 1, struct kube_pod);

    if (!d)
        return;
    d->name = pk_str(p, s->name);
    d->namespace = pk_str(p, s->namespace);
    d->uid = pk_str(p, s->uid);
    d->creation_timestamp = s->creation_timestamp;
    d->deleting = s->deleting;
    pk_labels(p, &d->labels, &s->labels);
    d->node_name = pk_str(p, s->node_name);
    d->scheduler_name = pk_str(p, s->scheduler_name);
    d->has_priority = s->has_priority;
    d->priority = s->priority;
    d->has_start_time = s->has_start_time; /* preemption's victim order */
    d->start_time = s->start_time;
    pk_pod_affinity(p, &d->affinity.pod_affinity, &s->affinity.pod_affinity);
    pk_pod_affinity(p, &d->affinity.pod_anti_affinity,
                    &s->affinity.pod_anti_affinity);
    d->n_containers = s->n_containers;
    d->containers = pk_containers(p, s->containers, s->n_containers, true);
    d->n_init_containers = s->n_init_containers;
    d->init_containers =
        pk_containers(p, s->init_containers, s->n_init_containers, false);
    d->has_overhead = s->has_overhead;
    pk_resources(p, &d->overhead, &s->overhead);
    pk_volumes(p, d, s);
    d->phase = pk_str(p, s->phase);
}

static void pk_node(struct pk *p, const struct kube_node *s)
{
    struct kube_node *d = PK_ARRAY(p, 1, struct kube_node);
    size_t i;

    if (!d)
        return;
    d->name = pk_str(p, s->name);
    d->uid = pk_str(p, s->uid);
    pk_labels(p, &d->labels, &s->labels);
    d->annotations.present = s->annotations.present;
    for (i = 0; i < s->annotations.n; i++) {
        const struct kube_label *l = &s->annotations.items[i];

        if (strcmp(l->key, KUBE_ANNOTATION_PREFER_AVOID_PODS))
            continue;
        d->annotations.items = PK_ARRAY(p, 1, struct kube_label);
        if (d->annotations.items) {
            d->annotations.items[0].key = pk_str(p, l->key);
            d->annotations.items[0].value = pk_str(p, l->value);
            d->annotations.n = 1;
        }
    }
    d->unschedulable = s->unschedulable;
    d->n_taints = s->n_taints;
    d->taints = PK_ARRAY(p, s->n_taints, struct kube_taint);
    for (i = 0; d->taints && i < s->n_taints; i++) {
        d->taints[i].key = pk_str(p, s->taints[i].key);
        d->taints[i].value = pk_str(p, s->taints[i].value);
        d->taints[i].effect = pk_str(p, s->taints[i].effect);
    }
    pk_resources(p, &d->allocatable, &s->allocatable);
    pk_resources(p, &d->capacity, &s->capacity);
    d->n_images = s->n_images;
    d->images = PK_ARRAY(p, s->n_images, struct kube_container_image);
    for (i = 0; d->images && i < s->n_images; i++) {
        d->images[i].n_names = s->images[i].n_names;
        d->images[i].names =
            pk_strs(p, s->images[i].names, s->images[i].n_names);
        d->images[i].size_bytes = s->images[i].size_bytes;
    }
    d->n_conditions = s->n_conditions;
    d->conditions = PK_ARRAY(p, s->n_conditions, struct kube_node_condition);
    for (i = 0; d->conditions && i < s->n_conditions; i++) {
        d->conditions[i].type = pk_str(p, s->conditions[i].type);
        d->conditions[i].status = pk_str(p, s->conditions[i].status);
    }
}

/*
 * Copy with fn twice: into a scratch buffer of about `bound` bytes (grown
 * when short) to learn the size, then into an exact block.
 */
static void *compact(void (*fn)(struct pk *, const void *), const void *src,
                     size_t bound, size_t *size)
{
    struct pk p = { 0 };
    void *out;

    /* Defaults the decoder points at ("TCP", "") are not in its arena. */
    p.cap = bound + 4096;
    for (;;) {
        p.base = malloc(p.cap);
        if (!p.base)
            return NULL;
        p.off = 0;
        p.overflow = false;
        fn(&p, src);
        free(p.base);
        if (!p.overflow)
            break;
        p.cap *= 2;
    }
    p.cap = p.off;
    p.off = 0;
    p.base = out = malloc(p.cap ? p.cap : 1);
    if (!out)
        return NULL;
    fn(&p, src);
    *size = p.cap;
    return out;
}

static void pod_fn(struct pk *p, const void *s)
{
    pk_pod(p, s);
}

static void node_fn(struct pk *p, const void *s)
{
    pk_node(p, s);
}

struct kube_pod *kube_pod_compact(const struct kube_pod *src, size_t bound,
                                  size_t *size)
{
    return compact(pod_fn, src, bound, size);
}

struct kube_node *kube_node_compact(const struct kube_node *src, size_t bound,
                                    size_t *size)
{
    return compact(node_fn, src, bound, size);
}

static void term_fn(struct pk *p, const void *s)
{
    struct kube_pod_affinity_term *d =
        PK_ARRAY(p, 1, struct kube_pod_affinity_term);

    if (d)
        pk_term(p, d, s);
}

struct kube_pod_affinity_term *
kube_pod_affinity_term_compact(const struct kube_pod_affinity_term *src,
                               size_t *size)
{
    return compact(term_fn, src, 0, size);
}
