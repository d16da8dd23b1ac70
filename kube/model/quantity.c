/*
 * quantity.c: resource.Quantity strings to exact nano values, with the
 * grammar, error texts and rounding of apimachinery v1.22
 * (pkg/api/resource/quantity.go parseQuantityString + ParseQuantity,
 * suffix.go). The value is kept exactly in 1e-9 units, so the int64 fast
 * path and the inf.Dec slow path of upstream give one answer here.
 */
#include "kube/model/quantity.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define SPLIT_RE  "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
#define ERR_FMT   "quantities must match the regular expression '" SPLIT_RE "'"
#define ERR_NUM   "unable to parse numeric part of quantity"
#define ERR_SUF   "unable to parse quantity's suffix"
#define QUOTE_MAX 64 /* input bytes quoted in an error message */

typedef unsigned __int128 u128;

#define NANOS_MAX ((u128)(((u128)1 << 127) - 1))
/* BinarySI amounts are capped at 2^63-1 (upstream maxAllowed). */
#define BINARY_CAP_NANOS ((u128)INT64_MAX * 1000000000u)

/* The pieces of a quantity string, as upstream's scanner splits it. */
struct scan {
    bool negative;
    bool has_digit;  /* any digit in the number part at all */
    const char *num; /* integer digits, leading zeros skipped */
    size_t num_len;
    const char *denom; /* fraction digits */
    size_t denom_len;
    const char *suffix;
    size_t suffix_len;
};

enum qformat { QF_DECIMAL_SI, QF_BINARY_SI, QF_DECIMAL_EXPONENT };

struct suffix_def {
    const char *text;
    enum qformat format;
    int exp; /* power of 10 (decimal) or of 2 (binary) */
};

