/*
 * test_quantity.c: kube_quantity_parse / _value / _milli_value against
 * tables ported from apimachinery v1.22
 * staging/src/k8s.io/apimachinery/pkg/api/resource/quantity_test.go.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kube/model/quantity.h"

#define NANOS_MAX ((__int128)(((unsigned __int128)1 << 127) - 1))

#define ERR_FMT                                                                \
    "quantities must match the regular expression "                            \
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define ERR_NUM "unable to parse numeric part of quantity"
#define ERR_SUF "unable to parse quantity's suffix"

/* Decimal text of v, for failure messages. */
static const char *i128_str(__int128 v, char *buf, size_t len)
{
    char tmp[48];
    size_t n = 0, i;
    unsigned __int128 m = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v
                                : (unsigned __int128)v;

    do {
        tmp[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    if (v < 0)
        tmp[n++] = '-';
    for (i = 0; i < n && i + 1 < len; i++)
        buf[i] = tmp[n - 1 - i];
    buf[i] = '\0';
    return buf;
}

/* mant x 10^(exp + 9): the expected nanos of decQuantity(mant, exp). */
static __int128 nanos_of(int64_t mant, int exp)
{
    __int128 v = mant;
    int i;

    for (i = 0; i < exp + 9; i++)
        v *= 10;
    return v;
}

static void expect_nanos(const char *in, __int128 want)
{
    struct kube_quantity q;
    struct err e;
    char a[48], b[48];

    err_clear(&e);
    if (kube_quantity_parse(in, &q, &e) != 0)
        fail_msg("%s: unexpected error: %s", in, e.msg);
    if (q.nanos != want)
        fail_msg("%s: got %s nanos, want %s", in,
                 i128_str(q.nanos, a, sizeof(a)), i128_str(want, b, sizeof(b)));
}

struct valid_case {
    const char *in;
    int64_t mant; /* expected value is mant x 10^exp */
    int exp;
};

/* TestQuantityParse (valid table), with the expected decQuantity values. */
static const struct valid_case parse_table[] = {
    { "0", 0, 0 },
    { "0n", 0, 0 },
    { "0u", 0, 0 },
    { "0m", 0, 0 },
    { "0Ki", 0, 0 },
    { "0k", 0, 0 },
    { "0Mi", 0, 0 },
    { "0M", 0, 0 },
    { "0Gi", 0, 0 },
    { "0G", 0, 0 },
    { "0Ti", 0, 0 },
    { "0T", 0, 0 },
    /* Quantity less numbers are allowed */
    { "1", 1, 0 },
    /* Binary suffixes */
    { "1Ki", 1024, 0 },
    { "8Ki", 8 * 1024, 0 },
    { "7Mi", 7 * 1024 * 1024, 0 },
    { "6Gi", 6LL * 1024 * 1024 * 1024, 0 },
    { "5Ti", 5LL * 1024 * 1024 * 1024 * 1024, 0 },
    { "4Pi", 4LL * 1024 * 1024 * 1024 * 1024 * 1024, 0 },
    { "3Ei", 3LL * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, 0 },
    { "10Ti", 10LL * 1024 * 1024 * 1024 * 1024, 0 },
    { "100Ti", 100LL * 1024 * 1024 * 1024 * 1024, 0 },
    /* Decimal suffixes */
    { "5n", 5, -9 },
    { "4u", 4, -6 },
    { "3m", 3, -3 },
    { "9", 9, 0 },
    { "8k", 8, 3 },
    { "50k", 5, 4 },
    { "7M", 7, 6 },
    { "6G", 6, 9 },
    { "5T", 5, 12 },
    { "40T", 4, 13 },
    { "300T", 3, 14 },
    { "2P", 2, 15 },
    { "1E", 1, 18 },
    /* Decimal exponents */
    { "1E-3", 1, -3 },
    { "1e3", 1, 3 },
    { "1E6", 1, 6 },
    { "1e9", 1, 9 },
    { "1E12", 1, 12 },
    { "1e15", 1, 15 },
    { "1E18", 1, 18 },
    /* Nonstandard but still parsable */
    { "1e14", 1, 14 },
    { "1e13", 1, 13 },
    { "1e3", 1, 3 },
    { "100.035k", 100035, 0 },
    /* Things that look like floating point */
    { "0.001", 1, -3 },
    { "0.0005k", 5, -1 },
    { "0.005", 5, -3 },
    { "0.05", 5, -2 },
    { "0.5", 5, -1 },
    { "0.00050k", 5, -1 },
    { "0.00500", 5, -3 },
    { "0.05000", 5, -2 },
    { "0.50000", 5, -1 },
    { "0.5e0", 5, -1 },
    { "0.5e-1", 5, -2 },
    { "0.5e-2", 5, -3 },
    { "0.5e0", 5, -1 },
    { "10.035M", 10035, 3 },
    { "1.2e3", 12, 2 },
    { "1.3E+6", 13, 5 },
    { "1.40e9", 14, 8 },
    { "1.53E12", 153, 10 },
    { "1.6e15", 16, 14 },
    { "1.7E18", 17, 17 },
    { "9.01", 901, -2 },
    { "8.1k", 81, 2 },
    { "7.123456M", 7123456, 0 },
    { "6.987654321G", 6987654321LL, 0 },
    { "5.444T", 5444, 9 },
    { "40.1T", 401, 11 },
    { "300.2T", 3002, 11 },
    { "2.5P", 25, 14 },
    { "1.01E", 101, 16 },
    /* Things that saturate/round */
    { "3.001n", 4, -9 },
    { "1.1E-9", 2, -9 },
    { "0.0000000001", 1, -9 },
    { "0.0000000005", 1, -9 },
    { "0.00000000050", 1, -9 },
    { "0.5e-9", 1, -9 },
    { "0.9n", 1, -9 },
    { "0.00000012345", 124, -9 },
    { "0.00000012354", 124, -9 },
    { "9Ei", INT64_MAX, 0 },
    { "9223372036854775807Ki", INT64_MAX, 0 },
    { "12E", 12, 18 },
    /* We'll accept fractional binary stuff, too. */
    { "100.035Ki", 10243584, -2 },
    { "0.5Mi", 512 * 1024, 0 },
    { "0.05Gi", 536870912, -1 },
    { "0.025Ti", 274877906944LL, -1 },
    /* Things written by trolls */
    { "0.000000000001Ki", 2, -9 },
    { ".001", 1, -3 },
    { ".0001k", 100, -3 },
    { "1.", 1, 0 },
    { "1.G", 1, 9 },
};

/*
 * TestQuantityParse runs the table as written, with a leading "-" (the
 * negated value) and with an explicit "+".
 */
static void quantity_should_parse_upstream_valid_table(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(parse_table) / sizeof(parse_table[0]); i++) {
        const struct valid_case *c = &parse_table[i];
        __int128 want = nanos_of(c->mant, c->exp);
        char buf[64];

        expect_nanos(c->in, want);
        snprintf(buf, sizeof(buf), "-%s", c->in);
        expect_nanos(buf, -want);
        snprintf(buf, sizeof(buf), "+%s", c->in);
        expect_nanos(buf, want);
    }
}

struct invalid_case {
    const char *in;
    const char *why; /* the upstream error the input maps to */
};

/*
 * TestQuantityParse (invalid table and the empty string),
 * TestQuantityParseNonNumericPanic ("Non-Numeric"), plus inputs whose
 * rejection follows from parseQuantityString / suffixer.interpret.
 */
static const struct invalid_case invalid_table[] = {
    { "", ERR_FMT },
    { "1.1.M", ERR_FMT },
    { "1+1.0M", ERR_FMT },
    { "0.1mi", ERR_SUF },
    { "0.1am", ERR_FMT },
    { "aoeu", ERR_FMT },
    { ".5i", ERR_SUF },
    { "1i", ERR_SUF },
    { "-3.01i", ERR_SUF },
    { "-3.01e-", ERR_SUF },
    /* trailing whitespace is forbidden */
    { " 1", ERR_FMT },
    { "1 ", ERR_FMT },
    { "Non-Numeric", ERR_FMT },
    { "1.5.3", ERR_FMT },
    { "1Qi", ERR_FMT },
    { "--1", ERR_SUF },
    { "+-1", ERR_SUF },
    { "1Mib", ERR_FMT },
    { "1ki", ERR_SUF },
    { "1KI", ERR_FMT },
    { "1e", ERR_SUF },
    { "1e+", ERR_SUF },
    { "1ee3", ERR_SUF },
    { "1e3.5", ERR_FMT },
    { "1Ki3", ERR_SUF },
    { "1e9223372036854775808", ERR_SUF },
    { "1,5", ERR_FMT },
    { "0x10", ERR_FMT },
    { "1\n", ERR_FMT },
    /* no digit at all and upstream leaves its int64 fast path */
    { "Pi", ERR_NUM },
    { "Ei", ERR_NUM },
    { "-.Pi", ERR_NUM },
    { "e-10", ERR_NUM },
    { ".n-1", ERR_SUF },
};

static void quantity_should_reject_upstream_invalid_table(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(invalid_table) / sizeof(invalid_table[0]); i++) {
        const struct invalid_case *c = &invalid_table[i];
        struct kube_quantity q = { 12345 };
        struct err e;
        char want[512], quoted[300];

        err_clear(&e);
        if (kube_quantity_parse(c->in, &q, &e) == 0)
            fail_msg("%s: parsed unexpectedly", c->in);
        snprintf(want, sizeof(want), "invalid quantity %s: %s",
                 err_quote(quoted, sizeof(quoted), c->in, 64), c->why);
        if (strcmp(e.msg, want) != 0)
            fail_msg("%s: got error %s, want %s", c->in, e.msg, want);
        if (q.nanos != 0)
            fail_msg("%s: value not cleared on error", c->in);
    }
}

