/*
 * policy.c: load a Policy file and validate it as kube-scheduler v1.22's
 * ValidatePolicy does (pkg/scheduler/apis/config/validation/validation.go),
 * then hand it to policy_resolve.c. Every message keeps v1.22's text and
 * adds the file and the JSON path or INI line.
 */
#include "policy/policy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/doc_format.h"
#include "policy/policy_buf.h"
#include "policy/policy_internal.h"

/* config.MaxWeight = MaxInt64 / 10. */
#define POLICY_MAX_WEIGHT 922337203685477580LL

void policy_warn(struct policy *p, const char *fmt, ...)
{
    va_list ap;
    char msg[ERR_MSG_MAX];
    const char **v;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    v = arena_calloc(&p->arena, p->n_warnings + 1, sizeof(*v));
    if (!v)
        return;
    if (p->n_warnings)
        memcpy(v, p->warnings, p->n_warnings * sizeof(*v));
    v[p->n_warnings] = arena_strdup(&p->arena, msg);
    if (!v[p->n_warnings])
        return;
    p->warnings = v;
    p->n_warnings++;
}

const char *policy_loc_field(struct policy *p, const struct policy_loc *loc,
                             const char *field)
{
    if (p->doc.ini)
        return field ? arena_sprintf(&p->arena, "%d: %s", loc->line, field)
                     : arena_sprintf(&p->arena, "%d", loc->line);
    if (!field)
        return loc->path ? loc->path : "";
    return arena_sprintf(&p->arena, "%s.%s", loc->path ? loc->path : "", field);
}

/* ---- ValidatePolicy: errors collected, then reported together ---- */

struct agg {
    struct policy *p;
    struct strbuf b;
    const char **seen; /* v1.22 texts already reported (Aggregate dedups) */
    size_t n;
};

