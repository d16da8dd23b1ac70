/*
 * policy_ini_write.c: a Policy document as INI (the format policy_ini.c
 * reads), lossless: every line stays under Debian inih's INI_MAX_LINE, lists
 * become repeated keys, base64 data is split over repeated keys, and names
 * INI cannot hold in a section header go to a `name =` key.
 */
#include "policy/policy.h"

#include <string.h>

#include "policy/policy_buf.h"

#define LINE_LIMIT 190 /* below inih's 200, with room for the newline */
#define CHUNK      120

struct iw {
    struct strbuf b;
    struct err *e;
    int failed;
    const char **labels; /* labels used in the current kind */
    size_t n_labels;
    struct arena *a;
};

/* True when s can be written bare: inih strips spaces and cuts " ;". */
static bool bare_ok(const char *s)
{
    size_t n = strlen(s), i;

    if (n == 0 || s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
        s[n - 1] == '\t' || s[0] == '"')
        return false;
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];

        if (ch < 0x20 || ch == 0x7f || ch == ';' || ch == '#')
            return false;
    }
    return true;
}

static void value(struct iw *w, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");

    if (bare_ok((const char *)p)) {
        strbuf_add(&w->b, (const char *)p);
        return;
    }
    strbuf_add(&w->b, "\"");
    for (; *p; p++) {
        if (*p == '"' || *p == '\\')
            strbuf_printf(&w->b, "\\%c", *p);
        else if (*p == '\n')
            strbuf_add(&w->b, "\\n");
        else if (*p == '\t')
            strbuf_add(&w->b, "\\t");
        else if (*p == '\r')
            strbuf_add(&w->b, "\\r");
        else if (*p < 0x20 || *p == 0x7f || *p == ';' || *p == '#')
            strbuf_printf(&w->b, "\\x%02x", *p);
        else
            strbuf_addn(&w->b, (const char *)p, 1);
    }
    strbuf_add(&w->b, "\"");
}

/* key = value, refusing lines inih would cut. */
static void kv(struct iw *w, const char *key, const char *v)
{
    size_t start = w->b.len;

    strbuf_printf(&w->b, "%s = ", key);
    value(w, v);
    strbuf_add(&w->b, "\n");
    if (!w->failed && w->b.len - start > LINE_LIMIT) {
        w->failed = 1;
        err_set(w->e,
                "cannot write %s as INI: the line would be longer "
                "than inih's 200-byte limit",
                key);
    }
}

static void kv_int(struct iw *w, const char *key, long long v)
{
    strbuf_printf(&w->b, "%s = %lld\n", key, v);
}

static void kv_bool(struct iw *w, const char *key, bool v)
{
    strbuf_printf(&w->b, "%s = %s\n", key, v ? "true" : "false");
}

/* Long base64 text over repeated keys (the reader concatenates them). */
static void kv_chunked(struct iw *w, const char *key, const char *v)
{
    size_t n = strlen(v), i;

    for (i = 0; i < n; i += CHUNK) {
        size_t len = n - i < CHUNK ? n - i : CHUNK;
        char part[CHUNK + 1];

        memcpy(part, v + i, len);
        part[len] = '\0';
        kv(w, key, part);
    }
}

static bool label_ok(struct iw *w, const char *name)
{
    size_t i, n = strlen(name);

    if (n == 0 || n > 120 || !bare_ok(name) || strchr(name, '"') ||
        strchr(name, ']'))
        return false;
    for (i = 0; i < w->n_labels; i++) {
        if (!strcmp(w->labels[i], name))
            return false;
    }
    return true;
}

static void use_label(struct iw *w, const char *label)
{
    const char **v = arena_calloc(w->a, w->n_labels + 1, sizeof(*v));

    if (!v) {
        w->failed = 1;
        err_set(w->e, "out of memory");
        return;
    }
    if (w->n_labels)
        memcpy(v, w->labels, w->n_labels * sizeof(*v));
    v[w->n_labels++] = label;
    w->labels = v;
}

