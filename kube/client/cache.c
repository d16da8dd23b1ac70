/*
 * cache.c: the live object store behind the cluster snapshot (see
 * cache.h). Objects are keyed by kind + namespace/name in one hash table;
 * per kind an array (the struct kube_objects lists the predicates read)
 * with swap-removal. Pods bound to a node the cache has not seen yet are
 * "orphans", filed by node name, and accounted when the node arrives, as
 * kube-scheduler's cache keeps pods of unknown nodes in an empty
 * NodeInfo.
 */
#include "kube/client/cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/hash.h"
#include "kube/parse/parse.h"

#define N_KIND_SLOTS KUBE_KIND_COUNT
#define ORPHAN_SLOTS 1024
#define OBJ_CHUNK    1024 /* arena chunk for the small kinds */

enum pod_state { POD_NONE, POD_ON_NODE, POD_ORPHAN };

struct entry {
    struct entry *next;            /* hash chain */
    struct entry *o_prev, *o_next; /* orphan bucket of the pod's node */
    void *obj;
    void *mem; /* compact block, or a struct arena (is_arena) */
    size_t bytes;
    const char *ns, *name; /* point into obj */
    size_t idx;            /* position in the kind's array */
    uint64_t hash;
    uint32_t gen;
    uint8_t kind;
    uint8_t is_arena;
    uint8_t pod_state;
};

struct orphan_bucket {
    struct orphan_bucket *next;
    char *node;
    struct entry *head;
};

struct kind_store {
    struct entry **ents; /* parallel to the kube_objects array */
    size_t cap;
    uint32_t gen;
};

/* A decoded object waiting to be applied. */
struct prep {
    enum kube_event_type type;
    void *obj;
    void *mem;
    size_t bytes;
    bool is_arena;
    const char *ns, *name;
};

/* Memory to release once the write lock is dropped. */
struct garbage {
    struct prep *items; /* only mem, is_arena are used */
    size_t n, cap;
    struct entry **ents;
    size_t n_ents, cap_ents;
};

struct kube_cache {
    pthread_rwlock_t lock;
    struct cluster cluster;
    struct kube_objects objs;
    struct kind_store kinds[N_KIND_SLOTS];

    struct entry **table;
    size_t nslots, nents;
    struct orphan_bucket *orphans[ORPHAN_SLOTS];
    size_t object_bytes;

    unsigned expected;
    unsigned listed; /* written under the write lock */
    atomic_bool synced;
    struct kube_informers *infs;

    /* Pods a scheduler assumed onto a node (kube_cache_assume_pod). */
    struct assumed **assumed;
    size_t a_slots, n_assumed;
};

/* An assumed pod: a compact copy with nodeName set, accounted on it. */
struct assumed {
    struct assumed *next;
    struct kube_pod *pod;
    uint64_t hash;
    double deadline; /* expiry once its binding finished; 0 while binding */
};

/* ---- objects by kind ---- */

#define OBJS(n, arr)                                                           \
    offsetof(struct kube_objects, n), offsetof(struct kube_objects, arr)

static const struct {
    enum kube_kind kind;
    size_t n_off, arr_off;
} arrays[] = {
    { KUBE_KIND_POD, OBJS(n_pods, pods) },
    { KUBE_KIND_NODE, OBJS(n_nodes, nodes) },
    { KUBE_KIND_SERVICE, OBJS(n_services, services) },
    { KUBE_KIND_REPLICATION_CONTROLLER, OBJS(n_rcs, rcs) },
    { KUBE_KIND_REPLICA_SET, OBJS(n_replica_sets, replica_sets) },
    { KUBE_KIND_STATEFUL_SET, OBJS(n_stateful_sets, stateful_sets) },
    { KUBE_KIND_PERSISTENT_VOLUME, OBJS(n_pvs, pvs) },
    { KUBE_KIND_PERSISTENT_VOLUME_CLAIM, OBJS(n_pvcs, pvcs) },
    { KUBE_KIND_STORAGE_CLASS, OBJS(n_storage_classes, storage_classes) },
    { KUBE_KIND_CSI_NODE, OBJS(n_csi_nodes, csi_nodes) },
    { KUBE_KIND_NAMESPACE, OBJS(n_namespaces, namespaces) },
    { KUBE_KIND_PDB, OBJS(n_pdbs, pdbs) },
};

