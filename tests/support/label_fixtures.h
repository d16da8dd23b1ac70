/*
 * label_fixtures.h: builders for label maps, requirements, selectors and
 * node selector terms in tests, written in a labels.Parse-like syntax and
 * allocated from a test arena. Builders abort the test on arena failure.
 */
#ifndef TESTS_SUPPORT_LABEL_FIXTURES_H
#define TESTS_SUPPORT_LABEL_FIXTURES_H

#include "kube/base/arena.h"
#include "kube/model/types.h"

/*
 * "k1=v1,k2=v2" as a present map, normalized (sorted, last duplicate
 * wins). NULL gives an absent map, "" a present empty one; an item
 * without '=' has the value "".
 */
struct kube_labels lf_labels(struct arena *a, const char *spec);

/* The same, left in spec order with duplicates kept (not normalized). */
struct kube_labels lf_labels_raw(struct arena *a, const char *spec);

/* Render a map back as "k1=v1,k2=v2" (from a). */
const char *lf_labels_str(struct arena *a, const struct kube_labels *l);

/*
 * One requirement. values is comma-separated: NULL for no values, "" for
 * one empty value. int_value is parsed with strtoll for any op (0 when the
 * first value is not a number); nothing is validated.
 */
struct kube_requirement lf_req(struct arena *a, const char *key,
                               enum kube_selector_op op, const char *values);

/*
 * Requirements from a selector string: "k" (Exists), "!k", "k=v", "k==v"
 * (In one value), "k!=v" (NotIn one value), "k>1", "k<1", "k in (a,b)",
 * "k notin (a,b)", joined by commas outside parentheses. "()" means no
 * values at all (unlike labels.Parse). Returns the count; *out from a.
 */
size_t lf_reqs(struct arena *a, const char *spec,
               struct kube_requirement **out);

/* A label selector from lf_reqs syntax; NULL spec gives NULL (nil). */
struct kube_label_selector *lf_selector(struct arena *a, const char *spec);

/* A node selector term; exprs and fields in lf_reqs syntax, NULL: none. */
struct kube_node_selector_term lf_term(struct arena *a, const char *exprs,
                                       const char *fields);

#endif
