/*
 * args_check.c: argument checks shared by the plugins' argument parsers
 * and the Policy validation: apimachinery's qualified-name and label-value
 * syntax (util/validation), RequestedToCapacityRatio args
 * (validation_pluginargs.go), and our highComm argument.
 */
#include "framework/args_check.h"

#include <stdio.h>
#include <string.h>

#include "policy/policy_buf.h"

#define QNAME_MSG                                                              \
    "must consist of alphanumeric characters, '-', '_' or '.', and must "      \
    "start and end with an alphanumeric character (e.g. 'MyName',  or "        \
    "'my.name',  or '123-abc', regex used for validation is "                  \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define DNS1123_MSG                                                            \
    "a lowercase RFC 1123 subdomain must consist of lower case "               \
    "alphanumeric characters, '-' or '.', and must start and end with an "     \
    "alphanumeric character (e.g. 'example.com', regex used for "              \
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"      \
    "[a-z0-9])?)*')"

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] over s[0..n). */
static bool qname_part_ok(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (i = 0; i < n; i++) {
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    }
    return true;
}

static bool dns1123_subdomain_ok(const char *s, size_t n)
{
    size_t i, start = 0;

    if (n == 0)
        return false;
    for (i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            size_t j, len = i - start;

            if (len == 0)
                return false;
            for (j = start; j < i; j++) {
                char c = s[j];
                bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                          c == '-';

                if (!ok)
                    return false;
            }
            if (s[start] == '-' || s[i - 1] == '-')
                return false;
            start = i + 1;
        }
    }
    return true;
}

/*
 * The messages of validation.IsQualifiedName, in its order. RegexError
 * writes "(e.g. 'MyName',  or 'my.name',  or '123-abc', ...": each example
 * is followed by ", " and the next one preceded by " or ".
 */
size_t kpe_qualified_name_errors(const char *s, const char **msgs, size_t max)
{
    size_t k = 0, n = strlen(s), slashes = 0, i;
    const char *name = s;
    size_t name_len = n;

#define ADD(m)                                                                 \
    do {                                                                       \
        if (k < max)                                                           \
            msgs[k] = (m);                                                     \
        k++;                                                                   \
    } while (0)

    for (i = 0; i < n; i++)
        slashes += s[i] == '/';
    if (slashes > 1) {
        ADD("a qualified name " QNAME_MSG " with an optional DNS subdomain "
            "prefix and '/' (e.g. 'example.com/MyName')");
        return k;
    }
    if (slashes == 1) {
        const char *slash = strchr(s, '/');
        size_t plen = (size_t)(slash - s);

        name = slash + 1;
        name_len = n - plen - 1;
        if (plen == 0) {
            ADD("prefix part must be non-empty");
        } else {
            if (plen > 253)
                ADD("prefix part must be no more than 253 characters");
            if (!dns1123_subdomain_ok(s, plen))
                ADD("prefix part " DNS1123_MSG);
        }
    }
    if (name_len == 0)
        ADD("name part must be non-empty");
    else if (name_len > 63)
        ADD("name part must be no more than 63 characters");
    if (!qname_part_ok(name, name_len))
        ADD("name part " QNAME_MSG);
#undef ADD
    return k;
}

bool kpe_is_label_value(const char *s)
{
    size_t n = strlen(s);

    return n == 0 || (n <= 63 && qname_part_ok(s, n));
}

int kpe_high_comm_args(const struct policy_high_comm_arg *hc, const char **pod,
                       const char **node, const char **value, struct err *e)
{
    const char *p = PRED_HIGH_COMM_DEFAULT_POD_LABEL;
    const char *nl = PRED_HIGH_COMM_DEFAULT_NODE_LABEL;
    const char *v = PRED_HIGH_COMM_DEFAULT_NODE_VALUE;
    const char *msgs[1];
    char q[96];

    if (hc && hc->pod_label)
        p = hc->pod_label;
    if (hc && hc->node_label)
        nl = hc->node_label;
    if (hc && hc->node_label_value)
        v = hc->node_label_value;
    if (kpe_qualified_name_errors(p, msgs, 1))
        return err_set(e, "highComm.podLabel: invalid label key %s: %s",
                       err_quote(q, sizeof(q), p, 60), msgs[0]);
    if (kpe_qualified_name_errors(nl, msgs, 1))
        return err_set(e, "highComm.nodeLabel: invalid label key %s: %s",
                       err_quote(q, sizeof(q), nl, 60), msgs[0]);
    if (!kpe_is_label_value(v))
        return err_set(e,
                       "highComm.nodeLabelValue: invalid label value %s: "
                       "must be 63 characters or less, alphanumeric at both "
                       "ends, with '-', '_' or '.' between",
                       err_quote(q, sizeof(q), v, 60));
    if (*pod && (strcmp(*pod, p) || strcmp(*node, nl) || strcmp(*value, v)))
        return err_set(e, "highComm: conflicts with the highComm argument of "
                          "an earlier entry; one plugin can have one set of "
                          "arguments");
    *pod = p;
    *node = nl;
    *value = v;
    return 0;
}

/*
 * ValidateRequestedToCapacityRatioArgs: shape non-empty, utilizations
 * strictly increasing (first offence only), utilization in [0, 100], score
 * in [0, 10], resource weights >= 1. Errors aggregate as "[a, b]".
 */
int kpe_validate_rtcr(const struct policy_shape_point *shape, size_t n_shape,
                      const struct policy_resource *res, size_t n_res,
                      struct err *e)
{
    struct pbuf b;
    size_t i, n = 0;
    char *one = NULL;
    int rc = 0;

    pbuf_init(&b);
#define ERR(...)                                                               \
    do {                                                                       \
        pbuf_add(&b, n ? ", " : "");                                           \
        pbuf_printf(&b, __VA_ARGS__);                                          \
        n++;                                                                   \
    } while (0)
    if (n_shape == 0) {
        ERR("shape: Required value: at least one point must be specified");
    } else {
        for (i = 1; i < n_shape; i++) {
            if (shape[i - 1].utilization >= shape[i].utilization) {
                ERR("shape[%zu].utilization: Invalid value: %d: utilization "
                    "values must be sorted in increasing order",
                    i, (int)shape[i].utilization);
                break;
            }
        }
        for (i = 0; i < n_shape; i++) {
            if (shape[i].utilization < 0 || shape[i].utilization > 100)
                ERR("shape[%zu].utilization: Invalid value: %d: not in valid "
                    "range [0, 100]",
                    i, (int)shape[i].utilization);
            if (shape[i].score < 0 || shape[i].score > 10)
                ERR("shape[%zu].score: Invalid value: %d: not in valid range "
                    "[0, 10]",
                    i, (int)shape[i].score);
        }
    }
    for (i = 0; i < n_res; i++) {
        if (res[i].weight < 1)
            ERR("resources[%zu].weight: Invalid value: %lld: resource weight "
                "of %s not in valid range [1, inf)",
                i, (long long)res[i].weight, res[i].name ? res[i].name : "");
    }
#undef ERR
    if (n) {
        one = b.s ? b.s : "";
        rc = err_set(e,
                     n > 1 ? "RequestedToCapacityRatio args: [%s]"
                           : "RequestedToCapacityRatio args: %s",
                     one);
    }
    pbuf_free(&b);
    return rc;
}