static size_t *arr_count(struct kube_objects *o, enum kube_kind k)
{
    size_t i;

    for (i = 0; arrays[i].kind != k; i++)
        ;
    return (size_t *)(void *)((char *)o + arrays[i].n_off);
}

static void **arr_get(struct kube_objects *o, enum kube_kind k)
{
    size_t i;
    void *p;

    for (i = 0; arrays[i].kind != k; i++)
        ;
    memcpy(&p, (char *)o + arrays[i].arr_off, sizeof(p));
    return p;
}

static void arr_set(struct kube_objects *o, enum kube_kind k, void **p)
{
    size_t i;

    for (i = 0; arrays[i].kind != k; i++)
        ;
    memcpy((char *)o + arrays[i].arr_off, &p, sizeof(p));
}

/* The namespace (NULL for cluster-scoped kinds) and name of an object. */
static void obj_key(enum kube_kind k, const void *o, const char **ns,
                    const char **name)
{
    *ns = NULL;
    switch (k) {
    case KUBE_KIND_POD:
        *ns = ((const struct kube_pod *)o)->namespace;
        *name = ((const struct kube_pod *)o)->name;
        break;
    case KUBE_KIND_NODE:
        *name = ((const struct kube_node *)o)->name;
        break;
    case KUBE_KIND_SERVICE:
        *ns = ((const struct kube_service *)o)->namespace;
        *name = ((const struct kube_service *)o)->name;
        break;
    case KUBE_KIND_REPLICATION_CONTROLLER:
        *ns = ((const struct kube_replication_controller *)o)->namespace;
        *name = ((const struct kube_replication_controller *)o)->name;
        break;
    case KUBE_KIND_REPLICA_SET:
    case KUBE_KIND_STATEFUL_SET:
        *ns = ((const struct kube_workload *)o)->namespace;
        *name = ((const struct kube_workload *)o)->name;
        break;
    case KUBE_KIND_PERSISTENT_VOLUME:
        *name = ((const struct kube_persistent_volume *)o)->name;
        break;
    case KUBE_KIND_PERSISTENT_VOLUME_CLAIM:
        *ns = ((const struct kube_persistent_volume_claim *)o)->namespace;
        *name = ((const struct kube_persistent_volume_claim *)o)->name;
        break;
    case KUBE_KIND_STORAGE_CLASS:
        *name = ((const struct kube_storage_class *)o)->name;
        break;
    case KUBE_KIND_CSI_NODE:
        *name = ((const struct kube_csi_node *)o)->name;
        break;
    case KUBE_KIND_PDB:
        *ns = ((const struct kube_pdb *)o)->namespace;
        *name = ((const struct kube_pdb *)o)->name;
        break;
    case KUBE_KIND_NAMESPACE:
    default:
        *name = ((const struct kube_namespace *)o)->name;
        break;
    }
}

/* ---- the key table ---- */

static uint64_t key_hash(enum kube_kind k, const char *ns, const char *name)
{
    uint64_t h = KUBE_FNV_OFFSET ^ (uint64_t)k;

    h = kube_fnv_str(h * KUBE_FNV_PRIME, ns);
    h = kube_fnv_str((h ^ '/') * KUBE_FNV_PRIME, name);
    return h;
}