static const struct suffix_def suffixes[] = {
    { "", QF_DECIMAL_SI, 0 },   { "n", QF_DECIMAL_SI, -9 },
    { "u", QF_DECIMAL_SI, -6 }, { "m", QF_DECIMAL_SI, -3 },
    { "k", QF_DECIMAL_SI, 3 },  { "M", QF_DECIMAL_SI, 6 },
    { "G", QF_DECIMAL_SI, 9 },  { "T", QF_DECIMAL_SI, 12 },
    { "P", QF_DECIMAL_SI, 15 }, { "E", QF_DECIMAL_SI, 18 },
    { "Ki", QF_BINARY_SI, 10 }, { "Mi", QF_BINARY_SI, 20 },
    { "Gi", QF_BINARY_SI, 30 }, { "Ti", QF_BINARY_SI, 40 },
    { "Pi", QF_BINARY_SI, 50 }, { "Ei", QF_BINARY_SI, 60 },
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_suffix_char(char c)
{
    return c != '\0' && strchr("eEinumkKMGTP", c) != NULL;
}

/*
 * Split s like parseQuantityString: [sign] zeros digits [. digits] then a
 * suffix of [eEinumkKMGTP]* [+-]? [0-9]*. Returns 0, or -1 when something
 * is left over (ErrFormatWrong).
 */
static int scan_quantity(const char *s, size_t end, struct scan *sc)
{
    size_t pos = 0, start;

    memset(sc, 0, sizeof(*sc));
    sc->num = sc->denom = sc->suffix = s + end;
    if (end > 0 && (s[0] == '-' || s[0] == '+')) {
        sc->negative = s[0] == '-';
        pos++;
    }
    while (pos < end && s[pos] == '0') {
        sc->has_digit = true;
        pos++;
    }
    if (pos >= end)
        return 0; /* all zeros (or a bare sign): zero, no suffix */
    start = pos;
    while (pos < end && is_digit(s[pos]))
        pos++;
    sc->num = s + start;
    sc->num_len = pos - start;
    if (pos < end && s[pos] == '.') {
        start = ++pos;
        while (pos < end && is_digit(s[pos]))
            pos++;
        sc->denom = s + start;
        sc->denom_len = pos - start;
    }
    if (sc->num_len > 0 || sc->denom_len > 0)
        sc->has_digit = true;
    start = pos;
    while (pos < end && is_suffix_char(s[pos]))
        pos++;
    if (pos < end && (s[pos] == '-' || s[pos] == '+'))
        pos++;
    while (pos < end && is_digit(s[pos]))
        pos++;
    if (pos < end)
        return -1;
    sc->suffix = s + start;
    sc->suffix_len = end - start;
    return 0;
}

/*
 * strconv.ParseInt(s, 10, 64): optional sign, at least one digit, nothing
 * else, within int64. Returns 0 or -1.
 */
static int parse_int64(const char *s, size_t len, int64_t *out)
{
    bool neg = false;
    uint64_t v = 0, limit;
    size_t i = 0;

    if (i < len && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    if (i == len)
        return -1;
    limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < len; i++) {
        if (!is_digit(s[i]))
            return -1;
        if (v > (limit - (uint64_t)(s[i] - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/*
 * suffixer.interpret: the fixed tables, else "e"/"E" followed by an int64
 * exponent that upstream then narrows to int32 (int32(parsed)), which
 * wraps out-of-range exponents; reproduced here.
 */
static int interpret_suffix(const struct scan *sc, enum qformat *format,
                            int *exp)
{
    size_t i;
    int64_t parsed;

    for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        if (strlen(suffixes[i].text) == sc->suffix_len &&
            memcmp(suffixes[i].text, sc->suffix, sc->suffix_len) == 0) {
            *format = suffixes[i].format;
            *exp = suffixes[i].exp;
            return 0;
        }
    }
    if (sc->suffix_len > 1 && (sc->suffix[0] == 'e' || sc->suffix[0] == 'E')) {
        if (parse_int64(sc->suffix + 1, sc->suffix_len - 1, &parsed) < 0)
            return -1;
        *format = QF_DECIMAL_EXPONENT;
        *exp = (int)(int32_t)(uint32_t)(uint64_t)parsed;
        return 0;
    }
    return -1;
}

/* Digit i of num followed by denom. */
static unsigned digit_at(const struct scan *sc, size_t i)
{
    if (i < sc->num_len)
        return (unsigned)(sc->num[i] - '0');
    return (unsigned)(sc->denom[i - sc->num_len] - '0');
}

static u128 sat_mul_add(u128 a, unsigned mul, unsigned add)
{
    if (a > (NANOS_MAX - add) / mul)
        return NANOS_MAX;
    return a * mul + add;
}

static u128 sat_shl(u128 a, int b)
{
    if (a > (NANOS_MAX >> b))
        return NANOS_MAX;
    return a << b;
}

/*
 * ceil(digits x 2^b x 10^e) in nanos, saturated at NANOS_MAX. For e < 0
 * the dropped digits are folded right to left into a carry (< 2^b) so no
 * digit of the input is lost, however long it is.
 */
static u128 magnitude(const struct scan *sc, int b, int64_t e)
{
    size_t n = sc->num_len + sc->denom_len, keep, i;
    u128 high = 0, carry = 0;
    bool sticky = false;
    uint64_t drop;

    drop = e < 0 ? (uint64_t)(-e) : 0;
    keep = drop >= n ? 0 : n - (size_t)drop;
    for (i = 0; i < keep; i++)
        high = sat_mul_add(high, 10, digit_at(sc, i));
    high = sat_shl(high, b);
    for (; e > 0 && high != 0 && high != NANOS_MAX; e--)
        high = sat_mul_add(high, 10, 0);
    for (i = n; i > keep; i--) {
        u128 v = ((u128)digit_at(sc, i - 1) << b) + carry;

        sticky = sticky || v % 10 != 0;
        carry = v / 10;
    }
    for (; drop > n && carry != 0; drop--) {
        sticky = sticky || carry % 10 != 0;
        carry /= 10;
    }
    if (sticky)
        carry++;
    if (high > NANOS_MAX - carry)
        return NANOS_MAX;
    return high + carry;
}

/*
 * A number part without any digit ("", ".", "-.") is zero when upstream
 * takes its int64 fast path and ErrNumeric when it falls back to inf.Dec:
 * decimal scales below nano, and binary suffixes whose precision estimate
 * 15 - 1 - exp*3/10 - 1 goes negative (Pi, Ei), take the fallback.
 */
static bool digitless_is_zero(enum qformat format, int exp)
{
    if (format == QF_BINARY_SI)
        return 15 - 1 - exp * 3 / 10 - 1 >= 0;
    return exp >= -9;
}

static int fail(struct err *e, const char *s, const char *why)
{
    char q[QUOTE_MAX * 4 + 16];

    return err_set(e, "invalid quantity %s: %s",
                   err_quote(q, sizeof(q), s, QUOTE_MAX), why);
}

int kube_quantity_parse(const char *s, struct kube_quantity *q, struct err *e)
{
    struct scan sc;
    enum qformat format;
    int exp, b = 0;
    int64_t e10;
    u128 mag;

    q->nanos = 0;
    if (!s || s[0] == '\0')
        return fail(e, s, ERR_FMT);
    if (scan_quantity(s, strlen(s), &sc) < 0)
        return fail(e, s, ERR_FMT);
    if (interpret_suffix(&sc, &format, &exp) < 0)
        return fail(e, s, ERR_SUF);
    if (!sc.has_digit)
        return digitless_is_zero(format, exp) ? 0 : fail(e, s, ERR_NUM);
    if (format == QF_BINARY_SI) {
        b = exp;
        exp = 0;
    }
    /* value = digits x 10^(exp - len(denom)); in nanos add 9 */
    e10 = (int64_t)exp + 9;
    if (sc.denom_len > (size_t)INT32_MAX)
        e10 -= INT32_MAX;
    else
        e10 -= (int64_t)sc.denom_len;
    mag = magnitude(&sc, b, e10);
    if (format == QF_BINARY_SI && mag > BINARY_CAP_NANOS)
        mag = BINARY_CAP_NANOS;
    q->nanos = sc.negative ? -(__int128)mag : (__int128)mag;
    return 0;
}

/* ceil(|nanos| / div) with the sign put back, saturated to int64. */
static int64_t scaled_value(__int128 nanos, uint64_t div)
{
    u128 mag = nanos < 0 ? (u128)0 - (u128)nanos : (u128)nanos;
    u128 v = mag / div + (mag % div != 0);

    if (nanos >= 0)
        return v > (u128)INT64_MAX ? INT64_MAX : (int64_t)v;
    if (v > (u128)INT64_MAX)
        return INT64_MIN;
    return -(int64_t)v;
}

int64_t kube_quantity_value(struct kube_quantity q)
{
    return scaled_value(q.nanos, 1000000000u);
}

int64_t kube_quantity_milli_value(struct kube_quantity q)
{
    return scaled_value(q.nanos, 1000000u);
}
