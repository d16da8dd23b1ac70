/*
 * test_json_arena.c: the arena JSON parser against cJSON's own parser
 * (same tree for valid documents), its exact error messages, Go-style
 * U+FFFD replacement, numbers, limits, and the cJSON read API on its
 * output. Every case runs twice: copying and in situ.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/base/json_dups.h"
#include "kube/base/json_parse.h"

#define UNTERMINATED "unterminated string (no closing quote)"

/* A v1 Node much like kube-scheduler sends, with escapes and UTF-8. */
static const char node_json[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
    "\"node-0001\",\"uid\":\"5f0c2b1e-1d7a-4a52-9b7e-0e8f3c1d2a44\","
    "\"resourceVersion\":\"21712314\",\"creationTimestamp\":"
    "\"2021-11-22T14:59:59Z\",\"labels\":{\"kubernetes.io/arch\":"
    "\"amd64\",\"kubernetes.io/hostname\":\"node-0001\","
    "\"topology.kubernetes.io/zone\":\"eu-west-1a\",\"rdma-enabled\":"
    "\"true\"},\"annotations\":{\"node.alpha.kubernetes.io/ttl\":\"0\","
    "\"kubectl.kubernetes.io/last-applied-configuration\":"
    "\"{\\\"kind\\\":\\\"Node\\\",\\\"spec\\\":{\\\"taints\\\":[]}}\\n\","
    "\"description\":\"n\\u0153ud caf\xc3\xa9 \xe2\x98\x95 "
    "\\ud83d\\ude00 tab\\there \\\"q\\\" \\\\ \\/\"}},\"spec\":{"
    "\"podCIDR\":\"10.244.1.0/24\",\"providerID\":\"aws:///eu-west-1a/"
    "i-0abc\",\"unschedulable\":false,\"taints\":[{\"key\":"
    "\"nvidia.com/gpu\",\"value\":\"present\",\"effect\":\"NoSchedule\"},"
    "{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":\"NoExecute\","
    "\"timeAdded\":null}]},\"status\":{\"capacity\":{\"cpu\":\"32\","
    "\"memory\":\"131900360Ki\",\"pods\":\"110\",\"nvidia.com/gpu\":\"4\"},"
    "\"allocatable\":{\"cpu\":\"31850m\",\"memory\":\"128754632Ki\","
    "\"pods\":\"110\",\"ephemeral-storage\":\"95551679124\"},"
    "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
    "\"lastHeartbeatTime\":\"2021-11-22T14:59:59Z\",\"reason\":"
    "\"KubeletReady\",\"message\":\"kubelet is posting ready status\"}],"
    "\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.0.1.17\"}],"
    "\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":10250}},"
    "\"nodeInfo\":{\"kernelVersion\":\"5.10.0-9-amd64\",\"osImage\":"
    "\"Debian GNU/Linux 11 (bullseye)\",\"architecture\":\"amd64\"},"
    "\"images\":[{\"names\":[\"docker.io/library/nginx@sha256:0d17b565c37b"
    "cbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31\","
    "\"docker.io/library/nginx:1.21.4\"],\"sizeBytes\":56746816},"
    "{\"names\":[\"registry.example.com/ml/trainer:4.2\"],"
    "\"sizeBytes\":4294967296123,\"weight\":-1.5e-3,\"ratio\":0.25,"
    "\"flags\":[true,false,null,[],{}]}],\"volumesInUse\":[]}}";

/* One parse of an exact-size, unterminated copy, so ASan sees overreads. */
struct parsed {
    struct arena a;
    char *copy;
    cJSON *root;
    struct err e;
    int rc;
};

static const char *const mode_name[] = { "copying", "in situ" };

static void parse_mode(struct parsed *p, const char *text, size_t len, int situ)
{
    p->copy = malloc(len ? len : 1);
    assert_non_null(p->copy);
    memcpy(p->copy, text, len);
    arena_init(&p->a, 0);
    err_clear(&p->e);
    p->root = (cJSON *)1;
    if (situ)
        p->rc =
            json_arena_parse_in_situ(&p->a, p->copy, len, 0, &p->root, &p->e);
    else
        p->rc = json_arena_parse(&p->a, p->copy, len, 0, &p->root, &p->e);
}

static void parsed_free(struct parsed *p)
{
    arena_destroy(&p->a);
    free(p->copy);
}

/*
 * Compare our tree x with cJSON's tree y; on a difference fill why with
 * the path and return -1. Also checks our links: first->prev is the last
 * element and each next->prev points back.
 */
static int tree_compare(const cJSON *x, const cJSON *y, char *path, size_t plen,
                        char *why, size_t wsz)
{
    const cJSON *cx, *cy;
    size_t i = 0;

    if (x->type != y->type)
        goto differ;
    if ((x->string == NULL) != (y->string == NULL) ||
        (x->string && strcmp(x->string, y->string)))
        goto differ;
    if (cJSON_IsString(x) && strcmp(x->valuestring, y->valuestring))
        goto differ;
    if (cJSON_IsNumber(x) &&
        (memcmp(&x->valuedouble, &y->valuedouble, sizeof(double)) ||
         x->valueint != y->valueint))
        goto differ;
    if (cJSON_IsBool(x) && x->valueint != y->valueint)
        goto differ;
    for (cx = x->child, cy = y->child; cx && cy; cx = cx->next, cy = cy->next) {
        size_t n = strlen(path);

        snprintf(path + n, plen - n, "[%zu]", i++);
        if (cx->next && cx->next->prev != cx) {
            snprintf(why, wsz, "%s: broken prev link", path);
            return -1;
        }
        if (!cx->next && x->child->prev != cx) {
            snprintf(why, wsz, "%s: first->prev is not the last", path);
            return -1;
        }
        if (tree_compare(cx, cy, path, plen, why, wsz) < 0)
            return -1;
        path[n] = '\0';
    }
    if (cx || cy)
        goto differ;
    return 0;
differ:
    snprintf(why, wsz, "%s: differs from cJSON (type %d vs %d)", path, x->type,
             y->type);
    return -1;
}

