/*
 * json_parse.c: one-pass JSON parser building cJSON-compatible nodes in an
 * arena (see json_parse.h). Nodes come in blocks, all strings and number
 * texts share one bump buffer sized from the input, string bodies are
 * scanned 16 bytes at a time, and nesting uses an explicit stack.
 */
#include "kube/base/json_parse.h"

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/base/json_dups.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define NODE_BLOCK_MIN  64
#define NODE_BLOCK_MAX  8192
#define POOL_SLACK      256
#define POOL_SITU_BLOCK (32 * 1024)
#define POOL_PART_BLOCK (8 * 1024)
#define POOL_PART_MAX   (1024 * 1024)

#define STR_(x)      #x
#define STR(x)       STR_(x)
#define UNTERMINATED "unterminated string (no closing quote)"
#define DEPTH_MSG    "nesting deeper than " STR(JSON_ARENA_MAX_DEPTH) " levels"

#define LIKELY(x)   __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

struct jp {
    const unsigned char *buf; /* start of input */
    const unsigned char *p;   /* next byte to read */
    const unsigned char *end; /* one past the last byte */
    struct arena *a;
    struct err *e;
    cJSON *node;           /* next free node in the current block */
    cJSON *node_end;       /* end of the current block */
    size_t block;          /* nodes in the next block */
    char *pool, *pool_end; /* bump buffer for strings and number texts */
    unsigned char *situ;   /* writable input (in-situ mode) or NULL */
    int base;              /* containers open around the value parsed */
    bool whole;            /* the value must end the input */
    size_t pool_block;     /* 0: size pools by the rest of the input */
    bool no_nul;           /* JSON_ARENA_NO_NUL: refuse \u0000 */
    bool go_keys;          /* JSON_ARENA_GO_KEYS: resolve duplicate keys */
    size_t slen;           /* length of the string string_parse returned */
};

static size_t utf8_valid_len(const unsigned char *p, const unsigned char *end);

/*
 * The token at the error, for the message: up to 16 bytes of that line,
 * quoted (" near \"]\""), cut before a byte that is not UTF-8; "" at the
 * end of the input.
 */
static const char *near(const struct jp *j, const unsigned char *at, char *buf,
                        size_t sz)
{
    char text[17], q[80];
    size_t n = 0;

    while (at + n < j->end && n < sizeof(text) - 1 && at[n] != '\n' &&
           at[n] != '\r') {
        size_t u = at[n] < 0x80 ? 1 : utf8_valid_len(at + n, j->end);

        if (u == 0 || n + u > sizeof(text) - 1)
            break; /* keep messages valid UTF-8 */
        n += u;
    }
    if (n == 0)
        return "";
    memcpy(text, at, n);
    text[n] = '\0';
    snprintf(buf, sz, " near %s", err_quote(q, sizeof(q), text, 16));
    return buf;
}

/* Error at byte offset pos: compute line and column only now. */
static int fail_at(struct jp *j, const unsigned char *at, const char *what)
{
    size_t pos = (size_t)(at - j->buf), line = 1, col_start = 0, i;
    char tok[96];

    for (i = 0; i < pos; i++) {
        if (j->buf[i] == '\n') {
            line++;
            col_start = i + 1;
        }
    }
    return err_set(
        j->e, "invalid JSON at byte %zu (line %zu, column %zu): %s%s", pos,
        line, pos - col_start + 1, what, near(j, at, tok, sizeof(tok)));
}

static int fail_eof(struct jp *j)
{
    return err_set(j->e, "unexpected end of input at byte %zu",
                   (size_t)(j->end - j->buf));
}

static int fail_oom(struct jp *j, size_t n)
{
    return err_set(j->e, "out of memory parsing JSON (%zu bytes)", n);
}

