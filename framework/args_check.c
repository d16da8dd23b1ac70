/*
 * args_check.c: argument checks shared by the plugins' argument parsers
 * and the Policy validation: apimachinery's qualified-name and label-value
 * syntax (util/validation).
 */
#include "framework/args_check.h"

#include <stdio.h>
#include <string.h>

#define QNAME_MSG                                                              \
    "must consist of alphanumeric characters, '-', '_' or '.', and must "      \
    "start and end with an alphanumeric character (e.g. 'MyName',  or "        \
    "'my.name',  or '123-abc', regex used for validation is "                  \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define DNS1123_MSG                                                            \
    "a lowercase RFC 1123 subdomain must consist of lower case "               \
    "alphanumeric characters, '-' or '.', and must start and end with an "     \
    "alphanumeric character (e.g. 'example.com', regex used for "              \
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"      \
    "[a-z0-9])?)*')"

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] over s[0..n). */
static bool qname_part_ok(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (i = 0; i < n; i++) {
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    }
    return true;
}

static bool dns1123_subdomain_ok(const char *s, size_t n)
{
    size_t i, start = 0;

    if (n == 0)
        return false;
    for (i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            size_t j, len = i - start;

            if (len == 0)
                return false;
            for (j = start; j < i; j++) {
                char c = s[j];
                bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                          c == '-';

                if (!ok)
                    return false;
            }
            if (s[start] == '-' || s[i - 1] == '-')
                return false;
            start = i + 1;
        }
    }
    return true;
}

/*
 * The messages of validation.IsQualifiedName, in its order. RegexError
 * writes "(e.g. 'MyName',  or 'my.name',  or '123-abc', ...": each example
 * is followed by ", " and the next one preceded by " or ".
 */
size_t kpe_qualified_name_errors(const char *s, const char **msgs, size_t max)
{
    size_t k = 0, n = strlen(s), slashes = 0, i;
    const char *name = s;
    size_t name_len = n;

#define ADD(m)                                                                 \
    do {                                                                       \
        if (k < max)                                                           \
            msgs[k] = (m);                                                     \
        k++;                                                                   \
    } while (0)

    for (i = 0; i < n; i++)
        slashes += s[i] == '/';
    if (slashes > 1) {
        ADD("a qualified name " QNAME_MSG " with an optional DNS subdomain "
            "prefix and '/' (e.g. 'example.com/MyName')");
        return k;
    }
    if (slashes == 1) {
        const char *slash = strchr(s, '/');
        size_t plen = (size_t)(slash - s);

        name = slash + 1;
        name_len = n - plen - 1;
        if (plen == 0) {
            ADD("prefix part must be non-empty");
        } else {
            if (plen > 253)
                ADD("prefix part must be no more than 253 characters");
            if (!dns1123_subdomain_ok(s, plen))
                ADD("prefix part " DNS1123_MSG);
        }
    }
    if (name_len == 0)
        ADD("name part must be non-empty");
    else if (name_len > 63)
        ADD("name part must be no more than 63 characters");
    if (!qname_part_ok(name, name_len))
        ADD("name part " QNAME_MSG);
#undef ADD
    return k;
}

bool kpe_is_label_value(const char *s)
{
    size_t n = strlen(s);

    return n == 0 || (n <= 63 && qname_part_ok(s, n));
}
