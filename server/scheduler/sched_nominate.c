/*
 * sched_nominate.c: the nominator (sched_nominate.h): a small array, as
 * few pods wait nominated at a time.
 */
#include "server/scheduler/sched_nominate.h"

#include <stdlib.h>
#include <string.h>

#include "server/scheduler/scheduler.h"

static struct sched_nominee *find(struct scheduler *s, const char *key)
{
    size_t i;

    for (i = 0; i < s->n_noms; i++) {
        if (!strcmp(s->noms[i].key, key))
            return &s->noms[i];
    }
    return NULL;
}

static void clear(struct sched_nominee *n)
{
    free(n->key);
    free(n->node);
    sched_pod_release(n->sp);
}

int sched_nominate_set(struct scheduler *s, const char *key,
                       struct sched_pod *sp, const char *node, bool from_api)
{
    struct sched_nominee *n = find(s, key), fresh;

    fresh.key = strdup(key);
    fresh.node = strdup(node);
    fresh.sp = sp;
    fresh.from_api = from_api;
    if (!fresh.key || !fresh.node) {
        free(fresh.key);
        free(fresh.node);
        return -1;
    }
    if (!n) {
        if (s->n_noms == s->cap_noms) {
            size_t cap = s->cap_noms ? 2 * s->cap_noms : 8;
            struct sched_nominee *g = realloc(s->noms, cap * sizeof(*g));

            if (!g) {
                free(fresh.key);
                free(fresh.node);
                return -1;
            }
            s->noms = g;
            s->cap_noms = cap;
        }
        n = &s->noms[s->n_noms++];
    } else {
        clear(n);
    }
    atomic_fetch_add(&sp->refs, 1);
    *n = fresh;
    return 0;
}

void sched_nominate_drop(struct scheduler *s, const char *key)
{
    struct sched_nominee *n = find(s, key);

    if (!n)
        return;
    clear(n);
    *n = s->noms[--s->n_noms];
}

void sched_nominate_on_pod(struct scheduler *s, const char *key,
                           struct sched_pod *sp)
{
    const char *nnn = sp->pod.nominated_node_name;
    struct sched_nominee *n;

    if (nnn && *nnn) {
        sched_nominate_set(s, key, sp, nnn, true);
        return;
    }
    n = find(s, key);
    if (!n)
        return;
    if (n->from_api) {
        sched_nominate_drop(s, key);
        return;
    }
    atomic_fetch_add(&sp->refs, 1);
    sched_pod_release(n->sp);
    n->sp = sp;
}

size_t sched_nominate_snapshot(struct scheduler *s, struct engine_nominee **out,
                               struct sched_pod ***refs)
{
    size_t i, n = s->n_noms;

    *out = NULL;
    *refs = NULL;
    if (!n)
        return 0;
    *out = malloc(n * sizeof(**out));
    *refs = malloc(n * sizeof(**refs));
    if (!*out || !*refs) {
        free(*out);
        free(*refs);
        *out = NULL;
        *refs = NULL;
        return 0; /* without the nominations: as if none */
    }
    for (i = 0; i < n; i++) {
        struct sched_nominee *x = &s->noms[i];

        atomic_fetch_add(&x->sp->refs, 1);
        (*refs)[i] = x->sp;
        (*out)[i].pod = &x->sp->pod;
        /* A copy: the entry may be dropped during the decision (NULL,
         * when out of memory, matches no node). */
        (*out)[i].node = strdup(x->node);
    }
    return n;
}

void sched_nominate_release(struct engine_nominee *out, struct sched_pod **refs,
                            size_t n)
{
    size_t i;

    for (i = 0; out && i < n; i++)
        free((char *)out[i].node);
    for (i = 0; refs && i < n; i++)
        sched_pod_release(refs[i]);
    free(out);
    free(refs);
}

void sched_nominate_free(struct scheduler *s)
{
    size_t i;

    for (i = 0; i < s->n_noms; i++)
        clear(&s->noms[i]);
    free(s->noms);
    s->noms = NULL;
    s->n_noms = s->cap_noms = 0;
}