static inline int is_ws(unsigned c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline int is_digit(unsigned c)
{
    return c - '0' < 10;
}

/* Skip whitespace; returns the next byte, or -1 at the end of input. */
static inline int skip_ws(struct jp *j)
{
    const unsigned char *p = j->p, *end = j->end;

    while (p < end && UNLIKELY(is_ws(*p)))
        p++;
    j->p = p;
    return p < end ? *p : -1;
}

/* Start a new node block; blocks double up to NODE_BLOCK_MAX nodes. */
static int node_refill(struct jp *j)
{
    size_t n = j->block, bytes = n * sizeof(cJSON);

    j->node = arena_alloc(j->a, bytes);
    if (!j->node)
        return fail_oom(j, bytes);
    j->node_end = j->node + n;
    if (j->block < NODE_BLOCK_MAX)
        j->block *= 2;
    return 0;
}

static inline cJSON *node_new(struct jp *j, int type)
{
    cJSON *n;

    if (UNLIKELY(j->node == j->node_end) && node_refill(j) < 0)
        return NULL;
    n = j->node++;
    memset(n, 0, sizeof(*n));
    n->type = type;
    return n;
}

/*
 * Make room for n bytes in the pool. Copying, the first pool holds the
 * whole input plus one byte, which every document needs at most unless
 * invalid UTF-8 expands into U+FFFD, and a refill keeps that room for the
 * rest. In situ, only number texts and such strings use the pool; for a
 * reader's value, pools come in growing blocks.
 */
static int pool_grow(struct jp *j, size_t n)
{
    size_t rest = j->situ ? POOL_SITU_BLOCK : (size_t)(j->end - j->p), size;

    /* Part of a text (a reader's value): blocks that double as needed. */
    if (!j->situ && j->pool_block) {
        if (rest > j->pool_block)
            rest = j->pool_block;
        if (j->pool_block < POOL_PART_MAX)
            j->pool_block *= 2;
    }

    if (rest > SIZE_MAX - POOL_SLACK || n > SIZE_MAX - POOL_SLACK - rest)
        return fail_oom(j, n);
    size = n + rest + POOL_SLACK;
    j->pool = arena_alloc(j->a, size);
    if (!j->pool)
        return fail_oom(j, size);
    j->pool_end = j->pool + size;
    return 0;
}

static inline char *pool_take(struct jp *j, size_t n)
{
    char *s;

    if (UNLIKELY((size_t)(j->pool_end - j->pool) < n) && pool_grow(j, n) < 0)
        return NULL;
    s = j->pool;
    j->pool += n;
    return s;
}

/*
 * Length of the valid UTF-8 sequence starting at p (a byte >= 0x80), or 0
 * when it is not valid: overlong forms, surrogates and code points above
 * U+10FFFF are invalid, as for Go's utf8.DecodeRune.
 */
static size_t utf8_valid_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0], lo = 0x80, hi = 0xBF;
    size_t n, i;

    if (c < 0xC2 || c > 0xF4)
        return 0;
    n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if ((size_t)(end - p) < n)
        return 0;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (i = 2; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    }
    return n;
}

size_t json_utf8_invalid_at(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    size_t k;

    while (p < end) {
        if (*p < 0x80) {
            uint64_t w;

            /* Eight ASCII bytes at a time: bodies are mostly ASCII. */
            while (end - p >= 8) {
                memcpy(&w, p, 8);
                if (w & 0x8080808080808080ULL)
                    break;
                p += 8;
            }
            while (p < end && *p < 0x80)
                p++;
            continue;
        }
        k = utf8_valid_len(p, end);
        if (k == 0)
            return (size_t)(p - (const unsigned char *)s);
        p += k;
    }
    return n;
}

static int hex_val(unsigned c)
{
    if (c - '0' < 10)
        return (int)(c - '0');
    c |= 0x20;
    if (c - 'a' < 6)
        return (int)(c - 'a' + 10);
    return -1;
}

