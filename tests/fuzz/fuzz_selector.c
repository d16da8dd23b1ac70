/*
 * fuzz_selector.c: libFuzzer target for label selectors and node selector
 * terms (kube/model/labels.h): requirements are built from the input, validated
 * as labels.NewRequirement / LabelSelectorAsSelector / nodeaffinity do,
 * then matched against labels from the same input. The input is lines:
 *   E<op><key>[=<v1>,<v2>,...]  a matchExpressions requirement
 *   F<op><key>[=<v1>,...]       a matchFields requirement
 *   T                           start the next node selector term
 *   L<key>=<value>              a node label (duplicates: the last wins)
 *   N<name>                     the node's name
 * <op> is one byte; its value modulo 6 picks In, NotIn, Exists,
 * DoesNotExist, Gt, Lt ('0'..'5'). "k" has no values, "k=" one empty one.
 * Besides "no crash", it checks that lookups after normalizing agree with
 * a linear scan, that In/NotIn and Exists/DoesNotExist are complements,
 * and that a valid label selector matches exactly when all its
 * requirements do.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/model/labels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ITEMS 64 /* requirements, labels or terms kept per input */

struct input {
    struct kube_requirement exprs[MAX_ITEMS];
    size_t n_exprs;
    struct kube_node_selector_term terms[MAX_ITEMS];
    size_t n_terms;
    struct kube_label labels[MAX_ITEMS];
    size_t n_labels;
    const char *node_name;
};

/* Split "key=v1,v2" into r (strings from a; s is modified). */
static void parse_req(struct arena *a, char *s, struct kube_requirement *r)
{
    char *eq, *p;
    size_t n = 1;

    memset(r, 0, sizeof(*r));
    r->op = (enum kube_selector_op)((unsigned char)s[0] % 6);
    s++;
    eq = strchr(s, '=');
    if (eq)
        *eq = '\0';
    r->key = arena_strdup(a, s);
    if (!eq)
        return;
    for (p = eq + 1; *p; p++)
        n += *p == ',';
    r->values = arena_calloc(a, n, sizeof(*r->values));
    if (!r->values)
        return;
    for (p = eq + 1;; p++) {
        char *comma = strchr(p, ',');

        if (comma)
            *comma = '\0';
        r->values[r->n_values++] = arena_strdup(a, p);
        if (!comma)
            break;
        p = comma;
    }
}

/* Append r to the expressions or fields of the current term. */
static void add_to_term(struct arena *a, struct input *in, char tag,
                        const struct kube_requirement *r)
{
    struct kube_node_selector_term *t = &in->terms[in->n_terms - 1];
    struct kube_requirement **arr = tag == 'E' ? &t->exprs : &t->fields;
    size_t *n = tag == 'E' ? &t->n_exprs : &t->n_fields;
    struct kube_requirement *grown;

    grown = arena_alloc(a, (*n + 1) * sizeof(*grown));
    if (!grown)
        return;
    if (*n)
        memcpy(grown, *arr, *n * sizeof(*grown));
    grown[(*n)++] = *r;
    *arr = grown;
}

static void parse_line(struct arena *a, struct input *in, char *line)
{
    struct kube_requirement r;
    char *eq;

    switch (line[0]) {
    case 'E':
    case 'F':
        if (line[1] == '\0')
            return;
        parse_req(a, line + 1, &r);
        if (line[0] == 'E' && in->n_exprs < MAX_ITEMS)
            in->exprs[in->n_exprs++] = r;
        add_to_term(a, in, line[0], &r);
        return;
    case 'T':
        if (in->n_terms < MAX_ITEMS)
            memset(&in->terms[in->n_terms++], 0, sizeof(in->terms[0]));
        return;
    case 'L':
        eq = strchr(line + 1, '=');
        if (!eq || in->n_labels == MAX_ITEMS)
            return;
        *eq = '\0';
        in->labels[in->n_labels].key = arena_strdup(a, line + 1);
        in->labels[in->n_labels++].value = arena_strdup(a, eq + 1);
        return;
    case 'N':
        in->node_name = arena_strdup(a, line + 1);
        return;
    }
}

static void fail(const char *what)
{
    fprintf(stderr, "selector: %s\n", what);
    abort();
}

/* The value a Go map would hold for key: the last label given. */
static const char *linear_get(const struct input *in, const char *key)
{
    const char *v = NULL;

    for (size_t i = 0; i < in->n_labels; i++)
        if (strcmp(in->labels[i].key, key) == 0)
            v = in->labels[i].value;
    return v;
}