static bool str_eq(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

static struct entry **find_slot(struct kube_cache *c, enum kube_kind k,
                                const char *ns, const char *name, uint64_t h)
{
    struct entry **pp;

    if (!c->nslots)
        return NULL;
    for (pp = &c->table[h & (c->nslots - 1)]; *pp; pp = &(*pp)->next) {
        struct entry *e = *pp;

        if (e->hash == h && e->kind == k && str_eq(e->name, name) &&
            str_eq(e->ns, ns))
            return pp;
    }
    return pp;
}

static struct entry *find(struct kube_cache *c, enum kube_kind k,
                          const char *ns, const char *name)
{
    struct entry **pp = find_slot(c, k, ns, name, key_hash(k, ns, name));

    return pp ? *pp : NULL;
}

static int table_grow(struct kube_cache *c)
{
    size_t n = c->nslots ? c->nslots * 2 : 1024, i;
    struct entry **t = calloc(n, sizeof(*t));

    if (!t)
        return -1;
    for (i = 0; i < c->nslots; i++) {
        struct entry *e = c->table[i], *next;

        for (; e; e = next) {
            next = e->next;
            e->next = t[e->hash & (n - 1)];
            t[e->hash & (n - 1)] = e;
        }
    }
    free(c->table);
    c->table = t;
    c->nslots = n;
    return 0;
}

/* ---- orphan pods, by node name ---- */

static struct orphan_bucket **bucket_slot(struct kube_cache *c,
                                          const char *node)
{
    struct orphan_bucket **pp =
        &c->orphans[kube_fnv_str(KUBE_FNV_OFFSET, node) & (ORPHAN_SLOTS - 1)];

    while (*pp && strcmp((*pp)->node, node))
        pp = &(*pp)->next;
    return pp;
}

static int orphan_link(struct kube_cache *c, struct entry *e)
{
    const struct kube_pod *p = e->obj;
    struct orphan_bucket **pp = bucket_slot(c, p->node_name), *b = *pp;

    if (!b) {
        b = calloc(1, sizeof(*b));
        if (!b || !(b->node = strdup(p->node_name))) {
            free(b);
            return -1;
        }
        *pp = b;
    }
    e->o_prev = NULL;
    e->o_next = b->head;
    if (b->head)
        b->head->o_prev = e;
    b->head = e;
    return 0;
}

static void bucket_free(struct orphan_bucket **pp)
{
    struct orphan_bucket *b = *pp;

    *pp = b->next;
    free(b->node);
    free(b);
}

static void orphan_unlink(struct kube_cache *c, struct entry *e)
{
    const struct kube_pod *p = e->obj;

    if (e->o_prev) {
        e->o_prev->o_next = e->o_next;
    } else {
        struct orphan_bucket **pp = bucket_slot(c, p->node_name);

        (*pp)->head = e->o_next;
        if (!e->o_next)
            bucket_free(pp);
    }
    if (e->o_next)
        e->o_next->o_prev = e->o_prev;
    e->o_prev = e->o_next = NULL;
}

/* ---- pod accounting ---- */

static int account(struct kube_cache *c, struct entry *e)
{
    const struct kube_pod *p = e->obj;
    int r = cluster_add_pod(&c->cluster, p);

    if (r < 0)
        return -1;
    e->pod_state = POD_NONE;
    if (r == 1) {
        e->pod_state = POD_ON_NODE;
    } else if (p->node_name && *p->node_name && cluster_pod_is_active(p)) {
        e->pod_state = POD_ORPHAN;
        if (orphan_link(c, e) < 0) {
            cluster_remove_pod(&c->cluster, p);
            e->pod_state = POD_NONE;
            return -1;
        }
    }
    return 0;
}

static void unaccount(struct kube_cache *c, struct entry *e)
{
    if (e->pod_state == POD_ORPHAN)
        orphan_unlink(c, e);
    if (e->pod_state != POD_NONE)
        cluster_remove_pod(&c->cluster, e->obj);
    e->pod_state = POD_NONE;
}

/* A node arrives: account the pods that were waiting for it. */
static int add_node(struct kube_cache *c, const struct kube_node *n)
{
    struct orphan_bucket **pp = bucket_slot(c, n->name);
    struct entry *list = *pp ? (*pp)->head : NULL, *e, *next;
    int rc = 0;

    if (*pp)
        bucket_free(pp);
    for (e = list; e; e = e->o_next)
        cluster_remove_pod(&c->cluster, e->obj); /* forget the orphan */
    if (cluster_add_node(&c->cluster, n) < 0)
        rc = -1;
    for (e = list; e; e = next) {
        next = e->o_next;
        e->o_prev = e->o_next = NULL;
        e->pod_state = POD_NONE;
        if (account(c, e) < 0)
            rc = -1;
    }
    return rc;
}

/* A node goes: its pods wait as orphans. */
static int remove_node(struct kube_cache *c, const char *name)
{
    const struct node_info *ni = cluster_node(&c->cluster, name);
    size_t i;
    int rc = 0;

    if (!ni)
        return 0;
    for (i = 0; i < ni->n_pods; i++) {
        const struct kube_pod *p = ni->pods[i];
        struct entry *e = find(c, KUBE_KIND_POD, p->namespace, p->name);

        if (e && e->pod_state == POD_ON_NODE) {
            e->pod_state = POD_ORPHAN;
            if (orphan_link(c, e) < 0)
                rc = -1;
        }
    }
    cluster_remove_node(&c->cluster, name);
    return rc;
}

/* ---- garbage ---- */

static int trash_mem(struct garbage *g, void *mem, bool is_arena)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 64;
        struct prep *p = realloc(g->items, cap * sizeof(*p));

        if (!p)
            return -1;
        g->items = p;
        g->cap = cap;
    }
    g->items[g->n].mem = mem;
    g->items[g->n++].is_arena = is_arena;
    return 0;
}

