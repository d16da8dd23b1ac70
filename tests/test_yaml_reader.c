/*
 * test_yaml_reader.c: YAML into the JSON trees the object model reads, as
 * sigs.k8s.io/yaml (yaml.v2) converts it: YAML 1.1 scalars, last key wins,
 * merges and aliases (with a budget), and syntax errors that say where and
 * what. Each row is YAML in, the JSON Kubernetes would decode out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/base/yaml_reader.h"
#include "kube/base/yaml_scalar.h"

/* The tree as compact JSON, numbers by their JSON text (malloc'd). */
static void dump(const cJSON *v, char **s, size_t *len, size_t *cap);

static void put(char **s, size_t *len, size_t *cap, const char *t)
{
    size_t n = strlen(t);

    if (*len + n + 1 > *cap) {
        *cap = 2 * (*len + n + 1);
        *s = realloc(*s, *cap);
        assert_non_null(*s);
    }
    memcpy(*s + *len, t, n + 1);
    *len += n;
}

static void dump(const cJSON *v, char **s, size_t *len, size_t *cap)
{
    const cJSON *c;
    char *str;

    if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
        put(s, len, cap, cJSON_IsObject(v) ? "{" : "[");
        for (c = v->child; c; c = c->next) {
            if (c != v->child)
                put(s, len, cap, ",");
            if (cJSON_IsObject(v)) {
                str = cJSON_PrintUnformatted(
                    &(cJSON){ .type = cJSON_String, .valuestring = c->string });
                put(s, len, cap, str);
                free(str);
                put(s, len, cap, ":");
            }
            dump(c, s, len, cap);
        }
        put(s, len, cap, cJSON_IsObject(v) ? "}" : "]");
    } else if (cJSON_IsNumber(v)) {
        put(s, len, cap, v->valuestring);
    } else {
        str = cJSON_PrintUnformatted(v);
        put(s, len, cap, str);
        free(str);
    }
}

/* yaml_parse_one, then the JSON text (or "error: <msg>"); malloc'd. */
static char *convert(const char *yaml)
{
    struct arena a;
    struct err e;
    cJSON *root;
    char *s = NULL;
    size_t len = 0, cap = 0;

    arena_init(&a, 0);
    if (yaml_parse_one(&a, yaml, strlen(yaml), &root, NULL, &e) < 0) {
        put(&s, &len, &cap, "error: ");
        put(&s, &len, &cap, e.msg);
    } else {
        dump(root, &s, &len, &cap);
    }
    arena_destroy(&a);
    return s;
}

struct ycase {
    const char *name;
    const char *yaml;
    const char *want; /* JSON, or "error: <exact message>" */
};

static void run(const struct ycase *c, size_t n)
{
    size_t i;
    int bad = 0;

    for (i = 0; i < n; i++) {
        char *got = convert(c[i].yaml);

        if (strcmp(got, c[i].want)) {
            print_error("%s:\n  got  %s\n  want %s\n", c[i].name, got,
                        c[i].want);
            bad++;
        }
        free(got);
    }
    if (bad)
        fail_msg("%d case(s) failed", bad);
}

/* yaml.v2's resolve(): plain scalars only; quoted ones stay strings. */
static const struct ycase scalar_cases[] = {
    { "bools in YAML 1.1 spellings", "[yes, No, on, OFF, y, N, true, False]",
      "[true,false,true,false,true,false,true,false]" },
    { "quoted words stay strings", "[\"yes\", 'on', \"true\"]",
      "[\"yes\",\"on\",\"true\"]" },
    { "nulls", "a: ~\nb: null\nc:\nd: NULL\n",
      "{\"a\":null,\"b\":null,\"c\":null,\"d\":null}" },
    { "integers with base prefixes and underscores",
      "[0x1F, 0o17, 0b101, 0777, 1_000, +5, -12, 0]",
      "[31,15,5,511,1000,5,-12,0]" },
    { "uint64 beyond int64", "[18446744073709551615, 9223372036854775807]",
      "[18446744073709551615,9223372036854775807]" },
    { "floats as yaml.v2 reads them", "[1.5, 1e3, .5, -2.50, 08]",
      "[1.5,1000,0.5,-2.5,8]" },
    { "quantities and versions stay strings",
      "[500m, 1Gi, 1.2.3, 1e, 0x, 2021-01-02, 12:30]",
      "[\"500m\",\"1Gi\",\"1.2.3\",\"1e\",\"0x\",\"2021-01-02\",\"12:30\"]" },
    { "explicit tags", "[!!str 12, !!int \"12\", !!str true]",
      "[\"12\",12,\"true\"]" },
    { "block scalars are strings", "a: |\n  yes\n  12\nb: >-\n  x\n  y\n",
      "{\"a\":\"yes\\n12\\n\",\"b\":\"x y\"}" },
    { "keys that resolve are written as JSON text",
      "{1: a, true: b, ~: c, 0x10: d}",
      "{\"1\":\"a\",\"true\":\"b\",\"null\":\"c\",\"16\":\"d\"}" },
    { "infinity cannot be JSON", "a: .inf\n",
      "error: invalid YAML at line 1, column 4: \".inf\" is not a number "
      "JSON can hold near \".inf\"" },
};

