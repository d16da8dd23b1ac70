/*
 * cluster.c: the cluster snapshot (see cluster.h), mirroring v1.22's
 * NodeInfo accounting (framework/types.go AddPod/RemovePod) and image
 * state summaries (internal/cache/cache.go).
 */
#include "kube/cluster/cluster.h"

#include <stdlib.h>
#include <string.h>

#include "kube/base/hash.h"
#include "kube/model/labels.h"
#include "kube/model/resources.h"

static uint64_t hash_str(const char *s)
{
    return kube_fnv_str(KUBE_FNV_OFFSET, s);
}

bool cluster_pod_is_active(const struct kube_pod *pod)
{
    const char *ph = pod->phase ? pod->phase : "";

    return strcmp(ph, "Succeeded") != 0 && strcmp(ph, "Failed") != 0;
}

/* The two bits of label_keys that stand for key. */
static uint64_t key_bits(const char *key)
{
    uint64_t h = hash_str(key);

    return (1ull << (h & 63)) | (1ull << ((h >> 6) & 63));
}

void node_info_set_node(struct node_info *ni, const struct kube_node *node)
{
    size_t i;

    ni->node = node;
    ni->avoid_pods =
        kube_labels_get(&node->annotations, KUBE_ANNOTATION_PREFER_AVOID_PODS);
    ni->label_keys = 0;
    for (i = 0; node->labels.items && i < node->labels.n; i++)
        ni->label_keys |= key_bits(
            node->labels.items[i].key ? node->labels.items[i].key : "");
}

const char *node_info_label(const struct node_info *ni, const char *key)
{
    if (!ni || !ni->node || !key)
        return NULL;
    if (ni->label_keys) {
        uint64_t bits = key_bits(key);

        if ((ni->label_keys & bits) != bits)
            return NULL;
    }
    return kube_labels_get(&ni->node->labels, key);
}

const struct node_info *cluster_node(const struct cluster *c, const char *name)
{
    size_t mask, i;

    if (!c->node_slots || !name)
        return NULL;
    mask = c->node_slots - 1;
    for (i = hash_str(name) & mask;; i = (i + 1) & mask) {
        int32_t idx = c->node_index[i];

        if (idx < 0)
            return NULL;
        if (!strcmp(c->nodes[idx].node->name, name))
            return &c->nodes[idx];
    }
}

static int index_nodes(struct cluster *c, struct err *e)
{
    size_t slots = 16, i;

    while (slots < c->n_nodes * 2)
        slots <<= 1;
    c->node_index = arena_alloc(&c->arena, slots * sizeof(int32_t));
    if (!c->node_index)
        return err_set(e, "out of memory indexing nodes");
    memset(c->node_index, 0xff, slots * sizeof(int32_t));
    c->node_slots = slots;
    for (i = 0; i < c->n_nodes; i++) {
        const char *name = c->nodes[i].node->name;
        size_t j;

        for (j = hash_str(name) & (slots - 1); c->node_index[j] >= 0;
             j = (j + 1) & (slots - 1)) {
            if (!strcmp(c->nodes[c->node_index[j]].node->name, name))
                return err_set(e, "duplicate node \"%s\"", name);
        }
        c->node_index[j] = (int32_t)i;
    }
    return 0;
}

/* Grow an arena array of elem-sized items to hold at least need items. */
static void *grow(struct arena *a, void *old, size_t n, size_t *cap,
                  size_t need, size_t elem)
{
    size_t ncap = *cap ? *cap * 2 : 8;
    void *p;

    if (need <= *cap)
        return old;
    while (ncap < need)
        ncap *= 2;
    p = arena_alloc(a, ncap * elem);
    if (!p)
        return NULL;
    if (n)
        memcpy(p, old, n * elem);
    *cap = ncap;
    return p;
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (const void *const *)a;
    uintptr_t y = (uintptr_t) * (const void *const *)b;

    return (x > y) - (x < y);
}

/*
 * Image states: every distinct name across all nodes, with the size of the
 * first node reporting it and the number of nodes listing it.
 */
