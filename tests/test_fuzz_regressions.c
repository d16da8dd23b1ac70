/*
 * test_fuzz_regressions.c: every input a libFuzzer target (tests/fuzz/)
 * found to crash or to break one of its checks, inline, with the
 * behaviour the fix guarantees. Each case names the target that found it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/arena.h"
#include "kube/err.h"
#include "kube/json_arena.h"

/* Bytes of a string literal, without its terminating NUL. */
#define BYTES(s) s, sizeof(s) - 1

struct json_error_case {
    const char *name;
    const char *input;
    size_t len;
    const char *want; /* the error, the same copying and in situ */
};

/*
 * fuzz_json: in situ, a string decoded into the input buffer put an
 * escaped "\n" back as a real line feed, and a later syntax error was
 * reported on a later line than the input has.
 */
static const struct json_error_case situ_lines[] = {
    { "fuzz_json crash input",
      BYTES("{\"kin_\\\"\\\\\\\\\\nul\"predic\x97\x83ies\n"),
      "invalid JSON at byte 17 (line 1, column 18): expected ':' after "
      "object key" },
    { "escaped \\n before a real line feed", BYTES("{\"a\\nb\":1,\n\"c\" 2}"),
      "invalid JSON at byte 15 (line 2, column 5): expected ':' after "
      "object key" },
    { "\\u000a and \\u000A escapes", BYTES("[\"\\u000a\\u000A\",\n\n  x]"),
      "invalid JSON at byte 20 (line 3, column 3): expected value" },
};

static void expect_error(const struct json_error_case *c, int in_situ)
{
    char *buf = malloc(c->len ? c->len : 1);
    struct arena a;
    struct cJSON *root = NULL;
    struct err e = { "" };
    int rc;

    assert_non_null(buf);
    memcpy(buf, c->input, c->len);
    arena_init(&a, 0);
    rc = in_situ ? json_arena_parse_in_situ(&a, buf, c->len, 0, &root, &e)
                 : json_arena_parse(&a, buf, c->len, 0, &root, &e);
    arena_destroy(&a);
    free(buf);
    if (rc != -1 || strcmp(e.msg, c->want) != 0)
        fail_msg("%s (%s): got %d \"%s\", want \"%s\"", c->name,
                 in_situ ? "in situ" : "copying", rc, e.msg, c->want);
}

static void json_in_situ_should_report_lines_of_the_input(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(situ_lines) / sizeof(situ_lines[0]); i++) {
        expect_error(&situ_lines[i], 0);
        expect_error(&situ_lines[i], 1);
    }
}

/* The decoded strings must not change with the fix. */
static void json_in_situ_should_still_decode_escaped_line_feeds(void **state)
{
    char buf[] = "[\"a\\nb\",\"\\u000ac\",\"plain\"]";
    struct arena a;
    struct cJSON *root = NULL;
    struct err e = { "" };
    const char *want[] = { "a\nb", "\nc", "plain" };
    const struct cJSON *el;
    size_t i = 0;

    (void)state;
    arena_init(&a, 0);
    if (json_arena_parse_in_situ(&a, buf, sizeof(buf) - 1, 0, &root, &e) != 0)
        fail_msg("parse failed: %s", e.msg);
    for (el = root->child; el; el = el->next) {
        assert_true(i < 3);
        if (strcmp(el->valuestring, want[i]) != 0)
            fail_msg("element %zu: got \"%s\"", i, el->valuestring);
        i++;
    }
    assert_int_equal(i, 3);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_in_situ_should_report_lines_of_the_input),
        cmocka_unit_test(json_in_situ_should_still_decode_escaped_line_feeds),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
