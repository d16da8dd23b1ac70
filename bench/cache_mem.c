/*
 * cache_mem.c: resident memory of the live cache holding a large cluster.
 * Streams a List (gen_payload.py's cluster.json) item by item, never
 * holding the whole document, and feeds every object through the cache's
 * event-apply path (kube_cache_apply, as the informers do) in batches of
 * 256 ADDED events; then prints VmRSS and VmHWM from /proc/self/status.
 *
 *   cache_mem CLUSTER.json [PASSES]
 *
 * PASSES > 1 applies everything again as MODIFIED (each pass replaces
 * every object), to show that replaced versions are freed.
 */
#include <cjson/cJSON.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/client/cache.h"
#include "kube/base/json_parse.h"
#include "kube/parse/parse.h"

#define BLOCK (4u << 20)
#define BATCH 256

struct feeder {
    struct kube_cache *cache;
    enum kube_event_type type;
    struct arena arena; /* trees of the pending batch */
    struct kube_watch_event ev[BATCH];
    size_t n;
    enum kube_kind kind;
    size_t counts[KUBE_KIND_NAMESPACE + 1];
    size_t skipped;
};

static void flush(struct feeder *f)
{
    struct err e = { "" };

    if (f->n && kube_cache_apply(f->cache, f->kind, f->ev, f->n, &e) < 0) {
        fprintf(stderr, "cache_mem: apply: %s\n", e.msg);
        exit(1);
    }
    f->n = 0;
}

/* Apply what is pending and drop the parsed trees. */
static void flush_all(struct feeder *f)
{
    flush(f);
    arena_destroy(&f->arena);
    arena_init(&f->arena, 0);
}

static void item(struct feeder *f, const char *p, size_t len)
{
    cJSON *root = NULL;
    struct err e = { "" };
    const cJSON *k;
    enum kube_kind kind;

    if (json_arena_parse(&f->arena, p, len, 0, &root, &e) < 0) {
        fprintf(stderr, "cache_mem: item: %s\n", e.msg);
        exit(1);
    }
    k = cJSON_GetObjectItemCaseSensitive(root, "kind");
    kind = cJSON_IsString(k) ? kube_kind_from_string(k->valuestring)
                             : KUBE_KIND_UNKNOWN;
    if (kind == KUBE_KIND_UNKNOWN) {
        f->skipped++;
        return;
    }
    if (f->n && (kind != f->kind || f->n == BATCH))
        flush(f);
    f->kind = kind;
    f->ev[f->n].type = f->type;
    f->ev[f->n++].object = root;
    f->counts[kind]++;
}

/* The lexer state that finds the elements of the top-level "items". */
struct scan {
    int depth;
    int in_str, esc;
    int key_pos, key_ok, last_key_items;
    int in_items;
    size_t start; /* offset of the current item's '{' */
};

/* Scan buf[from..len); deliver finished items; return the keep offset. */
static size_t scan(struct scan *s, struct feeder *f, const char *buf,
                   size_t from, size_t len)
{
    size_t i, keep = len;

    for (i = from; i < len; i++) {
        char c = buf[i];

        if (s->in_str) {
            if (s->esc) {
                s->esc = 0;
            } else if (c == '\\') {
                s->esc = 1;
            } else if (c == '"') {
                s->in_str = 0;
                if (s->depth == 1)
                    s->last_key_items = s->key_ok && s->key_pos == 5;
            } else if (s->depth == 1) {
                s->key_ok =
                    s->key_ok && s->key_pos < 5 && c == "items"[s->key_pos];
                s->key_pos++;
            }
            continue;
        }
        if (c == '"') {
            s->in_str = 1;
            s->key_pos = 0;
            s->key_ok = 1;
        } else if (c == '{' || c == '[') {
            if (s->depth == 1 && c == '[' && s->last_key_items)
                s->in_items = 1;
            if (s->in_items && s->depth == 2 && c == '{')
                s->start = i;
            s->depth++;
        } else if (c == '}' || c == ']') {
            s->depth--;
            if (s->in_items && s->depth == 2 && c == '}')
                item(f, buf + s->start, i + 1 - s->start);
            if (s->in_items && s->depth == 1)
                s->in_items = 0;
        }
    }
    if (s->in_items && s->depth > 2)
        keep = s->start;
    return keep;
}

