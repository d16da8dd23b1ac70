/*
 * json_walk.c: path-tracking typed getters over cJSON (see json_walk.h).
 * Every failure names the full path and describes the offending value.
 */
#include "kube/base/json_walk.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jw_init(struct jw *w, struct arena *a, struct err *e, const char *prefix)
{
    w->a = a;
    w->e = e;
    w->len = 0;
    w->path[0] = '\0';
    if (prefix && *prefix) {
        snprintf(w->path, sizeof(w->path), "%s", prefix);
        w->len = strlen(w->path);
    }
}

/* Append n bytes of s to the path (cut at its end); returns the mark. */
static size_t append(struct jw *w, const char *s, size_t n)
{
    size_t mark = w->len;
    size_t room = sizeof(w->path) - 1 - w->len;

    if (n > room)
        n = room;
    memcpy(w->path + w->len, s, n);
    w->len += n;
    w->path[w->len] = '\0';
    return mark;
}

/* Paths are built for every field walked, so no printf here. */
size_t jw_push(struct jw *w, const char *key)
{
    size_t mark = w->len;

    if (w->len)
        append(w, ".", 1);
    append(w, key, strlen(key));
    return mark;
}

size_t jw_push_index(struct jw *w, size_t i)
{
    char buf[24];
    size_t n = sizeof(buf);

    buf[--n] = ']';
    do {
        buf[--n] = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    buf[--n] = '[';
    return append(w, buf + n, sizeof(buf) - n);
}

void jw_pop(struct jw *w, size_t mark)
{
    if (mark < w->len) {
        w->len = mark;
        w->path[mark] = '\0';
    }
}

static int vfail(struct jw *w, const char *fmt, va_list ap)
{
    char msg[ERR_MSG_MAX];

    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (w->len)
        return err_set(w->e, "%s: %s", w->path, msg);
    return err_set(w->e, "%s", msg);
}

int jw_fail(struct jw *w, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfail(w, fmt, ap);
    va_end(ap);
    return -1;
}

int jw_fail_key(struct jw *w, const char *key, const char *fmt, ...)
{
    size_t mark = jw_push(w, key);
    va_list ap;

    va_start(ap, fmt);
    vfail(w, fmt, ap);
    va_end(ap);
    jw_pop(w, mark);
    return -1;
}

int jw_oom(struct jw *w)
{
    return jw_fail(w, "out of memory");
}

const cJSON *jw_get(const cJSON *obj, const char *key)
{
    const cJSON *v;

    if (!obj || !cJSON_IsObject(obj))
        return NULL;
    v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v))
        return NULL;
    return v;
}

size_t jw_count(const cJSON *arr)
{
    size_t n = 0;
    const cJSON *it;

    for (it = arr ? arr->child : NULL; it; it = it->next)
        n++;
    return n;
}

void *jw_calloc(struct jw *w, size_t n, size_t sz)
{
    void *p = arena_calloc(w->a, n ? n : 1, sz);

    if (!p)
        jw_oom(w);
    return p;
}