static void free_mem(void *mem, bool is_arena)
{
    if (is_arena)
        arena_destroy(mem);
    free(mem);
}

static void garbage_free(struct garbage *g)
{
    size_t i;

    for (i = 0; i < g->n; i++)
        free_mem(g->items[i].mem, g->items[i].is_arena);
    for (i = 0; i < g->n_ents; i++)
        free(g->ents[i]);
    free(g->items);
    free(g->ents);
    memset(g, 0, sizeof(*g));
}

/* ---- applying (write lock held) ---- */

static int insert(struct kube_cache *c, enum kube_kind k, struct prep *p,
                  struct entry **out)
{
    struct kind_store *ks = &c->kinds[k];
    size_t *n = arr_count(&c->objs, k);
    void **arr = arr_get(&c->objs, k);
    struct entry *e, **pp;

    if (c->nents + 1 > c->nslots && table_grow(c) < 0)
        return -1;
    if (*n == ks->cap) {
        size_t cap = ks->cap ? ks->cap * 2 : 64;
        void **na = realloc(arr, cap * sizeof(*na));
        struct entry **ne;

        if (!na)
            return -1;
        arr_set(&c->objs, k, na);
        arr = na;
        ne = realloc(ks->ents, cap * sizeof(*ne));
        if (!ne)
            return -1;
        ks->ents = ne;
        ks->cap = cap;
    }
    e = calloc(1, sizeof(*e));
    if (!e)
        return -1;
    e->kind = (uint8_t)k;
    e->hash = key_hash(k, p->ns, p->name);
    pp = find_slot(c, k, p->ns, p->name, e->hash);
    e->next = *pp;
    *pp = e;
    c->nents++;
    e->idx = (*n)++;
    arr[e->idx] = p->obj;
    ks->ents[e->idx] = e;
    *out = e;
    return 0;
}

static void set_obj(struct kube_cache *c, struct entry *e, struct prep *p)
{
    void **arr = arr_get(&c->objs, (enum kube_kind)e->kind);

    e->obj = p->obj;
    e->mem = p->mem;
    e->is_arena = p->is_arena;
    e->bytes = p->bytes;
    e->ns = p->ns;
    e->name = p->name;
    arr[e->idx] = p->obj;
    c->object_bytes += p->bytes;
}

static void drop_assumed(struct kube_cache *c, const char *ns,
                         const char *name);

static int upsert(struct kube_cache *c, enum kube_kind k, struct prep *p,
                  struct garbage *g)
{
    struct entry *e;

    /* The API server now says where the pod is: the assumption is over. */
    if (k == KUBE_KIND_POD && c->n_assumed &&
        ((const struct kube_pod *)p->obj)->node_name &&
        *((const struct kube_pod *)p->obj)->node_name)
        drop_assumed(c, p->ns, p->name);
    e = find(c, k, p->ns, p->name);