/* The four hex digits at p as a code unit, or -1. */
static long hex4(const unsigned char *p)
{
    long v = 0;
    int i, d;

    for (i = 0; i < 4; i++) {
        d = hex_val(p[i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/*
 * Validate a string body that has escapes or non-UTF-8 bytes, from s (just
 * after the opening quote) to the closing quote, stored in *q. *bad counts
 * the bytes that are not valid UTF-8: each becomes a 3-byte U+FFFD. *nl is
 * set when an escape decodes to a line feed (\n, \u000a).
 */
static int string_scan_slow(struct jp *j, const unsigned char *s,
                            const unsigned char **q, size_t *bad, bool *nl)
{
    const unsigned char *p = s, *end = j->end;
    size_t n;
    int i;

    *bad = 0;
    *nl = false;
    for (; p < end; p++) {
        unsigned c = *p;

        if (c == '"') {
            *q = p;
            return 0;
        }
        if (c < 0x20)
            return fail_at(j, p, "control character in string");
        if (c >= 0x80) {
            n = utf8_valid_len(p, end);
            if (n == 0)
                (*bad)++;
            else
                p += n - 1;
            continue;
        }
        if (c != '\\')
            continue;
        if (++p == end)
            break; /* a cut escape */
        if (*p == 'u') {
            for (i = 1; i <= 4; i++) {
                if (p + i == end)
                    return fail_at(j, s - 1, UNTERMINATED);
                if (hex_val(p[i]) < 0)
                    return fail_at(j, p - 1, "invalid \\u escape in string");
            }
            /* Strings end at their first NUL once parsed: one inside
             * would cut "rdma-1\u0000evil" to "rdma-1" without a word. */
            if (j->no_nul && hex4(p + 1) == 0)
                return fail_at(j, p - 1,
                               "\\u0000 (NUL) in string: names and values "
                               "may not hold it");
            *nl = *nl || hex4(p + 1) == '\n';
            p += 4;
        } else if (!strchr("\"\\/bfnrt", (int)*p) || *p == 0) {
            return fail_at(j, p - 1, "invalid escape in string");
        } else if (*p == 'n') {
            *nl = true;
        }
    }
    return fail_at(j, s - 1, UNTERMINATED);
}

static size_t utf8_put(char *o, unsigned long cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/*
 * Decode the \u escape at p (p[0] == '\\', validated by string_scan_slow)
 * into o as Go does: a high surrogate followed by a \u low surrogate is one
 * code point; any other surrogate becomes U+FFFD. Advances *pp.
 */
static size_t decode_u(const unsigned char **pp, const unsigned char *q,
                       char *o)
{
    const unsigned char *p = *pp;
    unsigned long cp = (unsigned long)hex4(p + 2), lo;

    *pp = p + 6;
    if (cp < 0xD800 || cp > 0xDFFF)
        return utf8_put(o, cp);
    if (cp < 0xDC00 && q - (p + 6) >= 6 && p[6] == '\\' && p[7] == 'u') {
        lo = (unsigned long)hex4(p + 8);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            *pp = p + 12;
            return utf8_put(o, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
        }
    }
    return utf8_put(o, 0xFFFD);
}

/*
 * Decode the validated body [s, q) into o; returns the bytes written. o may
 * be s itself when the body has no invalid UTF-8: output never overtakes
 * input then.
 */
static size_t string_decode(const unsigned char *s, const unsigned char *q,
                            char *o)
{
    static const char unesc[256] = {
        ['"'] = '"',  ['\\'] = '\\', ['/'] = '/',  ['b'] = '\b',
        ['f'] = '\f', ['n'] = '\n',  ['r'] = '\r', ['t'] = '\t',
    };
    const unsigned char *p = s;
    char *w = o;
    size_t n;

    while (p < q) {
        if (*p == '\\') {
            if (p[1] == 'u') {
                w += decode_u(&p, q, w);
            } else {
                *w++ = unesc[p[1]];
                p += 2;
            }
        } else if (*p < 0x80) {
            *w++ = (char)*p++;
        } else if ((n = utf8_valid_len(p, q)) != 0) {
            memmove(w, p, n);
            w += n;
            p += n;
        } else {
            w += utf8_put(w, 0xFFFD);
            p++;
        }
    }
    return (size_t)(w - o);
}

static char *string_slow(struct jp *j, const unsigned char *s)
{
    const unsigned char *q = s;
    size_t bad, n;
    bool nl;
    char *o;

    if (string_scan_slow(j, s, &q, &bad, &nl) < 0)
        return NULL;
    /*
     * In situ, a decoded line feed would stay in the buffer and shift the
     * line and column of a later error (fail_at counts them): such strings
     * go to the pool like those that grow.
     */
    if (j->situ && bad == 0 && !nl) {
        o = (char *)j->situ + (s - j->buf);
        n = string_decode(s, q, o);
    } else {
        o = pool_take(j, (size_t)(q - s) + 2 * bad + 1);
        if (!o)
            return NULL;
        n = string_decode(s, q, o);
        /* Give back what the worst case reserved but did not use. */
        j->pool = o + n + 1;
    }
    j->slen = n;
    o[n] = '\0';
    j->p = q + 1;
    return o;
}

/*
 * Find the first byte in [p, end) that is '"', '\\', a control character
 * or >= 0x80; returns end when there is none.
 */
static inline const unsigned char *scan_special(const unsigned char *p,
                                                const unsigned char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i bslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);

    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        /* Signed compare: bytes >= 0x80 are negative, so below 0x20 too. */
        __m128i m = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
            _mm_cmplt_epi8(v, space));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);

        if (bits)
            return p + __builtin_ctz(bits);
        p += 16;
    }
#endif
    while (p < end && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80)
        p++;
    return p;
}

/*
 * Parse a string whose opening quote is at j->p - 1; returns it decoded
 * and NUL-terminated, in the pool or in situ, and leaves j->p after the
 * closing quote.
 */
static inline char *string_parse(struct jp *j)
{
    const unsigned char *s = j->p, *p = s, *end = j->end;
    size_t n;
    char *o;

    for (;;) {
        p = scan_special(p, end);
        if (UNLIKELY(p == end)) {
            fail_at(j, s - 1, UNTERMINATED);
            return NULL;
        }
        if (LIKELY(*p == '"'))
            break;
        if (*p < 0x80 || (n = utf8_valid_len(p, end)) == 0)
            return string_slow(j, s);
        p += n;
    }
    j->p = p + 1;
    n = (size_t)(p - s);
    j->slen = n;
    if (j->situ) {
        j->situ[p - j->buf] = '\0';
        return (char *)j->situ + (s - j->buf);
    }
    o = pool_take(j, n + 1);
    if (!o)
        return NULL;
    memcpy(o, s, n);
    o[n] = '\0';
    return o;
}

static const double pow10_exact[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Grammar of a number from j->p; sets the digits, scale and end. */
struct num {
    uint64_t mant; /* first digits, without the point */
    int exact;     /* every significant digit is in mant */
    long exp10;    /* value = mant * 10^exp10 when exact */
    int neg;
    const unsigned char *stop;
};

/* Accumulate a run of digits; past 17 of them the value is inexact. */
static void digits(struct jp *j, const unsigned char **pp, struct num *m,
                   int frac)
{
    const unsigned char *p = *pp;

    for (; p < j->end && is_digit(*p); p++) {
        if (m->mant < 100000000000000000ULL) {
            m->mant = m->mant * 10 + (uint64_t)(*p - '0');
            m->exp10 -= frac;
        } else {
            m->exact = 0;
        }
    }
    *pp = p;
}

static int number_scan(struct jp *j, struct num *m)
{
    const unsigned char *p = j->p, *end = j->end;
    long e = 0;
    int eneg = 0;

    m->stop = p;
    m->mant = 0;
    m->exact = 1;
    m->exp10 = 0;
    m->neg = *p == '-';
    p += m->neg;
    if (p == end)
        return fail_eof(j);
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p))
            return fail_at(j, p - 1, "invalid number: leading zero");
    } else if (is_digit(*p)) {
        digits(j, &p, m, 0);
    } else {
        return fail_at(j, p, "invalid number: expected digit after '-'");
    }
    if (p < end && *p == '.') {
        if (++p == end)
            return fail_eof(j);
        if (!is_digit(*p))
            return fail_at(j, p, "invalid number: expected digit after '.'");
        digits(j, &p, m, 1);
    }
    if (p < end && (*p | 0x20) == 'e') {
        if (++p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        if (p == end)
            return fail_eof(j);
        if (!is_digit(*p))
            return fail_at(j, p, "invalid number: expected digit in exponent");
        for (; p < end && is_digit(*p); p++) {
            if (e < 100000)
                e = e * 10 + (*p - '0');
        }
        m->exp10 += eneg ? -e : e;
        m->exact = m->exact && e < 100000;
    }
    m->stop = p;
    return 0;
}

