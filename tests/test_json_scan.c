/*
 * test_json_scan.c: value spans in validated JSON text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kube/base/json_scan.h"

static const char *doc =
    "{ \"pod\": {\"a\":\"}\\\"{\"}, \"nodes\":false, \"Nodes\" : "
    "{\"metadata\":{},"
    "\"items\":[ {\"n\":1,\"s\":\"]\"} , {\"n\":[2,{}]},3,\"x\",null ]},"
    "\"NodeNames\":null }";

static const char *span_text(struct json_span s, char *buf, size_t n)
{
    size_t l = s.end - s.start;

    if (l >= n)
        l = n - 1;
    memcpy(buf, doc + s.start, l);
    buf[l] = '\0';
    return buf;
}

/* As Go's decoder fills a struct field: every key equal ignoring case,
 * the last one winning. */
static void
member_should_take_the_last_folded_key_and_skip_strings(void **state)
{
    struct json_span whole = json_scan_value(doc, strlen(doc), 0), v;
    char b[256];

    (void)state;
    assert_int_equal(whole.start, 0);
    assert_int_equal(whole.end, strlen(doc));
    assert_true(json_scan_member(doc, strlen(doc), whole, "Pod", &v));
    assert_string_equal(span_text(v, b, sizeof(b)), "{\"a\":\"}\\\"{\"}");
    /* "nodes" then "Nodes": the later one, whichever case is asked. */
    assert_true(json_scan_member(doc, strlen(doc), whole, "Nodes", &v));
    assert_int_equal(doc[v.start], '{');
    assert_true(json_scan_member(doc, strlen(doc), whole, "nodes", &v));
    assert_int_equal(doc[v.start], '{');
    assert_true(json_scan_member(doc, strlen(doc), whole, "nodenames", &v));
    assert_string_equal(span_text(v, b, sizeof(b)), "null");
    assert_false(json_scan_member(doc, strlen(doc), whole, "Error", &v));
}

/* Escaped keys are compared decoded; U+017F and U+212A fold to s and k
 * (Go's foldName); the last match wins (issue 29). */
static void member_should_match_keys_as_go_decodes_them(void **state)
{
    static const char d[] = "{\"NodeNames\":[1],\"nodenames\":[2],"
                            "\"NodeName\\u017f\":[3],\"N\\u006fdeNames\":[4],"
                            "\"\\u212aey\":1,\"Ke\":2,\"NodeNames2\":[5]}";
    struct json_span whole = json_scan_value(d, strlen(d), 0), v;

    (void)state;
    assert_true(json_scan_member(d, strlen(d), whole, "NodeNames", &v));
    assert_memory_equal(d + v.start, "[4]", 3);
    assert_true(json_scan_member(d, strlen(d), whole, "key", &v));
    assert_memory_equal(d + v.start, "1", 1);
    assert_false(json_scan_member(d, strlen(d), whole, "Node", &v));
}

struct collect {
    char items[8][64];
    size_t n;
};

static int collect_fn(void *arg, size_t i, struct json_span el)
{
    struct collect *c = arg;

    assert_int_equal(i, c->n);
    span_text(el, c->items[c->n++], sizeof(c->items[0]));
    return 0;
}

static void array_should_yield_every_element_span(void **state)
{
    struct json_span whole = json_scan_value(doc, strlen(doc), 0), nodes, items;
    struct collect c = { { { 0 } }, 0 };

    (void)state;
    assert_true(json_scan_member(doc, strlen(doc), whole, "Nodes", &nodes));
    assert_true(json_scan_member(doc, strlen(doc), nodes, "items", &items));
    assert_int_equal(json_scan_array(doc, strlen(doc), items, collect_fn, &c),
                     5);
    assert_string_equal(c.items[0], "{\"n\":1,\"s\":\"]\"}");
    assert_string_equal(c.items[1], "{\"n\":[2,{}]}");
    assert_string_equal(c.items[2], "3");
    assert_string_equal(c.items[3], "\"x\"");
    assert_string_equal(c.items[4], "null");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            member_should_take_the_last_folded_key_and_skip_strings),
        cmocka_unit_test(member_should_match_keys_as_go_decodes_them),
        cmocka_unit_test(array_should_yield_every_element_span),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