    if (e) {
        if (trash_mem(g, e->mem, e->is_arena) < 0)
            return -1;
        c->object_bytes -= e->bytes;
        if (k == KUBE_KIND_POD)
            unaccount(c, e);
        set_obj(c, e, p);
        e->gen = c->kinds[k].gen;
        if (k == KUBE_KIND_POD)
            return account(c, e);
        if (k == KUBE_KIND_NODE && cluster_update_node(&c->cluster, p->obj) < 0)
            return -1;
        return 0;
    }
    if (insert(c, k, p, &e) < 0)
        return -1;
    set_obj(c, e, p);
    e->gen = c->kinds[k].gen;
    if (k == KUBE_KIND_POD)
        return account(c, e);
    if (k == KUBE_KIND_NODE)
        return add_node(c, p->obj);
    return 0;
}

static int delete_entry(struct kube_cache *c, struct entry *e,
                        struct garbage *g)
{
    enum kube_kind k = (enum kube_kind)e->kind;
    struct kind_store *ks = &c->kinds[k];
    size_t *n = arr_count(&c->objs, k);
    void **arr = arr_get(&c->objs, k);
    struct entry **pp;

    if (trash_mem(g, e->mem, e->is_arena) < 0)
        return -1;
    if (g->n_ents == g->cap_ents) {
        size_t cap = g->cap_ents ? g->cap_ents * 2 : 64;
        struct entry **ne = realloc(g->ents, cap * sizeof(*ne));

        if (!ne) {
            g->n--; /* keep the object: nothing changed */
            return -1;
        }
        g->ents = ne;
        g->cap_ents = cap;
    }
    g->ents[g->n_ents++] = e;
    if (k == KUBE_KIND_POD && c->n_assumed)
        drop_assumed(c, e->ns, e->name);
    if (k == KUBE_KIND_POD)
        unaccount(c, e);
    if (k == KUBE_KIND_NODE && remove_node(c, e->name) < 0)
        return -1;
    c->object_bytes -= e->bytes;
    /* Swap-remove from the kind's array. */
    (*n)--;
    if (e->idx != *n) {
        arr[e->idx] = arr[*n];
        ks->ents[e->idx] = ks->ents[*n];
        ks->ents[e->idx]->idx = e->idx;
    }
    pp = find_slot(c, k, e->ns, e->name, e->hash);
    *pp = e->next;
    c->nents--;
    return 0;
}

/* ---- decoding (no lock held) ---- */

static int decode(enum kube_kind k, const struct kube_watch_event *ev,
                  struct prep *p, struct err *e)
{
    struct arena scratch, *a;
    void *obj;

    memset(p, 0, sizeof(*p));
    p->type = ev->type;
    if (k != KUBE_KIND_POD && k != KUBE_KIND_NODE) {
        a = malloc(sizeof(*a));
        if (!a)
            return err_set(e, "out of memory");
        arena_init(a, OBJ_CHUNK);
        if (kube_object_from_cjson(a, k, ev->object, NULL, &obj, e) < 0) {
            free_mem(a, true);
            return -1;
        }
        p->obj = obj;
        p->mem = a;
        p->is_arena = true;
        p->bytes = a->total + sizeof(*a);
        obj_key(k, obj, &p->ns, &p->name);
        return 0;
    }
    arena_init(&scratch, 0);
    if (kube_object_from_cjson(&scratch, k, ev->object, NULL, &obj, e) < 0) {
        arena_destroy(&scratch);
        return -1;
    }
    p->obj = k == KUBE_KIND_POD
                 ? (void *)kube_pod_compact(obj, scratch.total, &p->bytes)
                 : (void *)kube_node_compact(obj, scratch.total, &p->bytes);
    arena_destroy(&scratch);
    if (!p->obj)
        return err_set(e, "out of memory");
    p->mem = p->obj;
    obj_key(k, p->obj, &p->ns, &p->name);
    return 0;
}