/* The same document through cJSON and through us, in both modes. */
static void check_like_cjson(const char *name, const char *text, size_t len)
{
    const char *end = NULL;
    /* text is NUL-terminated: cJSON's strict mode counts the NUL. */
    cJSON *want = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    char path[4096], why[4200];
    char *pw, *pg;
    int situ;

    if (!want)
        fail_msg("%s: cJSON rejects the test document", name);
    for (situ = 0; situ < 2; situ++) {
        struct parsed p;

        parse_mode(&p, text, len, situ);
        if (p.rc != 0)
            fail_msg("%s (%s): %s", name, mode_name[situ], p.e.msg);
        strcpy(path, "$");
        if (tree_compare(p.root, want, path, sizeof(path), why, sizeof(why)) <
            0)
            fail_msg("%s (%s): %s", name, mode_name[situ], why);
        /* cJSON's printer reads every field it knows about. */
        pw = cJSON_PrintUnformatted(want);
        pg = cJSON_PrintUnformatted(p.root);
        if (!pw || !pg || strcmp(pw, pg))
            fail_msg("%s (%s): prints %s, cJSON prints %s", name,
                     mode_name[situ], pg ? pg : "NULL", pw ? pw : "NULL");
        cJSON_free(pw);
        cJSON_free(pg);
        parsed_free(&p);
    }
    cJSON_Delete(want);
}

static const struct {
    const char *name;
    const char *text;
} valid_cases[] = {
    { "zero", "0" },
    { "negative zero", "-0" },
    { "integer", "-1234567" },
    { "fraction and exponent", "[0.5,-1.25e-3,1E+2,12.5e-1,1e22,1e23]" },
    { "beyond int", "[2147483647,2147483648,-2147483648,-2147483649]" },
    { "beyond 2^53", "[9007199254740993,18446744073709551616,1e308]" },
    { "out of range", "[1e400,-1e400,1e-400,4.9e-324]" },
    { "long mantissa", "3.14159265358979323846264338327950288" },
    { "literals", "[true,false,null]" },
    { "empty string", "\"\"" },
    { "empty containers", "[[],{},[{}],{\"a\":[]}]" },
    { "whitespace", " \t\r\n{ \"a\" : [ 1 , 2 ] ,\n\"b\":{}\t}\r\n " },
    { "escapes", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\"" },
    { "surrogate pair", "[\"\\ud83d\\ude00\",\"\\uD834\\uDD1E\"]" },
    { "raw utf-8", "{\"caf\xc3\xa9\":\"\xe2\x98\x95\xf0\x9f\x98\x80\"}" },
    { "escaped key", "{\"a\\\"b\":1,\"\\u0063\":2}" },
    { "duplicate keys", "{\"a\":1,\"a\":2,\"b\":3,\"a\":4}" },
    { "nested", "{\"a\":{\"b\":{\"c\":[1,[2,[3,{\"d\":null}]]]}}}" },
    { "long strings", "[\"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ\","
                      "\"abcdefghijklmnop\\nqrstuvwxyz0123456789\"]" },
    { "node", node_json },
};

static void valid_documents_should_match_cjson_tree(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++)
        check_like_cjson(valid_cases[i].name, valid_cases[i].text,
                         strlen(valid_cases[i].text));
}