static void quantity_should_quote_and_cap_bad_input(void **state)
{
    char in[200];
    struct kube_quantity q;
    struct err e;

    (void)state;
    assert_int_equal(kube_quantity_parse("1.5.3", &q, &e), -1);
    assert_string_equal(e.msg, "invalid quantity \"1.5.3\": " ERR_FMT);
    assert_int_equal(kube_quantity_parse("2\"x", &q, &e), -1);
    assert_string_equal(e.msg, "invalid quantity \"2\\\"x\": " ERR_FMT);
    assert_int_equal(kube_quantity_parse("1Zi", &q, &e), -1);
    assert_string_equal(e.msg, "invalid quantity \"1Zi\": " ERR_FMT);
    assert_int_equal(kube_quantity_parse("7iK", &q, &e), -1);
    assert_string_equal(e.msg, "invalid quantity \"7iK\": " ERR_SUF);
    assert_int_equal(kube_quantity_parse(NULL, &q, &e), -1);
    assert_string_equal(e.msg, "invalid quantity \"\": " ERR_FMT);

    memset(in, '9', sizeof(in) - 1);
    in[sizeof(in) - 1] = '\0';
    in[150] = 'x';
    assert_int_equal(kube_quantity_parse(in, &q, &e), -1);
    assert_non_null(strstr(e.msg, "9999...\": quantities must match"));
    assert_true(strlen(e.msg) < 64 + 200);
}

