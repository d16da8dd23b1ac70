/*
 * fuzz_json.c: libFuzzer target for the raw JSON layer: json_arena_parse
 * and json_arena_parse_in_situ on the same bytes (they must agree on the
 * verdict, the message and the tree), cJSON on what json_arena accepts
 * (same tree, where json_parse.h documents no difference), and json_scan
 * over every accepted text (each span it returns must re-parse to the
 * node it stands for). The input buffer is exactly `size` bytes, with no
 * NUL after it, so reading past the end is caught.
 */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/base/json_dups.h"
#include "kube/base/json_parse.h"
#include "kube/base/json_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SCAN_BUDGET 256 /* spans re-parsed per input */
#define SCAN_DEPTH  8   /* levels of json_scan checked */

static void fail(const char *what)
{
    fprintf(stderr, "json: %s\n", what);
    abort();
}

static bool same_str(const char *x, const char *y)
{
    if (!x || !y)
        return x == y;
    return strcmp(x, y) == 0;
}

/*
 * Structural equality. texts: also compare number source texts (both
 * trees from json_arena; cJSON keeps none).
 */
static bool same_tree(const cJSON *x, const cJSON *y, bool texts)
{
    const cJSON *cx, *cy;

    if ((x->type & 0xff) != (y->type & 0xff) || !same_str(x->string, y->string))
        return false;
    if (cJSON_IsNumber(x)) {
        if (x->valuedouble != y->valuedouble || x->valueint != y->valueint)
            return false;
        return !texts || same_str(x->valuestring, y->valuestring);
    }
    if (cJSON_IsString(x))
        return same_str(x->valuestring, y->valuestring);
    if (cJSON_IsBool(x))
        return x->valueint == y->valueint;
    for (cx = x->child, cy = y->child; cx && cy; cx = cx->next, cy = cy->next)
        if (!same_tree(cx, cy, texts))
            return false;
    return !cx && !cy;
}

/* Inputs on which cJSON and json_arena may differ by design. */
static bool cjson_comparable(const uint8_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (d[i] >= 0x80)
            return false; /* invalid UTF-8 becomes U+FFFD here */
        if (d[i] == '\\' && i + 1 < n && d[i + 1] == 'u')
            return false; /* lone surrogates, \u0000 */
    }
    return true;
}

/* cJSON reads at most 63 bytes of a number: longer ones are cut. */
static bool has_long_number(const cJSON *n)
{
    if (cJSON_IsNumber(n) && n->valuestring && strlen(n->valuestring) > 63)
        return true;
    for (const cJSON *c = n->child; c; c = c->next)
        if (has_long_number(c))
            return true;
    return false;
}

static void check_cjson(const uint8_t *data, size_t size, const cJSON *mine)
{
    char *copy = malloc(size + 1);
    const char *end = NULL;
    cJSON *theirs;

    if (!copy)
        return;
    memcpy(copy, data, size);
    copy[size] = '\0';
    theirs = cJSON_ParseWithLengthOpts(copy, size + 1, &end, 1);
    if (!theirs)
        fail("json_arena accepted what cJSON rejects");
    if (!same_tree(mine, theirs, false))
        fail("json_arena and cJSON built different trees");
    cJSON_Delete(theirs);
    free(copy);
}

struct scan_ctx {
    const char *buf;
    size_t len;
    int budget;
};

static void check_span(struct scan_ctx *s, struct json_span sp,
                       const cJSON *node, int depth);

/* sp must re-parse to a tree equal to node (keys aside). */
static void check_reparse(struct scan_ctx *s, struct json_span sp,
                          const cJSON *node)
{
    struct arena a;
    cJSON *t = NULL;
    const char *saved = node->string;
    bool same;

    if (sp.start > sp.end || sp.end > s->len)
        fail("json_scan span out of bounds");
    arena_init(&a, 0);
    if (json_arena_parse(&a, s->buf + sp.start, sp.end - sp.start, 0, &t,
                         NULL) < 0)
        fail("json_scan span does not parse");
    t->string = (char *)saved;
    same = same_tree(node, t, true);
    arena_destroy(&a);
    if (!same)
        fail("json_scan span holds a different value");
}

