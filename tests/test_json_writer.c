/*
 * test_json_writer.c: the streaming JSON writer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/json_writer.h"

static void writer_should_emit_compact_json(void **state)
{
    struct jsonw w;
    char *s;

    (void)state;
    jsonw_init(&w, 0);
    jsonw_begin_object(&w);
    jsonw_key(&w, "NodeNames");
    jsonw_begin_array(&w);
    jsonw_string(&w, "n1");
    jsonw_string(&w, "n\"2");
    jsonw_end_array(&w);
    jsonw_key(&w, "FailedNodes");
    jsonw_begin_object(&w);
    jsonw_end_object(&w);
    jsonw_key(&w, "Score");
    jsonw_int(&w, -9223372036854775807LL - 1);
    jsonw_key(&w, "Nodes");
    jsonw_null(&w);
    jsonw_key(&w, "Raw");
    jsonw_raw(&w, "{\"a\":1}", 7);
    jsonw_key(&w, "Error");
    jsonw_string(&w, "<&>\x01\n");
    jsonw_end_object(&w);
    s = jsonw_take(&w, NULL);
    assert_string_equal(
        s, "{\"NodeNames\":[\"n1\",\"n\\\"2\"],\"FailedNodes\":{},"
           "\"Score\":-9223372036854775808,\"Nodes\":null,\"Raw\":{\"a\":1},"
           "\"Error\":\"\\u003c\\u0026\\u003e\\u0001\\n\"}");
    free(s);
}

/*
 * Every byte 1..255 in one string: controls are escaped (\n \r \t short,
 * others \u00XX), '"' and '\\' too, and '<' '>' '&' as \u00XX as Go's
 * encoder does; every other byte passes through. (Bytes from 0x80 up are
 * copied: our strings come from our parser, which already made them valid
 * UTF-8; U+2028/U+2029, which Go escapes, decode the same either way.)
 */
static void writer_should_escape_controls_quotes_and_html_bytes(void **state)
{
    char in[256], want[256 * 6 + 3];
    size_t n = 0, i;
    struct jsonw w;
    char *s;

    (void)state;
    want[n++] = '"';
    for (i = 1; i < 256; i++) {
        unsigned char c = (unsigned char)i;

        in[i - 1] = (char)c;
        if (c == '\n' || c == '\r' || c == '\t' || c == '"' || c == '\\') {
            want[n++] = '\\';
            want[n++] = c == '\n'   ? 'n'
                        : c == '\r' ? 'r'
                        : c == '\t' ? 't'
                                    : (char)c;
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            n += (size_t)snprintf(want + n, sizeof(want) - n, "\\u%04x", c);
        } else {
            want[n++] = (char)c;
        }
    }
    want[n++] = '"';
    want[n] = '\0';
    jsonw_init(&w, 0);
    jsonw_string_n(&w, in, 255);
    s = jsonw_take(&w, NULL);
    assert_string_equal(s, want);
    free(s);
}

static void writer_should_indent_nested_values(void **state)
{
    struct jsonw w;
    char *s;

    (void)state;
    jsonw_init(&w, 2);
    jsonw_begin_object(&w);
    jsonw_key(&w, "pod");
    jsonw_string(&w, "default/web");
    jsonw_key(&w, "nodes");
    jsonw_begin_array(&w);
    jsonw_begin_object(&w);
    jsonw_key(&w, "feasible");
    jsonw_bool(&w, true);
    jsonw_key(&w, "scores");
    jsonw_begin_object(&w);
    jsonw_end_object(&w);
    jsonw_end_object(&w);
    jsonw_end_array(&w);
    jsonw_key(&w, "selected");
    jsonw_null(&w);
    jsonw_end_object(&w);
    s = jsonw_take(&w, NULL);
    assert_string_equal(s, "{\n"
                           "  \"pod\": \"default/web\",\n"
                           "  \"nodes\": [\n"
                           "    {\n"
                           "      \"feasible\": true,\n"
                           "      \"scores\": {}\n"
                           "    }\n"
                           "  ],\n"
                           "  \"selected\": null\n"
                           "}");
    free(s);
}

static void writer_should_flag_unbalanced_use(void **state)
{
    struct jsonw w;

    (void)state;
    jsonw_init(&w, 0);
    jsonw_end_object(&w);
    assert_null(jsonw_take(&w, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writer_should_emit_compact_json),
        cmocka_unit_test(writer_should_escape_controls_quotes_and_html_bytes),
        cmocka_unit_test(writer_should_indent_nested_values),
        cmocka_unit_test(writer_should_flag_unbalanced_use),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