static void scalars_should_resolve_as_yaml_v2(void **state)
{
    (void)state;
    run(scalar_cases, sizeof(scalar_cases) / sizeof(scalar_cases[0]));
}

static const struct ycase structure_cases[] = {
    { "a Pod as kubectl prints it",
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n"
      "    app: web\nspec:\n  containers:\n  - name: c\n    image: nginx\n"
      "    resources:\n      requests:\n        cpu: 500m\n"
      "        memory: \"1Gi\"\n",
      "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
      "\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":"
      "\"c\",\"image\":\"nginx\",\"resources\":{\"requests\":{\"cpu\":"
      "\"500m\",\"memory\":\"1Gi\"}}}]}}" },
    { "JSON is YAML", "{\"a\": [1, 2.5, \"x\", null, true], \"b\": {}}",
      "{\"a\":[1,2.5,\"x\",null,true],\"b\":{}}" },
    { "a repeated key: the last value wins, in the first one's place",
      "a: 1\nb: 2\na: 3\n", "{\"a\":3,\"b\":2}" },
    { "aliases are expanded", "a: &x {k: v}\nb: *x\nc: [*x]\n",
      "{\"a\":{\"k\":\"v\"},\"b\":{\"k\":\"v\"},\"c\":[{\"k\":\"v\"}]}" },
    { "merge keys: explicit keys after the merge win",
      "base: &b {x: 1, w: 2}\nm:\n  <<: *b\n  w: 3\n",
      "{\"base\":{\"x\":1,\"w\":2},\"m\":{\"x\":1,\"w\":3}}" },
    { "the key y is true in YAML 1.1", "{y: 1, n: 2}",
      "{\"true\":1,\"false\":2}" },
    { "merge of a list: earlier maps win",
      "a: &a {x: 1}\nb: &b {x: 2, z: 3}\nm:\n  <<: [*a, *b]\n",
      "{\"a\":{\"x\":1},\"b\":{\"x\":2,\"z\":3},\"m\":{\"x\":1,\"z\":3}}" },
    { "only the first document is read", "a: 1\n---\nb: 2\n", "{\"a\":1}" },
    { "a leading --- is fine", "---\na: 1\n", "{\"a\":1}" },
    { "unknown anchor", "a: *nope\n",
      "error: invalid YAML at line 1, column 4: unknown anchor \"nope\" "
      "(anchors count within one object) near \"*nope\"" },
    { "missing colon", "kind: Pod\nmetadata\n  name: p\n",
      "error: invalid YAML at line 3, column 7: could not find expected ':' "
      "(while scanning a simple key at line 2, column 1) near \"metadata\"" },
    { "unterminated quoted string", "kind: \"Pod\n",
      "error: invalid YAML at line 2, column 1: found unexpected end of "
      "stream (while scanning a quoted scalar at line 1, column 7) near "
      "\"\\\"Pod\"" },
    { "a tab for indentation", "a:\n\tb: 1\n",
      "error: invalid YAML at line 2, column 1: found character that cannot "
      "start any token (while scanning for the next token at line 2, column "
      "1) near \"\\tb: 1\"" },
    { "bad indentation", "a:\n  b: 1\n c: 2\n",
      "error: invalid YAML at line 3, column 2: did not find expected key "
      "(while parsing a block mapping at line 1, column 1) near \"c: 2\"" },
    { "empty input", "", "error: no YAML document" },
    { "fuzz_yaml: an error at the end of a line after a BOM character",
      "kinC:kinda\xef\xbb\xbf"
      "ersio{n: ::",
      "error: invalid YAML at line 1, column 22: mapping values are not "
      "allowed in this context near \":\"" },
};

static void structures_should_convert_as_kubernetes_does(void **state)
{
    (void)state;
    run(structure_cases, sizeof(structure_cases) / sizeof(structure_cases[0]));
}

/* A "billion laughs" stops at the alias budget, quickly. */
static void alias_bombs_should_stop_at_the_budget(void **state)
{
    const char *bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                       "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
    char *got = convert(bomb);

    (void)state;
    if (!strstr(got, "aliases expand to more than 100000 nodes"))
        fail_msg("got %s", got);
    free(got);
}