static inline int number_parse(struct jp *j, cJSON *n)
{
    struct num m;
    size_t len;
    double d;
    char *t;

    if (number_scan(j, &m) < 0)
        return -1;
    len = (size_t)(m.stop - j->p);
    t = pool_take(j, len + 1);
    if (!t)
        return -1;
    memcpy(t, j->p, len);
    t[len] = '\0';
    j->p = m.stop;
    if (m.exact && m.mant <= (1ULL << 53) && m.exp10 >= -22 && m.exp10 <= 22) {
        /* Clinger's fast path: one correctly rounded operation. */
        d = (double)m.mant;
        d = m.exp10 < 0 ? d / pow10_exact[-m.exp10] : d * pow10_exact[m.exp10];
        d = m.neg ? -d : d;
    } else {
        d = strtod(t, NULL);
    }
    n->valuestring = t;
    n->valuedouble = d;
    if (d >= INT_MAX)
        n->valueint = INT_MAX;
    else if (d <= (double)INT_MIN)
        n->valueint = INT_MIN;
    else
        n->valueint = (int)d;
    return 0;
}

static int literal_parse(struct jp *j, cJSON *n)
{
    static const struct {
        const char *text;
        size_t len;
        int type;
    } lits[] = {
        { "true", 4, cJSON_True },
        { "false", 5, cJSON_False },
        { "null", 4, cJSON_NULL },
    };
    size_t i, have = (size_t)(j->end - j->p);

    for (i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
        if (lits[i].text[0] != *j->p)
            continue;
        if (have >= lits[i].len && !memcmp(j->p, lits[i].text, lits[i].len)) {
            n->type = lits[i].type;
            n->valueint = lits[i].type == cJSON_True; /* as cJSON does */
            j->p += lits[i].len;
            return 0;
        }
        if (have < lits[i].len && !memcmp(j->p, lits[i].text, have))
            return fail_eof(j);
    }
    return fail_at(j, j->p, "invalid literal");
}