struct array_walk {
    struct scan_ctx *s;
    const cJSON *child;
    int depth;
};

static int on_element(void *arg, size_t i, struct json_span el)
{
    struct array_walk *w = arg;

    (void)i;
    if (!w->child)
        fail("json_scan_array found more elements than the parser");
    check_span(w->s, el, w->child, w->depth);
    w->child = w->child->next;
    return w->s->budget <= 0;
}

/* A member json_scan_member may return for key: one Go's decoder would
 * put into a field named key (kube/base/json_dups.h). */
static bool member_is_candidate(const cJSON *obj, const char *key,
                                struct scan_ctx *s, struct json_span sp)
{
    const cJSON *c;

    for (c = obj->child; c; c = c->next) {
        struct arena a;
        cJSON *t = NULL;
        bool same;

        if (!json_key_names_field(c->string, strlen(c->string), key))
            continue;
        arena_init(&a, 0);
        if (json_arena_parse(&a, s->buf + sp.start, sp.end - sp.start, 0, &t,
                             NULL) < 0)
            fail("json_scan_member span does not parse");
        t->string = c->string;
        same = same_tree(c, t, true);
        arena_destroy(&a);
        if (same)
            return true;
    }
    return false;
}

static void check_span(struct scan_ctx *s, struct json_span sp,
                       const cJSON *node, int depth)
{
    if (s->budget-- <= 0)
        return;
    check_reparse(s, sp, node);
    if (depth >= SCAN_DEPTH)
        return;
    if (cJSON_IsArray(node)) {
        struct array_walk w = { s, node->child, depth + 1 };
        size_t n = json_scan_array(s->buf, s->len, sp, on_element, &w);

        if (s->budget > 0 && (w.child || n != (size_t)cJSON_GetArraySize(node)))
            fail("json_scan_array missed elements");
    } else if (cJSON_IsObject(node)) {
        for (const cJSON *c = node->child; c && s->budget > 0; c = c->next) {
            struct json_span v;

            if (!json_scan_member(s->buf, s->len, sp, c->string, &v))
                continue; /* a key too long to decode for comparing */
            if (v.start > v.end || v.end > s->len)
                fail("json_scan_member span out of bounds");
            if (!member_is_candidate(node, c->string, s, v))
                fail("json_scan_member returned another key's value");
        }
    }
}

static void check_scan(const char *buf, size_t len, const cJSON *root)
{
    struct scan_ctx s = { buf, len, SCAN_BUDGET };
    struct json_span sp = json_scan_value(buf, len, 0);
    size_t first = 0, last = len;

    while (first < len && strchr(" \t\r\n", buf[first]))
        first++;
    while (last > first && strchr(" \t\r\n", buf[last - 1]))
        last--;
    if (sp.start != first || sp.end != last)
        fail("json_scan_value does not span the document");
    check_span(&s, sp, root, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1), *situ = malloc(size ? size : 1);
    struct arena a, b;
    cJSON *t1 = NULL, *t2 = NULL;
    struct err e1, e2;
    int r1, r2;

    if (!buf || !situ) {
        free(buf);
        free(situ);
        return 0;
    }
    memcpy(buf, data, size);
    memcpy(situ, data, size);
    arena_init(&a, 0);
    arena_init(&b, 0);
    r1 = json_arena_parse(&a, buf, size, 0, &t1, &e1);
    r2 = json_arena_parse_in_situ(&b, situ, size, 0, &t2, &e2);
    if (r1 != r2)
        fail("copy and in-situ parsing disagree on the verdict");
    if (r1 != 0 && strcmp(e1.msg, e2.msg) != 0)
        fail("copy and in-situ parsing report different errors");
    if (r1 == 0) {
        if (!same_tree(t1, t2, true))
            fail("copy and in-situ parsing built different trees");
        if (cjson_comparable(data, size) && !has_long_number(t1))
            check_cjson(data, size, t1);
        check_scan(buf, size, t1);
    }
    arena_destroy(&a);
    arena_destroy(&b);
    free(buf);
    free(situ);
    return 0;
}
