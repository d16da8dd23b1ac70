/*
 * list_page.c: a List page item by item (see list_page.h). client-go
 * decodes a page whole; we read it with the pull reader so that a page of
 * 500 full objects never becomes one tree next to its text.
 */
#include "kube/client/list_page.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kube/base/json_parse.h"
#include "kube/client/informer.h"

struct page {
    const struct kube_list_reader *r;
    struct json_reader jr;
    struct arena scratch; /* keys and skipped members */
    size_t n;             /* items in the current batch */
    struct err *e;
};

static int deliver(struct page *p)
{
    int rc = 0;

    if (p->n)
        rc = p->r->fn(p->r->arg, p->r->slot, p->n, p->e);
    p->n = 0;
    arena_destroy(p->r->a);
    return rc;
}

static int read_items(struct page *p, struct kube_list_meta *out)
{
    struct cJSON *item;
    char *key;
    int c = json_reader_peek(&p->jr), rc;

    if (c == 'n') /* "items": null, as Go encodes an empty slice it left nil */
        return json_reader_value(&p->jr, &p->scratch, &item);
    if (c != '[')
        return err_set(p->e, "list: \"items\" is not an array");
    if (json_reader_enter(&p->jr) < 0)
        return -1;
    while ((rc = json_reader_next(&p->jr, &p->scratch, &key)) == 1) {
        if (json_reader_value(&p->jr, p->r->a, &item) < 0)
            return -1;
        if (!cJSON_IsObject(item))
            return err_set(p->e, "list: items[%zu] is not an object",
                           out->n_items);
        p->r->slot[p->n].type = KUBE_EVENT_ADDED;
        p->r->slot[p->n++].object = item;
        out->n_items++;
        if ((p->n == p->r->max_items || p->r->a->total >= p->r->max_bytes) &&
            deliver(p) < 0)
            return -1;
    }
    return rc;
}

static int read_meta(struct page *p, struct kube_list_meta *out)
{
    struct cJSON *m;
    const cJSON *rv, *cont;

    if (json_reader_value(&p->jr, &p->scratch, &m) < 0)
        return -1;
    rv = cJSON_GetObjectItemCaseSensitive(m, "resourceVersion");
    cont = cJSON_GetObjectItemCaseSensitive(m, "continue");
    if (cJSON_IsString(rv))
        snprintf(out->rv, sizeof(out->rv), "%s", rv->valuestring);
    if (cJSON_IsString(cont)) {
        if (strlen(cont->valuestring) >= sizeof(out->cont))
            return err_set(p->e,
                           "list: metadata.continue is longer than %zu "
                           "bytes",
                           sizeof(out->cont) - 1);
        snprintf(out->cont, sizeof(out->cont), "%s", cont->valuestring);
    }
    return 0;
}

static int read_members(struct page *p, struct kube_list_meta *out)
{
    bool seen_items = false, seen_meta = false;
    struct cJSON *skip;
    char *key;
    int rc;

    if (json_reader_peek(&p->jr) != '{') {
        /* Let the reader name what is there (or that nothing is). */
        if (json_reader_value(&p->jr, &p->scratch, &skip) < 0)
            return -1;
        return err_set(p->e, "list: not a JSON object");
    }
    if (json_reader_enter(&p->jr) < 0)
        return -1;
    while ((rc = json_reader_next(&p->jr, &p->scratch, &key)) == 1) {
        bool *seen = !strcmp(key, "items")      ? &seen_items
                     : !strcmp(key, "metadata") ? &seen_meta
                                                : NULL;

        if (seen && *seen)
            return err_set(p->e, "list: \"%s\" appears twice", key);
        if (seen)
            *seen = true;
        if (seen == &seen_items)
            rc = read_items(p, out);
        else if (seen == &seen_meta)
            rc = read_meta(p, out);
        else
            rc = json_reader_value(&p->jr, &p->scratch, &skip);
        if (rc < 0)
            return -1;
        arena_destroy(&p->scratch);
    }
    return rc;
}

int kube_list_page_read(const struct kube_list_reader *r, const char *buf,
                        size_t len, struct kube_list_meta *out, struct err *e)
{
    struct page p = { .r = r, .e = e };
    int rc;

    memset(out, 0, sizeof(*out));
    json_reader_init(&p.jr, buf, len, e);
    arena_init(&p.scratch, 4096);
    rc = read_members(&p, out);
    if (rc == 0)
        rc = deliver(&p);
    else
        arena_destroy(r->a);
    arena_destroy(&p.scratch);
    return rc < 0 ? -1 : 0;
}