/* Invalid documents and the exact message each gives. */
static const struct {
    const char *name;
    const char *text;
    size_t len; /* 0: strlen(text) */
    const char *msg;
} invalid_cases[] = {
    { "empty input", "", 0, "unexpected end of input at byte 0" },
    { "only whitespace", " \n\t", 0, "unexpected end of input at byte 3" },
    { "unclosed array", "[1,", 0, "unexpected end of input at byte 3" },
    { "unclosed object", "{\"a\":", 0, "unexpected end of input at byte 5" },
    { "unclosed key", "{\"a\"", 0, "unexpected end of input at byte 4" },
    { "unclosed string", "\"abc", 0,
      "invalid JSON at byte 0 (line 1, column 1): " UNTERMINATED
      " near \"\\\"abc\"" },
    { "unclosed key name", "{\n \"ab", 0,
      "invalid JSON at byte 3 (line 2, column 2): " UNTERMINATED
      " near \"\\\"ab\"" },
    { "cut escape", "\"\\", 0,
      "invalid JSON at byte 0 (line 1, column 1): " UNTERMINATED
      " near \"\\\"\\\\\"" },
    { "cut \\u escape", "[\"\\u12", 0,
      "invalid JSON at byte 1 (line 1, column 2): " UNTERMINATED
      " near \"\\\"\\\\u12\"" },
    { "unclosed string with UTF-8", "\"h\xc3\xa9", 0,
      "invalid JSON at byte 0 (line 1, column 1): " UNTERMINATED
      " near \"\\\"h\xc3\xa9\"" },
    { "cut literal", "nul", 0, "unexpected end of input at byte 3" },
    { "cut fraction", "1.", 0, "unexpected end of input at byte 2" },
    { "cut exponent", "1e+", 0, "unexpected end of input at byte 3" },
    { "lone minus", "-", 0, "unexpected end of input at byte 1" },
    { "trailing comma in array", "[1,]", 0,
      "invalid JSON at byte 3 (line 1, column 4): trailing comma in "
      "array near \"]\"" },
    { "trailing comma in object", "{\"a\":1,}", 0,
      "invalid JSON at byte 7 (line 1, column 8): trailing comma in "
      "object near \"}\"" },
    { "missing comma in array", "[1 2]", 0,
      "invalid JSON at byte 3 (line 1, column 4): expected ',' or ']' "
      "after array element near \"2]\"" },
    { "missing comma in object", "{\"a\":1 \"b\":2}", 0,
      "invalid JSON at byte 7 (line 1, column 8): expected ',' or '}' "
      "after object member near \"\\\"b\\\":2}\"" },
    { "wrong closer", "{\"a\":1]", 0,
      "invalid JSON at byte 6 (line 1, column 7): expected ',' or '}' "
      "after object member near \"]\"" },
    { "missing colon", "{\"a\" 1}", 0,
      "invalid JSON at byte 5 (line 1, column 6): expected ':' after "
      "object key near \"1}\"" },
    { "number key", "{1:2}", 0,
      "invalid JSON at byte 1 (line 1, column 2): expected string for "
      "object key near \"1:2}\"" },
    { "leading comma", "[,1]", 0,
      "invalid JSON at byte 1 (line 1, column 2): expected value near "
      "\",1]\"" },
    { "brace in array", "[}", 0,
      "invalid JSON at byte 1 (line 1, column 2): expected value near "
      "\"}\"" },
    { "bracket in object", "{]", 0,
      "invalid JSON at byte 1 (line 1, column 2): expected string for "
      "object key near \"]\"" },
    { "leading zero", "01", 0,
      "invalid JSON at byte 0 (line 1, column 1): invalid number: "
      "leading zero near \"01\"" },
    { "negative leading zero", "[-012]", 0,
      "invalid JSON at byte 2 (line 1, column 3): invalid number: "
      "leading zero near \"012]\"" },
    { "bare point", "1.e5", 0,
      "invalid JSON at byte 2 (line 1, column 3): invalid number: "
      "expected digit after '.' near \"e5\"" },
    { "bad exponent", "1ex", 0,
      "invalid JSON at byte 2 (line 1, column 3): invalid number: "
      "expected digit in exponent near \"x\"" },
    { "minus letter", "-a", 0,
      "invalid JSON at byte 1 (line 1, column 2): invalid number: "
      "expected digit after '-' near \"a\"" },
    { "plus sign", "+1", 0,
      "invalid JSON at byte 0 (line 1, column 1): expected value near "
      "\"+1\"" },
    { "leading point", ".5", 0,
      "invalid JSON at byte 0 (line 1, column 1): expected value near "
      "\".5\"" },
    { "NaN", "NaN", 0,
      "invalid JSON at byte 0 (line 1, column 1): expected value near "
      "\"NaN\"" },
    { "Infinity", "[Infinity]", 0,
      "invalid JSON at byte 1 (line 1, column 2): expected value near "
      "\"Infinity]\"" },
    { "-Infinity", "-Infinity", 0,
      "invalid JSON at byte 1 (line 1, column 2): invalid number: "
      "expected digit after '-' near \"Infinity\"" },
    { "capital True", "True", 0,
      "invalid JSON at byte 0 (line 1, column 1): expected value near "
      "\"True\"" },
    { "bad literal", "nulx", 0,
      "invalid JSON at byte 0 (line 1, column 1): invalid literal near "
      "\"nulx\"" },
    { "literal with tail", "truex", 0,
      "invalid JSON at byte 4 (line 1, column 5): trailing data after "
      "JSON value near \"x\"" },
    { "two values", "1 2", 0,
      "invalid JSON at byte 2 (line 1, column 3): trailing data after "
      "JSON value near \"2\"" },
    { "extra closer", "{\"a\":1}}", 0,
      "invalid JSON at byte 7 (line 1, column 8): trailing data after "
      "JSON value near \"}\"" },
    { "trailing NUL", "[1]\0", 4,
      "invalid JSON at byte 3 (line 1, column 4): trailing data after "
      "JSON value near \"\"" },
    { "NUL", "\0", 1,
      "invalid JSON at byte 0 (line 1, column 1): expected value near "
      "\"\"" },
    { "byte order mark", "\xef\xbb\xbf{}", 0,
      "invalid JSON at byte 0 (line 1, column 1): expected value near "
      "\"\xef\xbb\xbf{}\"" },
    { "control character", "\"a\x01z\"", 0,
      "invalid JSON at byte 2 (line 1, column 3): control character in "
      "string near \"\\x01z\\\"\"" },
    { "raw tab", "[\"a\tb\"]", 0,
      "invalid JSON at byte 3 (line 1, column 4): control character in "
      "string near \"\\tb\\\"]\"" },
    { "raw newline after escape", "\"\\n\n\"", 0,
      "invalid JSON at byte 3 (line 1, column 4): control character in "
      "string" },
    { "invalid escape", "\"\\x\"", 0,
      "invalid JSON at byte 1 (line 1, column 2): invalid escape in "
      "string near \"\\\\x\\\"\"" },
    { "escaped NUL byte", "\"\\\0\"", 4,
      "invalid JSON at byte 1 (line 1, column 2): invalid escape in "
      "string near \"\\\\\"" },
    { "bad \\u digit", "\"ab\\u12g4\"", 0,
      "invalid JSON at byte 3 (line 1, column 4): invalid \\u escape in "
      "string near \"\\\\u12g4\\\"\"" },
    { "short \\u", "\"\\u12\"", 0,
      "invalid JSON at byte 1 (line 1, column 2): invalid \\u escape in "
      "string near \"\\\\u12\\\"\"" },
    { "line and column", "{\n  \"a\": 1,\n  \"b\" 2\n}", 0,
      "invalid JSON at byte 18 (line 3, column 7): expected ':' after "
      "object key near \"2\"" },
};