/*
 * A mapping of 200,000 keys loads at once (a table, not a scan per key),
 * and a repeat at its end still replaces the first value in place.
 */
static void big_mappings_should_load_fast_and_keep_last_wins(void **state)
{
    size_t n = 200000, i, len = 0, count = 0;
    char *y = malloc(n * 24 + 64);
    struct arena a;
    struct err e;
    const cJSON *c;
    cJSON *root;

    (void)state;
    assert_non_null(y);
    for (i = 0; i < n; i++)
        len += (size_t)sprintf(y + len, "k%zu: %zu\n", i, i);
    len += (size_t)sprintf(y + len, "k7: again\n");
    arena_init(&a, 0);
    assert_int_equal(yaml_parse_one(&a, y, len, &root, NULL, &e), 0);
    for (c = root->child; c; c = c->next)
        count++;
    assert_int_equal(count, n);
    c = cJSON_GetObjectItemCaseSensitive(root, "k7");
    assert_true(cJSON_IsString(c));
    assert_string_equal(c->valuestring, "again");
    assert_ptr_equal(root->child->next->next->next->next->next->next->next,
                     c); /* still the eighth member */
    assert_string_equal(root->child->prev->string, "k199999");
    arena_destroy(&a);
    free(y);
}

/* Nesting is bounded before any recursion can run deep. */
static void deep_nesting_should_be_refused(void **state)
{
    size_t n = 300, i;
    char *y = malloc(2 * n + 1), *got;

    (void)state;
    assert_non_null(y);
    for (i = 0; i < n; i++) {
        y[i] = '[';
        y[n + i] = ']';
    }
    y[2 * n] = '\0';
    got = convert(y);
    if (!strstr(got, "nesting deeper than 256 levels"))
        fail_msg("got %s", got);
    free(got);
    free(y);
}

/* The pull reader: documents one by one, containers element by element. */
static void the_reader_should_walk_documents_and_items(void **state)
{
    const char *text = "---\nkind: List\nitems:\n- a: 1\n- b: 2\n---\n"
                       "---\n[x]\n";
    struct yaml_reader r;
    struct arena a;
    struct err e;
    cJSON *v;
    char *key;
    size_t line, col;

    (void)state;
    arena_init(&a, 0);
    assert_int_equal(yreader_init_buffer(&r, text, strlen(text), &e), 0);
    assert_int_equal(yreader_document(&r), 1);
    assert_int_equal(yreader_peek(&r), '{');
    assert_int_equal(yreader_enter(&r), 0);
    assert_int_equal(yreader_next(&r, &a, &key), 1);
    assert_string_equal(key, "kind");
    assert_int_equal(yreader_skip(&r), 0);
    assert_int_equal(yreader_next(&r, &a, &key), 1);
    assert_string_equal(key, "items");
    assert_int_equal(yreader_enter(&r), 0);
    assert_int_equal(yreader_next(&r, &a, &key), 1);
    assert_null(key);
    yreader_where(&r, &line, &col);
    assert_int_equal(line, 4);
    assert_int_equal(col, 3);
    assert_int_equal(yreader_value(&r, &a, &v), 0);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(v, "a")->valuedouble, 1);
    assert_int_equal(yreader_next(&r, &a, &key), 1);
    assert_int_equal(yreader_skip(&r), 0);
    assert_int_equal(yreader_next(&r, &a, &key), 0); /* items closed */
    assert_int_equal(yreader_next(&r, &a, &key), 0); /* document closed */
    assert_int_equal(yreader_document(&r), 1);       /* empty */
    assert_int_equal(yreader_value(&r, &a, &v), 0);
    assert_true(cJSON_IsNull(v));
    assert_int_equal(yreader_document(&r), 1);
    assert_int_equal(yreader_peek(&r), '[');
    assert_int_equal(yreader_skip(&r), 0);
    assert_int_equal(yreader_document(&r), 0);
    /* Again from the start. */
    assert_int_equal(yreader_restart(&r), 0);
    assert_int_equal(yreader_document(&r), 1);
    assert_int_equal(yreader_peek(&r), '{');
    yreader_free(&r);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalars_should_resolve_as_yaml_v2),
        cmocka_unit_test(structures_should_convert_as_kubernetes_does),
        cmocka_unit_test(alias_bombs_should_stop_at_the_budget),
        cmocka_unit_test(big_mappings_should_load_fast_and_keep_last_wins),
        cmocka_unit_test(deep_nesting_should_be_refused),
        cmocka_unit_test(the_reader_should_walk_documents_and_items),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
