/*
 * test_json_reader.c: the pull reader of kube/base/json_parse.h against
 * json_arena_parse on the whole text. A text walked with the reader,
 * entering containers down to some depth and parsing what lies below as
 * trees, must give the same values, or fail with the same message (bytes,
 * lines and columns of the whole text), whatever that depth.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/base/json_parse.h"

struct text {
    char *s;
    size_t len, cap;
};

static void put(struct text *t, const char *s)
{
    size_t n = strlen(s);

    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1);
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
}

static void put_node(struct text *t, const cJSON *v)
{
    char *p = cJSON_PrintUnformatted(v);

    assert_non_null(p);
    put(t, p);
    free(p);
}

/*
 * Read the value at r: enter containers while levels > 0, parse the rest
 * into a (reset after each tree is printed). Prints what was read as
 * cJSON_PrintUnformatted would print the whole tree.
 */
static int walk(struct json_reader *r, struct arena *a, int levels,
                struct text *t)
{
    int c = json_reader_peek(r), rc;
    bool first = true;
    cJSON *v, *k;
    char *key;

    if (levels > 0 && (c == '{' || c == '[')) {
        if (json_reader_enter(r) < 0)
            return -1;
        put(t, c == '{' ? "{" : "[");
        while ((rc = json_reader_next(r, a, &key)) == 1) {
            if (!first)
                put(t, ",");
            first = false;
            if (c == '{') {
                k = cJSON_CreateString(key);
                assert_non_null(k);
                put_node(t, k);
                cJSON_Delete(k);
                put(t, ":");
            } else {
                assert_null(key);
            }
            if (walk(r, a, levels - 1, t) < 0)
                return -1;
        }
        if (rc < 0)
            return -1;
        put(t, c == '{' ? "}" : "]");
        return 0;
    }
    rc = json_reader_value(r, a, &v);
    if (rc == 0)
        put_node(t, v);
    arena_destroy(a);
    return rc;
}

/* Reader at every depth and whole parse agree on text[0..len). */
static void check_alike(const char *name, const char *text, size_t len)
{
    static const int levels[] = { 0, 1, 2, 3, 1000 };
    char *copy = malloc(len ? len : 1);
    struct text whole = { 0 }, got;
    struct err we, re;
    struct json_reader r;
    struct arena a;
    cJSON *root;
    size_t i;
    int wrc, rrc;

    assert_non_null(copy);
    memcpy(copy, text, len);
    arena_init(&a, 0);
    wrc = json_arena_parse(&a, copy, len, 0, &root, &we);
    if (wrc == 0)
        put_node(&whole, root);
    arena_destroy(&a);
    for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        memset(&got, 0, sizeof(got));
        json_reader_init(&r, copy, len, &re);
        rrc = walk(&r, &a, levels[i], &got);
        arena_destroy(&a);
        if (rrc != wrc)
            fail_msg("case %s, %d levels: reader rc %d (%s), whole rc %d (%s)",
                     name, levels[i], rrc, rrc ? re.msg : "", wrc,
                     wrc ? we.msg : "");
        if (rrc != 0 && strcmp(re.msg, we.msg))
            fail_msg("case %s, %d levels:\nreader: %s\n whole: %s", name,
                     levels[i], re.msg, we.msg);
        if (rrc == 0 && strcmp(got.s, whole.s))
            fail_msg("case %s, %d levels:\nreader: %s\n whole: %s", name,
                     levels[i], got.s, whole.s);
        free(got.s);
    }
    free(whole.s);
    free(copy);
}

static const struct {
    const char *name;
    const char *text;
} texts[] = {
    { "scalar", " 42 " },
    { "string", "\"a\\u00e9\\n\"" },
    { "empty object", "{}" },
    { "empty array", " [ ] " },
    { "nested", "{\"a\":[1,{\"b\":[[],{}]},\"x\"],\"c\":{\"d\":null}}" },
    { "duplicate keys", "{\"a\":1,\"a\":2,\"a\":[3]}" },
    { "escaped key", "{\"k\\u0041\\\"\":true,\"\":false}" },
    { "lines", "{\n  \"a\": [\n    1,\n    2\n  ]\n}\n" },
    { "empty", "" },
    { "blank", " \n " },
    { "trailing data", "{\"a\":1} 2" },
    { "trailing data after array", "[1,2]x" },
    { "trailing comma in object", "{\"a\":1,}" },
    { "trailing comma in inner object", "[{\"a\":1,}]" },
    { "trailing comma in array", "[1,2,]" },
    { "trailing comma in inner array", "{\"a\":[1,]}" },
    { "missing comma in object", "{\"a\":1 \"b\":2}" },
    { "missing comma in array", "[1 2]" },
    { "missing colon", "{\"a\" 1}" },
    { "key not a string", "{1:2}" },
    { "bad key escape", "{\"\\x\":1}" },
    { "control character in key", "{\"a\tb\":1}" },
    { "colon then end", "{\"a\":" },
    { "end after comma", "[1," },
    { "end after open", "[" },
    { "end after key", "{\"a\"" },
    { "end in key", "{\"ab" },
    { "end in value", "[\"ab" },
    { "closing bracket mismatch", "[1}" },
    { "closing brace mismatch", "{\"a\":1]" },
    { "bad literal deep", "{\"a\":{\"b\":[tru]}}" },
    { "leading zero", "[01]" },
    { "lone close", "]" },
    { "comma first", "[,1]" },
    { "colon in array", "[1:2]" },
};