static int build_images(struct cluster *c, struct err *e)
{
    size_t total = 0, i, j, k;
    struct image_state **slots = NULL;
    size_t nslots = 64;
    int rc = -1;

    for (i = 0; i < c->n_nodes; i++) {
        const struct kube_node *n = c->nodes[i].node;

        for (j = 0; j < n->n_images; j++)
            total += n->images[j].n_names;
    }
    while (nslots < total * 2)
        nslots <<= 1;
    slots = arena_calloc(&c->arena, nslots, sizeof(*slots));
    c->image_table =
        arena_calloc(&c->arena, total ? total : 1, sizeof(*c->image_table));
    if (!slots || !c->image_table) {
        err_set(e, "out of memory summarising images");
        goto out;
    }
    for (i = 0; i < c->n_nodes; i++) {
        struct node_info *ni = &c->nodes[i];
        const struct kube_node *n = ni->node;
        size_t nn = 0, mine = 0;

        for (j = 0; j < n->n_images; j++)
            mine += n->images[j].n_names;
        ni->images =
            arena_calloc(&c->arena, mine ? mine : 1, sizeof(*ni->images));
        ni->cap_images = mine;
        if (!ni->images) {
            err_set(e, "out of memory summarising images");
            goto out;
        }
        for (j = 0; j < n->n_images; j++) {
            for (k = 0; k < n->images[j].n_names; k++) {
                const char *name = n->images[j].names[k];
                size_t s = hash_str(name) & (nslots - 1);
                struct image_state *st;

                while (slots[s] && strcmp(slots[s]->name, name))
                    s = (s + 1) & (nslots - 1);
                st = slots[s];
                if (!st) {
                    st = &c->image_table[c->n_images++];
                    st->name = name;
                    st->size = n->images[j].size_bytes;
                    slots[s] = st;
                }
                /* A node listing a name twice counts once. */
                if (st->last_mark != i + 1) {
                    st->last_mark = i + 1;
                    st->num_nodes++;
                    ni->images[nn++] = st;
                    ni->n_images = nn;
                }
            }
        }
    }
    for (i = 0; i < c->n_nodes; i++) {
        if (c->nodes[i].n_images)
            qsort(c->nodes[i].images, c->nodes[i].n_images,
                  sizeof(*c->nodes[i].images), cmp_ptr);
    }
    c->image_nslots = nslots;
    c->image_slots = slots;
    c->image_nused = c->n_images;
    c->image_mark = c->n_nodes + 1;
    rc = 0;
out:
    return rc;
}

int cluster_build(struct cluster *c, const struct kube_objects *objs,
                  struct err *e)
{
    size_t i;

    memset(c, 0, sizeof(*c));
    arena_init(&c->arena, 0);
    c->objs = objs;
    c->n_nodes = objs->n_nodes;
    c->nodes =
        arena_calloc(&c->arena, c->n_nodes ? c->n_nodes : 1, sizeof(*c->nodes));
    if (!c->nodes)
        return err_set(e, "out of memory building the cluster snapshot");
    for (i = 0; i < c->n_nodes; i++) {
        node_info_set_node(&c->nodes[i], objs->nodes[i]);
        c->nodes[i].index = i;
        if (node_tree_add(&c->tree, objs->nodes[i], i) < 0) {
            err_set(e, "out of memory building the cluster snapshot");
            goto fail;
        }
    }
    if (index_nodes(c, e) < 0 || build_images(c, e) < 0)
        goto fail;
    for (i = 0; i < objs->n_pods; i++) {
        if (cluster_add_pod(c, objs->pods[i]) < 0) {
            err_set(e, "out of memory accounting pods");
            goto fail;
        }
    }
    return 0;
fail:
    cluster_free(c);
    return -1;
}

void cluster_free(struct cluster *c)
{
    term_index_free(&c->terms);
    node_tree_free(&c->tree);
    arena_destroy(&c->arena);
    memset(c, 0, sizeof(*c));
}

static int add_scalar(struct arena *a, struct node_info *ni, const char *name,
                      int64_t v)
{
    struct kube_resources *r = &ni->requested;
    size_t i;

    for (i = 0; i < r->n_scalars; i++) {
        if (!strcmp(r->scalars[i].name, name)) {
            r->scalars[i].value += v;
            return 0;
        }
    }
    r->scalars = grow(a, r->scalars, r->n_scalars, &ni->cap_scalars,
                      r->n_scalars + 1, sizeof(*r->scalars));
    if (!r->scalars)
        return -1;
    /* The name may live in a temporary arena: keep our own copy. */
    r->scalars[r->n_scalars].name = arena_strdup(a, name);
    if (!r->scalars[r->n_scalars].name)
        return -1;
    r->scalars[r->n_scalars].value = v;
    r->n_scalars++;
    return 0;
}