static void invalid_documents_should_fail_with_exact_message(void **state)
{
    size_t i;
    int situ;

    (void)state;
    for (i = 0; i < sizeof(invalid_cases) / sizeof(invalid_cases[0]); i++) {
        size_t len = invalid_cases[i].len ? invalid_cases[i].len
                                          : strlen(invalid_cases[i].text);

        for (situ = 0; situ < 2; situ++) {
            struct parsed p;

            parse_mode(&p, invalid_cases[i].text, len, situ);
            if (p.rc != -1 || p.root != NULL)
                fail_msg("%s (%s): accepted", invalid_cases[i].name,
                         mode_name[situ]);
            if (strcmp(p.e.msg, invalid_cases[i].msg))
                fail_msg("%s (%s): got \"%s\", want \"%s\"",
                         invalid_cases[i].name, mode_name[situ], p.e.msg,
                         invalid_cases[i].msg);
            parsed_free(&p);
        }
    }
}

static void unknown_flags_and_null_input_should_be_rejected(void **state)
{
    struct arena a;
    struct err e;
    cJSON *root = (cJSON *)1;

    (void)state;
    arena_init(&a, 0);
    assert_int_equal(json_arena_parse(&a, "1", 1, 4, &root, &e), -1);
    assert_null(root);
    assert_string_equal(e.msg, "json_arena_parse: unknown flags 0x4");
    assert_int_equal(json_arena_parse(&a, NULL, 0, 0, &root, &e), -1);
    assert_string_equal(e.msg, "unexpected end of input at byte 0");
    arena_destroy(&a);
}

/*
 * Where a text cut after n bytes fails: inside a string, at its opening
 * quote (unterminated, quoting what follows it); elsewhere, at the end.
 */
static void cut_message(const char *text, size_t n, char *want, size_t sz)
{
    size_t i, quote = 0, line = 1, col_start = 0, end;
    char tok[17], q[80];
    int in_str = 0;

    for (i = 0; i < n; i++) {
        if (in_str && text[i] == '\\')
            i++;
        else if (text[i] == '"' && !in_str)
            in_str = 1, quote = i;
        else if (text[i] == '"')
            in_str = 0;
    }
    if (!in_str) {
        snprintf(want, sz, "unexpected end of input at byte %zu", n);
        return;
    }
    for (i = 0; i < quote; i++)
        if (text[i] == '\n')
            line++, col_start = i + 1;
    /* Up to 16 bytes of whole UTF-8 characters (the text is valid). */
    for (end = quote; end < n && text[end] != '\n';) {
        unsigned char c = (unsigned char)text[end];
        size_t u = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;

        if (end + u > n || end + u - quote > 16)
            break;
        end += u;
    }
    memcpy(tok, text + quote, end - quote);
    tok[end - quote] = '\0';
    snprintf(want, sz,
             "invalid JSON at byte %zu (line %zu, column %zu): %s near %s",
             quote, line, quote - col_start + 1, UNTERMINATED,
             err_quote(q, sizeof(q), tok, 16));
}

static void every_prefix_of_a_node_should_fail_at_its_end(void **state)
{
    size_t n, len = strlen(node_json);
    char want[128];
    int situ;

    (void)state;
    for (n = 0; n < len; n++) {
        cut_message(node_json, n, want, sizeof(want));
        for (situ = 0; situ < 2; situ++) {
            struct parsed p;

            parse_mode(&p, node_json, n, situ);
            if (p.rc != -1 || p.root != NULL || strcmp(p.e.msg, want))
                fail_msg("prefix %zu (%s): rc %d, \"%s\"", n, mode_name[situ],
                         p.rc, p.e.msg);
            parsed_free(&p);
        }
    }
}

/* "[[[...]]]" or {"a":{"a":...}} with depth levels, in malloc'd memory. */
static char *nested(size_t depth, int object, size_t *len)
{
    const char *open = object ? "{\"a\":" : "[", *close = object ? "}" : "]";
    size_t lo = strlen(open), i;
    char *s = malloc(depth * (lo + 1) + 2);

    assert_non_null(s);
    *len = 0;
    for (i = 0; i < depth; i++) {
        memcpy(s + *len, open, lo);
        *len += lo;
    }
    s[(*len)++] = '1';
    for (i = 0; i < depth; i++)
        s[(*len)++] = *close;
    return s;
}

static void nesting_should_stop_after_the_limit(void **state)
{
    static const struct {
        const char *name;
        size_t depth;
        int object;
        const char *msg; /* NULL: parses */
    } cases[] = {
        { "arrays at the limit", JSON_ARENA_MAX_DEPTH, 0, NULL },
        { "objects at the limit", JSON_ARENA_MAX_DEPTH, 1, NULL },
        { "arrays over the limit", JSON_ARENA_MAX_DEPTH + 1, 0,
          "invalid JSON at byte 512 (line 1, column 513): nesting deeper "
          "than 512 levels near \"[1]]]]]]]]]]]]]]\"" },
        { "objects over the limit", JSON_ARENA_MAX_DEPTH + 1, 1,
          "invalid JSON at byte 2560 (line 1, column 2561): nesting deeper "
          "than 512 levels near \"{\\\"a\\\":1}}}}}}}}}}\"" },
        { "a million arrays", 1000000, 0,
          "invalid JSON at byte 512 (line 1, column 513): nesting deeper "
          "than 512 levels near \"[[[[[[[[[[[[[[[[\"" },
    };
    size_t i, len, d;
    int situ;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = nested(cases[i].depth, cases[i].object, &len);

        for (situ = 0; situ < 2; situ++) {
            struct parsed p;
            const cJSON *n;

            parse_mode(&p, text, len, situ);
            if (cases[i].msg && (p.rc != -1 || strcmp(p.e.msg, cases[i].msg)))
                fail_msg("%s (%s): \"%s\"", cases[i].name, mode_name[situ],
                         p.e.msg);
            if (!cases[i].msg) {
                if (p.rc != 0)
                    fail_msg("%s (%s): %s", cases[i].name, mode_name[situ],
                             p.e.msg);
                for (n = p.root, d = 0; n->child; n = n->child)
                    d++;
                if (d != cases[i].depth || !cJSON_IsNumber(n))
                    fail_msg("%s (%s): depth %zu", cases[i].name,
                             mode_name[situ], d);
            }
            parsed_free(&p);
        }
        free(text);
    }
}

