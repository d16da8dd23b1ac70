/*
 * selector.c: label selector requirements and metav1.LabelSelector, as
 * apimachinery pkg/labels (Requirement.Matches, NewRequirement) and
 * pkg/apis/meta/v1 LabelSelectorAsSelector do it in v1.22. Used by the
 * inter-pod affinity, spread and service/workload selector predicates.
 */
#include "kube/model/labels.h"

#include <stdio.h>
#include <string.h>

#define MAX_REQ_ERRS 8    /* errors kept per requirement */
#define SLICE_REPR   1024 /* bytes of a rendered []string{...} */
#define VALUE_QUOTE  300  /* input bytes quoted per value */
#define WHY_SIZE     2048 /* one syntax check's reasons */

static const char *const op_names[] = {
    [KUBE_OP_IN] = "In",         [KUBE_OP_NOT_IN] = "NotIn",
    [KUBE_OP_EXISTS] = "Exists", [KUBE_OP_DOES_NOT_EXIST] = "DoesNotExist",
    [KUBE_OP_GT] = "Gt",         [KUBE_OP_LT] = "Lt",
};

static const char oom_reason[] = "invalid selector (out of memory while "
                                 "describing it)";

const char *kube_selector_op_name(enum kube_selector_op op)
{
    if ((size_t)op < sizeof(op_names) / sizeof(op_names[0]) && op_names[op])
        return op_names[op];
    return "(unknown)";
}

/*
 * strconv.ParseInt(s, 10, 64): an optional sign, then one or more decimal
 * digits, within int64. No spaces, no underscores.
 */
static bool parse_int64(const char *s, int64_t *out)
{
    const char *p = s;
    bool neg = false;
    uint64_t v = 0, lim;

    if (!s || !*s)
        return false;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (!*p)
        return false;
    lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *p; p++) {
        unsigned d;

        if (*p < '0' || *p > '9')
            return false;
        d = (unsigned)(*p - '0');
        if (v > (lim - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (neg)
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return true;
}

static bool has_value(const struct kube_requirement *r, const char *v)
{
    for (size_t i = 0; i < r->n_values; i++)
        if (r->values[i] && strcmp(r->values[i], v) == 0)
            return true;
    return false;
}

/*
 * One requirement against a label set: In needs the key with a listed
 * value; NotIn the key absent or unlisted; Exists/DoesNotExist presence;
 * Gt/Lt the key present with a base-10 int64 value strictly above/below
 * r->int_value (filled by kube_requirement_validate).
 */
bool kube_requirement_matches(const struct kube_requirement *r,
                              const struct kube_labels *l)
{
    const char *v;
    int64_t x;

    if (!r || !r->key)
        return false;
    v = kube_labels_get(l, r->key);
    switch (r->op) {
    case KUBE_OP_IN:
        return v && has_value(r, v);
    case KUBE_OP_NOT_IN:
        return !v || !has_value(r, v);
    case KUBE_OP_EXISTS:
        return v != NULL;
    case KUBE_OP_DOES_NOT_EXIST:
        return v == NULL;
    case KUBE_OP_GT:
    case KUBE_OP_LT:
        if (!v || r->n_values != 1 || !parse_int64(v, &x))
            return false;
        return r->op == KUBE_OP_GT ? x > r->int_value : x < r->int_value;
    }
    return false;
}

/* ---- requirement validation (labels.NewRequirement) ---- */

struct req_errs {
    struct arena *a;
    const char *path; /* NULL or "matchExpressions[0]" */
    size_t n;
    const char *msg[MAX_REQ_ERRS];
};

/* field.Invalid(path.child, value, detail).Error() */
static void add_invalid(struct req_errs *e, const char *child,
                        const char *value_repr, const char *detail)
{
    const char *m;

    if (e->n == MAX_REQ_ERRS)
        return;
    m = arena_sprintf(e->a, "%s%s%s: Invalid value: %s: %s",
                      e->path ? e->path : "", e->path ? "." : "", child,
                      value_repr, detail);
    e->msg[e->n++] = m ? m : oom_reason;
}

/* Go's %#v of a []string: []string(nil) or []string{"a", "b"}. */
static const char *slice_repr(struct arena *a, const struct kube_requirement *r)
{
    char buf[SLICE_REPR], q[VALUE_QUOTE * 4 + 16];
    size_t len;

    if (r->n_values == 0)
        return "[]string(nil)";
    len = (size_t)snprintf(buf, sizeof(buf), "[]string{");
    for (size_t i = 0; i < r->n_values && len < sizeof(buf); i++) {
        err_quote(q, sizeof(q), r->values[i], VALUE_QUOTE);
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
                                i ? ", " : "", q);
    }
    if (len + 1 < sizeof(buf))
        snprintf(buf + len, sizeof(buf) - len, "}");
    else
        memcpy(buf + sizeof(buf) - 5, "...}", 5);
    return arena_strdup(a, buf);
}

static const char *quote(struct arena *a, const char *s)
{
    char q[VALUE_QUOTE * 4 + 16];

    return arena_strdup(a, err_quote(q, sizeof(q), s, VALUE_QUOTE));
}

static void check_op_values(struct req_errs *e, struct kube_requirement *r)
{
    const char *repr;

    switch (r->op) {
    case KUBE_OP_IN:
    case KUBE_OP_NOT_IN:
        if (r->n_values == 0)
            add_invalid(e, "values", slice_repr(e->a, r),
                        "for 'in', 'notin' operators, values set can't be "
                        "empty");
        return;
    case KUBE_OP_EXISTS:
    case KUBE_OP_DOES_NOT_EXIST:
        if (r->n_values != 0)
            add_invalid(e, "values", slice_repr(e->a, r),
                        "values set must be empty for exists and does not "
                        "exist");
        return;
    case KUBE_OP_GT:
    case KUBE_OP_LT:
        if (r->n_values != 1)
            add_invalid(e, "values", slice_repr(e->a, r),
                        "for 'Gt', 'Lt' operators, exactly one value is "
                        "required");
        for (size_t i = 0; i < r->n_values; i++) {
            char child[32];

            if (parse_int64(r->values[i], &r->int_value))
                continue;
            snprintf(child, sizeof(child), "values[%zu]", i);
            add_invalid(e, child, quote(e->a, r->values[i]),
                        "for 'Gt', 'Lt' operators, the value must be an "
                        "integer");
        }
        return;
    }
    repr = arena_sprintf(e->a, "%d", (int)r->op);
    add_invalid(e, "operator", repr ? repr : "?", "unsupported operator");
}

/* errors.NewAggregate(list).Error(): one message, or "[a, b]" deduped. */
static const char *aggregate(struct arena *a, const struct req_errs *e)
{
    char buf[ERR_MSG_MAX * 4];
    size_t len = 0, uniq = 0;

    if (e->n == 1)
        return e->msg[0];
    for (size_t i = 0; i < e->n; i++) {
        bool seen = false;

        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(e->msg[i], e->msg[j]) == 0;
        if (seen)
            continue;
        uniq++;
        if (len < sizeof(buf))
            len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
                                    uniq > 1 ? ", " : "", e->msg[i]);
    }
    if (uniq == 1)
        return e->msg[0];
    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;
    return arena_sprintf(a, "[%.*s]", (int)len, buf);
}