/*
 * Inputs whose number part has no digit: upstream's scanner turns the
 * numerator into "0" (TestParseQuantityString accepts "." and "-."), so
 * ParseQuantity returns zero whenever its int64 fast path applies.
 */
static void quantity_should_read_digitless_numbers_as_zero(void **state)
{
    static const char *const zero[] = {
        ".",  "-.",  "+.", "-",   "+",    "e3", "E-9",  "m",  "n",     "Ki",
        "Ti", ".Gi", "-k", "+.E", "e+18", "00", "-000", "0.", "0e-20",
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
        expect_nanos(zero[i], 0);
}

struct value_case {
    const char *in;
    int64_t value; /* Value() */
    int64_t milli; /* MilliValue() */
};

/*
 * Value()/MilliValue() round up away from zero (int64Amount.AsScaledInt64
 * via negativeScaleInt64); TestQuantityRoundUp's "9.01"/"-9.01" at scale
 * 0 give 10/-10. Overflow saturates.
 */
static const struct value_case value_table[] = {
    { "1", 1, 1000 },
    { "1.5", 2, 1500 },
    { "0.1", 1, 100 },
    { "100m", 1, 100 },
    { "500m", 1, 500 },
    { "1500m", 2, 1500 },
    { "0.0001", 1, 1 },
    { "1Ki", 1024, 1024000 },
    { "1Gi", 1073741824, 1073741824000LL },
    { "1.5Gi", 1610612736, 1610612736000LL },
    { "129e6", 129000000, 129000000000LL },
    { "129M", 129000000, 129000000000LL },
    { "123Mi", 128974848, 128974848000LL },
    { "100n", 1, 1 },
    { "1n", 1, 1 },
    { "3.001n", 1, 1 },
    { "1001u", 1, 2 },
    { "9.01", 10, 9010 },
    { "0", 0, 0 },
    { "0m", 0, 0 },
    { "-1", -1, -1000 },
    { "-1.5", -2, -1500 },
    { "-9.01", -10, -9010 },
    { "-100m", -1, -100 },
    { "-0.0001", -1, -1 },
    { "-100n", -1, -1 },
    { "9223372036854775807", INT64_MAX, INT64_MAX },
    { "9223372036854775808", INT64_MAX, INT64_MAX },
    { "9223372036854775807m", 9223372036854776LL, INT64_MAX },
    { "9Ei", INT64_MAX, INT64_MAX },
    { "8Ei", INT64_MAX, INT64_MAX },
    { "-8Ei", -INT64_MAX, INT64_MIN },
    { "-9223372036854775808", INT64_MIN, INT64_MIN },
    { "-9223372036854775809", INT64_MIN, INT64_MIN },
    { "9E", 9000000000000000000LL, INT64_MAX },
    { "1e100", INT64_MAX, INT64_MAX },
    { "9999999999999999999999E", INT64_MAX, INT64_MAX },
    { "-9999999999999999999999E", INT64_MIN, INT64_MIN },
};

static void quantity_should_round_value_and_milli_value_up(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(value_table) / sizeof(value_table[0]); i++) {
        const struct value_case *c = &value_table[i];
        struct kube_quantity q;
        struct err e;
        int64_t v, m;

        if (kube_quantity_parse(c->in, &q, &e) != 0)
            fail_msg("%s: unexpected error: %s", c->in, e.msg);
        v = kube_quantity_value(q);
        m = kube_quantity_milli_value(q);
        if (v != c->value)
            fail_msg("%s: Value() = %lld, want %lld", c->in, (long long)v,
                     (long long)c->value);
        if (m != c->milli)
            fail_msg("%s: MilliValue() = %lld, want %lld", c->in, (long long)m,
                     (long long)c->milli);
    }
}

