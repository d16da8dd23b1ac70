/*
 * fuzz_quantity.c: libFuzzer target for kube_quantity_parse (the
 * resource.Quantity grammar). The input, cut at its first NUL, is one
 * quantity string. Besides "no crash", it checks properties every parse
 * must keep: a sign only negates, Value() and MilliValue() round the same
 * nanos consistently, and errors carry the `invalid quantity` prefix.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/model/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ceil(|x| / 1000) away from zero, as Value() rounds MilliValue(). */
static int64_t milli_to_value(int64_t m)
{
    if (m >= 0)
        return m / 1000 + (m % 1000 != 0);
    return m / 1000 - (m % 1000 != 0);
}

static void check_rounding(const char *s, struct kube_quantity q)
{
    int64_t v = kube_quantity_value(q), m = kube_quantity_milli_value(q);

    if (m == INT64_MAX || m == INT64_MIN)
        return; /* saturated: Value() may still be exact */
    if (milli_to_value(m) != v) {
        fprintf(stderr, "quantity %s: value %lld but milli %lld\n", s,
                (long long)v, (long long)m);
        abort();
    }
}

/* "-s" must be -s, and "+s" must be s, for unsigned s. */
static void check_sign(const char *s, size_t len, struct kube_quantity q,
                       int rc)
{
    char *signed_s = malloc(len + 2);
    struct kube_quantity neg, pos;
    struct err e;
    int rn, rp;

    if (!signed_s)
        return;
    memcpy(signed_s + 1, s, len + 1);
    signed_s[0] = '-';
    rn = kube_quantity_parse(signed_s, &neg, &e);
    signed_s[0] = '+';
    rp = kube_quantity_parse(signed_s, &pos, &e);
    if (rn != rc || rp != rc ||
        (rc == 0 && (neg.nanos != -q.nanos || pos.nanos != q.nanos))) {
        fprintf(stderr, "quantity %s: sign changes more than the sign\n", s);
        abort();
    }
    free(signed_s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    struct kube_quantity q;
    struct err e;
    size_t len;
    int rc;

    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    len = strlen(s);
    e.msg[0] = '\0';
    rc = kube_quantity_parse(s, &q, &e);
    if (rc != 0 && strncmp(e.msg, "invalid quantity ", 17) != 0) {
        fprintf(stderr, "quantity %s: error without prefix: %s\n", s, e.msg);
        abort();
    }
    if (rc == 0)
        check_rounding(s, q);
    if (len > 0 && s[0] != '-' && s[0] != '+')
        check_sign(s, len, q, rc);
    free(s);
    return 0;
}