/* Apply one pod's effective request to the node, sign +1 or -1. */
static int account_requests(struct arena *a, struct node_info *ni,
                            const struct kube_pod *pod, int sign)
{
    struct arena tmp;
    struct kube_resources req;
    int64_t nz_cpu, nz_mem;
    size_t i;
    int rc = -1;

    arena_init(&tmp, 4096);
    if (kube_pod_request(&tmp, pod, &req) < 0)
        goto out;
    ni->requested.milli_cpu += sign * req.milli_cpu;
    ni->requested.memory += sign * req.memory;
    ni->requested.ephemeral_storage += sign * req.ephemeral_storage;
    for (i = 0; i < req.n_scalars; i++) {
        if (add_scalar(a, ni, req.scalars[i].name,
                       sign * req.scalars[i].value) < 0)
            goto out;
    }
    kube_pod_nonzero_request(pod, &nz_cpu, &nz_mem);
    ni->nonzero_milli_cpu += sign * nz_cpu;
    ni->nonzero_memory += sign * nz_mem;
    rc = 0;
out:
    arena_destroy(&tmp);
    return rc;
}

static const char *norm_ip(const char *ip)
{
    return ip && *ip ? ip : "0.0.0.0";
}

static const char *norm_proto(const char *p)
{
    return p && *p ? p : "TCP";
}

static int add_ports(struct arena *a, struct node_info *ni,
                     const struct kube_pod *pod)
{
    size_t i, j;

    for (i = 0; i < pod->n_containers; i++) {
        const struct kube_container *ct = &pod->containers[i];

        for (j = 0; j < ct->n_ports; j++) {
            const struct kube_container_port *p = &ct->ports[j];
            struct used_port *u;

            if (p->host_port <= 0)
                continue;
            ni->ports = grow(a, ni->ports, ni->n_ports, &ni->cap_ports,
                             ni->n_ports + 1, sizeof(*ni->ports));
            if (!ni->ports)
                return -1;
            u = &ni->ports[ni->n_ports++];
            u->ip = norm_ip(p->host_ip);
            u->protocol = norm_proto(p->protocol);
            u->port = p->host_port;
        }
    }
    return 0;
}

/* Remove one occurrence of each of the pod's host ports. */
static void remove_ports(struct node_info *ni, const struct kube_pod *pod)
{
    size_t i, j, k;

    for (i = 0; i < pod->n_containers; i++) {
        const struct kube_container *ct = &pod->containers[i];

        for (j = 0; j < ct->n_ports; j++) {
            const struct kube_container_port *p = &ct->ports[j];

            if (p->host_port <= 0)
                continue;
            for (k = 0; k < ni->n_ports; k++) {
                struct used_port *u = &ni->ports[k];

                if (u->port == p->host_port &&
                    !strcmp(u->ip, norm_ip(p->host_ip)) &&
                    !strcmp(u->protocol, norm_proto(p->protocol))) {
                    ni->ports[k] = ni->ports[--ni->n_ports];
                    break;
                }
            }
        }
    }
}

static bool has_affinity(const struct kube_pod *p)
{
    const struct kube_affinity *a = &p->affinity;

    return a->pod_affinity.n_required || a->pod_affinity.n_preferred ||
           a->pod_anti_affinity.n_required || a->pod_anti_affinity.n_preferred;
}

static int add_affinity_pod(struct arena *a, struct node_info *ni,
                            const struct kube_pod *pod)
{
    if (!has_affinity(pod))
        return 0;
    ni->affinity_pods =
        grow(a, ni->affinity_pods, ni->n_affinity_pods, &ni->cap_affinity_pods,
             ni->n_affinity_pods + 1, sizeof(*ni->affinity_pods));
    if (!ni->affinity_pods)
        return -1;
    ni->affinity_pods[ni->n_affinity_pods++] = pod;
    return 0;
}