struct same_case {
    const char *a, *b;
};

/*
 * TestQuantityString's canonical/alternate pairs and TestQuantityParseEmit:
 * each pair must parse to the same value (formatting itself is not
 * ported).
 */
static const struct same_case same_table[] = {
    { "1Gi", "1024Mi" },
    { "300Mi", "307200Ki" },
    { "1001Gi", "1025024Mi" },
    { "1Ti", "1024Gi" },
    { "5", "5000m" },
    { "500m", "0.5" },
    { "1G", "1000M" },
    { "1G", "0.001T" },
    { "1m", "1000u" },
    { "1080m", "1.08" },
    { "1080m", "1080000000n" },
    { "1e9", ".001e12" },
    { "1e-3", "0.001e0" },
    { "1e-9", "1000e-12" },
    { "0", "00" },
    { "1Gi", "1073741824" },
    { "1024m", ".001Ki" },
    { "1024u", ".000001Ki" },
    { "1024n", ".000000001Ki" },
    { "2n", ".000000000001Ki" },
    { "1e21", "1000E" },
    { "5e21", "5000E" },
};

static void quantity_should_parse_alternate_spellings_alike(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(same_table) / sizeof(same_table[0]); i++) {
        struct kube_quantity qa, qb;
        struct err e;
        char x[48], y[48];

        if (kube_quantity_parse(same_table[i].a, &qa, &e) != 0 ||
            kube_quantity_parse(same_table[i].b, &qb, &e) != 0)
            fail_msg("%s / %s: unexpected error: %s", same_table[i].a,
                     same_table[i].b, e.msg);
        if (qa.nanos != qb.nanos)
            fail_msg("%s = %s nanos but %s = %s", same_table[i].a,
                     i128_str(qa.nanos, x, sizeof(x)), same_table[i].b,
                     i128_str(qb.nanos, y, sizeof(y)));
    }
}