/* A string, number or literal at j->p, whose first byte is c. */
static inline int scalar_parse(struct jp *j, int c, cJSON *n)
{
    if (c == '"') {
        j->p++;
        n->type = cJSON_String;
        n->valuestring = string_parse(j);
        return n->valuestring ? 0 : -1;
    }
    if (c == '-' || is_digit((unsigned)c)) {
        n->type = cJSON_Number;
        return number_parse(j, n);
    }
    if (c == 't' || c == 'f' || c == 'n')
        return literal_parse(j, n);
    return fail_at(j, j->p, "expected value");
}

/* Container stack: level d (1..depth) holds an open array or object. */
struct level {
    cJSON *node;
    cJSON *tail;   /* last child so far, NULL when empty */
    uint64_t keys; /* JSON_ARENA_GO_KEYS: json_dups_key_bit of each key */
    bool dup;      /* a bit came twice: maybe a duplicate key */
};

static inline void attach(struct level *l, cJSON *n)
{
    if (l->tail) {
        l->tail->next = n;
        n->prev = l->tail;
    } else {
        l->node->child = n;
    }
    l->tail = n;
}

static inline void close_level(struct level *l)
{
    if (l->node->child)
        l->node->child->prev = l->tail;
}

/*
 * Parse an object key at j->p (expects the opening quote) and the ':'
 * after it; returns the key or NULL.
 */
static inline char *key_parse(struct jp *j, int c)
{
    char *k;

    if (UNLIKELY(c != '"')) {
        if (c < 0)
            fail_eof(j);
        else if (c == '}') /* '{' followed by '}' never gets here */
            fail_at(j, j->p, "trailing comma in object");
        else
            fail_at(j, j->p, "expected string for object key");
        return NULL;
    }
    j->p++;
    k = string_parse(j);
    if (!k)
        return NULL;
    c = skip_ws(j);
    if (UNLIKELY(c != ':')) {
        if (c < 0)
            fail_eof(j);
        else
            fail_at(j, j->p, "expected ':' after object key");
        return NULL;
    }
    j->p++;
    return k;
}

/*
 * After a value inside container l: consume ',' (returns 1: another
 * element follows) or the closing bracket (returns 0); -1 on error.
 */
