/*
 * label_rule_arg.c: the selectors of the declarative rules (see
 * label_rule_arg.h): parsed and checked once, when the policy loads.
 */
#include "framework/label_rule_arg.h"

#include <stdio.h>
#include <string.h>

#include "framework/args_check.h"
#include "kube/model/labels.h"

#define SEL_FORMS "write \"key\", \"!key\", \"key=value\" or \"key!=value\""

/* One string into r; key and value are copied into a. */
static int parse_req(const char *s, const char *path, size_t i, struct arena *a,
                     struct kpe_label_req *r, struct err *e)
{
    const char *eq = strchr(s, '=');
    const char *key_end = eq ? eq : s + strlen(s);
    const char *key = s, *msgs[1];
    char *k;
    char q[96], qk[96];

    r->op = KPE_LABEL_EXISTS;
    r->value = NULL;
    if (*s == '!' && !eq) {
        r->op = KPE_LABEL_NOT_EXISTS;
        key = s + 1;
    } else if (eq && eq > s && eq[-1] == '!') {
        r->op = KPE_LABEL_NOT_EQUALS;
        key_end = eq - 1;
    } else if (eq) {
        r->op = KPE_LABEL_EQUALS;
    }
    if (!*s)
        return err_set(e, "%s[%zu]: empty requirement: %s", path, i, SEL_FORMS);
    k = arena_strndup(a, key, (size_t)(key_end - key));
    if (!k)
        return err_set(e, "out of memory");
    if (kpe_qualified_name_errors(k, msgs, 1))
        return err_set(e, "%s[%zu]: invalid label key %s in %s: %s; %s", path,
                       i, err_quote(qk, sizeof(qk), k, 60),
                       err_quote(q, sizeof(q), s, 60), msgs[0], SEL_FORMS);
    r->key = k;
    if (r->op != KPE_LABEL_EQUALS && r->op != KPE_LABEL_NOT_EQUALS)
        return 0;
    r->value = eq + 1;
    if (!kpe_is_label_value(r->value))
        return err_set(e,
                       "%s[%zu]: invalid label value %s in %s: must be 63 "
                       "characters or less, alphanumeric at both ends, with "
                       "'-', '_' or '.' between",
                       path, i, err_quote(qk, sizeof(qk), r->value, 60),
                       err_quote(q, sizeof(q), s, 60));
    return 0;
}

int kpe_label_sel_parse(const struct policy_strlist *l, const char *path,
                        struct arena *a, struct kpe_label_sel *out,
                        struct err *e)
{
    struct kpe_label_req *v;
    size_t i;

    out->v = NULL;
    out->n = 0;
    if (!l->n)
        return 0;
    v = arena_calloc(a, l->n, sizeof(*v));
    if (!v)
        return err_set(e, "out of memory");
    for (i = 0; i < l->n; i++) {
        if (parse_req(l->v[i] ? l->v[i] : "", path, i, a, &v[i], e))
            return -1;
    }
    out->v = v;
    out->n = l->n;
    return 0;
}

bool kpe_label_sel_matches(const struct kpe_label_sel *s,
                           const struct kube_labels *l)
{
    size_t i;

    for (i = 0; i < s->n; i++) {
        const struct kpe_label_req *r = &s->v[i];
        const char *have = kube_labels_get(l, r->key);
        bool ok;

        switch (r->op) {
        case KPE_LABEL_EXISTS:
            ok = have != NULL;
            break;
        case KPE_LABEL_NOT_EXISTS:
            ok = have == NULL;
            break;
        case KPE_LABEL_EQUALS:
            ok = have && !strcmp(have, r->value);
            break;
        default:
            ok = !have || strcmp(have, r->value);
            break;
        }
        if (!ok)
            return false;
    }
    return true;
}

int kpe_label_rule_sels(const char *key, const struct policy_strlist *pod,
                        const struct policy_strlist *node, struct arena *a,
                        struct kpe_label_sel *pod_out,
                        struct kpe_label_sel *node_out, struct err *e)
{
    char path[96];

    snprintf(path, sizeof(path), "%s.podSelector", key);
    if (kpe_label_sel_parse(pod, path, a, pod_out, e))
        return -1;
    snprintf(path, sizeof(path), "%s.nodeSelector", key);
    return kpe_label_sel_parse(node, path, a, node_out, e);
}

void *kpe_label_rules_grow(struct arena *a, const void *old, size_t n,
                           size_t size, const char *key, struct err *e)
{
    unsigned char *v;

    if (n >= POLICY_MAX_LIST) {
        err_set(e, "%s: more than %d rules", key, POLICY_MAX_LIST);
        return NULL;
    }
    v = arena_calloc(a, n + 1, size);
    if (!v) {
        err_set(e, "out of memory");
        return NULL;
    }
    if (n)
        memcpy(v, old, n * size);
    return v;
}
