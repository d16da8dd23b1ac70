/*
 * test_json_writer.c: the streaming JSON writer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "kube/json_writer.h"

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
        cmocka_unit_test(writer_should_indent_nested_values),
        cmocka_unit_test(writer_should_flag_unbalanced_use),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
