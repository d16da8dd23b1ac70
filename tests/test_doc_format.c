/*
 * test_doc_format.c: JSON, YAML and INI told apart by content only, and a
 * text that is none of them described by what it looks like.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kube/base/doc_format.h"

static const struct {
    const char *name;
    const char *text;
    enum doc_format want;
    const char *why; /* for DOC_FORMAT_UNKNOWN: the exact message */
} cases[] = {
    { "JSON object", "  {\"kind\": \"Policy\"}", DOC_FORMAT_JSON, NULL },
    { "JSON array", "[{\"a\": 1}]", DOC_FORMAT_JSON, NULL },
    { "JSON array of literals", "[true, null]", DOC_FORMAT_JSON, NULL },
    { "JSON with a BOM", "\xEF\xBB\xBF{}", DOC_FORMAT_JSON, NULL },
    { "YAML mapping", "apiVersion: v1\nkind: Policy\n", DOC_FORMAT_YAML, NULL },
    { "YAML after comments", "# a policy\n\n# more\nkind: Policy\n",
      DOC_FORMAT_YAML, NULL },
    { "YAML document marker", "---\n{}\n", DOC_FORMAT_YAML, NULL },
    { "YAML directive", "%YAML 1.1\n---\na: 1\n", DOC_FORMAT_YAML, NULL },
    { "YAML sequence", "- a\n- b\n", DOC_FORMAT_YAML, NULL },
    { "YAML quoted key", "\"kind\": Policy\n", DOC_FORMAT_YAML, NULL },
    { "YAML value with '='", "command: a=b\n", DOC_FORMAT_YAML, NULL },
    { "YAML key with no value", "metadata:\n  name: x\n", DOC_FORMAT_YAML,
      NULL },
    { "INI section", "[policy]\npredicates = none\n", DOC_FORMAT_INI, NULL },
    { "INI quoted section", "[predicate \"HostName\"]\n", DOC_FORMAT_INI,
      NULL },
    { "INI section missing its bracket", "[policy\n", DOC_FORMAT_INI, NULL },
    { "INI comment", "; a policy\n[policy]\n", DOC_FORMAT_INI, NULL },
    { "INI hash comment, then a key", "# x\nweight = 1\n", DOC_FORMAT_INI,
      NULL },
    { "INI value with ':'", "urlPrefix = http://x:1\n", DOC_FORMAT_INI, NULL },
    { "plain text", "hello world\n", DOC_FORMAT_UNKNOWN,
      "line 1: \"hello world\" looks like plain text: no {, [ (JSON), key: "
      "value or - item (YAML), [section] or key = value (INI), not JSON, "
      "YAML or INI" },
    { "HTML", "\n<html>\n", DOC_FORMAT_UNKNOWN,
      "line 2: \"<html>\" looks like XML or HTML, not JSON, YAML or INI" },
    { "binary", "\x01\x02\x03", DOC_FORMAT_UNKNOWN,
      "line 1: \"\\x01\\x02\\x03\" looks like binary data, not JSON, YAML "
      "or INI" },
    { "empty", " \n# only a comment\n", DOC_FORMAT_UNKNOWN,
      "empty file: no JSON, YAML or INI content" },
};

static void formats_should_be_told_by_content(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct err e;
        enum doc_format got;

        err_clear(&e);
        got = doc_format_sniff(cases[i].text, strlen(cases[i].text), &e);
        if (got != cases[i].want ||
            (cases[i].why && strcmp(e.msg, cases[i].why))) {
            print_error("%s: got %s (%s), want %s (%s)\n", cases[i].name,
                        doc_format_name(got), e.msg,
                        doc_format_name(cases[i].want),
                        cases[i].why ? cases[i].why : "");
            bad++;
        }
    }
    if (bad)
        fail_msg("%d case(s) failed", bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formats_should_be_told_by_content),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