int kube_cache_apply(struct kube_cache *c, enum kube_kind kind,
                     const struct kube_watch_event *ev, size_t n, struct err *e)
{
    struct prep *p = calloc(n ? n : 1, sizeof(*p));
    struct garbage g = { 0 };
    struct err de = { "" };
    size_t i, done = 0, bad = 0;
    int rc = 0;

    if (!p)
        return err_set(e, "out of memory");
    if (kind <= KUBE_KIND_UNKNOWN || kind >= KUBE_KIND_COUNT) {
        free(p);
        return err_set(e, "kind %d is not cached", (int)kind);
    }
    for (i = 0; i < n; i++) {
        if (decode(kind, &ev[i], &p[i], &de) == 0)
            continue;
        /* Skip it: relisting would not make it decode. */
        if (!bad++)
            err_set(e, "event %zu: %s", i, de.msg);
        memset(&p[i], 0, sizeof(p[i]));
    }
    pthread_rwlock_wrlock(&c->lock);
    for (i = 0; i < n && rc == 0; i++) {
        struct entry *en;

        done = i + 1;
        if (!p[i].obj)
            continue;
        if (p[i].type != KUBE_EVENT_DELETED) {
            rc = upsert(c, kind, &p[i], &g);
            continue;
        }
        en = find(c, kind, p[i].ns, p[i].name);
        rc = en ? delete_entry(c, en, &g) : 0;
        /* The deleted object's own copy is not kept. */
        if (trash_mem(&g, p[i].mem, p[i].is_arena) < 0)
            rc = -1;
    }
    pthread_rwlock_unlock(&c->lock);
    garbage_free(&g);
    /* Objects decoded but not handed to the cache (after a failure). */
    for (i = done; i < n; i++)
        if (p[i].mem)
            free_mem(p[i].mem, p[i].is_arena);
    free(p);
    if (rc < 0)
        return err_set(e, "out of memory applying events");
    if (bad > 1)
        err_prefix(e, "%zu objects skipped, the first: ", bad);
    else if (bad)
        err_prefix(e, "object skipped: ");
    return bad ? -1 : 0;
}

void kube_cache_list_begin(struct kube_cache *c, enum kube_kind kind)
{
    pthread_rwlock_wrlock(&c->lock);
    c->kinds[kind].gen++;
    pthread_rwlock_unlock(&c->lock);
}

void kube_cache_list_end(struct kube_cache *c, enum kube_kind kind)
{
    struct kind_store *ks = &c->kinds[kind];
    struct garbage g = { 0 };
    size_t i;

    pthread_rwlock_wrlock(&c->lock);
    /* Whatever the list did not mention is gone. */
    for (i = *arr_count(&c->objs, kind); i-- > 0;) {
        if (ks->ents[i]->gen != ks->gen && delete_entry(c, ks->ents[i], &g) < 0)
            break;
    }
    c->listed |= KUBE_KIND_BIT(kind);
    if ((c->listed & c->expected) == c->expected)
        atomic_store(&c->synced, true);
    pthread_rwlock_unlock(&c->lock);
    garbage_free(&g);
}

/* ---- life cycle and readers ---- */

struct kube_cache *kube_cache_new(unsigned kinds, struct err *e)
{
    struct kube_cache *c = calloc(1, sizeof(*c));
    pthread_rwlockattr_t attr;

    if (!c) {
        err_set(e, "out of memory");
        return NULL;
    }
    c->expected = kinds ? kinds : KUBE_KINDS_ALL;
    if (cluster_build(&c->cluster, &c->objs, e) < 0) {
        free(c);
        return NULL;
    }
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr,
                                  PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&c->lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    return c;
}

