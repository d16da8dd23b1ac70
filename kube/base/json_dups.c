/*
 * json_dups.c: duplicate keys resolved as Go's encoding/json decodes them
 * (see json_dups.h). Go's decoder (decode.go, object()) stores each member
 * in turn: d.value into the same field, so a later scalar or array
 * replaces, and a later object fills the struct or map already there.
 */
#include "kube/base/json_dups.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/base/hash.h"

/* Objects up to this many members are resolved pairwise. */
#define PAIRWISE_MAX 16

static void unlink_member(cJSON *obj, cJSON *m)
{
    if (obj->child == m) {
        obj->child = m->next;
        if (obj->child)
            obj->child->prev = m->prev;
    } else {
        m->prev->next = m->next;
        if (m->next)
            m->next->prev = m->prev;
        else
            obj->child->prev = m->prev;
    }
    m->next = m->prev = NULL;
}

/* Move the members of from to the end of into's (from ends empty). */
static void append_members(cJSON *into, cJSON *from)
{
    cJSON *first = from->child, *last;

    if (!first)
        return;
    last = first->prev;
    if (!into->child) {
        into->child = first;
    } else {
        cJSON *tail = into->child->prev;

        tail->next = first;
        first->prev = tail;
        into->child->prev = last;
    }
    from->child = NULL;
}

/*
 * e came first, m later, under one key (m is in obj): Go's outcome. Two
 * objects merge into e (m goes); otherwise e goes and m stays. Returns
 * the member that stays.
 */
static cJSON *settle(struct arena *a, cJSON *obj, cJSON *e, cJSON *m)
{
    if (cJSON_IsObject(e) && cJSON_IsObject(m)) {
        bool both = e->child && m->child;

        append_members(e, m);
        unlink_member(obj, m);
        if (both)
            json_dups_resolve(a, e);
        return e;
    }
    unlink_member(obj, e);
    return m;
}

/* Objects of at most PAIRWISE_MAX members: each key against the earlier
 * ones whose hash is the same. */
static void resolve_pairwise(struct arena *a, cJSON *obj)
{
    unsigned char hash[PAIRWISE_MAX];
    cJSON *m, *next, *e;
    size_t i, k;

    for (m = obj->child, i = 0; m; m = next) {
        unsigned h = json_dups_key_hash(m->string, strlen(m->string));
        bool settled = false;

        next = m->next;
        for (e = obj->child, k = 0; e != m; e = e->next, k++) {
            if (hash[k] == h && !strcmp(e->string, m->string)) {
                /* e stays in place (merge) or goes (m takes over) */
                if (settle(a, obj, e, m) == m) {
                    memmove(hash + k, hash + k + 1, i - k - 1);
                    hash[i - 1] = (unsigned char)h;
                }
                settled = true;
                break;
            }
        }
        if (!settled)
            hash[i++] = (unsigned char)h;
    }
}

void json_dups_resolve(struct arena *a, cJSON *obj)
{
    size_t n = 0, cap = 1, i;
    cJSON *m, *next, **slots;

    for (m = obj->child; m; m = m->next)
        n++;
    if (n <= PAIRWISE_MAX) {
        resolve_pairwise(a, obj);
        return;
    }
    while (cap < n * 2)
        cap <<= 1;
    slots = a ? arena_calloc(a, cap, sizeof(*slots)) : NULL;
    if (!slots) {
        resolve_pairwise(a, obj);
        return;
    }
    for (m = obj->child; m; m = next) {
        next = m->next;
        i = (size_t)kube_fnv_str(KUBE_FNV_OFFSET, m->string) & (cap - 1);
        while (slots[i] && strcmp(slots[i]->string, m->string))
            i = (i + 1) & (cap - 1);
        slots[i] = slots[i] ? settle(a, obj, slots[i], m) : m;
    }
}

void json_dups_resolve_tree(struct arena *a, cJSON *v)
{
    cJSON *c;

    if (cJSON_IsObject(v))
        json_dups_resolve(a, v);
    for (c = v->child; c; c = c->next) {
        if (cJSON_IsObject(c) || cJSON_IsArray(c))
            json_dups_resolve_tree(a, c);
    }
}

int json_key_names_field(const char *k, size_t n, const char *name)
{
    const unsigned char *p = (const unsigned char *)k, *end = p + n;

    for (; *name; name++) {
        unsigned want = (unsigned char)*name | 0x20u;

        if (p == end)
            return 0;
        if (*p == (unsigned char)*name) {
            p++;
        } else if (p + 1 < end && p[0] == 0xc5 && p[1] == 0xbf) { /* U+017F */
            if (want != 's')
                return 0;
            p += 2;
        } else if (p + 2 < end && p[0] == 0xe2 && p[1] == 0x84 &&
                   p[2] == 0xaa) { /* U+212A */
            if (want != 'k')
                return 0;
            p += 3;
        } else if (*p < 0x80 && (*p | 0x20u) == want && want >= 'a' &&
                   want <= 'z') {
            p++;
        } else {
            return 0;
        }
    }
    return p == end;
}

cJSON *json_member_go(struct arena *a, cJSON *obj, const char *key)
{
    cJSON *m, *next, *cur = NULL;

    if (!cJSON_IsObject(obj))
        return NULL;
    for (m = obj->child; m; m = next) {
        next = m->next;
        if (!m->string ||
            !json_key_names_field(m->string, strlen(m->string), key))
            continue;
        cur = cur ? settle(a, obj, cur, m) : m;
    }
    return cur;
}
