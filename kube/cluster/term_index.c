/*
 * term_index.c: interned pod affinity terms (see term_index.h). Copies
 * are malloc'd (kube_pod_affinity_term_compact) because terms come and go
 * with pods for the life of a live cache.
 */
#include "kube/cluster/term_index.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cluster/compact.h"
#include "kube/base/hash.h"

/* Strings hash with their terminator, so ("ab","c") differs from ("a","bc");
 * NULL hashes apart from "". */
static uint64_t mix_str(uint64_t h, const char *s)
{
    if (!s)
        return kube_fnv_bytes(h, "\xff", 1);
    return kube_fnv_bytes(h, s, strlen(s) + 1);
}

static uint64_t mix_size(uint64_t h, size_t n)
{
    return kube_fnv_bytes(h, &n, sizeof(n));
}

static uint64_t mix_selector(uint64_t h, const struct kube_label_selector *s)
{
    size_t i, j;

    if (!s)
        return mix_str(h, NULL);
    h = mix_size(h, s->n_reqs);
    for (i = 0; i < s->n_reqs; i++) {
        const struct kube_requirement *r = &s->reqs[i];

        h = mix_str(h, r->key);
        h = mix_size(h, (size_t)r->op);
        h = mix_size(h, r->n_values);
        for (j = 0; j < r->n_values; j++)
            h = mix_str(h, r->values[j]);
    }
    return h;
}

static uint64_t term_hash(const struct kube_pod_affinity_term *t,
                          const char *owner_ns)
{
    uint64_t h = KUBE_FNV_OFFSET;
    size_t i;

    h = mix_selector(h, t->selector);
    h = mix_size(h, t->n_namespaces);
    for (i = 0; i < t->n_namespaces; i++)
        h = mix_str(h, t->namespaces[i]);
    h = mix_selector(h, t->namespace_selector);
    h = mix_str(h, t->topology_key);
    return mix_str(h, owner_ns);
}

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return !strcmp(a, b);
}

static bool selector_eq(const struct kube_label_selector *a,
                        const struct kube_label_selector *b)
{
    size_t i, j;

    if (!a || !b)
        return a == b;
    if (a->n_reqs != b->n_reqs || !str_eq(a->invalid, b->invalid))
        return false;
    for (i = 0; i < a->n_reqs; i++) {
        const struct kube_requirement *x = &a->reqs[i], *y = &b->reqs[i];

        if (x->op != y->op || x->n_values != y->n_values ||
            x->int_value != y->int_value || !str_eq(x->key, y->key))
            return false;
        for (j = 0; j < x->n_values; j++) {
            if (!str_eq(x->values[j], y->values[j]))
                return false;
        }
    }
    return true;
}

static bool term_eq(const struct term_index_term *e,
                    const struct kube_pod_affinity_term *t,
                    const char *owner_ns)
{
    const struct kube_pod_affinity_term *u = e->term;
    size_t i;

    if (u->n_namespaces != t->n_namespaces || !str_eq(e->owner_ns, owner_ns) ||
        !str_eq(u->topology_key, t->topology_key))
        return false;
    for (i = 0; i < t->n_namespaces; i++) {
        if (!str_eq(u->namespaces[i], t->namespaces[i]))
            return false;
    }
    return selector_eq(u->selector, t->selector) &&
           selector_eq(u->namespace_selector, t->namespace_selector);
}

/* The namespace an owner gives its term: only one that names none (with a
 * namespaceSelector too: a release without that field, D11, reads the
 * term as its owner's namespace). */
static const char *meant_ns(const struct kube_pod_affinity_term *t,
                            const char *owner_ns)
{
    if (t->n_namespaces)
        return NULL;
    return owner_ns ? owner_ns : "";
}

static void slot_put(struct term_index *x, uint32_t id)
{
    size_t mask = x->n_slots - 1, s;

    for (s = x->terms[id].hash & mask; x->slots[s]; s = (s + 1) & mask)
        ;
    x->slots[s] = id + 1;
    x->n_used++;
}