const char *jw_number_text(double d, char *buf, size_t sz)
{
    int prec;

    if (!isfinite(d)) {
        snprintf(buf, sz, "%s", d > 0 ? "1e999" : d < 0 ? "-1e999" : "NaN");
        return buf;
    }
    if (d == trunc(d) && fabs(d) < 1e17) {
        snprintf(buf, sz, "%.0f", d);
        return buf;
    }
    for (prec = 1; prec <= 17; prec++) {
        snprintf(buf, sz, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    return buf;
}

/* "string \"x\"", "number 1.5", "object", ... for "got ..." messages. */
static const char *describe(const cJSON *v, char *buf, size_t sz)
{
    char q[160];

    if (cJSON_IsString(v)) {
        snprintf(buf, sz, "string %s",
                 err_quote(q, sizeof(q), v->valuestring, 64));
    } else if (cJSON_IsNumber(v)) {
        snprintf(buf, sz, "number");
    } else if (cJSON_IsBool(v)) {
        snprintf(buf, sz, "boolean");
    } else if (cJSON_IsArray(v)) {
        snprintf(buf, sz, "array");
    } else if (cJSON_IsObject(v)) {
        snprintf(buf, sz, "object");
    } else {
        snprintf(buf, sz, "null");
    }
    return buf;
}

int jw_fail_type(struct jw *w, const char *want, const cJSON *v)
{
    char got[200];

    return jw_fail(w, "expected %s, got %s", want,
                   describe(v, got, sizeof(got)));
}

int jw_as_object(struct jw *w, const cJSON *v)
{
    if (v && !cJSON_IsObject(v))
        return jw_fail_type(w, "an object", v);
    return 0;
}

int jw_as_array(struct jw *w, const cJSON *v)
{
    if (v && !cJSON_IsArray(v))
        return jw_fail_type(w, "an array", v);
    return 0;
}

int jw_as_string(struct jw *w, const cJSON *v, const char *dflt,
                 const char **out)
{
    if (!v || cJSON_IsNull(v)) {
        *out = dflt;
        return 0;
    }
    if (!cJSON_IsString(v))
        return jw_fail_type(w, "a string", v);
    *out = arena_strdup(w->a, v->valuestring);
    if (!*out)
        return jw_oom(w);
    return 0;
}

const char *jw_number_source(const cJSON *v, char *buf, size_t sz)
{
    /* json_arena_parse keeps the number's source text in valuestring. */
    if (v->valuestring && *v->valuestring)
        return v->valuestring;
    return jw_number_text(v->valuedouble, buf, sz);
}

/*
 * The source text of v when it is a plain decimal integer (-?[0-9]+), as
 * Go's strconv.ParseInt reads it: 1 and the value in *out when it fits in
 * [lo, hi], 0 when it is no such text (an exponent, a fraction, or no
 * text kept), -1 when it is out of the range.
 */
static int exact_integer(const cJSON *v, int64_t lo, int64_t hi, int64_t *out)
{
    const char *s = v->valuestring;
    int neg, over = 0;
    uint64_t n = 0, max;

    if (!s || !*s)
        return 0;
    neg = *s == '-';
    s += neg;
    if (!*s)
        return 0;
    max = neg ? (uint64_t)0 - (uint64_t)lo : (uint64_t)hi;
    /* One pass: a byte that is no digit makes it no such text, even
     * after the digits overflowed. */
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');

        if (d > 9)
            return 0;
        if (over || n > (max - d) / 10)
            over = 1;
        else
            n = n * 10 + d;
    }
    if (over)
        return -1;
    *out = neg ? (int64_t)(0 - n) : (int64_t)n;
    return 1;
}

/*
 * An integral number in [lo, hi]; `type` names the range in messages,
 * which quote the number as it was written (1e309 stays 1e309).
 */
static int as_integer(struct jw *w, const cJSON *v, int64_t lo, int64_t hi,
                      const char *type, int64_t *out)
{
    char num[40];
    double d;
    int exact;

    if (!cJSON_IsNumber(v))
        return jw_fail_type(w, "an integer", v);
    exact = exact_integer(v, lo, hi, out);
    if (exact > 0)
        return 0;
    if (exact < 0)
        return jw_fail(w, "integer %s out of range for %s",
                       jw_number_source(v, num, sizeof(num)), type);
    /* 1e3, 2.0: integral through a double, within what it holds exactly
     * below 2^63. */
    d = v->valuedouble;
    if (!isfinite(d) || d != trunc(d))
        return jw_fail(w, "expected an integer, got number %s",
                       jw_number_source(v, num, sizeof(num)));
    if (d < (double)lo || d > (double)hi || d >= 9223372036854775808.0)
        return jw_fail(w, "integer %s out of range for %s",
                       jw_number_source(v, num, sizeof(num)), type);
    *out = (int64_t)d;
    return 0;
}

int jw_as_int32(struct jw *w, const cJSON *v, int32_t *out)
{
    int64_t n;

    if (as_integer(w, v, INT32_MIN, INT32_MAX, "int32", &n) < 0)
        return -1;
    *out = (int32_t)n;
    return 0;
}

int jw_as_int64(struct jw *w, const cJSON *v, int64_t *out)
{
    return as_integer(w, v, INT64_MIN, INT64_MAX, "int64", out);
}

int jw_object(struct jw *w, const cJSON *obj, const char *key,
              const cJSON **out)
{
    const cJSON *v = jw_get(obj, key);
    size_t mark;
    int rc;

    *out = NULL;
    if (!v)
        return 0;
    mark = jw_push(w, key);
    rc = jw_as_object(w, v);
    jw_pop(w, mark);
    if (rc == 0)
        *out = v;
    return rc;
}

int jw_array(struct jw *w, const cJSON *obj, const char *key, const cJSON **out,
             size_t *n)
{
    const cJSON *v = jw_get(obj, key);
    size_t mark;
    int rc;

    *out = NULL;
    *n = 0;
    if (!v)
        return 0;
    mark = jw_push(w, key);
    rc = jw_as_array(w, v);
    jw_pop(w, mark);
    if (rc == 0) {
        *out = v;
        *n = jw_count(v);
    }
    return rc;
}

int jw_string(struct jw *w, const cJSON *obj, const char *key, const char *dflt,
              const char **out)
{
    const cJSON *v = jw_get(obj, key);
    size_t mark;
    int rc;

    if (!v) {
        *out = dflt;
        return 0;
    }
    mark = jw_push(w, key);
    rc = jw_as_string(w, v, dflt, out);
    jw_pop(w, mark);
    return rc;
}

int jw_string_req(struct jw *w, const cJSON *obj, const char *key,
                  const char **out)
{
    if (!jw_get(obj, key))
        return jw_fail_key(w, key, "missing required field");
    return jw_string(w, obj, key, NULL, out);
}

int jw_bool(struct jw *w, const cJSON *obj, const char *key, bool *out)
{
    const cJSON *v = jw_get(obj, key);
    size_t mark;

    *out = false;
    if (!v)
        return 0;
    if (!cJSON_IsBool(v)) {
        mark = jw_push(w, key);
        jw_fail_type(w, "a boolean", v);
        jw_pop(w, mark);
        return -1;
    }
    *out = cJSON_IsTrue(v);
    return 0;
}

int jw_int32(struct jw *w, const cJSON *obj, const char *key, int32_t *out,
             bool *present)
{
    const cJSON *v = jw_get(obj, key);
    size_t mark;
    int rc;

    if (present)
        *present = v != NULL;
    if (!v) {
        *out = 0;
        return 0;
    }
    mark = jw_push(w, key);
    rc = jw_as_int32(w, v, out);
    jw_pop(w, mark);
    return rc;
}

int jw_int64(struct jw *w, const cJSON *obj, const char *key, int64_t *out,
             bool *present)
{
    const cJSON *v = jw_get(obj, key);
    size_t mark;
    int rc;

    if (present)
        *present = v != NULL;
    if (!v) {
        *out = 0;
        return 0;
    }
    mark = jw_push(w, key);
    rc = jw_as_int64(w, v, out);
    jw_pop(w, mark);
    return rc;
}

int jw_time(struct jw *w, const cJSON *obj, const char *key, int64_t *out,
            bool *present)
{
    const cJSON *v = jw_get(obj, key);
    char q[160];
    size_t mark;
    int rc = 0;

    *out = 0;
    if (present)
        *present = v != NULL;
    if (!v)
        return 0;
    mark = jw_push(w, key);
    if (!cJSON_IsString(v))
        rc = jw_fail_type(w, "a string", v);
    else if (jw_parse_rfc3339(v->valuestring, out) < 0)
        rc = jw_fail(w, "invalid RFC3339 time %s",
                     err_quote(q, sizeof(q), v->valuestring, 64));
    jw_pop(w, mark);
    return rc;
}

int jw_string_array(struct jw *w, const cJSON *obj, const char *key,
                    const char ***out, size_t *n)
{
    const cJSON *arr, *it;
    size_t i, mark;

    *out = NULL;
    if (jw_array(w, obj, key, &arr, n) < 0)
        return -1;
    if (!arr)
        return 0;
    *out = jw_calloc(w, *n, sizeof(**out));
    if (!*out)
        return -1;
    mark = jw_push(w, key);
    for (it = arr->child, i = 0; it; it = it->next, i++) {
        size_t m2 = jw_push_index(w, i);

        if (jw_as_string(w, it, "", &(*out)[i]) < 0)
            return -1;
        jw_pop(w, m2);
    }
    jw_pop(w, mark);
    return 0;
}

void *jw_objects(struct jw *w, const cJSON *obj, const char *key, size_t size,
                 jw_decode_fn *fn, size_t *n, int *rc)
{
    const cJSON *arr, *it;
    unsigned char *out;
    size_t i, mark;

    *rc = -1;
    if (jw_array(w, obj, key, &arr, n) < 0)
        return NULL;
    *rc = 0;
    if (!arr)
        return NULL;
    *rc = -1;
    out = jw_calloc(w, *n, size);
    if (!out)
        return NULL;
    mark = jw_push(w, key);
    for (it = arr->child, i = 0; it; it = it->next, i++) {
        size_t m2 = jw_push_index(w, i);
        const cJSON *o = cJSON_IsNull(it) ? NULL : it;

        if (jw_as_object(w, o) < 0 || fn(w, o, out + i * size) < 0)
            return NULL;
        jw_pop(w, m2);
    }
    jw_pop(w, mark);
    *rc = 0;
    return out;
}

/* Read exactly n digits at *s into *out. */
static int digits(const char **s, int n, int *out)
{
    int v = 0;

    while (n-- > 0) {
        if (**s < '0' || **s > '9')
            return -1;
        v = v * 10 + (**s - '0');
        (*s)++;
    }
    *out = v;
    return 0;
}

static int expect(const char **s, char c)
{
    if (**s != c)
        return -1;
    (*s)++;
    return 0;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
    static const int dm[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

    return m == 2 && leap ? 29 : dm[m - 1];
}

int jw_parse_rfc3339(const char *s, int64_t *out)
{
    int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;

    if (digits(&s, 4, &y) || expect(&s, '-') || digits(&s, 2, &mo) ||
        expect(&s, '-') || digits(&s, 2, &d) || expect(&s, 'T') ||
        digits(&s, 2, &h) || expect(&s, ':') || digits(&s, 2, &mi) ||
        expect(&s, ':') || digits(&s, 2, &sec))
        return -1;
    if (*s == '.') {
        s++;
        if (*s < '0' || *s > '9')
            return -1;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'Z') {
        s++;
    } else if (*s == '+' || *s == '-') {
        sign = *s == '+' ? 1 : -1;
        s++;
        if (digits(&s, 2, &oh) || expect(&s, ':') || digits(&s, 2, &om))
            return -1;
    } else {
        return -1;
    }
    if (*s || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) ||
        h > 23 || mi > 59 || sec > 59 || oh > 23 || om > 59)
        return -1;
    *out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
           sign * (oh * 3600 + om * 60);
    return 0;
}