/* String values decoded as Go's encoding/json decodes them. */
static const struct {
    const char *name;
    const char *json;
    const char *want;
    size_t want_len; /* 0: strlen(want) */
} string_cases[] = {
    { "plain", "\"abc\"", "abc", 0 },
    { "simple escapes", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t",
      0 },
    { "two-byte escape", "\"\\u00e9\"", "\xc3\xa9", 0 },
    { "three-byte escape", "\"\\u20AC\"", "\xe2\x82\xac", 0 },
    { "surrogate pair", "\"x\\ud83d\\ude00y\"", "x\xf0\x9f\x98\x80y", 0 },
    { "highest pair", "\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf", 0 },
    { "lone high surrogate", "\"\\ud800\"", "\xef\xbf\xbd", 0 },
    { "lone low surrogate", "\"a\\udc00b\"",
      "a\xef\xbf\xbd"
      "b",
      0 },
    { "high then letter", "\"\\ud800x\"", "\xef\xbf\xbdx", 0 },
    { "high then BMP escape", "\"\\ud800\\u0041\"",
      "\xef\xbf\xbd"
      "A",
      0 },
    { "two highs", "\"\\ud800\\ud800\"", "\xef\xbf\xbd\xef\xbf\xbd", 0 },
    { "high then other escape", "\"\\ud800\\n\"", "\xef\xbf\xbd\n", 0 },
    { "reversed pair", "\"\\ude00\\ud83d\"", "\xef\xbf\xbd\xef\xbf\xbd", 0 },
    { "escaped NUL", "\"a\\u0000b\"", "a\0b", 3 },
    { "valid raw UTF-8", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
      "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 0 },
    { "invalid byte",
      "\"a\xff"
      "b\"",
      "a\xef\xbf\xbd"
      "b",
      0 },
    { "lone continuation", "\"\x80\"", "\xef\xbf\xbd", 0 },
    { "truncated sequence", "\"\xe2\x82z\"", "\xef\xbf\xbd\xef\xbf\xbdz", 0 },
    { "truncated at quote", "\"\xc3\"", "\xef\xbf\xbd", 0 },
    { "overlong NUL", "\"\xc0\x80\"", "\xef\xbf\xbd\xef\xbf\xbd", 0 },
    { "overlong slash", "\"\xe0\x80\xaf\"",
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 0 },
    { "encoded surrogate", "\"\xed\xa0\x80\"",
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 0 },
    { "above U+10FFFF", "\"\xf4\x90\x80\x80\"",
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 0 },
    { "invalid UTF-8 and escapes", "\"\\n\xff\\u00e9\xfe\"",
      "\n\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd", 0 },
    { "replacement past 16 bytes", "\"0123456789abcdef\xff\"",
      "0123456789abcdef\xef\xbf\xbd", 0 },
    { "only invalid bytes", "\"\xff\xff\xff\xff\xff\xff\xff\xff\"",
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
      0 },
};

/* JSON_ARENA_NO_NUL (request bodies): \u0000 is refused where it is,
 * in values and keys; other escapes and a plain "\\u0000" text still
 * parse; without the flag the NUL decodes as Go does. */
static void no_nul_flag_should_refuse_escaped_nul(void **state)
{
    static const struct {
        const char *json;
        size_t at; /* byte of the backslash; 0: parses */
    } cases[] = {
        { "\"rdma-1\\u0000evil\"", 7 }, { "{\"a\\u0000\":1}", 3 },
        { "[\"x\",\"\\u0000\"]", 6 },   { "\"\\u0001\\u00e9\"", 0 },
        { "\"\\\\u0000\"", 0 }, /* an escaped backslash, then text */
    };
    struct arena a;
    struct err e;
    cJSON *root;
    size_t i;
    char want[64];

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *j = cases[i].json;
        int rc;

        arena_init(&a, 0);
        rc = json_arena_parse(&a, j, strlen(j), JSON_ARENA_NO_NUL, &root, &e);
        if (!cases[i].at) {
            if (rc != 0)
                fail_msg("%s: %s", j, e.msg);
        } else {
            snprintf(want, sizeof(want), "invalid JSON at byte %zu ",
                     cases[i].at);
            if (rc != -1 || strncmp(e.msg, want, strlen(want)) ||
                !strstr(e.msg, "(NUL) in string"))
                fail_msg("%s: rc %d, \"%s\"", j, rc, rc ? e.msg : "");
            /* Without the flag it parses. */
            assert_int_equal(json_arena_parse(&a, j, strlen(j), 0, &root, &e),
                             0);
        }
        arena_destroy(&a);
    }
}

