/*
 * fuzz_list_page.c: libFuzzer target for the list page reader
 * (kube/client/list_page.h), checked against json_arena_parse of the
 * whole text: a page the reader takes must parse as one tree whose
 * "items" has as many elements as the reader delivered, and a text the
 * tree parser refuses must be refused by the reader too. Batches are
 * small (3 items or 2 KiB) so that every path of the batching runs.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/base/json_parse.h"
#include "kube/client/informer.h"
#include "kube/client/list_page.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_items(void *arg, const struct kube_watch_event *ev, size_t n,
                       struct err *e)
{
    size_t *total = arg;
    size_t i;

    (void)e;
    for (i = 0; i < n; i++)
        if (!cJSON_IsObject(ev[i].object))
            abort();
    *total += n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kube_watch_event slot[3];
    struct arena a, t;
    size_t delivered = 0;
    struct kube_list_reader r = { &a, slot, 3, 2048, count_items, &delivered };
    struct kube_list_meta meta;
    struct err e, te;
    cJSON *root = NULL;
    int rc, trc;

    arena_init(&a, 0);
    arena_init(&t, 0);
    e.msg[0] = te.msg[0] = '\0';
    rc = kube_list_page_read(&r, (const char *)data, size, &meta, &e);
    trc = json_arena_parse(&t, (const char *)data, size, 0, &root, &te);
    if (rc < 0 && !e.msg[0]) {
        fprintf(stderr, "page refused without a message\n");
        abort();
    }
    if (trc < 0 && rc == 0) {
        fprintf(stderr, "page taken, tree refused: %s\n", te.msg);
        abort();
    }
    if (rc == 0) {
        const cJSON *items = cJSON_GetObjectItemCaseSensitive(root, "items");

        if (delivered != meta.n_items ||
            (size_t)cJSON_GetArraySize(items) != delivered) {
            fprintf(stderr, "delivered %zu, tree has %d items\n", delivered,
                    cJSON_GetArraySize(items));
            abort();
        }
    }
    arena_destroy(&a);
    arena_destroy(&t);
    return 0;
}
