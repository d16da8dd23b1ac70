/*
 * json_scan.c: value spans in validated JSON text (see json_scan.h). The
 * text is trusted to be well-formed; every loop is still bounded by len.
 */
#include "kube/base/json_scan.h"

#include <string.h>
#include <strings.h>

static size_t skip_ws(const char *b, size_t len, size_t p)
{
    while (p < len &&
           (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r'))
        p++;
    return p;
}

/* p at an opening quote: the offset just past the closing quote. */
static size_t skip_string(const char *b, size_t len, size_t p)
{
    for (p++; p < len;) {
        const char *q = memchr(b + p, '"', len - p);
        size_t bs = 0, at;

        if (!q)
            return len;
        at = (size_t)(q - b);
        /* Escaped when preceded by an odd run of backslashes. */
        while (at - bs > p && b[at - bs - 1] == '\\')
            bs++;
        if (bs % 2 == 0)
            return at + 1;
        p = at + 1;
    }
    return len;
}

/* Bytes that matter outside strings when skipping a container. */
static const unsigned char structural[256] = {
    ['"'] = 1, ['{'] = 2, ['['] = 2, ['}'] = 3, [']'] = 3,
};

struct json_span json_scan_value(const char *b, size_t len, size_t pos)
{
    struct json_span s;
    size_t p = skip_ws(b, len, pos);
    int depth = 0;

    s.start = p;
    if (p >= len) {
        s.end = len;
        return s;
    }
    if (b[p] == '"') {
        s.end = skip_string(b, len, p);
        return s;
    }
    if (b[p] != '{' && b[p] != '[') {
        while (p < len && !strchr(",}] \t\r\n", b[p]))
            p++;
        s.end = p;
        return s;
    }
    while (p < len) {
        unsigned char k = structural[(unsigned char)b[p]];

        if (!k) {
            p++;
            continue;
        }
        if (k == 1) {
            p = skip_string(b, len, p);
            continue;
        }
        if (k == 2) {
            depth++;
        } else if (--depth == 0) {
            s.end = p + 1;
            return s;
        }
        p++;
    }
    s.end = len;
    return s;
}

/* Compare the raw key text b[ks..ke) (no escapes expected) with key. */
static int key_match(const char *b, size_t ks, size_t ke, const char *key)
{
    size_t n = strlen(key);

    if (ke - ks != n)
        return 0;
    if (!memcmp(b + ks, key, n))
        return 2;
    return strncasecmp(b + ks, key, n) == 0 ? 1 : 0;
}

bool json_scan_member(const char *b, size_t len, struct json_span obj,
                      const char *key, struct json_span *val)
{
    size_t p = skip_ws(b, len, obj.start);
    bool found = false;

    if (p >= len || b[p] != '{')
        return false;
    p = skip_ws(b, len, p + 1);
    while (p < obj.end && b[p] == '"') {
        size_t ks = p + 1, ke = skip_string(b, len, p) - 1;
        struct json_span v;
        int m;

        p = skip_ws(b, len, ke + 1);
        if (p >= len || b[p] != ':')
            return found;
        v = json_scan_value(b, len, p + 1);
        m = key_match(b, ks, ke, key);
        if (m == 2) {
            *val = v;
            return true;
        }
        if (m == 1 && !found) {
            *val = v;
            found = true;
        }
        p = skip_ws(b, len, v.end);
        if (p < len && b[p] == ',')
            p = skip_ws(b, len, p + 1);
    }
    return found;
}

size_t json_scan_array(const char *b, size_t len, struct json_span arr,
                       int (*fn)(void *arg, size_t i, struct json_span el),
                       void *arg)
{
    size_t p = skip_ws(b, len, arr.start), i = 0;

    if (p >= len || b[p] != '[')
        return 0;
    p = skip_ws(b, len, p + 1);
    while (p < arr.end && b[p] != ']') {
        struct json_span el = json_scan_value(b, len, p);

        if (fn(arg, i++, el))
            return i;
        p = skip_ws(b, len, el.end);
        if (p < len && b[p] == ',')
            p = skip_ws(b, len, p + 1);
        else
            break;
    }
    return i;
}