static void strings_should_decode_like_go(void **state)
{
    char doc[256], key[256];
    size_t i;
    int situ, as_key;

    (void)state;
    for (i = 0; i < sizeof(string_cases) / sizeof(string_cases[0]); i++) {
        size_t wl = string_cases[i].want_len ? string_cases[i].want_len
                                             : strlen(string_cases[i].want);

        snprintf(key, sizeof(key), "{%s:%s}", string_cases[i].json,
                 string_cases[i].json);
        for (as_key = 0; as_key < 2; as_key++) {
            const char *text = as_key ? key : string_cases[i].json;

            snprintf(doc, sizeof(doc), "%s", text);
            for (situ = 0; situ < 2; situ++) {
                struct parsed p;
                const cJSON *n;
                const char *got;

                parse_mode(&p, doc, strlen(doc), situ);
                if (p.rc != 0)
                    fail_msg("%s (%s): %s", string_cases[i].name,
                             mode_name[situ], p.e.msg);
                n = as_key ? p.root->child : p.root;
                got = as_key ? n->string : n->valuestring;
                if (!cJSON_IsString(n) ||
                    memcmp(got, string_cases[i].want, wl + 1))
                    fail_msg("%s (%s, %s): got \"%s\"", string_cases[i].name,
                             mode_name[situ], as_key ? "key" : "value", got);
                if (as_key && memcmp(n->valuestring, got, wl + 1))
                    fail_msg("%s (%s): key and value differ",
                             string_cases[i].name, mode_name[situ]);
                parsed_free(&p);
            }
        }
    }
}

/* Numbers: strtod's double, cJSON's valueint, and the exact source text. */
static const char *const number_cases[] = {
    "0",
    "-0",
    "7",
    "-1",
    "42",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "9007199254740992",
    "9007199254740993",
    "-9223372036854775808",
    "18446744073709551616",
    "123456789012345678901234567890",
    "0.1",
    "0.3",
    "2.5",
    "-1.5e-3",
    "1E+2",
    "1e-2",
    "12.5e-1",
    "1e22",
    "1e23",
    "123456789012345e-22",
    "90071992547409930e-1",
    "12345678901234567e-5",
    "1234567890123456789e-3",
    "7.0000000000000000001",
    "0.0000000000000000000001",
    "0.00000000000000000000001",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "2.2250738585072011e-308",
    "4.9e-324",
    "2e-324",
    "1e400",
    "-1e400",
    "1e-400",
    "1e99999999999999999999",
    "3.14159265358979323846264338327950288419716939937510582097494459",
    "0.30000000000000000000000000000000000000000000000000000000000000001",
};

static void numbers_should_round_like_strtod_and_keep_text(void **state)
{
    size_t i;
    int situ;

    (void)state;
    for (i = 0; i < sizeof(number_cases) / sizeof(number_cases[0]); i++) {
        const char *t = number_cases[i];
        double want = strtod(t, NULL);
        int want_int = want >= INT_MAX   ? INT_MAX
                       : want <= INT_MIN ? INT_MIN
                                         : (int)want;
        char doc[256];

        snprintf(doc, sizeof(doc), "[%s]", t);
        for (situ = 0; situ < 2; situ++) {
            struct parsed p;
            const cJSON *n;

            parse_mode(&p, doc, strlen(doc), situ);
            if (p.rc != 0)
                fail_msg("%s (%s): %s", t, mode_name[situ], p.e.msg);
            n = cJSON_GetArrayItem(p.root, 0);
            if (!cJSON_IsNumber(n) ||
                memcmp(&n->valuedouble, &want, sizeof(want)))
                fail_msg("%s (%s): got %.17g, want %.17g", t, mode_name[situ],
                         n->valuedouble, want);
            if (n->valueint != want_int || strcmp(n->valuestring, t))
                fail_msg("%s (%s): valueint %d, text \"%s\"", t,
                         mode_name[situ], n->valueint, n->valuestring);
            parsed_free(&p);
        }
        /* cJSON reads at most 63 number characters. */
        if (strlen(t) < 64)
            check_like_cjson(t, doc, strlen(doc));
    }
}

static void big_integers_should_keep_exact_text(void **state)
{
    static const char doc[] = "{\"resourceVersion\":9223372036854775807,"
                              "\"neg\":-9223372036854775807}";
    struct parsed p;
    const cJSON *n;

    (void)state;
    parse_mode(&p, doc, strlen(doc), 0);
    assert_int_equal(p.rc, 0);
    n = cJSON_GetObjectItemCaseSensitive(p.root, "resourceVersion");
    assert_true(cJSON_IsNumber(n));
    assert_int_equal(strtoll(n->valuestring, NULL, 10), INT64_MAX);
    assert_int_equal(n->valueint, INT_MAX);
    n = cJSON_GetObjectItemCaseSensitive(p.root, "neg");
    assert_int_equal(strtoll(n->valuestring, NULL, 10), -INT64_MAX);
    assert_int_equal(n->valueint, INT_MIN);
    parsed_free(&p);
}

static void megabyte_string_should_survive_intact(void **state)
{
    static const struct {
        const char *name;
        const char *unit; /* repeated; its decoded form */
        const char *decoded;
    } cases[] = {
        { "plain", "abcdefghijklmnopqrstuvwxyz012345", NULL },
        { "escaped", "ab\\\"cd\\n\\u00e9", "ab\"cd\n\xc3\xa9" },
    };
    size_t i, k, mb = 1 << 20;
    int situ;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *dec = cases[i].decoded ? cases[i].decoded : cases[i].unit;
        size_t ul = strlen(cases[i].unit), dl = strlen(dec);
        size_t reps = mb / ul, len = reps * ul + 2;
        char *text = malloc(len);

        assert_non_null(text);
        text[0] = '"';
        for (k = 0; k < reps; k++)
            memcpy(text + 1 + k * ul, cases[i].unit, ul);
        text[len - 1] = '"';
        for (situ = 0; situ < 2; situ++) {
            struct parsed p;

            parse_mode(&p, text, len, situ);
            if (p.rc != 0 || strlen(p.root->valuestring) != reps * dl)
                fail_msg("%s (%s): rc %d", cases[i].name, mode_name[situ],
                         p.rc);
            for (k = 0; k < reps; k++) {
                if (memcmp(p.root->valuestring + k * dl, dec, dl))
                    fail_msg("%s (%s): differs at unit %zu", cases[i].name,
                             mode_name[situ], k);
            }
            parsed_free(&p);
        }
        free(text);
    }
}

