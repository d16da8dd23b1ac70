/*
 * label_rule_arg.h: the label requirements of the declarative rules
 * (LabelRule, LabelScoreRule): a selector is a list of strings, all of
 * which must hold: "key" (the label is set, any value), "!key" (it is
 * not), "key=value" and "key!=value" (unset or another value), the
 * equality-based forms of apimachinery's label selector syntax.
 */
#ifndef FRAMEWORK_LABEL_RULE_ARG_H
#define FRAMEWORK_LABEL_RULE_ARG_H

#include <stdbool.h>
#include <stddef.h>

#include "framework/args.h"
#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/model/types.h"

enum kpe_label_op {
    KPE_LABEL_EXISTS,     /* "key" */
    KPE_LABEL_NOT_EXISTS, /* "!key" */
    KPE_LABEL_EQUALS,     /* "key=value" */
    KPE_LABEL_NOT_EQUALS, /* "key!=value": unset also matches */
};

struct kpe_label_req {
    enum kpe_label_op op;
    const char *key;
    const char *value; /* EQUALS, NOT_EQUALS */
};

/* Requirements ANDed; none matches every label set. */
struct kpe_label_sel {
    const struct kpe_label_req *v;
    size_t n;
};

/*
 * Parse the strings of l into out (memory from a). path names l in
 * messages ("labelRule.podSelector"): an error names the item,
 * "labelRule.podSelector[1]: invalid label key \"-x\" in \"-x=1\": ...".
 * Returns 0, or -1 with e set.
 */
int kpe_label_sel_parse(const struct policy_strlist *l, const char *path,
                        struct arena *a, struct kpe_label_sel *out,
                        struct err *e);

/*
 * One rule's two selectors, parsed: key names the argument in messages
 * ("labelRule" gives "labelRule.podSelector[1]: ..."). 0, or -1 (e set).
 */
int kpe_label_rule_sels(const char *key, const struct policy_strlist *pod,
                        const struct policy_strlist *node, struct arena *a,
                        struct kpe_label_sel *pod_out,
                        struct kpe_label_sel *node_out, struct err *e);

/*
 * A folded rule list one rule longer: n items of size bytes copied from
 * old into a new arena array with room for one more (zeroed), or NULL
 * with e set (out of memory, or more than POLICY_MAX_LIST rules).
 */
void *kpe_label_rules_grow(struct arena *a, const void *old, size_t n,
                           size_t size, const char *key, struct err *e);

/* True when every requirement of s holds for labels l. */
bool kpe_label_sel_matches(const struct kpe_label_sel *s,
                           const struct kube_labels *l);

#endif
