/*
 * node_selector.c: v1.NodeSelector terms as component-helpers
 * scheduling/corev1/nodeaffinity (v1.22) parses and matches them, for
 * MatchNodeSelector (NodeAffinity), NodeAffinityPriority and PV node
 * affinity. Terms are ORed; expressions and fields inside a term ANDed.
 */
#include "kube/model/labels.h"

#include <stdio.h>
#include <string.h>

#define NODE_NAME_FIELD "metadata.name"

static const char oom_reason[] = "invalid node selector term (out of memory "
                                 "while describing it)";

/* Go's %#v of the values, for the "must have one element" message. */
static const char *values_repr(struct arena *a,
                               const struct kube_requirement *r)
{
    char buf[1024], q[256];
    size_t len;

    if (r->n_values == 0)
        return "[]string(nil)";
    len = (size_t)snprintf(buf, sizeof(buf), "[]string{");
    for (size_t i = 0; i < r->n_values && len < sizeof(buf); i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
                                i ? ", " : "",
                                err_quote(q, sizeof(q), r->values[i], 200));
    if (len + 1 < sizeof(buf))
        snprintf(buf + len, sizeof(buf) - len, "}");
    else
        memcpy(buf + sizeof(buf) - 5, "...}", 5);
    return arena_strdup(a, buf);
}

/*
 * Why a field requirement fails nodeSelectorRequirementsAsFieldSelector,
 * which takes In/NotIn with exactly one value. The key is not checked
 * (any key but metadata.name reads as "").
 */
static const char *field_problem(struct arena *a, size_t i,
                                 const struct kube_requirement *r)
{
    const char *repr;

    if (r->op == KUBE_OP_IN || r->op == KUBE_OP_NOT_IN) {
        repr = values_repr(a, r);
        return arena_sprintf(a,
                             "matchFields[%zu].values: Invalid value: %s: "
                             "must have one element",
                             i, repr ? repr : "[]string{...}");
    }
    return arena_sprintf(a,
                         "matchFields[%zu].operator: Unsupported value: "
                         "\"%s\": supported values: \"In\", \"NotIn\"",
                         i, kube_selector_op_name(r->op));
}

/*
 * newNodeSelectorTerm: every expression through labels.NewRequirement
 * (Gt/Lt int_value filled), then every field. The first failure is kept in
 * t->invalid, with field paths relative to the term
 * ("matchExpressions[0].values: ..."). Returns 0 valid, -1 invalid.
 */
int kube_node_selector_term_validate(struct arena *a,
                                     struct kube_node_selector_term *t)
{
    if (!t)
        return 0;
    if (t->invalid)
        return -1;
    for (size_t i = 0; i < t->n_exprs; i++) {
        char path[48];
        const char *why = NULL;

        snprintf(path, sizeof(path), "matchExpressions[%zu]", i);
        if (kube_requirement_validate(a, &t->exprs[i], path, &why) != 0) {
            t->invalid = why ? why : oom_reason;
            return -1;
        }
    }
    for (size_t i = 0; i < t->n_fields; i++) {
        const struct kube_requirement *r = &t->fields[i];
        const char *why;

        if ((r->op == KUBE_OP_IN || r->op == KUBE_OP_NOT_IN) &&
            r->n_values == 1)
            continue;
        why = field_problem(a, i, r);
        t->invalid = why ? why : oom_reason;
        return -1;
    }
    return 0;
}

/* fields.Set of a node: only metadata.name; other fields read as "". */
static bool field_matches(const struct kube_requirement *r,
                          const char *node_name)
{
    const char *have =
        strcmp(r->key ? r->key : "", NODE_NAME_FIELD) == 0 ? node_name : "";
    const char *want;

    if (r->n_values != 1)
        return false;
    want = r->values[0] ? r->values[0] : "";
    if (r->op == KUBE_OP_IN)
        return strcmp(have, want) == 0;
    if (r->op == KUBE_OP_NOT_IN)
        return strcmp(have, want) != 0;
    return false;
}

/*
 * nodeSelectorTerm.match: an empty or invalid term matches nothing;
 * expressions must all match the labels; fields must all match the node's
 * name, except that a node without a name has no fields and the fields
 * part is then skipped (upstream's len(nodeFields) > 0 check).
 */
bool kube_node_selector_term_matches(const struct kube_node_selector_term *t,
                                     const struct kube_labels *labels,
                                     const char *node_name)
{
    if (!t || t->invalid || (t->n_exprs == 0 && t->n_fields == 0))
        return false;
    for (size_t i = 0; i < t->n_exprs; i++)
        if (!kube_requirement_matches(&t->exprs[i], labels))
            return false;
    if (!node_name || node_name[0] == '\0')
        return true;
    for (size_t i = 0; i < t->n_fields; i++)
        if (!field_matches(&t->fields[i], node_name))
            return false;
    return true;
}

bool kube_node_selector_matches(const struct kube_node_selector *ns,
                                const struct kube_labels *labels,
                                const char *node_name)
{
    if (!ns)
        return false;
    for (size_t i = 0; i < ns->n_terms; i++)
        if (kube_node_selector_term_matches(&ns->terms[i], labels, node_name))
            return true;
    return false;
}