static void object_with_100000_members_should_parse_in_order(void **state)
{
    size_t cap = 100000 * 24 + 2, len = 0, i;
    char *text = malloc(cap), key[32];
    struct parsed p;
    const cJSON *m;

    (void)state;
    assert_non_null(text);
    text[len++] = '{';
    for (i = 0; i < 100000; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s\"k%zu\":%zu",
                                i ? "," : "", i, i);
    text[len++] = '}';
    parse_mode(&p, text, len, 1);
    assert_int_equal(p.rc, 0);
    assert_int_equal(cJSON_GetArraySize(p.root), 100000);
    i = 0;
    cJSON_ArrayForEach(m, p.root)
    {
        snprintf(key, sizeof(key), "k%zu", i);
        if (strcmp(m->string, key) || m->valueint != (int)i)
            fail_msg("member %zu: \"%s\" = %d", i, m->string, m->valueint);
        i++;
    }
    assert_int_equal(i, 100000);
    m = cJSON_GetObjectItemCaseSensitive(p.root, "k99999");
    assert_true(cJSON_IsNumber(m));
    assert_int_equal(m->valueint, 99999);
    assert_ptr_equal(p.root->child->prev, m);
    parsed_free(&p);
    free(text);
}

static void cjson_read_api_should_work_on_the_tree(void **state)
{
    struct parsed p;
    const cJSON *md, *taints, *t, *img, *flags;
    int count = 0;

    (void)state;
    parse_mode(&p, node_json, strlen(node_json), 0);
    assert_int_equal(p.rc, 0);
    assert_true(cJSON_IsObject(p.root));
    md = cJSON_GetObjectItemCaseSensitive(p.root, "metadata");
    assert_string_equal(
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "name")),
        "node-0001");
    assert_null(cJSON_GetObjectItemCaseSensitive(md, "Name"));
    assert_non_null(cJSON_GetObjectItem(md, "NAME")); /* case-insensitive */
    assert_true(cJSON_HasObjectItem(md, "labels"));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(md, "annotations"),
                            "kubectl.kubernetes.io/last-applied-configuration")
                            ->valuestring,
                        "{\"kind\":\"Node\",\"spec\":{\"taints\":[]}}\n");
    taints = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(p.root, "spec"), "taints");
    assert_true(cJSON_IsArray(taints));
    assert_int_equal(cJSON_GetArraySize(taints), 2);
    cJSON_ArrayForEach(t, taints)
    {
        assert_true(
            cJSON_IsString(cJSON_GetObjectItemCaseSensitive(t, "effect")));
        count++;
    }
    assert_int_equal(count, 2);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(taints, 1), "timeAdded")));
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(p.root, "spec"), "unschedulable")));
    img = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(p.root, "status"), "images"),
        1);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(img, "sizeBytes")));
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(img, "sizeBytes")) ==
                4294967296123.0);
    assert_string_equal(cJSON_GetObjectItem(img, "sizeBytes")->valuestring,
                        "4294967296123");
    flags = cJSON_GetObjectItemCaseSensitive(img, "flags");
    assert_true(cJSON_IsTrue(cJSON_GetArrayItem(flags, 0)));
    assert_true(cJSON_IsBool(cJSON_GetArrayItem(flags, 1)));
    assert_true(cJSON_IsArray(cJSON_GetArrayItem(flags, 3)));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetArrayItem(flags, 4)), 0);
    assert_null(cJSON_GetArrayItem(flags, 5));
    assert_null(cJSON_GetObjectItemCaseSensitive(NULL, "x"));
    parsed_free(&p);
}

static void duplicate_keys_should_be_kept_in_order(void **state)
{
    static const char doc[] = "{\"a\":1,\"b\":2,\"a\":3}";
    struct parsed p;
    const cJSON *m;
    int seen = 0, want[] = { 1, 2, 3 };

    (void)state;
    parse_mode(&p, doc, strlen(doc), 1);
    assert_int_equal(p.rc, 0);
    cJSON_ArrayForEach(m, p.root)
    {
        assert_int_equal(m->valueint, want[seen]);
        seen++;
    }
    assert_int_equal(seen, 3);
    /* cJSON's lookup returns the first; Go would keep the last. */
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(p.root, "a")->valueint,
                     1);
    parsed_free(&p);
}

/* Render the tree back (cJSON's printer reads our nodes as its own). */
static char *render(const cJSON *v)
{
    return cJSON_PrintUnformatted(v);
}

/*
 * JSON_ARENA_GO_KEYS: duplicate keys as Go's encoding/json decodes them
 * (decode.go object(): each member stored in turn, into the value already
 * there): the last wins, two objects merge, recursively; big objects take
 * the hashed path.
 */
