/*
 * json_scan.c: value spans in validated JSON text (see json_scan.h). The
 * text is trusted to be well-formed; every loop is still bounded by len.
 */
#include "kube/base/json_scan.h"

#include <string.h>

#include "kube/base/json_dups.h"

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

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One code point as UTF-8 at o (room for 3 bytes: BMP only here). */
static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    o[0] = (char)(0xe0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
}

/*
 * The raw key text b[ks..ke) with its escapes resolved (\u to UTF-8; a
 * surrogate, which no field name holds, as U+FFFD) into out[0..cap).
 * Returns its length, or cap + 1 when it does not fit.
 */
static size_t key_decode(const char *b, size_t ks, size_t ke, char *out,
                         size_t cap)
{
    static const char esc_from[] = "\"\\/bfnrt", esc_to[] = "\"\\/\b\f\n\r\t";
    size_t n = 0, p = ks;

    while (p < ke) {
        char c = b[p++];

        if (n + 3 > cap)
            return cap + 1;
        if (c != '\\' || p >= ke) {
            out[n++] = c;
        } else if (b[p] == 'u') {
            unsigned cp = 0;
            int i, d;

            for (i = 1; i <= 4; i++) {
                d = p + (size_t)i < ke ? hex_digit(b[p + (size_t)i]) : -1;
                if (d < 0)
                    return cap + 1;
                cp = cp * 16 + (unsigned)d;
            }
            p += 5;
            n += put_utf8(out + n, cp >= 0xd800 && cp <= 0xdfff ? 0xfffdu : cp);
        } else {
            const char *k = strchr(esc_from, b[p]);

            out[n++] = k && *k ? esc_to[k - esc_from] : b[p];
            p++;
        }
    }
    return n;
}

/* Does the raw key text b[ks..ke) name the field key, as Go's decoder
 * matches them (kube/base/json_dups.h)? */
static int key_match(const char *b, size_t ks, size_t ke, const char *key)
{
    char buf[256];
    size_t n;

    if (!memchr(b + ks, '\\', ke - ks))
        return json_key_names_field(b + ks, ke - ks, key);
    n = key_decode(b, ks, ke, buf, sizeof(buf));
    return n <= sizeof(buf) && json_key_names_field(buf, n, key);
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
        if (m) {
            *val = v; /* the last one wins, as in Go */
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
