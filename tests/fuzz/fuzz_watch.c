/*
 * fuzz_watch.c: libFuzzer target for the watch-stream decoder: the input
 * is a byte stream fed to kube_lines_feed in chunks whose sizes come from
 * the first byte, each complete line parsed with kube_watch_event_parse
 * and, when it carries an object, decoded as that object's kind (what the
 * informers do with a watch). No crash, no leak; errors carry a message.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/client/informer.h"
#include "kube/parse/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_line(void *arg, const char *line, size_t len)
{
    struct arena a;
    enum kube_event_type type;
    const struct cJSON *obj = NULL;
    struct err e;

    (void)arg;
    arena_init(&a, 0);
    e.msg[0] = '\0';
    if (kube_watch_event_parse(&a, line, len, &type, &obj, &e) < 0) {
        if (!e.msg[0]) {
            fprintf(stderr, "watch event refused without a message\n");
            abort();
        }
    } else if (obj) {
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(obj, "kind");
        struct kube_pod pod;
        struct kube_node node;

        (void)kube_object_rv(obj);
        if (cJSON_IsString(kind) && !strcmp(kind->valuestring, "Node"))
            (void)kube_node_from_cjson(&a, obj, "object", &node, &e);
        else
            (void)kube_pod_from_cjson(&a, obj, "object", &pod, &e);
    }
    arena_destroy(&a);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kube_lines ls;
    size_t chunk, off = 1;
    char *buf;

    if (size < 1)
        return 0;
    chunk = (size_t)data[0] % 64 + 1;
    buf = malloc(size);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    memset(&ls, 0, sizeof(ls));
    ls.max = 1 << 20;
    while (off < size) {
        size_t n = size - off < chunk ? size - off : chunk;

        if (kube_lines_feed(&ls, buf + off, n, on_line, NULL) != 0)
            break;
        off += n;
    }
    kube_lines_free(&ls);
    free(buf);
    return 0;
}
