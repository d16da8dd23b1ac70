/*
 * validation.c: the name and value syntax checks of apimachinery
 * util/validation (IsQualifiedName, IsValidLabelValue, IsDNS1123Subdomain),
 * with the reasons worded as upstream v1.22 words them, so selector errors
 * read like kube-scheduler's.
 */
#include "kube/model/labels.h"

#include <string.h>

#define QNAME_MAX_LEN     63
#define LABEL_VALUE_MAX   63
#define DNS1123_SUBDOMAIN 253

#define QNAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define QNAME_MSG                                                              \
    "must consist of alphanumeric characters, '-', '_' or '.', and must "      \
    "start and end with an alphanumeric character"
/* RegexError(msg, fmt, examples...) as upstream formats it. */
#define QNAME_REGEX_ERR                                                        \
    QNAME_MSG " (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "     \
              "for validation is '" QNAME_FMT "')"
#define LABEL_VALUE_REGEX_ERR                                                  \
    "a valid label must be an empty string or consist of alphanumeric "        \
    "characters, '-', '_' or '.', and must start and end with an "             \
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "    \
    "regex used for validation is '(" QNAME_FMT ")?')"
#define DNS1123_SUBDOMAIN_REGEX_ERR                                            \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "  \
    "characters, '-' or '.', and must start and end with an alphanumeric "     \
    "character (e.g. 'example.com', regex used for validation is "             \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

/* Reasons joined with "; " into a caller buffer; why may be NULL. */
struct reasons {
    char *why;
    size_t size;
    size_t len;
    int count;
};

static void reasons_init(struct reasons *r, char *why, size_t size)
{
    r->why = size ? why : NULL;
    r->size = size;
    r->len = 0;
    r->count = 0;
    if (r->why)
        r->why[0] = '\0';
}

/* Add one reason made of up to three pieces (NULL pieces are skipped). */
static void reasons_add(struct reasons *r, const char *a, const char *b,
                        const char *c)
{
    const char *parts[4] = { r->count ? "; " : NULL, a, b, c };

    r->count++;
    if (!r->why)
        return;
    for (int i = 0; i < 4; i++) {
        size_t n, room;

        if (!parts[i])
            continue;
        n = strlen(parts[i]);
        room = r->size - 1 - r->len;
        if (n > room)
            n = room;
        memcpy(r->why + r->len, parts[i], n);
        r->len += n;
        r->why[r->len] = '\0';
    }
}

static bool is_alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

static bool is_lower_alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$ over s[0..n). */
static bool match_qname(const char *s, size_t n)
{
    if (n == 0)
        return false;
    if (!is_alnum((unsigned char)s[0]) || !is_alnum((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (!is_alnum(c) && c != '-' && c != '_' && c != '.')
            return false;
    }
    return true;
}

/* The RFC 1123 subdomain regex over s[0..n): dot-separated labels. */
static bool match_dns1123_subdomain(const char *s, size_t n)
{
    size_t start = 0;

    if (n == 0)
        return false;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.') {
            unsigned char c = (unsigned char)s[i];

            if (!is_lower_alnum(c) && c != '-')
                return false;
            continue;
        }
        /* a label is s[start..i) */
        if (i == start || !is_lower_alnum((unsigned char)s[start]) ||
            !is_lower_alnum((unsigned char)s[i - 1]))
            return false;
        start = i + 1;
    }
    return true;
}

static void check_dns1123_subdomain(const char *s, size_t n, struct reasons *r,
                                    const char *prefix)
{
    if (n > DNS1123_SUBDOMAIN)
        reasons_add(r, prefix, "must be no more than 253 characters", NULL);
    if (!match_dns1123_subdomain(s, n))
        reasons_add(r, prefix, DNS1123_SUBDOMAIN_REGEX_ERR, NULL);
}

/*
 * IsQualifiedName: an optional DNS subdomain prefix and '/', then a name
 * of at most 63 characters. Returns true when valid; otherwise the reasons,
 * joined with "; ", are written to why (n bytes, may be 0).
 */
bool kube_check_qualified_name(const char *s, char *why, size_t n)
{
    struct reasons r;
    const char *slash, *name;

    reasons_init(&r, why, n);
    if (!s)
        s = "";
    slash = strchr(s, '/');
    name = s;
    if (slash && strchr(slash + 1, '/')) {
        reasons_add(&r, "a qualified name ", QNAME_REGEX_ERR,
                    " with an optional DNS subdomain prefix and '/' (e.g. "
                    "'example.com/MyName')");
        return false;
    }
    if (slash) {
        size_t plen = (size_t)(slash - s);

        if (plen == 0)
            reasons_add(&r, "prefix part ", "must be non-empty", NULL);
        else
            check_dns1123_subdomain(s, plen, &r, "prefix part ");
        name = slash + 1;
    }
    if (name[0] == '\0')
        reasons_add(&r, "name part ", "must be non-empty", NULL);
    else if (strlen(name) > QNAME_MAX_LEN)
        reasons_add(&r, "name part ", "must be no more than 63 characters",
                    NULL);
    if (!match_qname(name, strlen(name)))
        reasons_add(&r, "name part ", QNAME_REGEX_ERR, NULL);
    return r.count == 0;
}

/* IsValidLabelValue: empty, or at most 63 qualified-name characters. */
bool kube_check_label_value(const char *s, char *why, size_t n)
{
    struct reasons r;
    size_t len;

    reasons_init(&r, why, n);
    if (!s)
        s = "";
    len = strlen(s);
    if (len > LABEL_VALUE_MAX)
        reasons_add(&r, "must be no more than 63 characters", NULL, NULL);
    if (len > 0 && !match_qname(s, len))
        reasons_add(&r, LABEL_VALUE_REGEX_ERR, NULL, NULL);
    return r.count == 0;
}

/* IsDNS1123Subdomain: at most 253 characters of lower-case RFC 1123. */
bool kube_check_dns1123_subdomain(const char *s, char *why, size_t n)
{
    struct reasons r;

    reasons_init(&r, why, n);
    if (!s)
        s = "";
    check_dns1123_subdomain(s, strlen(s), &r, NULL);
    return r.count == 0;
}

bool kube_is_qualified_name(const char *s)
{
    return kube_check_qualified_name(s, NULL, 0);
}

bool kube_is_label_value(const char *s)
{
    return kube_check_label_value(s, NULL, 0);
}

bool kube_is_dns1123_subdomain(const char *s)
{
    return kube_check_dns1123_subdomain(s, NULL, 0);
}
