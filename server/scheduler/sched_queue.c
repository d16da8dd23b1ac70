/*
 * sched_queue.c: the scheduling queue (see sched_queue.h): two binary
 * heaps (active, backoff), the unschedulable list and a hash table by
 * "namespace/name" that finds a pod wherever it waits.
 */
#include "server/scheduler/sched_queue.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/hash.h"

/* ---- ordering ---- */

/* PrioritySort's Less: priority, then queue time; then creation, arrival. */
static bool active_less(const struct sched_qitem *a,
                        const struct sched_qitem *b)
{
    if (a->priority != b->priority)
        return a->priority > b->priority;
    if (a->timestamp != b->timestamp)
        return a->timestamp < b->timestamp;
    if (a->created != b->created)
        return a->created < b->created;
    return a->seq < b->seq;
}

double sched_queue_backoff(const struct sched_queue *q, int attempts)
{
    double d = q->initial_backoff;
    int i;

    for (i = 1; i < attempts; i++) {
        d *= 2;
        if (d > q->max_backoff)
            return q->max_backoff;
    }
    return d;
}

static double backoff_expiry(const struct sched_queue *q,
                             const struct sched_qitem *it)
{
    return it->timestamp + sched_queue_backoff(q, it->attempts);
}

/* ---- heaps ---- */

typedef bool heap_less_fn(const struct sched_queue *q,
                          const struct sched_qitem *a,
                          const struct sched_qitem *b);

static bool by_order(const struct sched_queue *q, const struct sched_qitem *a,
                     const struct sched_qitem *b)
{
    (void)q;
    return active_less(a, b);
}

static bool by_expiry(const struct sched_queue *q, const struct sched_qitem *a,
                      const struct sched_qitem *b)
{
    double ea = backoff_expiry(q, a), eb = backoff_expiry(q, b);

    return ea != eb ? ea < eb : a->seq < b->seq;
}

static void heap_set(struct sched_heap *h, size_t i, struct sched_qitem *it)
{
    h->items[i] = it;
    it->heap_idx = i;
}

static void sift_up(const struct sched_queue *q, struct sched_heap *h, size_t i,
                    heap_less_fn *less)
{
    struct sched_qitem *it = h->items[i];

    while (i > 0) {
        size_t parent = (i - 1) / 2;

        if (!less(q, it, h->items[parent]))
            break;
        heap_set(h, i, h->items[parent]);
        i = parent;
    }
    heap_set(h, i, it);
}

static void sift_down(const struct sched_queue *q, struct sched_heap *h,
                      size_t i, heap_less_fn *less)
{
    struct sched_qitem *it = h->items[i];

    for (;;) {
        size_t l = 2 * i + 1, best = l;

        if (l >= h->n)
            break;
        if (l + 1 < h->n && less(q, h->items[l + 1], h->items[l]))
            best = l + 1;
        if (!less(q, h->items[best], it))
            break;
        heap_set(h, i, h->items[best]);
        i = best;
    }
    heap_set(h, i, it);
}

static int heap_push(const struct sched_queue *q, struct sched_heap *h,
                     struct sched_qitem *it, heap_less_fn *less)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        struct sched_qitem **n = realloc(h->items, cap * sizeof(*n));

        if (!n)
            return -1;
        h->items = n;
        h->cap = cap;
    }
    heap_set(h, h->n++, it);
    sift_up(q, h, h->n - 1, less);
    return 0;
}

static void heap_remove(const struct sched_queue *q, struct sched_heap *h,
                        size_t i, heap_less_fn *less)
{
    struct sched_qitem *moved;

    h->n--;
    if (i == h->n)
        return;
    moved = h->items[h->n];
    heap_set(h, i, moved);
    sift_down(q, h, i, less);
    sift_up(q, h, moved->heap_idx, less);
}

/* ---- the key table ---- */

static uint64_t key_hash(const char *s)
{
    return kube_fnv_str(KUBE_FNV_OFFSET, s);
}