static inline int after_value(struct jp *j, struct level *l)
{
    int c = skip_ws(j), obj = l->node->type == cJSON_Object;

    if (LIKELY(c == ',')) {
        j->p++;
        return 1;
    }
    if (c == (obj ? '}' : ']')) {
        j->p++;
        close_level(l);
        if (UNLIKELY(l->dup))
            json_dups_resolve(j->a, l->node);
        return 0;
    }
    if (c < 0)
        return fail_eof(j);
    return fail_at(j, j->p,
                   obj ? "expected ',' or '}' after object member"
                       : "expected ',' or ']' after array element");
}

static int parse_tree(struct jp *j, cJSON **out)
{
    struct level stack[JSON_ARENA_MAX_DEPTH + 1];
    int depth = 0, c, r;
    char *key = NULL;
    cJSON *n;

    stack[0].node = NULL;
value:
    c = skip_ws(j);
    if (c < 0)
        return fail_eof(j);
    /* In an array a value starts after '[' (not followed by ']') or ','. */
    if (c == ']' && depth > 0 && stack[depth].node->type == cJSON_Array)
        return fail_at(j, j->p, "trailing comma in array");
    n = node_new(j, 0);
    if (!n)
        return -1;
    n->string = key;
    if (depth == 0)
        *out = n;
    else
        attach(&stack[depth], n);
    if (c == '{' || c == '[') {
        if (depth + j->base == JSON_ARENA_MAX_DEPTH)
            return fail_at(j, j->p, DEPTH_MSG);
        n->type = c == '{' ? cJSON_Object : cJSON_Array;
        j->p++;
        depth++;
        stack[depth].node = n;
        stack[depth].tail = NULL;
        stack[depth].keys = 0;
        stack[depth].dup = false;
        c = skip_ws(j);
        if (c == (n->type == cJSON_Object ? '}' : ']')) {
            j->p++;
            depth--;
            goto next;
        }
        goto element;
    }
    if (scalar_parse(j, c, n) < 0)
        return -1;
next:
    /* A value is complete; close containers until another one starts. */
    while (depth > 0) {
        r = after_value(j, &stack[depth]);
        if (r < 0)
            return -1;
        if (r == 1)
            break;
        depth--;
    }
    if (depth == 0) {
        if (j->whole && skip_ws(j) >= 0)
            return fail_at(j, j->p, "trailing data after JSON value");
        return 0;
    }
    c = skip_ws(j);
element:
    key = NULL;
    if (stack[depth].node->type == cJSON_Object) {
        key = key_parse(j, c);
        if (!key)
            return -1;
        if (j->go_keys) {
            uint64_t bit = json_dups_key_bit(key, j->slen);

            stack[depth].dup |= (stack[depth].keys & bit) != 0;
            stack[depth].keys |= bit;
        }
    }
    goto value;
}

static int parse(struct arena *a, const char *buf, char *situ, size_t len,
                 unsigned flags, struct cJSON **out, struct err *e)
{
    struct jp j;

    *out = NULL;
    if (flags & ~(JSON_ARENA_NO_NUL | JSON_ARENA_GO_KEYS))
        return err_set(e, "json_arena_parse: unknown flags 0x%x", flags);
    j.no_nul = (flags & JSON_ARENA_NO_NUL) != 0;
    j.go_keys = (flags & JSON_ARENA_GO_KEYS) != 0;
    if (!buf) /* allowed with len 0; avoids arithmetic on NULL */
        buf = "";
    j.situ = (unsigned char *)situ;
    j.buf = (const unsigned char *)buf;
    j.p = j.buf;
    j.end = j.buf + len;
    j.a = a;
    j.e = e;
    j.node = j.node_end = NULL;
    j.block = NODE_BLOCK_MIN;
    j.pool = j.pool_end = NULL;
    j.base = 0;
    j.whole = true;
    j.pool_block = 0;
    if (!situ && pool_grow(&j, 1) < 0)
        return -1;
    if (parse_tree(&j, out) < 0) {
        *out = NULL;
        return -1;
    }
    return 0;
}

int json_arena_parse(struct arena *a, const char *buf, size_t len,
                     unsigned flags, struct cJSON **out, struct err *e)
{
    return parse(a, buf, NULL, len, flags, out, e);
}

int json_arena_parse_in_situ(struct arena *a, char *buf, size_t len,
                             unsigned flags, struct cJSON **out, struct err *e)
{
    return parse(a, buf, buf, len, flags, out, e);
}