/* [kind "Name"], or [kind "entry-N"] + name = ... when needed. */
static void header(struct iw *w, const char *kind, const char *name, size_t idx)
{
    if (label_ok(w, name)) {
        use_label(w, name);
        strbuf_printf(&w->b, "\n[%s \"%s\"]\n", kind, name);
        return;
    }
    {
        const char *label = arena_sprintf(w->a, "entry-%zu", idx);
        size_t k = idx;

        while (label && !label_ok(w, label))
            label = arena_sprintf(w->a, "entry-%zu", ++k + 1000);
        if (!label) {
            w->failed = 1;
            err_set(w->e, "out of memory");
            return;
        }
        use_label(w, label);
        strbuf_printf(&w->b, "\n[%s \"%s\"]\n", kind, label);
        kv(w, "name", name);
    }
}

/* One element of a two-field object list, as "a:b". */
static const char *elem_text(struct iw *w, const struct kpe_arg_schema *el,
                             const unsigned char *item)
{
    const char *part[2];
    size_t i;

    for (i = 0; i < 2; i++) {
        const struct kpe_arg_field *f = &el->fields[i];
        const unsigned char *at = item + f->offset;

        if (f->type == KPE_ARG_STRING)
            part[i] = *(const char *const *)at ? *(const char *const *)at : "";
        else if (f->type == KPE_ARG_INT32)
            part[i] = arena_sprintf(w->a, "%d", (int)*(const int32_t *)at);
        else
            part[i] =
                arena_sprintf(w->a, "%lld", (long long)*(const int64_t *)at);
    }
    return arena_sprintf(w->a, "%s:%s", part[0] ? part[0] : "",
                         part[1] ? part[1] : "");
}

/* The keys of one argument's value; strings left unset are left out. */
static void arg_keys(struct iw *w, const struct kpe_arg_schema *s,
                     const void *value)
{
    size_t i, j;

    for (i = 0; i < s->n_fields; i++) {
        const struct kpe_arg_field *f = &s->fields[i];
        const unsigned char *at = (const unsigned char *)value + f->offset;
        const char *key = arena_sprintf(w->a, "%s.%s", s->key, f->name);

        if (!key) {
            w->failed = 1;
            err_set(w->e, "out of memory");
            return;
        }
        switch (f->type) {
        case KPE_ARG_STRING:
            if (*(const char *const *)at)
                kv(w, key, *(const char *const *)at);
            break;
        case KPE_ARG_BOOL:
            kv_bool(w, key, *(const bool *)at);
            break;
        case KPE_ARG_INT32:
            kv_int(w, key, *(const int32_t *)at);
            break;
        case KPE_ARG_INT64:
            kv_int(w, key, (long long)*(const int64_t *)at);
            break;
        case KPE_ARG_STRINGS: {
            const struct policy_strlist *l = (const void *)at;

            for (j = 0; j < l->n; j++)
                kv(w, key, l->v[j]);
            break;
        }
        case KPE_ARG_OBJECTS: {
            const unsigned char *items = *(const unsigned char *const *)at;
            size_t n = *(const size_t *)((const unsigned char *)value +
                                         f->count_offset);
            const char *v;

            for (j = 0; j < n; j++) {
                v = elem_text(w, f->elem, items + j * f->elem->size);
                kv(w, key, v ? v : "");
            }
            break;
        }
        default:
            break;
        }
    }
}

/* `argument = X` for every member given (or "empty"), then its keys. */
static void args(struct iw *w, const struct kpe_args_written *a)
{
    size_t i;

    if (!a->n)
        kv(w, "argument", "empty");
    for (i = 0; i < a->n; i++) {
        kv(w, "argument", a->v[i].schema->key);
        arg_keys(w, a->v[i].schema, a->v[i].value);
    }
}

static void pred(struct iw *w, const struct policy_pred_entry *pe, size_t idx)
{
    header(w, "predicate", pe->name ? pe->name : "", idx);
    if (pe->has_argument)
        args(w, &pe->arg);
}

static void prio(struct iw *w, const struct policy_prio_entry *pe, size_t idx)
{
    header(w, "priority", pe->name ? pe->name : "", idx);
    kv_int(w, "weight", (long long)pe->weight);
    if (pe->has_argument)
        args(w, &pe->arg);
}

