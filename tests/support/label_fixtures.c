/*
 * label_fixtures.c: test builders for label maps, requirements, label
 * selectors and node selector terms (see label_fixtures.h for the syntax).
 */
#include "tests/support/label_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kube/model/labels.h"

#define LF_MAX_ITEMS 64

static void *must(void *p)
{
    if (!p)
        fail_msg("label fixtures: arena allocation failed");
    return p;
}

/* Copy s[0..n) without surrounding blanks. */
static char *trimmed(struct arena *a, const char *s, size_t n)
{
    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return must(arena_strndup(a, s, n));
}

/*
 * Split s on commas that are not inside parentheses. Pieces are trimmed;
 * returns the count (at most max).
 */
static size_t split_top(struct arena *a, const char *s, char **out, size_t max)
{
    size_t n = 0, start = 0, i;
    int depth = 0;

    for (i = 0;; i++) {
        if (s[i] == '(')
            depth++;
        else if (s[i] == ')')
            depth--;
        if (s[i] == '\0' || (s[i] == ',' && depth == 0)) {
            if (n == max)
                fail_msg("label fixtures: more than %zu items in \"%s\"", max,
                         s);
            out[n++] = trimmed(a, s + start, i - start);
            start = i + 1;
        }
        if (s[i] == '\0')
            return n;
    }
}

struct kube_labels lf_labels_raw(struct arena *a, const char *spec)
{
    struct kube_labels l = { 0 };
    char *parts[LF_MAX_ITEMS];
    size_t n;

    if (!spec)
        return l;
    l.present = true;
    if (spec[0] == '\0')
        return l;
    n = split_top(a, spec, parts, LF_MAX_ITEMS);
    l.items = must(arena_calloc(a, n, sizeof(*l.items)));
    for (size_t i = 0; i < n; i++) {
        char *eq = strchr(parts[i], '=');

        if (eq) {
            *eq = '\0';
            l.items[i].value = eq + 1;
        } else {
            l.items[i].value = "";
        }
        l.items[i].key = parts[i];
    }
    l.n = n;
    return l;
}

struct kube_labels lf_labels(struct arena *a, const char *spec)
{
    struct kube_labels l = lf_labels_raw(a, spec);

    kube_labels_normalize(&l);
    return l;
}

const char *lf_labels_str(struct arena *a, const struct kube_labels *l)
{
    const char *s = "";

    for (size_t i = 0; i < l->n; i++)
        s = must(arena_sprintf(a, "%s%s%s=%s", s, i ? "," : "", l->items[i].key,
                               l->items[i].value));
    return s;
}

/* Values separated by commas; NULL: none. */
static void set_values(struct arena *a, struct kube_requirement *r,
                       const char *values)
{
    char *parts[LF_MAX_ITEMS];

    r->n_values = 0;
    r->values = NULL;
    if (!values)
        return;
    r->n_values = split_top(a, values, parts, LF_MAX_ITEMS);
    r->values = must(arena_calloc(a, r->n_values, sizeof(*r->values)));
    for (size_t i = 0; i < r->n_values; i++)
        r->values[i] = parts[i];
    r->int_value = strtoll(r->values[0], NULL, 10);
}

struct kube_requirement lf_req(struct arena *a, const char *key,
                               enum kube_selector_op op, const char *values)
{
    struct kube_requirement r = { 0 };

    r.key = must(arena_strdup(a, key));
    r.op = op;
    set_values(a, &r, values);
    return r;
}

/* "(a,b)" -> "a,b"; "()" -> NULL (no values). */
static const char *paren_values(struct arena *a, const char *s)
{
    char *t = trimmed(a, s, strlen(s));
    size_t n = strlen(t);

    if (n < 2 || t[0] != '(' || t[n - 1] != ')')
        fail_msg("label fixtures: expected (values), got \"%s\"", s);
    t = trimmed(a, t + 1, n - 2);
    return t[0] ? t : NULL;
}

static struct kube_requirement parse_req(struct arena *a, const char *s)
{
    static const struct {
        const char *sep;
        enum kube_selector_op op;
        bool set;
    } forms[] = {
        { " notin ", KUBE_OP_NOT_IN, true }, { " in ", KUBE_OP_IN, true },
        { "!=", KUBE_OP_NOT_IN, false },     { "==", KUBE_OP_IN, false },
        { "=", KUBE_OP_IN, false },          { ">", KUBE_OP_GT, false },
        { "<", KUBE_OP_LT, false },
    };

    if (s[0] == '!' && s[1] != '=')
        return lf_req(a, trimmed(a, s + 1, strlen(s + 1)),
                      KUBE_OP_DOES_NOT_EXIST, NULL);
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        const char *at = strstr(s, forms[i].sep);
        const char *rest;

        if (!at)
            continue;
        rest = at + strlen(forms[i].sep);
        return lf_req(a, trimmed(a, s, (size_t)(at - s)), forms[i].op,
                      forms[i].set ? paren_values(a, rest)
                                   : trimmed(a, rest, strlen(rest)));
    }
    return lf_req(a, s, KUBE_OP_EXISTS, NULL);
}

size_t lf_reqs(struct arena *a, const char *spec, struct kube_requirement **out)
{
    char *parts[LF_MAX_ITEMS];
    size_t n;

    *out = NULL;
    if (!spec || spec[0] == '\0')
        return 0;
    n = split_top(a, spec, parts, LF_MAX_ITEMS);
    *out = must(arena_calloc(a, n, sizeof(**out)));
    for (size_t i = 0; i < n; i++)
        (*out)[i] = parse_req(a, parts[i]);
    return n;
}

struct kube_label_selector *lf_selector(struct arena *a, const char *spec)
{
    struct kube_label_selector *s;

    if (!spec)
        return NULL;
    s = must(arena_calloc(a, 1, sizeof(*s)));
    s->n_reqs = lf_reqs(a, spec, &s->reqs);
    return s;
}

struct kube_node_selector_term lf_term(struct arena *a, const char *exprs,
                                       const char *fields)
{
    struct kube_node_selector_term t = { 0 };

    t.n_exprs = lf_reqs(a, exprs, &t.exprs);
    t.n_fields = lf_reqs(a, fields, &t.fields);
    return t;
}