/* A list is usable only when all its terms parse (see aff_entry). */
static bool terms_valid(const struct kube_pod_affinity_term *t, size_t n,
                        size_t stride)
{
    size_t i;

    for (i = 0; i < n; i++) {
        const struct kube_pod_affinity_term *u =
            (const struct kube_pod_affinity_term *)((const char *)t +
                                                    i * stride);

        if (kube_pod_affinity_term_error(u))
            return false;
    }
    return true;
}

static int push_entry(struct cluster *c, struct node_info *ni,
                      const struct kube_pod *pod,
                      const struct kube_pod_affinity_term *t, int32_t weight,
                      enum aff_entry_kind kind)
{
    struct aff_entry *en;
    uint32_t id;

    ni->aff_entries = grow(&c->arena, ni->aff_entries, ni->n_aff_entries,
                           &ni->cap_aff_entries, ni->n_aff_entries + 1,
                           sizeof(*ni->aff_entries));
    if (!ni->aff_entries ||
        term_index_intern(&c->terms, t, pod->namespace, &id) < 0)
        return -1;
    en = &ni->aff_entries[ni->n_aff_entries++];
    en->pod = pod;
    en->term = id;
    en->weight = weight;
    en->kind = kind;
    return 0;
}

/* The pod's terms become entries of its node (interned). */
static int add_aff_entries(struct cluster *c, struct node_info *ni,
                           const struct kube_pod *pod)
{
    const struct kube_pod_affinity *aff = &pod->affinity.pod_affinity;
    const struct kube_pod_affinity *anti = &pod->affinity.pod_anti_affinity;
    const size_t wsz = sizeof(struct kube_weighted_pod_affinity_term);
    size_t i;

    if (aff->n_required &&
        terms_valid(aff->required, aff->n_required, sizeof(*aff->required))) {
        for (i = 0; i < aff->n_required; i++) {
            if (push_entry(c, ni, pod, &aff->required[i], 0,
                           AFF_ENTRY_REQUIRED) < 0)
                return -1;
        }
    }
    if (aff->n_preferred &&
        terms_valid(&aff->preferred[0].term, aff->n_preferred, wsz)) {
        for (i = 0; i < aff->n_preferred; i++) {
            if (push_entry(c, ni, pod, &aff->preferred[i].term,
                           aff->preferred[i].weight, AFF_ENTRY_PREFERRED) < 0)
                return -1;
        }
    }
    if (anti->n_preferred &&
        terms_valid(&anti->preferred[0].term, anti->n_preferred, wsz)) {
        for (i = 0; i < anti->n_preferred; i++) {
            if (push_entry(c, ni, pod, &anti->preferred[i].term,
                           anti->preferred[i].weight,
                           AFF_ENTRY_PREFERRED_ANTI) < 0)
                return -1;
        }
    }
    if (anti->n_required && terms_valid(anti->required, anti->n_required,
                                        sizeof(*anti->required))) {
        for (i = 0; i < anti->n_required; i++) {
            if (push_entry(c, ni, pod, &anti->required[i], 0,
                           AFF_ENTRY_REQUIRED_ANTI) < 0)
                return -1;
        }
    }
    return 0;
}

/*
 * Drop the pod's entries (and their term references): the first run of
 * them, as remove_affinity_pod drops the first occurrence of the pod.
 */
static void remove_aff_entries(struct cluster *c, struct node_info *ni,
                               const struct kube_pod *pod)
{
    size_t i = 0, j;

    while (i < ni->n_aff_entries && ni->aff_entries[i].pod != pod)
        i++;
    for (j = i; j < ni->n_aff_entries && ni->aff_entries[j].pod == pod; j++)
        term_index_release(&c->terms, ni->aff_entries[j].term);
    if (i == j)
        return;
    memmove(&ni->aff_entries[i], &ni->aff_entries[j],
            (ni->n_aff_entries - j) * sizeof(*ni->aff_entries));
    ni->n_aff_entries -= j - i;
}

static void remove_affinity_pod(struct node_info *ni,
                                const struct kube_pod *pod)
{
    size_t i;

    for (i = 0; i < ni->n_affinity_pods; i++) {
        if (ni->affinity_pods[i] == pod) {
            memmove(&ni->affinity_pods[i], &ni->affinity_pods[i + 1],
                    (ni->n_affinity_pods - i - 1) * sizeof(*ni->affinity_pods));
            ni->n_affinity_pods--;
            return;
        }
    }
}