/* ---- the pull reader ---- */

static bool level_is_obj(const struct json_reader *r, int d)
{
    return (r->is_obj[d / 8] >> (d % 8)) & 1;
}

/* A parser state at the reader's position, allocating from a. */
static void reader_jp(struct jp *j, const struct json_reader *r,
                      struct arena *a)
{
    j->situ = NULL;
    j->buf = (const unsigned char *)r->buf;
    j->p = j->buf + r->pos;
    j->end = j->buf + r->len;
    j->a = a;
    j->e = r->e;
    j->node = j->node_end = NULL;
    j->block = NODE_BLOCK_MIN;
    j->pool = j->pool_end = NULL;
    j->base = r->depth;
    j->whole = r->depth == 0;
    j->pool_block = POOL_PART_BLOCK;
    j->no_nul = false;
    j->go_keys = false;
}

void json_reader_init(struct json_reader *r, const char *buf, size_t len,
                      struct err *e)
{
    memset(r, 0, sizeof(*r));
    r->buf = buf ? buf : ""; /* allowed with len 0, as for parse */
    r->len = len;
    r->e = e;
}

int json_reader_peek(struct json_reader *r)
{
    struct jp j;
    int c;

    reader_jp(&j, r, NULL);
    c = skip_ws(&j);
    r->pos = (size_t)(j.p - j.buf);
    return c;
}

int json_reader_value(struct json_reader *r, struct arena *a,
                      struct cJSON **out)
{
    struct jp j;
    int c;

    *out = NULL;
    reader_jp(&j, r, a);
    c = skip_ws(&j);
    if (c < 0)
        return fail_eof(&j);
    /* As in parse_tree: in an array, ']' here follows a ','. */
    if (c == ']' && r->depth > 0 && !level_is_obj(r, r->depth))
        return fail_at(&j, j.p, "trailing comma in array");
    if (parse_tree(&j, out) < 0) {
        *out = NULL;
        return -1;
    }
    r->pos = (size_t)(j.p - j.buf);
    r->fresh = 0;
    return 0;
}

int json_reader_enter(struct json_reader *r)
{
    struct jp j;
    int c, d;

    reader_jp(&j, r, NULL);
    c = skip_ws(&j);
    if (c != '{' && c != '[')
        return err_set(r->e,
                       "json_reader_enter: no object or array at "
                       "byte %zu",
                       (size_t)(j.p - j.buf));
    if (r->depth == JSON_ARENA_MAX_DEPTH)
        return fail_at(&j, j.p, DEPTH_MSG);
    d = ++r->depth;
    if (c == '{')
        r->is_obj[d / 8] |= (unsigned char)(1u << (d % 8));
    else
        r->is_obj[d / 8] &= (unsigned char)~(1u << (d % 8));
    r->pos = (size_t)(j.p - j.buf) + 1;
    r->fresh = 1;
    return 0;
}

int json_reader_next(struct json_reader *r, struct arena *a, char **key)
{
    bool obj = level_is_obj(r, r->depth);
    int c, close = obj ? '}' : ']';
    struct jp j;
    char *k;

    if (key)
        *key = NULL;
    if (r->depth == 0)
        return err_set(r->e, "json_reader_next: no open container");
    reader_jp(&j, r, a);
    c = skip_ws(&j);
    if (c == close) {
        /* Empty, or the end after an element: parse_tree's after_value. */
        j.p++;
        r->depth--;
        r->fresh = 0;
        r->pos = (size_t)(j.p - j.buf);
        if (r->depth == 0 && skip_ws(&j) >= 0)
            return fail_at(&j, j.p, "trailing data after JSON value");
        return 0;
    }
    if (!r->fresh) {
        if (c < 0)
            return fail_eof(&j);
        if (c != ',')
            return fail_at(&j, j.p,
                           obj ? "expected ',' or '}' after object member"
                               : "expected ',' or ']' after array element");
        j.p++;
        c = skip_ws(&j);
    }
    r->fresh = 0;
    if (obj) {
        k = key_parse(&j, c);
        if (!k)
            return -1;
        if (key)
            *key = k;
    }
    r->pos = (size_t)(j.p - j.buf);
    return 1;
}
