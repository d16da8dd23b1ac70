/*
 * list_page.h: one page of a List answer (a NodeList, a PodList, ...)
 * read item by item with the JSON pull reader (kube/base/json_parse.h),
 * never as one tree: items are parsed into an arena in batches, each
 * batch handed on and the arena emptied before the next, so the memory a
 * page takes beyond its text is that of one batch.
 */
#ifndef KUBE_CLIENT_LIST_PAGE_H
#define KUBE_CLIENT_LIST_PAGE_H

#include <stddef.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"

struct kube_watch_event;

/* What a page says besides its items. */
struct kube_list_meta {
    char rv[128];    /* metadata.resourceVersion; "" when absent */
    char cont[3072]; /* metadata.continue; "" on the last page */
    size_t n_items;  /* items read */
};

/*
 * A batch of items (as ADDED events), valid during the call only.
 * Returns 0, or -1 with e set to stop reading.
 */
typedef int kube_list_batch_fn(void *arg, const struct kube_watch_event *ev,
                               size_t n, struct err *e);

/* Where items go and how they are grouped. */
struct kube_list_reader {
    struct arena *a;               /* trees of a batch; emptied after each */
    struct kube_watch_event *slot; /* room for max_items events */
    size_t max_items;              /* items per batch */
    size_t max_bytes;              /* a batch ends once a holds this much */
    kube_list_batch_fn *fn;
    void *arg;
};

/*
 * Read the page text buf[0..len): an object whose "items" is an array of
 * objects (or null), with optional "metadata" {resourceVersion,
 * continue}; other members are skipped. Items go to r->fn in batches, in
 * order. "items" or "metadata" given twice, an item that is no object,
 * or a continue token over 3 KiB are errors. Returns 0 with *out set, or
 * -1 with e set (JSON errors with their byte offset; a batch callback's
 * error as it set it). Batches before an error have been delivered.
 */
int kube_list_page_read(const struct kube_list_reader *r, const char *buf,
                        size_t len, struct kube_list_meta *out, struct err *e);

#endif