int cluster_add_pod(struct cluster *c, const struct kube_pod *pod)
{
    struct node_info *ni;

    if (!pod->node_name || !*pod->node_name || !cluster_pod_is_active(pod))
        return 0;
    ni = (struct node_info *)cluster_node(c, pod->node_name);
    if (!ni) {
        c->n_orphan_pods++;
        return 0;
    }
    ni->pods = grow(&c->arena, ni->pods, ni->n_pods, &ni->cap_pods,
                    ni->n_pods + 1, sizeof(*ni->pods));
    if (!ni->pods)
        return -1;
    if (account_requests(&c->arena, ni, pod, 1) < 0 ||
        add_ports(&c->arena, ni, pod) < 0)
        return -1;
    if (add_affinity_pod(&c->arena, ni, pod) < 0 ||
        add_aff_entries(c, ni, pod) < 0)
        return -1;
    ni->pods[ni->n_pods++] = pod;
    if (pod->affinity.pod_anti_affinity.n_required) {
        ni->n_anti_affinity_pods++;
        c->n_anti_affinity_pods++;
    }
    c->n_pods++;
    return 1;
}

static bool same_pod(const struct kube_pod *a, const struct kube_pod *b)
{
    if (a == b)
        return true;
    if (a->uid && b->uid && *a->uid && *b->uid)
        return !strcmp(a->uid, b->uid);
    return !strcmp(a->name ? a->name : "", b->name ? b->name : "") &&
           !strcmp(a->namespace ? a->namespace : "",
                   b->namespace ? b->namespace : "");
}

int cluster_remove_pod(struct cluster *c, const struct kube_pod *pod)
{
    struct node_info *ni;
    const struct kube_pod *old;
    size_t i;

    if (!pod->node_name || !*pod->node_name)
        return 0;
    ni = (struct node_info *)cluster_node(c, pod->node_name);
    if (!ni) {
        if (cluster_pod_is_active(pod) && c->n_orphan_pods)
            c->n_orphan_pods--;
        return 0;
    }
    for (i = 0; i < ni->n_pods; i++) {
        if (same_pod(ni->pods[i], pod))
            break;
    }
    if (i == ni->n_pods)
        return 0;
    old = ni->pods[i];
    /* Keep pod order stable: it decides "first pod" in ServiceAffinity. */
    memmove(&ni->pods[i], &ni->pods[i + 1],
            (ni->n_pods - i - 1) * sizeof(*ni->pods));
    ni->n_pods--;
    if (account_requests(&c->arena, ni, old, -1) < 0)
        return -1;
    remove_ports(ni, old);
    remove_affinity_pod(ni, old);
    remove_aff_entries(c, ni, old);
    if (old->affinity.pod_anti_affinity.n_required) {
        ni->n_anti_affinity_pods--;
        c->n_anti_affinity_pods--;
    }
    c->n_pods--;
    return 1;
}

bool node_info_port_conflict(const struct node_info *ni, const char *ip,
                             const char *protocol, int32_t port)
{
    const char *want_ip = norm_ip(ip);
    const char *want_proto = norm_proto(protocol);
    bool any_ip = !strcmp(want_ip, "0.0.0.0");
    size_t i;

    if (port <= 0)
        return false;
    for (i = 0; i < ni->n_ports; i++) {
        const struct used_port *u = &ni->ports[i];

        if (u->port != port || strcmp(u->protocol, want_proto))
            continue;
        if (any_ip || !strcmp(u->ip, "0.0.0.0") || !strcmp(u->ip, want_ip))
            return true;
    }
    return false;
}

const struct image_state *cluster_image(const struct cluster *c,
                                        const char *name)
{
    size_t i;

    if (!c->image_nslots || !name)
        return NULL;
    for (i = hash_str(name) & (c->image_nslots - 1); c->image_slots[i];
         i = (i + 1) & (c->image_nslots - 1)) {
        if (!strcmp(c->image_slots[i]->name, name))
            return c->image_slots[i];
    }
    return NULL;
}