static void go_keys_flag_should_resolve_duplicates_as_go(void **state)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "{\"a\":1,\"b\":2,\"a\":3}", "{\"b\":2,\"a\":3}" },
        { "{\"l\":{\"x\":\"1\"},\"l\":{\"y\":\"2\",\"x\":\"3\"}}",
          "{\"l\":{\"y\":\"2\",\"x\":\"3\"}}" },
        { "{\"p\":{\"m\":{\"n\":\"a\"}},\"q\":0,\"p\":{\"m\":{\"ns\":\"b\"}}}",
          "{\"p\":{\"m\":{\"n\":\"a\",\"ns\":\"b\"}},\"q\":0}" },
        { "{\"a\":{\"b\":1},\"a\":null}", "{\"a\":null}" },
        { "{\"a\":[1],\"a\":{\"b\":1}}", "{\"a\":{\"b\":1}}" },
        { "{\"a\":{\"b\":1},\"a\":[2]}", "{\"a\":[2]}" },
        { "[{\"a\":1,\"a\":2},{\"a\":3}]", "[{\"a\":2},{\"a\":3}]" },
        /* Several, replaced in the middle: each later one moves to its
         * own place (the small-object path keeps per-key hashes in step). */
        { "{\"a\":1,\"b\":2,\"c\":3,\"b\":4,\"a\":5,\"b\":6,\"d\":7,"
          "\"c\":8}",
          "{\"a\":5,\"b\":6,\"d\":7,\"c\":8}" },
        /* Keys sharing a long prefix are not duplicates. */
        { "{\"app.kubernetes.io/name\":\"x\",\"app.kubernetes.io/instance\":"
          "\"y\",\"app.kubernetes.io/name\":\"z\"}",
          "{\"app.kubernetes.io/instance\":\"y\",\"app.kubernetes.io/name\":"
          "\"z\"}" },
        /* Case variants are a struct field's business (json_member_go). */
        { "{\"a\":1,\"A\":2}", "{\"a\":1,\"A\":2}" },
    };
    struct arena a;
    struct err e;
    cJSON *root;
    char big[4096], want[4096], *out;
    size_t i, n = 0, w = 0;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        arena_init(&a, 0);
        assert_int_equal(json_arena_parse(&a, cases[i].in, strlen(cases[i].in),
                                          JSON_ARENA_GO_KEYS, &root, &e),
                         0);
        out = render(root);
        if (strcmp(out, cases[i].want) != 0)
            fail_msg("%s: got %s, want %s", cases[i].in, out, cases[i].want);
        free(out);
        arena_destroy(&a);
    }
    /* 40 keys, each twice: the hashed path. */
    n += (size_t)snprintf(big + n, sizeof(big) - n, "{");
    for (i = 0; i < 80; i++)
        n += (size_t)snprintf(big + n, sizeof(big) - n, "%s\"k%zu\":%zu",
                              i ? "," : "", i % 40, i);
    snprintf(big + n, sizeof(big) - n, "}");
    w += (size_t)snprintf(want + w, sizeof(want) - w, "{");
    for (i = 40; i < 80; i++)
        w += (size_t)snprintf(want + w, sizeof(want) - w, "%s\"k%zu\":%zu",
                              i > 40 ? "," : "", i % 40, i);
    snprintf(want + w, sizeof(want) - w, "}");
    arena_init(&a, 0);
    assert_int_equal(
        json_arena_parse(&a, big, strlen(big), JSON_ARENA_GO_KEYS, &root, &e),
        0);
    out = render(root);
    assert_string_equal(out, want);
    free(out);
    arena_destroy(&a);
}

/* A struct field: every key equal ignoring case (and U+017F, U+212A),
 * the last winning, objects merged. */
static void member_go_should_fill_a_struct_field_as_go(void **state)
{
    static const char doc[] =
        "{\"NodeNames\":[\"rdma-1\"],\"nodenames\":[\"general-1\"],"
        "\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"pod\":{\"spec\":{}},"
        "\"Nodes\":null,\"Node\\u017f\":[1],\"Node_s\":2}";
    struct arena a;
    struct err e;
    cJSON *root, *v;
    char *out;

    (void)state;
    arena_init(&a, 0);
    assert_int_equal(
        json_arena_parse(&a, doc, strlen(doc), JSON_ARENA_GO_KEYS, &root, &e),
        0);
    out = render(json_member_go(&a, root, "NodeNames"));
    assert_string_equal(out, "[\"general-1\"]");
    free(out);
    out = render(json_member_go(&a, root, "Pod"));
    assert_string_equal(out, "{\"metadata\":{\"name\":\"p\"},\"spec\":{}}");
    free(out);
    v = json_member_go(&a, root, "Nodes");
    assert_non_null(v);
    assert_true(cJSON_IsArray(v));
    assert_null(json_member_go(&a, root, "Missing"));
    assert_null(json_member_go(&a, v, "x"));
    assert_true(json_key_names_field("\xe2\x84\xaa"
                                     "ey",
                                     5, "KEY"));
    assert_false(json_key_names_field("k-y", 3, "k\ry"));
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_documents_should_match_cjson_tree),
        cmocka_unit_test(invalid_documents_should_fail_with_exact_message),
        cmocka_unit_test(unknown_flags_and_null_input_should_be_rejected),
        cmocka_unit_test(every_prefix_of_a_node_should_fail_at_its_end),
        cmocka_unit_test(nesting_should_stop_after_the_limit),
        cmocka_unit_test(strings_should_decode_like_go),
        cmocka_unit_test(no_nul_flag_should_refuse_escaped_nul),
        cmocka_unit_test(numbers_should_round_like_strtod_and_keep_text),
        cmocka_unit_test(big_integers_should_keep_exact_text),
        cmocka_unit_test(megabyte_string_should_survive_intact),
        cmocka_unit_test(object_with_100000_members_should_parse_in_order),
        cmocka_unit_test(cjson_read_api_should_work_on_the_tree),
        cmocka_unit_test(duplicate_keys_should_be_kept_in_order),
        cmocka_unit_test(go_keys_flag_should_resolve_duplicates_as_go),
        cmocka_unit_test(member_go_should_fill_a_struct_field_as_go),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
