/*
 * doc_format.c: tell JSON, YAML and INI apart by content (see header).
 * JSON wins what it can start ('{', or '[' before a JSON value); INI's
 * "[policy]" and "[predicate "X"]" sections start with a word; YAML and
 * INI share '#' comments, so the first other line decides.
 */
#include "kube/base/doc_format.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

const char *doc_format_name(enum doc_format f)
{
    switch (f) {
    case DOC_FORMAT_JSON:
        return "JSON";
    case DOC_FORMAT_YAML:
        return "YAML";
    case DOC_FORMAT_INI:
        return "INI";
    default:
        return "unknown";
    }
}

/*
 * "[word ...": an INI section header (closed or not, so a broken one is
 * still reported as INI); JSON arrays start with a value, and the only
 * bare words JSON has are true, false and null.
 */
static bool ini_section(const char *p, const char *end)
{
    static const char *const literals[] = { "true", "false", "null" };
    const char *q = p + 1;
    size_t i, n;

    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    if (q >= end || !(isalpha((unsigned char)*q) || *q == '_'))
        return false;
    for (i = 0; i < 3; i++) {
        n = strlen(literals[i]);
        if ((size_t)(end - q) >= n && !memcmp(q, literals[i], n) &&
            (q + n == end || !isalnum((unsigned char)q[n])))
            return false;
    }
    return true;
}

/* A "key: value" or "key = value" line: which separator comes first. */
static enum doc_format key_line(const char *p, const char *end)
{
    const char *q = p;

    if (*q == '"' || *q == '\'') { /* a quoted YAML key */
        char quote = *q++;

        while (q < end && *q != quote) {
            if (*q == '\\' && quote == '"' && q + 1 < end)
                q++;
            q++;
        }
        if (q == end)
            return DOC_FORMAT_UNKNOWN;
        q++;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        return q < end && *q == ':' ? DOC_FORMAT_YAML : DOC_FORMAT_UNKNOWN;
    }
    for (; q < end; q++) {
        if (*q == '=')
            return q > p ? DOC_FORMAT_INI : DOC_FORMAT_UNKNOWN;
        if (*q == ':' &&
            (q + 1 == end || q[1] == ' ' || q[1] == '\t' || q[1] == '\r'))
            return q > p ? DOC_FORMAT_YAML : DOC_FORMAT_UNKNOWN;
    }
    return DOC_FORMAT_UNKNOWN;
}

static enum doc_format unknown(struct err *e, size_t line, const char *p,
                               const char *end)
{
    char q[96], text[64];
    size_t n = 0, ctl = 0, i;
    const char *looks;

    for (i = 0; p + i < end && i < 64; i++)
        if ((unsigned char)p[i] < 0x20 && p[i] != '\t' && p[i] != '\r')
            ctl++;
    while (p + n < end && n < sizeof(text) - 1 && p[n] != '\r')
        n++;
    memcpy(text, p, n);
    text[n] = '\0';
    if (ctl > 0)
        looks = "looks like binary data";
    else if (*p == '<')
        looks = "looks like XML or HTML";
    else
        looks = "looks like plain text: no {, [ (JSON), key: value or "
                "- item (YAML), [section] or key = value (INI)";
    err_set(e, "line %zu: %s %s, not JSON, YAML or INI", line,
            err_quote(q, sizeof(q), text, 40), looks);
    return DOC_FORMAT_UNKNOWN;
}

void doc_skip_bom(const char **buf, size_t *len)
{
    if (*buf && *len >= 3 && !memcmp(*buf, "\xEF\xBB\xBF", 3)) {
        *buf += 3;
        *len -= 3;
    }
}

enum doc_format doc_format_sniff(const char *buf, size_t len, struct err *e)
{
    const char *p, *end = buf + len, *eol;
    size_t line = 0;

    doc_skip_bom(&buf, &len);
    p = buf;
    for (; p < end; p = eol + 1) {
        line++;
        eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p == eol || *p == '#')
            continue;
        if (*p == '\0')
            return unknown(e, line, p, eol);
        if (*p == '{')
            return DOC_FORMAT_JSON;
        if (*p == '[')
            return ini_section(p, eol) ? DOC_FORMAT_INI : DOC_FORMAT_JSON;
        if (*p == ';')
            return DOC_FORMAT_INI;
        if ((eol - p >= 3 && !memcmp(p, "---", 3)) || *p == '%' ||
            (*p == '-' && (p + 1 == eol || p[1] == ' ' || p[1] == '\t')))
            return DOC_FORMAT_YAML;
        if (*p == '<')
            return unknown(e, line, p, eol);
        if (key_line(p, eol) != DOC_FORMAT_UNKNOWN)
            return key_line(p, eol);
        /* A JSON scalar document ("x", 12) is JSON that says nothing. */
        if (*p == '"' || *p == '-' || isdigit((unsigned char)*p))
            return DOC_FORMAT_JSON;
        return unknown(e, line, p, eol);
    }
    err_set(e, "empty file: no JSON, YAML or INI content");
    return DOC_FORMAT_UNKNOWN;
}