bool node_info_has_image(const struct node_info *ni,
                         const struct image_state *st)
{
    size_t lo = 0, hi = ni->n_images;

    if (!st)
        return false;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (ni->images[mid] == st)
            return true;
        if ((uintptr_t)ni->images[mid] < (uintptr_t)st)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

const struct kube_namespace *cluster_namespace(const struct cluster *c,
                                               const char *name)
{
    size_t i;

    for (i = 0; i < c->objs->n_namespaces; i++) {
        if (!strcmp(c->objs->namespaces[i]->name, name ? name : ""))
            return c->objs->namespaces[i];
    }
    return NULL;
}

static bool str_eq(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

const struct kube_persistent_volume_claim *
cluster_pvc(const struct cluster *c, const char *ns, const char *name)
{
    size_t i;

    for (i = 0; i < c->objs->n_pvcs; i++) {
        const struct kube_persistent_volume_claim *v = c->objs->pvcs[i];

        if (str_eq(v->name, name) && str_eq(v->namespace, ns))
            return v;
    }
    return NULL;
}

const struct kube_persistent_volume *cluster_pv(const struct cluster *c,
                                                const char *name)
{
    size_t i;

    for (i = 0; i < c->objs->n_pvs; i++) {
        if (str_eq(c->objs->pvs[i]->name, name))
            return c->objs->pvs[i];
    }
    return NULL;
}

const struct kube_storage_class *cluster_storage_class(const struct cluster *c,
                                                       const char *name)
{
    size_t i;

    for (i = 0; i < c->objs->n_storage_classes; i++) {
        if (str_eq(c->objs->storage_classes[i]->name, name))
            return c->objs->storage_classes[i];
    }
    return NULL;
}

const struct kube_csi_node *cluster_csi_node(const struct cluster *c,
                                             const char *name)
{
    size_t i;

    for (i = 0; i < c->objs->n_csi_nodes; i++) {
        if (str_eq(c->objs->csi_nodes[i]->name, name))
            return c->objs->csi_nodes[i];
    }
    return NULL;
}

/* Is p one of the pods ch drops (by UID or by address)? */
static bool dropped(const struct kube_pod *p,
                    const struct cluster_view_change *ch)
{
    size_t i;

    for (i = 0; i < ch->n_drop; i++) {
        if (ch->drop[i] == p)
            return true;
    }
    for (i = 0; p->uid && i < ch->n_drop_uids; i++) {
        if (!strcmp(p->uid, ch->drop_uids[i]))
            return true;
    }
    return false;
}

/* Account p on the view's node ni (filters' aggregates only). */
static int view_add(struct arena *a, struct node_info *ni,
                    const struct kube_pod *p)
{
    ni->pods = grow(a, ni->pods, ni->n_pods, &ni->cap_pods, ni->n_pods + 1,
                    sizeof(*ni->pods));
    if (!ni->pods || account_requests(a, ni, p, 1) < 0 ||
        add_ports(a, ni, p) < 0 || add_affinity_pod(a, ni, p) < 0)
        return -1;
    ni->pods[ni->n_pods++] = p;
    if (p->affinity.pod_anti_affinity.n_required)
        ni->n_anti_affinity_pods++;
    return 0;
}

int cluster_view_begin(struct arena *a, const struct cluster *c,
                       struct cluster *view)
{
    *view = *c;
    view->nodes =
        arena_alloc(a, (c->n_nodes ? c->n_nodes : 1) * sizeof(*view->nodes));
    if (!view->nodes)
        return -1;
    memcpy(view->nodes, c->nodes, c->n_nodes * sizeof(*view->nodes));
    return 0;
}

int cluster_view_set_node(struct arena *a, const struct cluster *c,
                          struct cluster *view, size_t idx,
                          const struct cluster_view_change *ch)
{
    const struct node_info *src = &c->nodes[idx];
    struct node_info *ni = &view->nodes[idx];
    size_t i;

    memset(ni, 0, sizeof(*ni));
    node_info_set_node(ni, src->node);
    ni->index = src->index;
    ni->n_images = src->n_images;
    ni->images = src->images;
    for (i = 0; i < src->n_pods; i++) {
        if (!dropped(src->pods[i], ch) && view_add(a, ni, src->pods[i]) < 0)
            return -1;
    }
    for (i = 0; i < ch->n_add; i++) {
        if (view_add(a, ni, ch->add[i]) < 0)
            return -1;
    }
    /* The survivors' entries, sharing c's term ids (nothing interned);
     * added pods bring none (the view is for filtering), so the node's
     * entries no longer cover its pods. */
    ni->entries_partial = src->entries_partial || ch->n_add > 0;
    ni->aff_entries =
        arena_alloc(a, (src->n_aff_entries ? src->n_aff_entries : 1) *
                           sizeof(*ni->aff_entries));
    if (!ni->aff_entries)
        return -1;
    ni->cap_aff_entries = src->n_aff_entries;
    for (i = 0; i < src->n_aff_entries; i++) {
        if (!dropped(src->aff_entries[i].pod, ch))
            ni->aff_entries[ni->n_aff_entries++] = src->aff_entries[i];
    }
    view->n_pods = c->n_pods - src->n_pods + ni->n_pods;
    view->n_anti_affinity_pods = c->n_anti_affinity_pods -
                                 src->n_anti_affinity_pods +
                                 ni->n_anti_affinity_pods;
    return 0;
}

void cluster_view_reset_node(const struct cluster *c, struct cluster *view,
                             size_t idx)
{
    view->nodes[idx] = c->nodes[idx];
    view->n_pods = c->n_pods;
    view->n_anti_affinity_pods = c->n_anti_affinity_pods;
}

int cluster_view_without_pods(struct arena *a, const struct cluster *c,
                              const char *node, const char *const *uids,
                              size_t n_uids, struct cluster *view)
{
    const struct node_info *src = cluster_node(c, node);
    struct cluster_view_change ch = { .drop_uids = uids,
                                      .n_drop_uids = n_uids };

    if (!src)
        return 0;
    if (cluster_view_begin(a, c, view) < 0 ||
        cluster_view_set_node(a, c, view, src->index, &ch) < 0)
        return -1;
    return 1;
}

/* ---- incremental node changes ---- */

/* Insert state st into the name -> state table (which has room). */
static void image_slot_put(struct cluster *c, struct image_state *st)
{
    size_t mask = c->image_nslots - 1, s;

    for (s = hash_str(st->name) & mask; c->image_slots[s]; s = (s + 1) & mask)
        ;
    c->image_slots[s] = st;
    c->image_nused++;
}

/* Grow the image state table to hold at least need states. */
static int image_slots_grow(struct cluster *c, size_t need)
{
    struct image_state **old = c->image_slots;
    size_t oldn = c->image_nslots, n = 64, i;

    while (n < need * 2)
        n <<= 1;
    c->image_slots = arena_calloc(&c->arena, n, sizeof(*c->image_slots));
    if (!c->image_slots) {
        c->image_slots = old;
        return -1;
    }
    c->image_nslots = n;
    c->image_nused = 0;
    for (i = 0; i < oldn; i++) {
        if (old[i])
            image_slot_put(c, old[i]);
    }
    return 0;
}

/* The state for name, created (with this size) when new. */
static struct image_state *image_state_get(struct cluster *c, const char *name,
                                           int64_t size)
{
    size_t mask, s;
    struct image_state *st;

    if ((c->image_nused + 1) * 2 > c->image_nslots &&
        image_slots_grow(c, c->image_nused + 1) < 0)
        return NULL;
    mask = c->image_nslots - 1;
    for (s = hash_str(name) & mask; c->image_slots[s]; s = (s + 1) & mask) {
        if (!strcmp(c->image_slots[s]->name, name))
            return c->image_slots[s];
    }
    st = arena_calloc(&c->arena, 1, sizeof(*st));
    if (!st || !(st->name = arena_strdup(&c->arena, name)))
        return NULL;
    st->size = size;
    c->image_slots[s] = st;
    c->image_nused++;
    return st;
}

/* Forget the node's image names (their node counts drop). */
static void images_detach(struct node_info *ni)
{
    size_t i;

    for (i = 0; i < ni->n_images; i++)
        ((struct image_state *)ni->images[i])->num_nodes--;
    ni->n_images = 0;
}

/* Count the node's image names, as build_images does. */
static int images_attach(struct cluster *c, struct node_info *ni)
{
    const struct kube_node *n = ni->node;
    size_t total = 0, j, k, mark = ++c->image_mark;

    for (j = 0; j < n->n_images; j++)
        total += n->images[j].n_names;
    if (total > ni->cap_images) {
        size_t cap = ni->cap_images * 2 > total ? ni->cap_images * 2 : total;

        ni->images = arena_calloc(&c->arena, cap, sizeof(*ni->images));
        if (!ni->images)
            return -1;
        ni->cap_images = cap;
    }
    ni->n_images = 0;
    for (j = 0; j < n->n_images; j++) {
        for (k = 0; k < n->images[j].n_names; k++) {
            const char *name = n->images[j].names[k];
            struct image_state *st;

            st = image_state_get(c, name, n->images[j].size_bytes);
            if (!st)
                return -1;
            if (st->last_mark == mark)
                continue; /* a node listing a name twice counts once */
            st->last_mark = mark;
            /* A name no node lists any more starts afresh. */
            if (st->num_nodes == 0)
                st->size = n->images[j].size_bytes;
            st->num_nodes++;
            ni->images[ni->n_images++] = st;
        }
    }
    if (ni->n_images)
        qsort(ni->images, ni->n_images, sizeof(*ni->images), cmp_ptr);
    return 0;
}

/* Put node i into the name index (which has room). */
static void index_put(struct cluster *c, size_t i)
{
    size_t mask = c->node_slots - 1, j;

    for (j = hash_str(c->nodes[i].node->name) & mask; c->node_index[j] >= 0;
         j = (j + 1) & mask)
        ;
    c->node_index[j] = (int32_t)i;
}

/* Rebuild the index over nodes, in place unless it must grow. */
static int reindex(struct cluster *c)
{
    size_t slots = c->node_slots ? c->node_slots : 16, i;

    while (slots < c->n_nodes * 2)
        slots <<= 1;
    if (slots != c->node_slots) {
        int32_t *idx = arena_alloc(&c->arena, slots * sizeof(int32_t));

        if (!idx)
            return -1;
        c->node_index = idx;
        c->node_slots = slots;
    }
    memset(c->node_index, 0xff, c->node_slots * sizeof(int32_t));
    for (i = 0; i < c->n_nodes; i++)
        index_put(c, i);
    return 0;
}

int cluster_add_node(struct cluster *c, const struct kube_node *node)
{
    struct node_info *ni;
    size_t cap = c->cap_nodes ? c->cap_nodes : c->n_nodes;

    if (cluster_node(c, node->name))
        return 0;
    c->nodes = grow(&c->arena, c->nodes, c->n_nodes, &cap, c->n_nodes + 1,
                    sizeof(*c->nodes));
    if (!c->nodes)
        return -1;
    c->cap_nodes = cap;
    ni = &c->nodes[c->n_nodes];
    memset(ni, 0, sizeof(*ni));
    node_info_set_node(ni, node);
    ni->index = c->n_nodes++;
    if (node_tree_add(&c->tree, node, ni->index) < 0)
        return -1;
    if (c->n_nodes * 2 > c->node_slots) {
        if (reindex(c) < 0)
            return -1;
    } else {
        index_put(c, ni->index);
    }
    return images_attach(c, ni) < 0 ? -1 : 1;
}

int cluster_update_node(struct cluster *c, const struct kube_node *node)
{
    struct node_info *ni = (struct node_info *)cluster_node(c, node->name);

    if (!ni)
        return 0;
    images_detach(ni);
    node_info_set_node(ni, node);
    if (node_tree_update(&c->tree, node, ni->index) < 0)
        return -1;
    return images_attach(c, ni) < 0 ? -1 : 1;
}

int cluster_remove_node(struct cluster *c, const char *name)
{
    struct node_info *ni = (struct node_info *)cluster_node(c, name);
    size_t i;

    if (!ni)
        return 0;
    images_detach(ni);
    for (i = 0; i < ni->n_aff_entries; i++)
        term_index_release(&c->terms, ni->aff_entries[i].term);
    c->n_pods -= ni->n_pods;
    c->n_anti_affinity_pods -= ni->n_anti_affinity_pods;
    c->n_orphan_pods += ni->n_pods;
    i = ni->index;
    node_tree_remove(&c->tree, i);
    memmove(&c->nodes[i], &c->nodes[i + 1],
            (c->n_nodes - i - 1) * sizeof(*c->nodes));
    c->n_nodes--;
    for (; i < c->n_nodes; i++)
        c->nodes[i].index = i;
    /* The index only shrinks, so rebuilding in place cannot fail. */
    return reindex(c) < 0 ? -1 : 1;
}