static void agg_add(struct agg *g, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void agg_add(struct agg *g, const char *where, const char *fmt, ...)
{
    char msg[ERR_MSG_MAX];
    va_list ap;
    const char **v;
    size_t i;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    for (i = 0; i < g->n; i++) {
        if (!strcmp(g->seen[i], msg))
            return;
    }
    v = arena_calloc(&g->p->arena, g->n + 1, sizeof(*v));
    if (!v)
        return;
    if (g->n)
        memcpy(v, g->seen, g->n * sizeof(*v));
    v[g->n] = arena_strdup(&g->p->arena, msg);
    g->seen = v;
    strbuf_add(&g->b, g->n ? ", " : "");
    if (where && *where)
        strbuf_printf(&g->b, "%s: ", where);
    strbuf_add(&g->b, msg);
    g->n++;
}

/* The argument of the priority key `name` in pe, or NULL. */
static const void *arg_of(const struct policy_prio_entry *pe, const char *name)
{
    const struct prio_def *d = prio_lookup(name);

    return d ? kpe_args_get(&pe->arg, d->args) : NULL;
}

/* validateCustomPriorities: keyed by argument type, not by name. */
static void validate_custom_priority(struct agg *g,
                                     const struct policy_prio_entry **seen,
                                     const struct policy_prio_entry *pe)
{
    const char *where = policy_loc_field(g->p, &pe->loc, "argument");
    const char *type;
    int slot;

    if (!pe->has_argument)
        return;
    if (arg_of(pe, prio_node_label.name)) {
        type = "LabelPreference";
        slot = 0;
    } else if (arg_of(pe, prio_service_affinity.name)) {
        type = "ServiceAntiAffinity";
        slot = 1;
    } else if (arg_of(pe, prio_requested_to_capacity_ratio.name)) {
        if (seen[2]) {
            agg_add(g, where,
                    "priority \"%s\" redeclares custom priority "
                    "\"RequestedToCapacityRatio\", from: \"%s\"",
                    pe->name, seen[2]->name);
            return;
        }
        seen[2] = pe;
        return;
    } else if (pe->arg.n) {
        return; /* ours; conflicts are found when folding */
    } else {
        agg_add(g, where, "no priority arguments set for priority %s",
                pe->name);
        return;
    }
    if (seen[slot] && seen[slot]->weight != pe->weight) {
        agg_add(g, policy_loc_field(g->p, &pe->loc, "weight"),
                "%s  priority \"%s\" has a different weight with \"%s\"", type,
                pe->name, seen[slot]->name);
        return;
    }
    seen[slot] = pe;
}

/* validateExtendedResourceName for extenders[i].managedResources[j]. */
static void validate_managed_resource(struct agg *g, const char *path,
                                      const char *name)
{
    const char *msgs[4];
    size_t n = kpe_qualified_name_errors(name, msgs, 4), i;
    struct strbuf q;

    strbuf_init(&q, PBUF_MAX);
    quote_go(&q, name);
    for (i = 0; i < n && i < 4; i++)
        agg_add(g, NULL, "%s: Invalid value: %s: %s", path, q.s ? q.s : "",
                msgs[i]);
    if (n == 0) {
        /* IsExtendedResourceName: not native, not "requests.", and
         * "requests." + name still a qualified name. */
        char *quota = arena_sprintf(&g->p->arena, "requests.%s", name);
        bool native = !strchr(name, '/') || strstr(name, "kubernetes.io/");

        if (native || !strncmp(name, "requests.", 9) || !quota ||
            kpe_qualified_name_errors(quota, msgs, 1))
            agg_add(g, NULL,
                    "%s: Invalid value: %s: is an invalid extended resource "
                    "name",
                    path, q.s ? q.s : "");
    }
    strbuf_free(&q);
}

static void validate_extenders(struct agg *g)
{
    const struct policy_doc *d = &g->p->doc;
    const char **names = NULL;
    size_t i, j, k, n_names = 0, binders = 0, total = 0;

    for (i = 0; i < d->n_extenders; i++)
        total += d->extenders[i].n_managed_resources;
    if (total)
        names = arena_calloc(&g->p->arena, total, sizeof(*names));
    for (i = 0; i < d->n_extenders; i++) {
        const struct policy_extender *x = &d->extenders[i];
        const char *line =
            d->ini ? arena_sprintf(&g->p->arena, "%d", x->loc.line) : NULL;

        if (x->prioritize_verb && *x->prioritize_verb && x->weight <= 0)
            agg_add(g, line,
                    "extenders[%zu].weight: Invalid value: %lld: must have a "
                    "positive weight applied to it",
                    i, (long long)x->weight);
        if (x->bind_verb && *x->bind_verb)
            binders++;
        for (j = 0; j < x->n_managed_resources; j++) {
            const char *name = x->managed_resources[j].name;
            const char *path = arena_sprintf(
                &g->p->arena, "extenders[%zu].managedResources[%zu].name", i,
                j);
            struct strbuf q;

            name = name ? name : "";
            validate_managed_resource(g, path, name);
            for (k = 0; k < n_names; k++) {
                if (!strcmp(names[k], name))
                    break;
            }
            if (k < n_names) {
                strbuf_init(&q, PBUF_MAX);
                quote_go(&q, name);
                agg_add(g, line,
                        "%s: Invalid value: %s: duplicate extender managed "
                        "resource name",
                        path, q.s ? q.s : "");
                strbuf_free(&q);
            } else if (names) {
                names[n_names++] = name;
            }
        }
    }
    if (binders > 1)
        agg_add(g, NULL,
                "extenders: Invalid value: \"found %zu extenders implementing "
                "bind\": only one extender can implement bind",
                binders);
}

/* ValidatePolicy, plus our refusal of weights v1.22 would wrap. */
static int validate_policy(struct policy *p, struct err *e)
{
    const struct policy_doc *d = &p->doc;
    const struct policy_prio_entry *seen[3] = { NULL, NULL, NULL };
    struct agg g;
    size_t i;
    int rc = 0;

    memset(&g, 0, sizeof(g));
    g.p = p;
    strbuf_init(&g.b, PBUF_MAX);
    for (i = 0; i < d->n_prios; i++) {
        const struct policy_prio_entry *pe = &d->prios[i];

        if (pe->weight <= 0 || pe->weight >= POLICY_MAX_WEIGHT)
            agg_add(&g, policy_loc_field(p, &pe->loc, "weight"),
                    "priority %s should have a positive weight applied to it "
                    "or it has overflown",
                    pe->name ? pe->name : "");
        validate_custom_priority(&g, seen, pe);
    }
    validate_extenders(&g);
    if (d->hard_pod_affinity_symmetric_weight < 0 ||
        d->hard_pod_affinity_symmetric_weight > 100)
        agg_add(&g, d->ini ? "[policy]" : NULL,
                "hardPodAffinitySymmetricWeight: Invalid value: %d: not in "
                "valid range [0-100]",
                (int)d->hard_pod_affinity_symmetric_weight);
    if (g.n == 1)
        rc = err_set(e, "%s", g.b.s ? g.b.s : "");
    else if (g.n > 1)
        rc = err_set(e, "[%s]", g.b.s ? g.b.s : "");
    strbuf_free(&g.b);
    if (rc)
        return rc;
    /* v1.22 truncates weights to int32 (4.5): refuse rather than wrap. */
    for (i = 0; i < d->n_prios; i++) {
        const struct policy_prio_entry *pe = &d->prios[i];

        if (pe->weight > INT32_MAX &&
            !(pe->name && !strcmp(pe->name, prio_equal_priority.name)))
            return err_set(e,
                           "%s: priority %s weight %lld is above 2147483647: "
                           "v1.22 passes it but truncates plugin weights to "
                           "int32 (it would run with weight %d); use a "
                           "smaller weight",
                           policy_loc_field(p, &pe->loc, "weight"), pe->name,
                           (long long)pe->weight, (int)(int32_t)pe->weight);
    }
    return 0;
}

static int check_header(struct policy *p, struct err *e)
{
    const struct policy_doc *d = &p->doc;
    char q[96];

    if (d->ini)
        return 0;
    if (!d->kind)
        return err_set(e, "kind: missing; a Policy needs \"kind\": "
                          "\"Policy\" (v1.22's decoder refuses it without)");
    if (strcmp(d->kind, "Policy"))
        return err_set(e, "kind: expected \"Policy\", got %s",
                       err_quote(q, sizeof(q), d->kind, 60));
    if (!d->api_version)
        return err_set(e, "apiVersion: missing; expected \"v1\" or "
                          "\"kubescheduler.config.k8s.io/v1\"");
    if (strcmp(d->api_version, "v1") &&
        strcmp(d->api_version, "kubescheduler.config.k8s.io/v1"))
        return err_set(e,
                       "apiVersion: expected \"v1\" or "
                       "\"kubescheduler.config.k8s.io/v1\", got %s",
                       err_quote(q, sizeof(q), d->api_version, 60));
    return 0;
}

/*
 * Syntax errors quote the text they stop at ("near ..."). A Policy whose
 * extenders carry a private key inline (tlsConfig.keyData) never has a
 * piece of it printed: the quote is dropped from the message.
 */
static void redact_near(const char *buf, size_t len, struct err *e)
{
    static const char key[] = "keydata";
    size_t i, k;
    char *near;

    for (i = 0; i + sizeof(key) - 1 <= len; i++) {
        for (k = 0; k < sizeof(key) - 1; k++)
            if ((buf[i + k] | 0x20) != key[k])
                break;
        if (k == sizeof(key) - 1)
            break;
    }
    if (i + sizeof(key) - 1 > len)
        return;
    near = strstr(e->msg, " near \"");
    if (near)
        strcpy(near, " (text not quoted: the file holds keyData)");
}

/* The format asked for, or the one the content shows (doc_format.h). */
static int pick_format(const struct policy_load_opts *opts, const char *buf,
                       size_t len, enum policy_format *out, struct err *e)
{
    *out = opts->format;
    if (*out != POLICY_FORMAT_AUTO)
        return 0;
    switch (doc_format_sniff(buf, len, e)) {
    case DOC_FORMAT_JSON:
        *out = POLICY_FORMAT_JSON;
        return 0;
    case DOC_FORMAT_YAML:
        *out = POLICY_FORMAT_YAML;
        return 0;
    case DOC_FORMAT_INI:
        *out = POLICY_FORMAT_INI;
        return 0;
    default:
        return -1;
    }
}

int policy_load_buffer(const char *name, const char *buf, size_t len,
                       const struct policy_load_opts *opts, struct policy **out,
                       struct err *e)
{
    struct policy_load_opts none = { .format = POLICY_FORMAT_AUTO };
    enum policy_format format;
    struct policy *p;
    bool ini;
    int rc;
    size_t i;

    if (!opts)
        opts = &none;
    if (len > POLICY_MAX_FILE_BYTES)
        return err_set(e, "%s: file is larger than %u bytes", name,
                       POLICY_MAX_FILE_BYTES);
    p = calloc(1, sizeof(*p));
    if (!p)
        return err_set(e, "%s: out of memory", name);
    arena_init(&p->arena, 0);
    p->compat = opts->compat;
    p->gates = opts->gates;
    p->source = arena_strdup(&p->arena, name);
    rc = pick_format(opts, buf, len, &format, e);
    ini = format == POLICY_FORMAT_INI;
    if (rc) {
        /* the content is none of the three: e says what it looked like */
    } else if (!p->source) {
        rc = err_set(e, "out of memory");
    } else if (ini) {
        rc = policy_parse_ini(p, buf, len, e);
        p->doc.ini = 1;
    } else if (format == POLICY_FORMAT_YAML) {
        rc = policy_parse_yaml(p, buf, len, e);
        p->doc.yaml = 1;
    } else {
        rc = policy_parse_json(p, buf, len, e);
    }
    if (rc)
        redact_near(buf, len, e);
    if (!rc)
        rc = check_header(p, e);
    if (!rc)
        rc = validate_policy(p, e);
    if (!rc)
        rc = policy_resolve(p, e);
    if (rc) {
        err_prefix(
            e,
            ini && e->msg[0] >= '0' && e->msg[0] <= '9' ? "%s:" : "%s: ", name);
        policy_free(p);
        return -1;
    }
    if (opts->warnings) {
        for (i = 0; i < p->n_warnings; i++)
            fprintf(opts->warnings, "warning: %s:%s%s\n", name,
                    ini && p->warnings[i][0] >= '0' && p->warnings[i][0] <= '9'
                        ? ""
                        : " ",
                    p->warnings[i]);
    }
    *out = p;
    return 0;
}

int policy_load_file(const char *path, const struct policy_load_opts *opts,
                     struct policy **out, struct err *e)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    size_t len = 0, cap = 64 * 1024;
    int rc;

    if (!f)
        return err_set(e, "%s: cannot open: %s", path, strerror(errno));
    buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);

        len += got;
        if (got == 0 || len > POLICY_MAX_FILE_BYTES)
            break;
        if (len == cap) {
            char *nb = realloc(buf, cap * 2);

            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (!buf) {
        fclose(f);
        return err_set(e, "%s: out of memory", path);
    }
    if (ferror(f)) {
        rc = err_set(e, "%s: read error: %s", path, strerror(errno));
    } else {
        rc = policy_load_buffer(path, buf, len, opts, out, e);
    }
    fclose(f);
    free(buf);
    return rc;
}

void policy_free(struct policy *p)
{
    if (!p)
        return;
    arena_destroy(&p->arena);
    free(p);
}