static int slots_grow(struct term_index *x)
{
    uint32_t *old = x->slots;
    size_t n = x->n_slots ? x->n_slots * 2 : 64, i;

    x->slots = calloc(n, sizeof(*x->slots));
    if (!x->slots) {
        x->slots = old;
        return -1;
    }
    x->n_slots = n;
    x->n_used = 0;
    for (i = 0; i < x->n_ids; i++) {
        if (x->terms[i].term)
            slot_put(x, (uint32_t)i);
    }
    free(old);
    return 0;
}

/* A free id, from the free list or a new one at the end. */
static int new_id(struct term_index *x, uint32_t *id)
{
    if (x->n_free) {
        *id = x->free_ids[--x->n_free];
        return 0;
    }
    if (x->n_ids == x->cap_ids) {
        uint32_t cap = x->cap_ids ? x->cap_ids * 2 : 64;
        struct term_index_term *t;
        uint32_t *f;

        if (cap <= x->cap_ids)
            return -1; /* ids exhausted */
        t = realloc(x->terms, cap * sizeof(*t));
        if (!t)
            return -1;
        x->terms = t;
        f = realloc(x->free_ids, cap * sizeof(*f));
        if (!f)
            return -1;
        x->free_ids = f;
        x->cap_ids = cap;
    }
    *id = x->n_ids++;
    return 0;
}

int term_index_intern(struct term_index *x,
                      const struct kube_pod_affinity_term *t,
                      const char *owner_ns, uint32_t *id)
{
    const char *ns = meant_ns(t, owner_ns);
    uint64_t h = term_hash(t, ns);
    struct term_index_term *e;
    size_t mask, s, size;
    uint32_t nid;

    if ((x->n_used + 1) * 2 > x->n_slots && slots_grow(x) < 0)
        return -1;
    mask = x->n_slots - 1;
    for (s = h & mask; x->slots[s]; s = (s + 1) & mask) {
        e = &x->terms[x->slots[s] - 1];
        if (e->hash == h && term_eq(e, t, ns)) {
            e->refs++;
            *id = x->slots[s] - 1;
            return 0;
        }
    }
    if (new_id(x, &nid) < 0)
        return -1;
    e = &x->terms[nid];
    memset(e, 0, sizeof(*e));
    e->term = kube_pod_affinity_term_compact(t, &size);
    if (!e->term || (ns && !(e->owner_ns = strdup(ns)))) {
        free(e->term);
        e->term = NULL;
        x->free_ids[x->n_free++] = nid;
        return -1;
    }
    e->hash = h;
    e->refs = 1;
    x->slots[s] = nid + 1;
    x->n_used++;
    *id = nid;
    return 0;
}

/* Remove id from the table, shifting later entries of its run back. */
static void slot_delete(struct term_index *x, uint32_t id)
{
    size_t mask = x->n_slots - 1, s, j, home;

    for (s = x->terms[id].hash & mask; x->slots[s] != id + 1;
         s = (s + 1) & mask)
        ;
    x->slots[s] = 0;
    x->n_used--;
    for (j = (s + 1) & mask; x->slots[j]; j = (j + 1) & mask) {
        home = x->terms[x->slots[j] - 1].hash & mask;
        /* Move j back to the hole unless its home lies in (s, j]. */
        if ((j > s && (home <= s || home > j)) ||
            (j < s && (home <= s && home > j))) {
            x->slots[s] = x->slots[j];
            x->slots[j] = 0;
            s = j;
        }
    }
}

void term_index_release(struct term_index *x, uint32_t id)
{
    struct term_index_term *e = &x->terms[id];

    if (--e->refs)
        return;
    slot_delete(x, id);
    free(e->term);
    free((char *)e->owner_ns);
    e->term = NULL;
    e->owner_ns = NULL;
    x->free_ids[x->n_free++] = id;
}

const struct term_index_term *term_index_get(const struct term_index *x,
                                             uint32_t id)
{
    return &x->terms[id];
}

size_t term_index_size(const struct term_index *x)
{
    return x->n_ids - x->n_free;
}

void term_index_free(struct term_index *x)
{
    uint32_t i;

    for (i = 0; i < x->n_ids; i++) {
        free(x->terms[i].term);
        free((char *)x->terms[i].owner_ns);
    }
    free(x->terms);
    free(x->free_ids);
    free(x->slots);
    memset(x, 0, sizeof(*x));
}
