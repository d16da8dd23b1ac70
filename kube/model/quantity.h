/*
 * quantity.h: resource.Quantity parsing with apimachinery's grammar and
 * rounding (staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go).
 */
#ifndef KUBE_MODEL_QUANTITY_H
#define KUBE_MODEL_QUANTITY_H

#include <stdint.h>

#include "kube/base/err.h"

/*
 * The exact value of a quantity in units of 1e-9, rounded away from zero
 * as Kubernetes rounds on parse, saturated at +/-(2^127-1).
 */
struct kube_quantity {
    __int128 nanos;
};

/*
 * Parse s (decimal SI, binary SI, decimal exponent, sign, fraction) as
 * Kubernetes does, rejecting what it rejects. Returns 0, or -1 with
 * e->msg = `invalid quantity "<s>"` followed by ": <why>".
 */
int kube_quantity_parse(const char *s, struct kube_quantity *q, struct err *e);

/* Value(): rounded up (away from zero) to an integer, saturated to int64. */
int64_t kube_quantity_value(struct kube_quantity q);

/* MilliValue(): value x 1000 rounded up, saturated to int64. */
int64_t kube_quantity_milli_value(struct kube_quantity q);

#endif