static struct sched_qitem **slot(struct sched_queue *q, const char *key)
{
    struct sched_qitem **pp;

    if (!q->n_slots)
        return NULL;
    pp = &q->slots[key_hash(key) & (q->n_slots - 1)];
    while (*pp && strcmp((*pp)->key, key))
        pp = &(*pp)->next;
    return pp;
}

static int table_grow(struct sched_queue *q)
{
    size_t n = q->n_slots ? q->n_slots * 2 : 256, i;
    struct sched_qitem **t = calloc(n, sizeof(*t));

    if (!t)
        return -1;
    for (i = 0; i < q->n_slots; i++) {
        struct sched_qitem *it = q->slots[i], *next;

        for (; it; it = next) {
            next = it->next;
            it->next = t[key_hash(it->key) & (n - 1)];
            t[key_hash(it->key) & (n - 1)] = it;
        }
    }
    free(q->slots);
    q->slots = t;
    q->n_slots = n;
    return 0;
}

struct sched_qitem *sched_queue_find(struct sched_queue *q, const char *key)
{
    struct sched_qitem **pp = slot(q, key);

    return pp ? *pp : NULL;
}

/* ---- where an item waits ---- */

static void unsched_link(struct sched_queue *q, struct sched_qitem *it)
{
    it->u_prev = NULL;
    it->u_next = q->unsched;
    if (q->unsched)
        q->unsched->u_prev = it;
    q->unsched = it;
    q->n_unsched++;
}

static void unsched_unlink(struct sched_queue *q, struct sched_qitem *it)
{
    if (it->u_prev)
        it->u_prev->u_next = it->u_next;
    else
        q->unsched = it->u_next;
    if (it->u_next)
        it->u_next->u_prev = it->u_prev;
    it->u_prev = it->u_next = NULL;
    q->n_unsched--;
}

/* Take it out of whatever holds it (it stays in the key table). */
static void detach(struct sched_queue *q, struct sched_qitem *it)
{
    switch (it->state) {
    case SCHED_Q_ACTIVE:
        heap_remove(q, &q->active, it->heap_idx, by_order);
        break;
    case SCHED_Q_BACKOFF:
        heap_remove(q, &q->backoff, it->heap_idx, by_expiry);
        break;
    case SCHED_Q_UNSCHEDULABLE:
        unsched_unlink(q, it);
        break;
    case SCHED_Q_IN_FLIGHT:
        q->n_in_flight--;
        break;
    }
}

/* Put a detached item into state s. Returns 0, or -1 out of memory. */
static int attach(struct sched_queue *q, struct sched_qitem *it,
                  enum sched_qstate s)
{
    it->state = s;
    switch (s) {
    case SCHED_Q_ACTIVE:
        return heap_push(q, &q->active, it, by_order);
    case SCHED_Q_BACKOFF:
        return heap_push(q, &q->backoff, it, by_expiry);
    case SCHED_Q_UNSCHEDULABLE:
        unsched_link(q, it);
        if (it->timestamp + q->unsched_max < q->unsched_due)
            q->unsched_due = it->timestamp + q->unsched_max;
        return 0;
    case SCHED_Q_IN_FLIGHT:
        q->n_in_flight++;
        return 0;
    }
    return 0;
}

static void item_free(struct sched_queue *q, struct sched_qitem *it)
{
    if (q->free_payload && it->payload)
        q->free_payload(it->payload);
    free(it->last_message);
    free(it->bound_node);
    free(it->key);
    free(it);
}

/* Detach, unlink from the table and free. */
static void drop(struct sched_queue *q, struct sched_qitem *it)
{
    struct sched_qitem **pp = slot(q, it->key);

    detach(q, it);
    if (pp && *pp == it) {
        *pp = it->next;
        q->n_items--;
    }
    item_free(q, it);
}

/* ---- the API ---- */

