/*
 * labels.h: label maps, label selectors, node selector terms, tolerations,
 * and the name/value syntax checks Kubernetes applies to them
 * (apimachinery pkg/labels, component-helpers nodeaffinity,
 * core/v1 toleration.go, apimachinery util/validation).
 */
#ifndef KUBE_MODEL_LABELS_H
#define KUBE_MODEL_LABELS_H

#include <stdbool.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/model/types.h"

/* The value of key in l, or NULL when l has no such key. */
const char *kube_labels_get(const struct kube_labels *l, const char *key);

/*
 * Sort items by key and make keys unique (the last value wins, as a JSON
 * object decoded into a Go map does). Call after filling items.
 */
void kube_labels_normalize(struct kube_labels *l);

/* True when every key of sel is in l with an equal value (map selector). */
bool kube_labels_contain(const struct kube_labels *l,
                         const struct kube_labels *sel);

/* One requirement against a label set (A.7 of predicates.md). */
bool kube_requirement_matches(const struct kube_requirement *r,
                              const struct kube_labels *l);

/*
 * Why a pod (anti-)affinity term cannot be used (its label selector's
 * conversion error first, then its namespace selector's), or NULL.
 */
const char *
kube_pod_affinity_term_error(const struct kube_pod_affinity_term *t);

/*
 * metav1.LabelSelector matching: NULL (nil) matches nothing, empty matches
 * everything, an invalid selector matches nothing.
 */
bool kube_label_selector_matches(const struct kube_label_selector *s,
                                 const struct kube_labels *l);

/*
 * Check a converted LabelSelector as metav1.LabelSelectorAsSelector does
 * (operators, value counts, key and value syntax) and record the first
 * problem in s->invalid (allocated from a). Returns 0 valid, -1 invalid.
 */
int kube_label_selector_validate(struct arena *a,
                                 struct kube_label_selector *s);

/*
 * Check a node selector term as nodeaffinity does when it parses one
 * (expressions: label operators incl. Gt/Lt with one integer value;
 * fields: metadata.name only via In/NotIn with exactly one value) and
 * record the first problem in t->invalid. Gt/Lt int_value is filled here.
 */
int kube_node_selector_term_validate(struct arena *a,
                                     struct kube_node_selector_term *t);

/* A term against a node's labels and name (A.8). Invalid terms: false. */
bool kube_node_selector_term_matches(const struct kube_node_selector_term *t,
                                     const struct kube_labels *labels,
                                     const char *node_name);

/* Terms ORed; no terms, or all empty/invalid, matches nothing. */
bool kube_node_selector_matches(const struct kube_node_selector *ns,
                                const struct kube_labels *labels,
                                const char *node_name);

/* Toleration against taint (A.9, v1.Toleration.ToleratesTaint). */
bool kube_toleration_tolerates(const struct kube_toleration *t,
                               const struct kube_taint *taint);

/* True when some toleration of the list tolerates taint. */
bool kube_tolerations_tolerate(const struct kube_toleration *t, size_t n,
                               const struct kube_taint *taint);

/* Syntax checks from apimachinery util/validation. */
bool kube_is_qualified_name(const char *s);
bool kube_is_label_value(const char *s);
bool kube_is_dns1123_subdomain(const char *s);

/*
 * The same checks with upstream's reasons: true when s is valid; otherwise
 * false, and the reasons, joined with "; " as labels.NewRequirement joins
 * them, are written to why (n bytes; why may be NULL when n is 0).
 */
bool kube_check_qualified_name(const char *s, char *why, size_t n);
bool kube_check_label_value(const char *s, char *why, size_t n);
bool kube_check_dns1123_subdomain(const char *s, char *why, size_t n);

/* The API spelling of an operator ("In", "NotIn", ..., "Lt"). */
const char *kube_selector_op_name(enum kube_selector_op op);

/*
 * Check one requirement as labels.NewRequirement does, for any of the six
 * operators: key a qualified name; In/NotIn at least one value;
 * Exists/DoesNotExist none; Gt/Lt exactly one base-10 int64 (stored in
 * r->int_value); every value a label value. path prefixes the field names
 * in the message ("matchExpressions[0]"), NULL for none. Returns 0 when
 * valid; otherwise -1 with *why set to upstream's error text from a
 * ("[e1, e2]" when there are several).
 */
int kube_requirement_validate(struct arena *a, struct kube_requirement *r,
                              const char *path, const char **why);

#endif