static void feed_file(struct feeder *f, const char *path)
{
    FILE *in = fopen(path, "rb");
    size_t cap = BLOCK, len = 0, scanned = 0, got;
    char *buf = malloc(cap);
    struct scan s = { 0 };

    if (!in || !buf) {
        perror(path);
        exit(1);
    }
    for (;;) {
        size_t keep;

        if (cap - len < BLOCK / 2) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf)
                exit(1);
        }
        got = fread(buf + len, 1, cap - len, in);
        if (!got)
            break;
        len += got;
        keep = scan(&s, f, buf, scanned, len);
        flush_all(f); /* the trees of one block at most */
        /* Move the unfinished item to the front. */
        memmove(buf, buf + keep, len - keep);
        if (s.in_items && s.depth > 2)
            s.start -= keep;
        len -= keep;
        scanned = len;
    }
    flush_all(f);
    free(buf);
    fclose(in);
}

static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;

    while (f && fgets(line, sizeof(line), f)) {
        if (!strncmp(line, key, strlen(key)))
            v = strtol(line + strlen(key), NULL, 10);
    }
    if (f)
        fclose(f);
    return v;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    struct err e = { "" };
    struct feeder f;
    struct kube_cache_stats st;
    const struct cluster *c;
    int passes = argc > 2 ? atoi(argv[2]) : 1, p;
    double t0;

    if (argc < 2) {
        fprintf(stderr, "usage: cache_mem CLUSTER.json [PASSES]\n");
        return 2;
    }
    memset(&f, 0, sizeof(f));
    arena_init(&f.arena, 0);
    f.cache = kube_cache_new(0, &e);
    if (!f.cache) {
        fprintf(stderr, "cache_mem: %s\n", e.msg);
        return 1;
    }
    for (p = 0; p < passes; p++) {
        memset(f.counts, 0, sizeof(f.counts));
        f.type = p ? KUBE_EVENT_MODIFIED : KUBE_EVENT_ADDED;
        t0 = now();
        feed_file(&f, argv[1]);
        malloc_trim(0);
        printf("pass %d: %zu nodes, %zu pods applied in %.2f s; "
               "VmRSS %.1f MB, VmHWM %.1f MB\n",
               p + 1, f.counts[KUBE_KIND_NODE], f.counts[KUBE_KIND_POD],
               now() - t0, status_kb("VmRSS:") / 1024.0,
               status_kb("VmHWM:") / 1024.0);
    }
    arena_destroy(&f.arena);
    kube_cache_stats(f.cache, &st);
    c = kube_cache_read_lock(f.cache);
    printf("cache: %zu nodes, %zu pods (%zu accounted on nodes, %zu orphans), "
           "object copies %.1f MB (%.0f bytes per object)\n",
           st.objects[KUBE_KIND_NODE], st.objects[KUBE_KIND_POD], c->n_pods,
           st.orphan_pods, st.object_bytes / 1048576.0,
           (double)st.object_bytes /
               (double)(st.objects[KUBE_KIND_NODE] + st.objects[KUBE_KIND_POD]
                            ? st.objects[KUBE_KIND_NODE] +
                                  st.objects[KUBE_KIND_POD]
                            : 1));
    kube_cache_read_unlock(f.cache);
    printf("resident: VmRSS %.1f MB, VmHWM %.1f MB\n",
           status_kb("VmRSS:") / 1024.0, status_kb("VmHWM:") / 1024.0);
    kube_cache_free(f.cache);
    return 0;
}
