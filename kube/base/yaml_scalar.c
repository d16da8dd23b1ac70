/*
 * yaml_scalar.c: YAML 1.1 scalar resolution as gopkg.in/yaml.v2 does it
 * when Kubernetes converts YAML to JSON (resolve.go: the null and bool
 * spellings, integers through strconv.ParseInt/ParseUint with base 0 and
 * underscores dropped, then floats matching yamlStyleFloat). Timestamps
 * stay strings there (yaml.v2 keeps them as text for interface{}), and so
 * they do here.
 */
#include "kube/base/yaml_scalar.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/json_walk.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

static bool one_of(const char *s, size_t len, const char *const *words)
{
    size_t i;

    for (i = 0; words[i]; i++) {
        if (words[i][0] == s[0] && strlen(words[i]) == len &&
            !memcmp(words[i], s, len))
            return true;
    }
    return false;
}

static const char *const null_words[] = { "~", "null", "Null", "NULL", NULL };
static const char *const true_words[] = { "y",    "Y",    "yes",  "Yes",
                                          "YES",  "on",   "On",   "ON",
                                          "true", "True", "TRUE", NULL };
static const char *const false_words[] = { "n",     "N",     "no",    "No",
                                           "NO",    "off",   "Off",   "OFF",
                                           "false", "False", "FALSE", NULL };
static const char *const inf_nan_words[] = { ".inf",  ".Inf",  ".INF",  "+.inf",
                                             "+.Inf", "+.INF", "-.inf", "-.Inf",
                                             "-.INF", ".nan",  ".NaN",  ".NAN",
                                             NULL };

static int digit_in_base(char c, int base)
{
    int v;

    if (c >= '0' && c <= '9')
        v = c - '0';
    else if (c >= 'a' && c <= 'z')
        v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'Z')
        v = c - 'A' + 10;
    else
        return -1;
    return v < base ? v : -1;
}

/*
 * Go's strconv.ParseInt(s, 0, 64) then ParseUint(s, 0, 64): an optional
 * sign (ParseInt only), then 0x / 0o / 0b / a leading 0 (octal) or
 * decimal digits. Writes the decimal text; false when neither accepts.
 */
static bool parse_go_int(const char *s, struct yaml_scalar *out)
{
    bool neg = false, sign = false;
    uint64_t v = 0;
    int base = 10, dv;
    const char *p = s;

    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        sign = true;
        p++;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    } else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O')) {
        base = 8;
        p += 2;
    } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        base = 2;
        p += 2;
    } else if (p[0] == '0' && p[1]) {
        base = 8;
        p++;
    }
    if (!*p)
        return false;
    for (; *p; p++) {
        dv = digit_in_base(*p, base);
        if (dv < 0 || v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)dv;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return false;
        snprintf(out->num, sizeof(out->num), "-%llu", (unsigned long long)v);
        out->d = -(double)v;
    } else {
        if (sign && v > (uint64_t)INT64_MAX)
            return false; /* ParseUint takes no sign */
        snprintf(out->num, sizeof(out->num), "%llu", (unsigned long long)v);
        out->d = (double)v;
    }
    out->kind = YAML_SCALAR_NUMBER;
    return true;
}

/* yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *s)
{
    const char *p = s;
    size_t n = 0;

    if (*p == '+' || *p == '-')
        p++;
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++)
            n++;
        if (!n)
            return false;
    } else {
        for (; *p >= '0' && *p <= '9'; p++)
            n++;
        if (!n)
            return false;
        if (*p == '.')
            for (p++; *p >= '0' && *p <= '9'; p++)
                ;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        n = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            n++;
        if (!n)
            return false;
    }
    return *p == '\0';
}

/* Numbers: the text without underscores, as yaml.v2 tries them. */
static void resolve_number(const char *s, size_t len, struct yaml_scalar *out)
{
    char buf[128];
    size_t i, k = 0;
    double d;

    if (len >= sizeof(buf))
        return; /* longer than any number: a string */
    for (i = 0; i < len; i++)
        if (s[i] != '_')
            buf[k++] = s[i];
    buf[k] = '\0';
    if (parse_go_int(buf, out))
        return;
    if (!yaml_style_float(buf))
        return;
    errno = 0;
    d = strtod(buf, NULL);
    if (errno == ERANGE && (d > 1 || d < -1)) {
        out->kind = YAML_SCALAR_BAD; /* ParseFloat: value out of range */
        return;
    }
    out->kind = YAML_SCALAR_NUMBER;
    out->d = d;
    jw_number_text(d, out->num, sizeof(out->num));
}

void yaml_scalar_resolve(const char *s, size_t len, bool plain, const char *tag,
                         struct yaml_scalar *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = YAML_SCALAR_STRING;
    if (tag && !strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX))) {
        const char *t = tag + strlen(TAG_PREFIX);

        if (strcmp(t, "null") && strcmp(t, "bool") && strcmp(t, "int") &&
            strcmp(t, "float"))
            return; /* !!str, !!timestamp, !!binary ...: the text */
        plain = true;
    } else if (tag) {
        return; /* "!" or a local tag: the text */
    }
    if (!plain)
        return;
    if (len == 0) {
        out->kind = YAML_SCALAR_NULL;
        return;
    }
    /* Every null, bool and .inf word is at most 6 bytes long: most
     * scalars skip the word lists. */
    if (len <= 6 && one_of(s, len, null_words)) {
        out->kind = YAML_SCALAR_NULL;
    } else if (len <= 6 && one_of(s, len, true_words)) {
        out->kind = YAML_SCALAR_TRUE;
    } else if (len <= 6 && one_of(s, len, false_words)) {
        out->kind = YAML_SCALAR_FALSE;
    } else if (len <= 6 && one_of(s, len, inf_nan_words)) {
        out->kind = YAML_SCALAR_BAD;
    } else if (strchr("+-.0123456789", s[0])) {
        resolve_number(s, len, out);
    }
}