void sched_queue_init(struct sched_queue *q, sched_payload_free_fn *fp)
{
    memset(q, 0, sizeof(*q));
    q->initial_backoff = SCHED_QUEUE_INITIAL_BACKOFF;
    q->max_backoff = SCHED_QUEUE_MAX_BACKOFF;
    q->unsched_max = SCHED_QUEUE_UNSCHED_MAX;
    q->free_payload = fp;
    q->move_request_cycle = -1;
    q->unsched_due = HUGE_VAL;
}

void sched_queue_destroy(struct sched_queue *q)
{
    size_t i;

    for (i = 0; i < q->n_slots; i++) {
        struct sched_qitem *it = q->slots[i], *next;

        for (; it; it = next) {
            next = it->next;
            item_free(q, it);
        }
    }
    free(q->slots);
    free(q->active.items);
    free(q->backoff.items);
    memset(q, 0, sizeof(*q));
}

static bool backing_off(const struct sched_queue *q,
                        const struct sched_qitem *it, double now)
{
    return backoff_expiry(q, it) > now;
}

/* Where a waiting pod goes when something may have made it fit. */
static enum sched_qstate wake_state(const struct sched_queue *q,
                                    const struct sched_qitem *it, double now)
{
    return backing_off(q, it, now) ? SCHED_Q_BACKOFF : SCHED_Q_ACTIVE;
}

static enum sched_qadd update(struct sched_queue *q, struct sched_qitem *it,
                              void *payload, int32_t priority, int64_t created,
                              uint64_t spec_hash, double now)
{
    bool changed = it->spec_hash != spec_hash;

    it->deleted = false; /* it exists (again) */
    if (q->free_payload && it->payload)
        q->free_payload(it->payload);
    it->payload = payload;
    it->created = created;
    it->spec_hash = spec_hash;
    if (it->state == SCHED_Q_ACTIVE && it->priority != priority) {
        detach(q, it);
        it->priority = priority;
        return attach(q, it, SCHED_Q_ACTIVE) < 0 ? SCHED_QADD_ERROR
                                                 : SCHED_QADD_UPDATED;
    }
    it->priority = priority;
    if (it->state != SCHED_Q_UNSCHEDULABLE || !changed)
        return SCHED_QADD_UPDATED;
    detach(q, it);
    if (attach(q, it, wake_state(q, it, now)) < 0)
        return SCHED_QADD_ERROR;
    return SCHED_QADD_MOVED;
}

enum sched_qadd sched_queue_add(struct sched_queue *q, const char *key,
                                void *payload, int32_t priority,
                                int64_t created, uint64_t spec_hash, double now)
{
    struct sched_qitem **pp, *it;

    it = sched_queue_find(q, key);
    if (it)
        return update(q, it, payload, priority, created, spec_hash, now);
    if (q->n_items + 1 > q->n_slots && table_grow(q) < 0)
        goto oom;
    it = calloc(1, sizeof(*it));
    if (!it || !(it->key = strdup(key))) {
        free(it);
        goto oom;
    }
    it->payload = payload;
    it->priority = priority;
    it->created = created;
    it->spec_hash = spec_hash;
    it->timestamp = now;
    it->initial_attempt = now;
    it->seq = q->seq++;
    it->cycle = -1;
    if (attach(q, it, SCHED_Q_ACTIVE) < 0) {
        it->payload = NULL;
        item_free(q, it);
        goto oom;
    }
    pp = slot(q, key);
    it->next = *pp;
    *pp = it;
    q->n_items++;
    return SCHED_QADD_NEW;
oom:
    if (q->free_payload && payload)
        q->free_payload(payload);
    return SCHED_QADD_ERROR;
}

void sched_queue_delete(struct sched_queue *q, const char *key)
{
    struct sched_qitem *it = sched_queue_find(q, key);

    if (!it)
        return;
    if (it->state == SCHED_Q_IN_FLIGHT) {
        it->deleted = true;
        return;
    }
    drop(q, it);
}

