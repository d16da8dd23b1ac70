/*
 * test_validation.c: the apimachinery util/validation syntax checks
 * (qualified names, label values, RFC 1123 subdomains) and their reasons.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kube/model/labels.h"

struct syntax_case {
    const char *value;
    bool valid;
};

/* strings.Repeat(c, n) into buf (n < size). */
static const char *repeat(char *buf, char c, size_t n)
{
    memset(buf, c, n);
    buf[n] = '\0';
    return buf;
}

static void run_syntax_table(const char *what, bool (*check)(const char *),
                             const struct syntax_case *cases, size_t n)
{
    int failed = 0;

    for (size_t i = 0; i < n; i++) {
        bool got = check(cases[i].value);

        if (got != cases[i].valid) {
            print_error("%s case %zu \"%s\": got %s, want %s\n", what, i,
                        cases[i].value, got ? "valid" : "invalid",
                        cases[i].valid ? "valid" : "invalid");
            failed++;
        }
    }
    if (failed)
        fail_msg("%d %s case(s) failed", failed, what);
}

/* validation_test.go TestIsQualifiedName: successCases then errorCases. */
static void qualified_name_should_follow_upstream_lists(void **state)
{
    char a63[64], a64[65], a254_abc[300], a253_b63[320];
    struct syntax_case cases[] = {
        { "simple", true },
        { "now-with-dashes", true },
        { "1-starts-with-num", true },
        { "1234", true },
        { "simple/simple", true },
        { "now-with-dashes/simple", true },
        { "now-with-dashes/now-with-dashes", true },
        { "now.with.dots/simple", true },
        { "now-with.dashes-and.dots/simple", true },
        { "1-num.2-num/3-num", true },
        { "1234/5678", true },
        { "1.2.3.4/5678", true },
        { "Uppercase_Is_OK_123", true },
        { "example.com/Uppercase_Is_OK_123", true },
        { "requests.storage-foo", true },
        { repeat(a63, 'a', 63), true },
        { a253_b63, true },
        { "nospecialchars%^=@", false },
        { "cantendwithadash-", false },
        { "-cantstartwithadash-", false },
        { "only/one/slash", false },
        { "Example.com/abc", false },
        { "example_com/abc", false },
        { "example.com/", false },
        { "/simple", false },
        { repeat(a64, 'a', 64), false },
        { a254_abc, false },
        /* beyond upstream's list */
        { "", false },
        { "a", true },
        { "a b", false },
        { "invalid key", false },
        { "_a", false },
    };

    (void)state;
    memset(a253_b63, 'a', 253);
    a253_b63[253] = '/';
    repeat(a253_b63 + 254, 'b', 63);
    memset(a254_abc, 'a', 254);
    strcpy(a254_abc + 254, "/abc");
    run_syntax_table("IsQualifiedName", kube_is_qualified_name, cases,
                     sizeof(cases) / sizeof(cases[0]));
}

/* validation_test.go TestIsValidLabelValue: successCases then errorCases. */
static void label_value_should_follow_upstream_lists(void **state)
{
    char a63[64], a64[65];
    struct syntax_case cases[] = {
        { "simple", true },
        { "now-with-dashes", true },
        { "1-starts-with-num", true },
        { "end-with-num-1", true },
        { "1234", true },
        { repeat(a63, 'a', 63), true },
        { "", true },
        { "nospecialchars%^=@", false },
        { "Tama-nui-te-r\xc4\x81.is.M\xc4\x81ori.sun", false },
        { "\\backslashes\\are\\bad", false },
        { "-starts-with-dash", false },
        { "ends-with-dash-", false },
        { ".starts.with.dot", false },
        { "ends.with.dot.", false },
        { repeat(a64, 'a', 64), false },
        /* beyond upstream's list */
        { "a", true },
        { "A_b.C-d", true },
        { "a b", false },
        { "-1", false },
        { "+1", false },
        { "host_1, host_2", false },
    };

    (void)state;
    run_syntax_table("IsValidLabelValue", kube_is_label_value, cases,
                     sizeof(cases) / sizeof(cases[0]));
}