/* Long inputs keep every digit: rounding looks at the whole fraction. */
static void quantity_should_round_long_fractions_exactly(void **state)
{
    char in[6000];

    (void)state;
    /* 0.000...0001 with 5000 zeros: a non-zero value rounds up to 1n */
    strcpy(in, "0.");
    memset(in + 2, '0', 5000);
    strcpy(in + 5002, "1");
    expect_nanos(in, 1);
    in[5002] = '0';
    expect_nanos(in, 0);
    /* 1 followed by 100 zeros, times 1e-100 */
    in[0] = '1';
    memset(in + 1, '0', 100);
    strcpy(in + 101, "e-100");
    expect_nanos(in, 1000000000);
    expect_nanos("0.5000000000000000000000000001Ki", 512000000001LL);
    expect_nanos("0.50000000000000000000000000000Ki", 512000000000LL);
    expect_nanos("1.0000000000000000000000000000Ki", 1024000000000LL);
    expect_nanos("0.0000000000000000000000000001Ei", 1);
    expect_nanos("0.000000000000000000000000001Ei", 2);
    expect_nanos("1.1e-1000000", 1);
    expect_nanos("123456789012345678901234567890e-20", 1234567890123456790LL);
    expect_nanos("-123456789012345678901234567890e-20", -1234567890123456790LL);
}

/* Parse keeps nanos up to +/-(2^127-1); BinarySI is capped at 2^63-1. */
static void quantity_should_saturate_instead_of_overflowing(void **state)
{
    (void)state;
    expect_nanos("9999999999999999999999E", NANOS_MAX);
    expect_nanos("-9999999999999999999999E", -NANOS_MAX);
    expect_nanos("1e30", NANOS_MAX);
    expect_nanos("1e2147483647", NANOS_MAX);
    expect_nanos("170141183460469231731687303715884105727n", NANOS_MAX);
    expect_nanos("170141183460469231731687303715884105728n", NANOS_MAX);
    expect_nanos("170141183460469231731687303715884105726n", NANOS_MAX - 1);
    expect_nanos("1e28", nanos_of(1, 28));
    expect_nanos("9Ei", nanos_of(INT64_MAX, 0));
    expect_nanos("-9Ei", -nanos_of(INT64_MAX, 0));
    expect_nanos("8192Pi", nanos_of(INT64_MAX, 0));
    expect_nanos("8191.5Pi", nanos_of(9222809086901354496LL, 0));
    expect_nanos("7.5Ei", nanos_of(8646911284551352320LL, 0));
    expect_nanos("99999999999999999999999999999999999999Ki",
                 nanos_of(INT64_MAX, 0));
}

/*
 * suffix.go v1.22 narrows a parsed exponent with int32(parsed), so
 * exponents past int32 wrap (TOB-K8S-015); later releases reject them.
 */
static void quantity_should_wrap_exponents_like_v1_22(void **state)
{
    (void)state;
    expect_nanos("1e4294967296", nanos_of(1, 0));
    expect_nanos("1e4294967297", nanos_of(1, 1));
    expect_nanos("1e4294967293", nanos_of(1, -3));
    expect_nanos("1e-4294967295", nanos_of(1, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quantity_should_parse_upstream_valid_table),
        cmocka_unit_test(quantity_should_reject_upstream_invalid_table),
        cmocka_unit_test(quantity_should_quote_and_cap_bad_input),
        cmocka_unit_test(quantity_should_read_digitless_numbers_as_zero),
        cmocka_unit_test(quantity_should_round_value_and_milli_value_up),
        cmocka_unit_test(quantity_should_parse_alternate_spellings_alike),
        cmocka_unit_test(quantity_should_round_long_fractions_exactly),
        cmocka_unit_test(quantity_should_saturate_instead_of_overflowing),
        cmocka_unit_test(quantity_should_wrap_exponents_like_v1_22),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