static void opt_str(struct iw *w, const char *key, const char *v)
{
    if (v && *v)
        kv(w, key, v);
}

static void ext(struct iw *w, const struct policy_extender *x, size_t idx)
{
    char label[32];
    size_t i;

    snprintf(label, sizeof(label), "%zu", idx);
    use_label(w, arena_strdup(w->a, label));
    strbuf_printf(&w->b, "\n[extender \"%zu\"]\n", idx);
    opt_str(w, "urlPrefix", x->url_prefix);
    opt_str(w, "filterVerb", x->filter_verb);
    opt_str(w, "preemptVerb", x->preempt_verb);
    opt_str(w, "prioritizeVerb", x->prioritize_verb);
    kv_int(w, "weight", (long long)x->weight);
    opt_str(w, "bindVerb", x->bind_verb);
    kv_bool(w, "enableHttps", x->enable_https);
    if (x->has_tls) {
        kv_bool(w, "tlsConfig.insecure", x->tls.insecure);
        opt_str(w, "tlsConfig.serverName", x->tls.server_name);
        opt_str(w, "tlsConfig.certFile", x->tls.cert_file);
        opt_str(w, "tlsConfig.keyFile", x->tls.key_file);
        opt_str(w, "tlsConfig.caFile", x->tls.ca_file);
        if (x->tls.cert_data && *x->tls.cert_data)
            kv_chunked(w, "tlsConfig.certData", x->tls.cert_data);
        if (x->tls.key_data && *x->tls.key_data)
            kv_chunked(w, "tlsConfig.keyData", x->tls.key_data);
        if (x->tls.ca_data && *x->tls.ca_data)
            kv_chunked(w, "tlsConfig.caData", x->tls.ca_data);
    }
    kv_int(w, "httpTimeout", (long long)x->http_timeout_ns);
    kv_bool(w, "nodeCacheCapable", x->node_cache_capable);
    for (i = 0; i < x->n_managed_resources; i++) {
        const struct policy_managed_resource *r = &x->managed_resources[i];
        const char *v = r->ignored_by_scheduler
                            ? arena_sprintf(w->a, "%s:ignoredByScheduler",
                                            r->name ? r->name : "")
                            : (r->name ? r->name : "");

        kv(w, "managedResources", v ? v : "");
    }
    kv_bool(w, "ignorable", x->ignorable);
}

char *policy_write_ini(const struct policy_doc *d, struct arena *a,
                       struct err *e)
{
    struct iw w;
    char *out = NULL;
    size_t i;

    memset(&w, 0, sizeof(w));
    strbuf_init(&w.b, PBUF_MAX);
    w.e = e;
    w.a = a;
    strbuf_add(&w.b, "; kube-scheduler Policy (kube-policy-extender INI form)\n"
                     "[policy]\n");
    kv(&w, "apiVersion", d->api_version ? d->api_version : "v1");
    kv(&w, "predicates",
       d->predicates_mode == POLICY_LIST_DEFAULT ? "default"
       : d->n_preds                              ? "listed"
                                                 : "none");
    kv(&w, "priorities",
       d->priorities_mode == POLICY_LIST_DEFAULT ? "default"
       : d->n_prios                              ? "listed"
                                                 : "none");
    if (d->hard_pod_affinity_symmetric_weight)
        kv_int(&w, "hardPodAffinitySymmetricWeight",
               d->hard_pod_affinity_symmetric_weight);
    if (d->always_check_all_predicates)
        kv_bool(&w, "alwaysCheckAllPredicates", true);
    for (i = 0; i < d->n_preds; i++)
        pred(&w, &d->preds[i], i);
    w.n_labels = 0;
    for (i = 0; i < d->n_prios; i++)
        prio(&w, &d->prios[i], i);
    w.n_labels = 0;
    for (i = 0; i < d->n_extenders; i++)
        ext(&w, &d->extenders[i], i);
    if (w.b.failed && !w.failed) {
        w.failed = 1;
        err_set(e, "out of memory writing INI");
    }
    if (!w.failed) {
        out = arena_strdup(a, w.b.s);
        if (!out)
            err_set(e, "out of memory");
    }
    strbuf_free(&w.b);
    return out;
}