static void texts_should_read_alike_at_every_depth(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        check_alike(texts[i].name, texts[i].text, strlen(texts[i].text));
}

static const char doc[] =
    "{\"kind\":\"List\",\n \"items\":[{\"a\":[1,2.5e3,-0,{\"b\":\"c\\u00e9\"}],"
    "\"t\":true,\"f\":false,\"n\":null},\n  [[], {}, [\"x\", {\"y\": [0]}]],"
    " \"s\\\"q\",\n  7],\"metadata\":{\"z\":{}}}";

static void every_prefix_should_read_alike(void **state)
{
    char name[32];
    size_t n;

    (void)state;
    for (n = 0; n <= sizeof(doc) - 1; n++) {
        snprintf(name, sizeof(name), "prefix %zu", n);
        check_alike(name, doc, n);
    }
}

static void byte_mutations_should_read_alike(void **state)
{
    static const char subst[] = "{}[],:\"a1 \n\\";
    char buf[sizeof(doc)], name[48];
    size_t i, j;

    (void)state;
    for (i = 0; i + 1 < sizeof(doc); i++) {
        for (j = 0; j + 1 < sizeof(subst); j++) {
            memcpy(buf, doc, sizeof(doc));
            buf[i] = subst[j];
            snprintf(name, sizeof(name), "byte %zu set to '%c'", i, subst[j]);
            check_alike(name, buf, sizeof(doc) - 1);
        }
    }
}

/* "[" x depth, then "]" x depth, in a malloc'd buffer. */
static char *arrays_nested(size_t depth, size_t *len)
{
    char *s = malloc(2 * depth + 1);

    assert_non_null(s);
    memset(s, '[', depth);
    memset(s + depth, ']', depth);
    s[2 * depth] = '\0';
    *len = 2 * depth;
    return s;
}

/* The depth limit counts the containers the reader has entered. */
static void nesting_limit_should_hold_across_reader_levels(void **state)
{
    static const size_t depths[] = { JSON_ARENA_MAX_DEPTH,
                                     JSON_ARENA_MAX_DEPTH + 1, 600 };
    static const int levels[] = { 1, 300, 511, 512, 513, 700 };
    char name[64];
    size_t i, j, len;

    (void)state;
    for (i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
        char *s = arrays_nested(depths[i], &len);
        struct json_reader r;
        struct arena a;
        struct text got = { 0 };
        struct err e;
        int rc;

        for (j = 0; j < sizeof(levels) / sizeof(levels[0]); j++) {
            snprintf(name, sizeof(name), "depth %zu, %d levels", depths[i],
                     levels[j]);
            arena_init(&a, 0);
            json_reader_init(&r, s, len, &e);
            rc = walk(&r, &a, levels[j], &got);
            arena_destroy(&a);
            if (depths[i] <= JSON_ARENA_MAX_DEPTH && rc != 0)
                fail_msg("case %s: %s", name, e.msg);
            if (depths[i] > JSON_ARENA_MAX_DEPTH &&
                (rc != -1 || !strstr(e.msg, "byte 512 (line 1, column 513): "
                                            "nesting deeper than 512")))
                fail_msg("case %s: rc %d, %s", name, rc, rc ? e.msg : "");
            got.len = 0;
        }
        check_alike(name, s, len);
        free(got.s);
        free(s);
    }
}

/* Strings far beyond one pool block, and many of them, in one element. */
static void big_elements_should_read_alike(void **state)
{
    size_t big = 3 * 1024 * 1024 + 7, i, len = 0;
    char *s = malloc(big + 200000 * 8 + 64);

    (void)state;
    assert_non_null(s);
    len += (size_t)sprintf(s, "{\"k\":[\"");
    memset(s + len, 'x', big);
    len += big;
    len += (size_t)sprintf(s + len, "\",[");
    for (i = 0; i < 200000; i++)
        len += (size_t)sprintf(s + len, "%s\"%04zu\"", i ? "," : "", i % 9999);
    len += (size_t)sprintf(s + len, "]]}");
    check_alike("big strings", s, len);
    free(s);
}

static void misuse_should_fail_with_a_message(void **state)
{
    struct json_reader r;
    struct err e;
    char *key = (char *)"x";

    (void)state;
    json_reader_init(&r, " 1", 2, &e);
    assert_int_equal(json_reader_enter(&r), -1);
    assert_string_equal(e.msg,
                        "json_reader_enter: no object or array at byte 1");
    assert_int_equal(json_reader_next(&r, NULL, &key), -1);
    assert_null(key);
    assert_string_equal(e.msg, "json_reader_next: no open container");
    json_reader_init(&r, NULL, 0, &e);
    assert_int_equal(json_reader_peek(&r), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(texts_should_read_alike_at_every_depth),
        cmocka_unit_test(every_prefix_should_read_alike),
        cmocka_unit_test(byte_mutations_should_read_alike),
        cmocka_unit_test(nesting_limit_should_hold_across_reader_levels),
        cmocka_unit_test(big_elements_should_read_alike),
        cmocka_unit_test(misuse_should_fail_with_a_message),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