/* validation_test.go TestIsDNS1123Subdomain: goodValues then badValues. */
static void dns1123_subdomain_should_follow_upstream_lists(void **state)
{
    static const char *const good[] = {
        "a",         "ab",
        "abc",       "a1",
        "a-1",       "a--1--2--b",
        "0",         "01",
        "012",       "1a",
        "1-a",       "1--a--b--2",
        "a.a",       "ab.a",
        "abc.a",     "a1.a",
        "a-1.a",     "a--1--2--b.a",
        "a.1",       "ab.1",
        "abc.1",     "a1.1",
        "a-1.1",     "a--1--2--b.1",
        "0.a",       "01.a",
        "012.a",     "1a.a",
        "1-a.a",     "1--a--b--2",
        "0.1",       "01.1",
        "012.1",     "1a.1",
        "1-a.1",     "1--a--b--2.1",
        "a.b.c.d.e", "aa.bb.cc.dd.ee",
        "1.2.3.4.5", "11.22.33.44.55",
    };
    static const char *const bad[] = {
        "",
        "A",
        "ABC",
        "aBc",
        "A1",
        "A-1",
        "1-A",
        "-",
        "a-",
        "-a",
        "1-",
        "-1",
        "_",
        "a_",
        "_a",
        "a_b",
        "1_",
        "_1",
        "1_2",
        ".",
        "a.",
        ".a",
        "a..b",
        "1.",
        ".1",
        "1..2",
        " ",
        "a ",
        " a",
        "a b",
        "1 ",
        " 1",
        "1 2",
        "A.a",
        "aB.a",
        "ab.A",
        "A1.a",
        "a1.A",
        "A.1",
        "aB.1",
        "A1.1",
        "1A.1",
        "0.A",
        "01.A",
        "012.A",
        "1A.a",
        "1a.A",
        "A.B.C.D.E",
        "AA.BB.CC.DD.EE",
        "a.B.c.d.e",
        "aa.bB.cc.dd.ee",
        "a@b",
        "a,b",
        "a_b",
        "a;b",
        "a:b",
        "a%b",
        "a?b",
        "a$b",
    };
    struct syntax_case cases[sizeof(good) / sizeof(good[0]) +
                             sizeof(bad) / sizeof(bad[0]) + 2];
    char a253[254], a254[255];
    size_t n = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        cases[n++] = (struct syntax_case){ good[i], true };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cases[n++] = (struct syntax_case){ bad[i], false };
    cases[n++] = (struct syntax_case){ repeat(a253, 'a', 253), true };
    cases[n++] = (struct syntax_case){ repeat(a254, 'a', 254), false };
    run_syntax_table("IsDNS1123Subdomain", kube_is_dns1123_subdomain, cases, n);
}

/*
 * The reasons match upstream's text: nodeaffinity_test.go
 * TestNodeSelectorMatch expects this detail for the key "invalid key".
 */
static void checks_should_word_reasons_as_upstream(void **state)
{
    static const struct {
        const char *name;
        bool (*check)(const char *, char *, size_t);
        const char *value;
        const char *want;
    } cases[] = {
        { "name part regex", kube_check_qualified_name, "invalid key",
          "name part must consist of alphanumeric characters, '-', '_' or "
          "'.', and must start and end with an alphanumeric character (e.g. "
          "'MyName',  or 'my.name',  or '123-abc', regex used for "
          "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')" },
        { "empty prefix", kube_check_qualified_name, "/simple",
          "prefix part must be non-empty" },
        { "empty name", kube_check_qualified_name, "example.com/",
          "name part must be non-empty; name part must consist of "
          "alphanumeric characters, '-', '_' or '.', and must start and end "
          "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
          "or '123-abc', regex used for validation is "
          "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')" },
        { "two slashes", kube_check_qualified_name, "only/one/slash",
          "a qualified name must consist of alphanumeric characters, '-', "
          "'_' or '.', and must start and end with an alphanumeric character "
          "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
          "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
          "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')" },
        { "bad prefix", kube_check_qualified_name, "Example.com/abc",
          "prefix part a lowercase RFC 1123 subdomain must consist of lower "
          "case alphanumeric characters, '-' or '.', and must start and end "
          "with an alphanumeric character (e.g. 'example.com', regex used "
          "for validation is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'"
          ")" },
        { "label value regex", kube_check_label_value, "a b",
          "a valid label must be an empty string or consist of alphanumeric "
          "characters, '-', '_' or '.', and must start and end with an "
          "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
          "'12345', regex used for validation is "
          "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')" },
        { "valid leaves empty", kube_check_label_value, "ok", "" },
    };
    int failed = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char why[2048];
        bool ok = cases[i].check(cases[i].value, why, sizeof(why));

        if (ok != (cases[i].want[0] == '\0') ||
            strcmp(why, cases[i].want) != 0) {
            print_error("case %s: got %d \"%s\"\n want \"%s\"\n", cases[i].name,
                        ok, why, cases[i].want);
            failed++;
        }
    }
    if (failed)
        fail_msg("%d reason case(s) failed", failed);
}

static void checks_should_truncate_reasons_to_the_buffer(void **state)
{
    char why[16];

    (void)state;
    assert_false(kube_check_qualified_name("only/one/slash", why, sizeof(why)));
    assert_int_equal(strlen(why), sizeof(why) - 1);
    assert_false(kube_check_label_value("-x", NULL, 0));
    assert_false(kube_is_qualified_name(NULL));
    {
        char a254[255], big[2048];

        assert_false(kube_check_dns1123_subdomain(repeat(a254, 'a', 254), big,
                                                  sizeof(big)));
        assert_string_equal(big, "must be no more than 253 characters");
    }
    assert_true(kube_is_label_value(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(qualified_name_should_follow_upstream_lists),
        cmocka_unit_test(label_value_should_follow_upstream_lists),
        cmocka_unit_test(dns1123_subdomain_should_follow_upstream_lists),
        cmocka_unit_test(checks_should_word_reasons_as_upstream),
        cmocka_unit_test(checks_should_truncate_reasons_to_the_buffer),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