int kube_requirement_validate(struct arena *a, struct kube_requirement *r,
                              const char *path, const char **why)
{
    struct req_errs e = { .a = a, .path = path, .n = 0 };
    char reasons[WHY_SIZE];

    if (!kube_check_qualified_name(r->key, reasons, sizeof(reasons)))
        add_invalid(&e, "key", quote(a, r->key ? r->key : ""), reasons);
    check_op_values(&e, r);
    for (size_t i = 0; i < r->n_values; i++) {
        char child[VALUE_QUOTE + 32];

        if (kube_check_label_value(r->values[i], reasons, sizeof(reasons)))
            continue;
        snprintf(child, sizeof(child), "values[%zu][%.*s]", i, VALUE_QUOTE,
                 r->key ? r->key : "");
        add_invalid(&e, child, quote(a, r->values[i]), reasons);
    }
    if (e.n == 0)
        return 0;
    if (why) {
        const char *msg = aggregate(a, &e);

        *why = msg ? msg : oom_reason;
    }
    return -1;
}

/* ---- metav1.LabelSelector ---- */

const char *kube_pod_affinity_term_error(const struct kube_pod_affinity_term *t)
{
    if (t->selector && t->selector->invalid)
        return t->selector->invalid;
    if (t->namespace_selector && t->namespace_selector->invalid)
        return t->namespace_selector->invalid;
    return NULL;
}

bool kube_label_selector_matches(const struct kube_label_selector *s,
                                 const struct kube_labels *l)
{
    if (!s || s->invalid)
        return false;
    for (size_t i = 0; i < s->n_reqs; i++)
        if (!kube_requirement_matches(&s->reqs[i], l))
            return false;
    return true;
}

/*
 * LabelSelectorAsSelector accepts only In, NotIn, Exists and DoesNotExist
 * (Gt/Lt belong to node selectors) and stops at the first requirement
 * NewRequirement rejects.
 */
int kube_label_selector_validate(struct arena *a, struct kube_label_selector *s)
{
    if (!s)
        return 0;
    if (s->invalid)
        return -1;
    for (size_t i = 0; i < s->n_reqs; i++) {
        struct kube_requirement *r = &s->reqs[i];
        const char *why = NULL;

        if (r->op != KUBE_OP_IN && r->op != KUBE_OP_NOT_IN &&
            r->op != KUBE_OP_EXISTS && r->op != KUBE_OP_DOES_NOT_EXIST) {
            why = arena_sprintf(a,
                                "\"%s\" is not a valid pod selector "
                                "operator",
                                kube_selector_op_name(r->op));
            s->invalid = why ? why : oom_reason;
            return -1;
        }
        if (kube_requirement_validate(a, r, NULL, &why) != 0) {
            s->invalid = why;
            return -1;
        }
    }
    return 0;
}