static void check_labels(const struct input *in, const struct kube_labels *l)
{
    for (size_t i = 0; i < in->n_labels; i++) {
        const char *want = linear_get(in, in->labels[i].key);
        const char *got = kube_labels_get(l, in->labels[i].key);

        if (!got || strcmp(got, want) != 0)
            fail("kube_labels_get disagrees with the last duplicate");
    }
    for (size_t i = 1; i < l->n; i++)
        if (strcmp(l->items[i - 1].key, l->items[i].key) >= 0)
            fail("normalized labels are not sorted and unique");
    if (!kube_labels_contain(l, l))
        fail("labels do not contain themselves");
}

/* Flip In<->NotIn, Exists<->DoesNotExist: the match must flip too. */
static void check_complement(const struct kube_requirement *r,
                             const struct kube_labels *l)
{
    static const enum kube_selector_op flip[] = {
        [KUBE_OP_IN] = KUBE_OP_NOT_IN,
        [KUBE_OP_NOT_IN] = KUBE_OP_IN,
        [KUBE_OP_EXISTS] = KUBE_OP_DOES_NOT_EXIST,
        [KUBE_OP_DOES_NOT_EXIST] = KUBE_OP_EXISTS,
    };
    struct kube_requirement c = *r;

    if (r->op == KUBE_OP_GT || r->op == KUBE_OP_LT)
        return;
    c.op = flip[r->op];
    if (kube_requirement_matches(r, l) == kube_requirement_matches(&c, l))
        fail("a requirement and its complement agree");
}

static void check_requirements(struct arena *a, struct input *in,
                               const struct kube_labels *l)
{
    char why[64];

    for (size_t i = 0; i < in->n_exprs; i++) {
        struct kube_requirement *r = &in->exprs[i];
        const char *reason = NULL;

        /* Short buffers must truncate, never overflow. */
        kube_check_qualified_name(r->key, why, 1 + i % sizeof(why));
        kube_check_label_value(r->key, why, sizeof(why));
        kube_check_dns1123_subdomain(r->key, why, 1 + (i * 7) % sizeof(why));
        if (kube_requirement_validate(a, r, "matchExpressions[0]", &reason) !=
            0) {
            if (!reason)
                fail("invalid requirement without a reason");
            continue;
        }
        check_complement(r, l);
    }
}

static void check_label_selector(struct arena *a, struct input *in,
                                 const struct kube_labels *l)
{
    struct kube_label_selector s = { in->n_exprs, in->exprs, NULL };
    bool all = true, got;

    if (kube_label_selector_validate(a, &s) != 0) {
        if (!s.invalid)
            fail("invalid selector without a reason");
        if (kube_label_selector_matches(&s, l))
            fail("an invalid selector matched");
        return;
    }
    for (size_t i = 0; i < s.n_reqs; i++)
        all = all && kube_requirement_matches(&s.reqs[i], l);
    got = kube_label_selector_matches(&s, l);
    if (got != all)
        fail("selector match is not the AND of its requirements");
}

static void check_node_selector(struct arena *a, struct input *in,
                                const struct kube_labels *l)
{
    struct kube_node_selector ns = { in->n_terms, in->terms };
    bool any = false;

    for (size_t i = 0; i < in->n_terms; i++) {
        struct kube_node_selector_term *t = &in->terms[i];

        if (kube_node_selector_term_validate(a, t) != 0 && !t->invalid)
            fail("invalid term without a reason");
        any = kube_node_selector_term_matches(t, l, in->node_name) || any;
    }
    if (kube_node_selector_matches(&ns, l, in->node_name) != any)
        fail("node selector match is not the OR of its terms");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct arena a;
    struct input *in = calloc(1, sizeof(*in));
    struct kube_labels l = { 0 };
    char *text = malloc(size + 1), *line, *save = NULL;

    if (!in || !text) {
        free(in);
        free(text);
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    arena_init(&a, 0);
    in->n_terms = 1;
    for (line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        parse_line(&a, in, line);
    l.items = arena_alloc(&a, in->n_labels * sizeof(*l.items));
    if (l.items) {
        memcpy(l.items, in->labels, in->n_labels * sizeof(*l.items));
        l.n = in->n_labels;
        l.present = true;
        kube_labels_normalize(&l);
        check_labels(in, &l);
        check_requirements(&a, in, &l);
        check_label_selector(&a, in, &l);
        check_node_selector(&a, in, &l);
    }
    arena_destroy(&a);
    free(text);
    free(in);
    return 0;
}