void kube_cache_free(struct kube_cache *c)
{
    size_t i;

    if (!c)
        return;
    kube_informers_stop(c->infs);
    for (i = 0; i < c->nslots; i++) {
        struct entry *e = c->table[i], *next;

        for (; e; e = next) {
            next = e->next;
            free_mem(e->mem, e->is_arena);
            free(e);
        }
    }
    for (i = 0; i < ORPHAN_SLOTS; i++) {
        while (c->orphans[i])
            bucket_free(&c->orphans[i]);
    }
    for (i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
        free(arr_get(&c->objs, arrays[i].kind));
    for (i = 0; i < N_KIND_SLOTS; i++)
        free(c->kinds[i].ents);
    free(c->table);
    for (i = 0; i < c->a_slots; i++) {
        struct assumed *a = c->assumed[i], *next;

        for (; a; a = next) {
            next = a->next;
            free(a->pod);
            free(a);
        }
    }
    free(c->assumed);
    cluster_free(&c->cluster);
    pthread_rwlock_destroy(&c->lock);
    free(c);
}

const struct cluster *kube_cache_read_lock(struct kube_cache *c)
{
    pthread_rwlock_rdlock(&c->lock);
    return &c->cluster;
}

void kube_cache_read_unlock(struct kube_cache *c)
{
    pthread_rwlock_unlock(&c->lock);
}

bool kube_cache_synced(const struct kube_cache *c)
{
    return atomic_load(&c->synced);
}

static void sink_begin(void *arg, enum kube_kind kind)
{
    kube_cache_list_begin(arg, kind);
}

static int sink_apply(void *arg, enum kube_kind kind,
                      const struct kube_watch_event *ev, size_t n,
                      struct err *e)
{
    return kube_cache_apply(arg, kind, ev, n, e);
}

static void sink_end(void *arg, enum kube_kind kind)
{
    kube_cache_list_end(arg, kind);
}

void kube_cache_sink(struct kube_cache *c, struct kube_informer_sink *out)
{
    out->list_begin = sink_begin;
    out->apply = sink_apply;
    out->list_end = sink_end;
    out->arg = c;
}

int kube_cache_start(struct kube_cache *c, struct kube_client *client,
                     const struct kube_informer_opts *o, struct err *e)
{
    struct kube_informer_opts opts = { 0 };
    struct kube_informer_sink sink;

    if (c->infs)
        return err_set(e, "the cache's informers are already running");
    if (o)
        opts = *o;
    opts.kinds = c->expected;
    kube_cache_sink(c, &sink);
    return kube_informers_start(client, &sink, &opts, &c->infs, e);
}

void kube_cache_status(struct kube_cache *c, struct kube_informers_status *out)
{
    if (!c->infs) {
        memset(out, 0, sizeof(*out));
        out->synced = kube_cache_synced(c);
        return;
    }
    kube_informers_status(c->infs, out);
}

void kube_cache_stats(struct kube_cache *c, struct kube_cache_stats *out)
{
    size_t i;

    memset(out, 0, sizeof(*out));
    pthread_rwlock_rdlock(&c->lock);
    for (i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
        out->objects[arrays[i].kind] = *arr_count(&c->objs, arrays[i].kind);
    out->object_bytes = c->object_bytes;
    out->orphan_pods = c->cluster.n_orphan_pods;
    pthread_rwlock_unlock(&c->lock);
}

/* ---- assumed pods (write lock held unless noted) ---- */

static struct assumed **assumed_slot(struct kube_cache *c, const char *ns,
                                     const char *name, uint64_t h)
{
    struct assumed **pp;

    if (!c->a_slots)
        return NULL;
    for (pp = &c->assumed[h & (c->a_slots - 1)]; *pp; pp = &(*pp)->next) {
        const struct kube_pod *p = (*pp)->pod;

        if ((*pp)->hash == h && str_eq(p->name, name) &&
            str_eq(p->namespace, ns))
            return pp;
    }
    return pp;
}

static int assumed_grow(struct kube_cache *c)
{
    size_t n = c->a_slots ? c->a_slots * 2 : 256, i;
    struct assumed **t = calloc(n, sizeof(*t));

    if (!t)
        return -1;
    for (i = 0; i < c->a_slots; i++) {
        struct assumed *a = c->assumed[i], *next;

        for (; a; a = next) {
            next = a->next;
            a->next = t[a->hash & (n - 1)];
            t[a->hash & (n - 1)] = a;
        }
    }
    free(c->assumed);
    c->assumed = t;
    c->a_slots = n;
    return 0;
}

/* Unaccount and free the assumed copy of ns/name, if any. */
static void drop_assumed(struct kube_cache *c, const char *ns, const char *name)
{
    struct assumed **pp =
        assumed_slot(c, ns, name, key_hash(KUBE_KIND_POD, ns, name));
    struct assumed *a = pp ? *pp : NULL;

    if (!a)
        return;
    *pp = a->next;
    c->n_assumed--;
    cluster_remove_pod(&c->cluster, a->pod);
    free(a->pod);
    free(a);
}

int kube_cache_assume_pod(struct kube_cache *c, const struct kube_pod *pod,
                          const char *node)
{
    struct kube_pod tmp = *pod;
    struct assumed *a = calloc(1, sizeof(*a)), **pp;
    const struct entry *real;
    size_t size;
    int rc = -1;

    tmp.node_name = node;
    if (!a || !(a->pod = kube_pod_compact(&tmp, 0, &size))) {
        free(a);
        return -1;
    }
    a->hash = key_hash(KUBE_KIND_POD, pod->namespace, pod->name);
    pthread_rwlock_wrlock(&c->lock);
    drop_assumed(c, pod->namespace, pod->name);
    real = find(c, KUBE_KIND_POD, pod->namespace, pod->name);
    if (real && real->pod_state != POD_NONE) {
        rc = KUBE_CACHE_POD_BOUND; /* the watch already placed it */
        goto out;
    }
    if (c->n_assumed + 1 > c->a_slots && assumed_grow(c) < 0)
        goto out;
    rc = cluster_add_pod(&c->cluster, a->pod);
    if (rc == 0) /* no such node (any more): not an orphan of ours */
        cluster_remove_pod(&c->cluster, a->pod);
    if (rc != 1)
        goto out;
    pp = assumed_slot(c, pod->namespace, pod->name, a->hash);
    a->next = *pp;
    *pp = a;
    c->n_assumed++;
    a = NULL;
out:
    pthread_rwlock_unlock(&c->lock);
    if (a) {
        free(a->pod);
        free(a);
    }
    return rc;
}

int kube_cache_forget_pod(struct kube_cache *c, const char *ns,
                          const char *name)
{
    size_t before;

    pthread_rwlock_wrlock(&c->lock);
    before = c->n_assumed;
    if (before)
        drop_assumed(c, ns, name);
    before -= c->n_assumed;
    pthread_rwlock_unlock(&c->lock);
    return before ? 1 : 0;
}

void kube_cache_finish_binding(struct kube_cache *c, const char *ns,
                               const char *name, double deadline)
{
    struct assumed **pp;

    pthread_rwlock_wrlock(&c->lock);
    pp = assumed_slot(c, ns, name, key_hash(KUBE_KIND_POD, ns, name));
    if (pp && *pp)
        (*pp)->deadline = deadline > 0 ? deadline : 1e-9;
    pthread_rwlock_unlock(&c->lock);
}

size_t kube_cache_cleanup_assumed(struct kube_cache *c, double now)
{
    size_t i, n = 0;

    pthread_rwlock_wrlock(&c->lock);
    for (i = 0; c->n_assumed && i < c->a_slots; i++) {
        struct assumed **pp = &c->assumed[i];

        while (*pp) {
            struct assumed *a = *pp;

            if (a->deadline <= 0 || a->deadline > now) {
                pp = &a->next;
                continue;
            }
            *pp = a->next;
            c->n_assumed--;
            cluster_remove_pod(&c->cluster, a->pod);
            free(a->pod);
            free(a);
            n++;
        }
    }
    pthread_rwlock_unlock(&c->lock);
    return n;
}

bool kube_cache_pod_assumed(struct kube_cache *c, const char *ns,
                            const char *name)
{
    struct assumed **pp;
    bool found;

    pthread_rwlock_rdlock(&c->lock);
    pp = assumed_slot(c, ns, name, key_hash(KUBE_KIND_POD, ns, name));
    found = pp && *pp;
    pthread_rwlock_unlock(&c->lock);
    return found;
}