size_t sched_queue_drop_unmarked(struct sched_queue *q, unsigned mark)
{
    size_t i, n = 0;

    for (i = 0; i < q->n_slots; i++) {
        struct sched_qitem **pp = &q->slots[i];

        while (*pp) {
            struct sched_qitem *it = *pp;

            if (it->mark == mark || it->state == SCHED_Q_IN_FLIGHT) {
                if (it->mark != mark) {
                    it->deleted = true;
                    n++;
                }
                pp = &it->next;
                continue;
            }
            *pp = it->next;
            q->n_items--;
            detach(q, it);
            item_free(q, it);
            n++;
        }
    }
    return n;
}

struct sched_qitem *sched_queue_pop(struct sched_queue *q)
{
    struct sched_qitem *it;

    if (!q->active.n)
        return NULL;
    it = q->active.items[0];
    detach(q, it);
    attach(q, it, SCHED_Q_IN_FLIGHT);
    it->attempts++;
    it->cycle = ++q->scheduling_cycle;
    return it;
}

void sched_queue_done(struct sched_queue *q, struct sched_qitem *it)
{
    drop(q, it);
}

void sched_queue_requeue(struct sched_queue *q, struct sched_qitem *it,
                         double now)
{
    if (it->deleted) {
        drop(q, it);
        return;
    }
    detach(q, it);
    it->timestamp = now;
    if (attach(q, it,
               q->move_request_cycle >= it->cycle ? SCHED_Q_BACKOFF
                                                  : SCHED_Q_UNSCHEDULABLE) < 0)
        drop(q, it); /* out of memory: the next event brings it back */
}

static void move(struct sched_queue *q, struct sched_qitem *it, double now)
{
    detach(q, it);
    if (attach(q, it, wake_state(q, it, now)) < 0)
        drop(q, it);
}

size_t sched_queue_move_if(struct sched_queue *q, double now,
                           sched_qitem_match_fn *match, void *arg)
{
    struct sched_qitem *it, *next;
    size_t n = 0;

    for (it = q->unsched; it; it = next) {
        next = it->u_next;
        if (!match || match(it, arg)) {
            move(q, it, now);
            n++;
        }
    }
    /* movePodsToActiveOrBackoffQueue sets it even when nothing moved */
    q->move_request_cycle = q->scheduling_cycle;
    return n;
}

void sched_queue_move_all(struct sched_queue *q, double now)
{
    sched_queue_move_if(q, now, NULL, NULL);
}

double sched_queue_flush(struct sched_queue *q, double now)
{
    struct sched_qitem *it, *next;
    double due = HUGE_VAL;

    while (q->backoff.n) {
        it = q->backoff.items[0];
        if (backoff_expiry(q, it) > now) {
            due = backoff_expiry(q, it);
            break;
        }
        detach(q, it);
        if (attach(q, it, SCHED_Q_ACTIVE) < 0)
            drop(q, it);
    }
    if (now < q->unsched_due)
        return due < q->unsched_due ? due : q->unsched_due;
    /* flushUnschedulableQLeftover, run only when something is due. */
    q->unsched_due = HUGE_VAL;
    for (it = q->unsched; it; it = next) {
        next = it->u_next;
        if (now - it->timestamp >= q->unsched_max)
            move(q, it, now);
        else if (it->timestamp + q->unsched_max < q->unsched_due)
            q->unsched_due = it->timestamp + q->unsched_max;
    }
    return due < q->unsched_due ? due : q->unsched_due;
}

size_t sched_queue_len(const struct sched_queue *q, enum sched_qstate s)
{
    switch (s) {
    case SCHED_Q_ACTIVE:
        return q->active.n;
    case SCHED_Q_BACKOFF:
        return q->backoff.n;
    case SCHED_Q_UNSCHEDULABLE:
        return q->n_unsched;
    case SCHED_Q_IN_FLIGHT:
        return q->n_in_flight;
    }
    return 0;
}

void sched_queue_set_message(struct sched_qitem *it, const char *msg)
{
    char *m = msg ? strdup(msg) : NULL;

    free(it->last_message);
    it->last_message = m;
}
