/*
 * policy_ini.c: the Policy as INI (inih), saying everything the JSON says.
 *
 *   [policy]                       predicates = default | listed | none
 *   apiVersion = v1                priorities = default | listed | none
 *   hardPodAffinitySymmetricWeight = 10
 *   alwaysCheckAllPredicates = true
 *
 *   [predicate "ZoneAffinity"]     (or [predicate.ZoneAffinity])
 *   serviceAffinity.labels = zone  (lists are repeated keys)
 *
 *   [priority "RackSpread"]
 *   weight = 3
 *   serviceAntiAffinity.label = rack
 *   requestedToCapacityRatioArguments.shape = 0:0        (utilization:score)
 *   requestedToCapacityRatioArguments.resources = cpu:1  (name:weight)
 *
 *   [extender "0"]
 *   urlPrefix = http://127.0.0.1:8888/scheduler
 *   managedResources = example.com/foo:ignoredByScheduler
 *   tlsConfig.caData = ...   (repeated lines are concatenated)
 *
 * A section's label is its entry's name unless a `name =` key says
 * otherwise (for duplicates and names INI cannot hold). `argument = X`
 * declares argument member X present even without keys. Values may be
 * "quoted" with \\ \" \n \t \xHH escapes. Debian's inih has INI_MAX_LINE
 * 200, INI_HANDLER_LINENO 0 and 50-byte section names, so our reader
 * feeds inih line by line and tracks lines and sections itself.
 */
#include "policy/policy.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_buf.h"

#define INI_LINE_MAX 200 /* Debian's INI_MAX_LINE */

enum sec_kind { SEC_NONE, SEC_POLICY, SEC_PRED, SEC_PRIO, SEC_EXT };

/*
 * [predicate "X"] and [priority "X"] sections are one kind of entry: a
 * name, an optional weight, an argument read through the schemas of that
 * kind's registry. This row says where each lives (nginx's offsetof rows).
 */
struct entry_kind {
    const char *kind;  /* "predicate": in messages */
    const char *fixed; /* the keys besides the argument ones */
    size_t (*schemas)(const struct kpe_arg_schema **out, size_t max);
    size_t size; /* of one entry */
    size_t name, has_argument, arg, loc;
    size_t weight; /* SIZE_MAX: none */
};

static const struct entry_kind pred_entry = {
    "predicate",
    "name, argument",
    pred_arg_schemas,
    sizeof(struct policy_pred_entry),
    offsetof(struct policy_pred_entry, name),
    offsetof(struct policy_pred_entry, has_argument),
    offsetof(struct policy_pred_entry, arg),
    offsetof(struct policy_pred_entry, loc),
    SIZE_MAX,
};

static const struct entry_kind prio_entry = {
    "priority",
    "name, weight, argument",
    prio_arg_schemas,
    sizeof(struct policy_prio_entry),
    offsetof(struct policy_prio_entry, name),
    offsetof(struct policy_prio_entry, has_argument),
    offsetof(struct policy_prio_entry, arg),
    offsetof(struct policy_prio_entry, loc),
    offsetof(struct policy_prio_entry, weight),
};

/* The members of one entry, through its kind's row. */
struct entry_view {
    const char **name;
    bool *has_argument;
    struct kpe_args_written *arg;
    struct policy_loc *loc;
    int64_t *weight; /* NULL: the kind has none */
};

#define MEMBER(e, off, type) ((type *)(void *)((unsigned char *)(e) + (off)))

static struct entry_view entry_view(const struct entry_kind *k, void *e)
{
    struct entry_view v = {
        MEMBER(e, k->name, const char *),
        MEMBER(e, k->has_argument, bool),
        MEMBER(e, k->arg, struct kpe_args_written),
        MEMBER(e, k->loc, struct policy_loc),
        k->weight == SIZE_MAX ? NULL : MEMBER(e, k->weight, int64_t),
    };

    return v;
}

struct ictx {
    struct policy *p;
    struct err *e;
    const char *buf;
    size_t len, pos;
    int line;        /* line number of the last line handed to inih */
    int failed_line; /* first line with an error */
    bool too_long;
    enum sec_kind kind;
    const char *label;
    void *entry; /* current policy_*_entry / extender */
    /* the current [predicate]/[priority] entry: its kind and members */
    const struct entry_kind *ek;
    struct entry_view ev;
    const char **seen; /* "name" keys already set in this section */
    size_t n_seen;
    const char *preds_mode, *prios_mode;
    int preds_mode_line, prios_mode_line;
    int policy_sections;
};

static int fail(struct ictx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(struct ictx *c, const char *fmt, ...)
{
    char msg[ERR_MSG_MAX];
    va_list ap;

    if (c->failed_line)
        return 0;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    c->failed_line = c->line;
    err_set(c->e, "%d: %s", c->line, msg);
    return 0;
}

/* ---- values ---- */

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Unquote a value into the arena; NULL (with an error) when malformed. */
static const char *unquote(struct ictx *c, const char *v)
{
    size_t n = strlen(v), i, k = 0;
    char *out;

    if (n > 0 && v[0] == '"' && (n < 2 || v[n - 1] != '"')) {
        fail(c, "unterminated quoted value %s (no closing '\"')",
             err_quote((char[96]){ 0 }, 96, v, 40));
        return NULL;
    }
    if (n < 2 || v[0] != '"' || v[n - 1] != '"')
        return arena_strdup(&c->p->arena, v);
    out = arena_alloc(&c->p->arena, n);
    if (!out)
        return NULL;
    for (i = 1; i < n - 1; i++) {
        char ch = v[i];

        if (ch == '\\') {
            char x = v[++i];

            if (i >= n - 1)
                goto bad;
            if (x == 'n')
                ch = '\n';
            else if (x == 't')
                ch = '\t';
            else if (x == 'r')
                ch = '\r';
            else if (x == '\\' || x == '"')
                ch = x;
            else if (x == 'x' && i + 2 < n - 1 && hexval(v[i + 1]) >= 0 &&
                     hexval(v[i + 2]) >= 0) {
                ch = (char)(hexval(v[i + 1]) * 16 + hexval(v[i + 2]));
                i += 2;
                if (ch == '\0')
                    goto bad;
            } else {
                goto bad;
            }
        } else if (ch == '"') {
            goto bad;
        }
        out[k++] = ch;
    }
    out[k] = '\0';
    return out;
bad:
    fail(c,
         "malformed quoted value %s (escapes: \\\\ \\\" \\n \\t \\r "
         "\\xHH)",
         v);
    return NULL;
}

static int parse_bool(struct ictx *c, const char *key, const char *v, bool *out)
{
    if (!strcmp(v, "true")) {
        *out = true;
        return 1;
    }
    if (!strcmp(v, "false")) {
        *out = false;
        return 1;
    }
    return fail(c, "%s: expected true or false, got \"%s\"", key, v);
}

static int parse_int(struct ictx *c, const char *key, const char *v,
                     int64_t min, int64_t max, int64_t *out)
{
    char *end;
    long long x;

    errno = 0;
    x = strtoll(v, &end, 10);
    if (!*v || *end || errno == ERANGE)
        return fail(c, "%s: expected an integer, got \"%s\"", key, v);
    if (x < min || x > max)
        return fail(c, "%s: %lld is out of range [%lld, %lld]", key, x,
                    (long long)min, (long long)max);
    *out = x;
    return 1;
}

/* Reject a scalar key given twice in one section. */
static int once(struct ictx *c, const char *key)
{
    size_t i;
    const char **v;

    for (i = 0; i < c->n_seen; i++) {
        if (!strcmp(c->seen[i], key))
            return fail(c, "%s: given twice in this section", key);
    }
    v = arena_calloc(&c->p->arena, c->n_seen + 1, sizeof(*v));
    if (!v)
        return fail(c, "out of memory");
    if (c->n_seen)
        memcpy(v, c->seen, c->n_seen * sizeof(*v));
    v[c->n_seen++] = arena_strdup(&c->p->arena, key);
    c->seen = v;
    return 1;
}

static int push_str(struct ictx *c, struct policy_strlist *l, const char *s)
{
    const char **v;

    if (l->n >= POLICY_MAX_LIST)
        return fail(c, "more than %d values", POLICY_MAX_LIST);
    v = arena_calloc(&c->p->arena, l->n + 1, sizeof(*v));
    if (!v)
        return fail(c, "out of memory");
    if (l->n)
        memcpy(v, l->v, l->n * sizeof(*v));
    v[l->n++] = s;
    l->v = v;
    return 1;
}

/* Grow an arena array of `size`-byte items by one; returns the new item. */
static void *grow(struct ictx *c, void **arr, size_t *n, size_t size)
{
    unsigned char *v;

    if (*n >= POLICY_MAX_ENTRIES) {
        fail(c, "more than %d entries", POLICY_MAX_ENTRIES);
        return NULL;
    }
    v = arena_calloc(&c->p->arena, *n + 1, size);
    if (!v) {
        fail(c, "out of memory");
        return NULL;
    }
    if (*n)
        memcpy(v, *arr, *n * size);
    *arr = v;
    return v + (*n)++ * size;
}

/* "a:b" split at the last ':'; returns the part after it or NULL. */
static char *split_last(struct ictx *c, const char *v, const char **head)
{
    char *copy = arena_strdup(&c->p->arena, v);
    char *colon = copy ? strrchr(copy, ':') : NULL;

    if (!colon)
        return NULL;
    *colon = '\0';
    *head = copy;
    return colon + 1;
}

static int set_str(struct ictx *c, const char *key, const char *v,
                   const char **dst)
{
    if (!once(c, key))
        return 0;
    *dst = v;
    return 1;
}

/* ---- [policy] ---- */

static int policy_key(struct ictx *c, const char *key, const char *v)
{
    struct policy_doc *d = &c->p->doc;
    int64_t x;

    if (!once(c, key))
        return 0;
    if (!strcmp(key, "apiVersion")) {
        /* The JSON reader's rule (policy.c check_header): what the INI
         * form accepts must load again once written as JSON. */
        if (strcmp(v, "v1") && strcmp(v, "kubescheduler.config.k8s.io/v1"))
            return fail(c,
                        "apiVersion: expected v1 or "
                        "kubescheduler.config.k8s.io/v1, got \"%s\"",
                        v);
        d->api_version = v;
        return 1;
    }
    if (!strcmp(key, "predicates") || !strcmp(key, "priorities")) {
        if (strcmp(v, "default") && strcmp(v, "listed") && strcmp(v, "none"))
            return fail(c, "%s: expected default, listed or none, got \"%s\"",
                        key, v);
        if (key[1] == 'r' && key[2] == 'e') {
            c->preds_mode = v;
            c->preds_mode_line = c->line;
        } else {
            c->prios_mode = v;
            c->prios_mode_line = c->line;
        }
        return 1;
    }
    if (!strcmp(key, "hardPodAffinitySymmetricWeight")) {
        if (!parse_int(c, key, v, INT32_MIN, INT32_MAX, &x))
            return 0;
        d->hard_pod_affinity_symmetric_weight = (int32_t)x;
        return 1;
    }
    if (!strcmp(key, "alwaysCheckAllPredicates"))
        return parse_bool(c, key, v, &d->always_check_all_predicates);
    return fail(c,
                "[policy]: unknown key \"%s\" (known: apiVersion, "
                "predicates, priorities, hardPodAffinitySymmetricWeight, "
                "alwaysCheckAllPredicates)",
                key);
}

/* ---- argument keys, through the plugins' schemas ---- */

/* One "a:b" element of a list of two-field objects. */
static int elem_part(struct ictx *c, const char *key, const char *text,
                     const struct kpe_arg_field *f, void *item)
{
    unsigned char *at = (unsigned char *)item + f->offset;
    int64_t x;

    switch (f->type) {
    case KPE_ARG_STRING:
        *(const char **)at = text;
        return 1;
    case KPE_ARG_INT32:
        if (!parse_int(c, key, text, INT32_MIN, INT32_MAX, &x))
            return 0;
        *(int32_t *)at = (int32_t)x;
        return 1;
    case KPE_ARG_INT64:
        return parse_int(c, key, text, INT64_MIN, INT64_MAX, (int64_t *)at);
    default:
        return fail(c, "%s: not a field an INI line can hold", key);
    }
}

static int elem_key(struct ictx *c, const char *key, const char *v,
                    const struct kpe_arg_field *f, void *value)
{
    const struct kpe_arg_schema *el = f->elem;
    const char *head = NULL;
    char *tail = split_last(c, v, &head);
    void *item;

    if (el->n_fields != 2)
        return fail(c, "%s: not a field an INI line can hold", key);
    if (!tail)
        return fail(c, "%s: expected %s:%s, got \"%s\"", key,
                    el->fields[0].name, el->fields[1].name, v);
    item = grow(c, (void **)((unsigned char *)value + f->offset),
                (size_t *)((unsigned char *)value + f->count_offset), el->size);
    if (!item)
        return 0;
    return elem_part(c, key, head, &el->fields[0], item) &&
           elem_part(c, key, tail, &el->fields[1], item);
}

static int field_key(struct ictx *c, const char *key, const char *v,
                     const struct kpe_arg_field *f, void *value)
{
    unsigned char *at = (unsigned char *)value + f->offset;
    int64_t x;

    switch (f->type) {
    case KPE_ARG_STRING:
        return set_str(c, key, v, (const char **)at);
    case KPE_ARG_BOOL:
        return once(c, key) && parse_bool(c, key, v, (bool *)at);
    case KPE_ARG_INT32:
        if (!once(c, key) || !parse_int(c, key, v, INT32_MIN, INT32_MAX, &x))
            return 0;
        *(int32_t *)at = (int32_t)x;
        return 1;
    case KPE_ARG_INT64:
        return once(c, key) &&
               parse_int(c, key, v, INT64_MIN, INT64_MAX, (int64_t *)at);
    case KPE_ARG_STRINGS:
        return push_str(c, (struct policy_strlist *)at, v);
    case KPE_ARG_OBJECTS:
        return elem_key(c, key, v, f, value);
    default:
        break;
    }
    return fail(c, "%s: field of an unknown type", key);
}

static const struct kpe_arg_schema *
schema_named(const struct kpe_arg_schema *const *schemas, size_t n,
             const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (strlen(schemas[i]->key) == len &&
            !strncmp(schemas[i]->key, name, len))
            return schemas[i];
    }
    return NULL;
}

/* `argument = X`: member X given, even without keys ("empty": none). */
static int argument_key(struct ictx *c, const char *v,
                        const struct kpe_arg_schema *const *schemas, size_t n,
                        struct kpe_args_written *w)
{
    const struct kpe_arg_schema *s = schema_named(schemas, n, v, strlen(v));
    struct strbuf b;
    size_t i;

    if (s)
        return kpe_args_add(w, s, &c->p->arena) ? 1 : fail(c, "out of memory");
    if (!strcmp(v, "empty"))
        return 1;
    strbuf_init(&b, PBUF_MAX);
    for (i = 0; i < n; i++)
        strbuf_printf(&b, "%s%s", i ? ", " : "", schemas[i]->key);
    fail(c, "argument: expected %s or empty, got \"%s\"", b.s ? b.s : "", v);
    strbuf_free(&b);
    return 0;
}

/*
 * "<argument>.<field> = value". Returns 1 or 0 as inih handlers do, or -1
 * when key names no argument field.
 */
static int arg_key(struct ictx *c, const char *key, const char *v,
                   const struct kpe_arg_schema *const *schemas, size_t n,
                   struct kpe_args_written *w)
{
    const char *dot = strchr(key, '.');
    const struct kpe_arg_schema *s =
        dot ? schema_named(schemas, n, key, (size_t)(dot - key)) : NULL;
    void *value;
    size_t i;

    for (i = 0; s && i < s->n_fields; i++) {
        if (!strcmp(s->fields[i].name, dot + 1))
            break;
    }
    if (!s || i == s->n_fields)
        return -1;
    value = kpe_args_add(w, s, &c->p->arena);
    if (!value)
        return fail(c, "out of memory");
    if (i < KPE_MAX_ARG_FIELDS)
        kpe_args_given(w, s, (uint64_t)1 << i);
    return field_key(c, key, v, &s->fields[i], value);
}

/* The keys an entry section knows, for an unknown-key message. */
static void known_keys(struct strbuf *b, const char *fixed,
                       const struct kpe_arg_schema *const *schemas, size_t n)
{
    size_t i, j;

    strbuf_add(b, fixed);
    for (i = 0; i < n; i++) {
        if (schemas[i]->n_fields > 2) {
            strbuf_printf(b, ", %s.*", schemas[i]->key);
            continue;
        }
        for (j = 0; j < schemas[i]->n_fields; j++)
            strbuf_printf(b, ", %s.%s", schemas[i]->key,
                          schemas[i]->fields[j].name);
    }
}

static int unknown_entry_key(struct ictx *c, const char *kind,
                             const char *fixed, const char *key,
                             const struct kpe_arg_schema *const *schemas,
                             size_t n)
{
    struct strbuf b;

    strbuf_init(&b, PBUF_MAX);
    known_keys(&b, fixed, schemas, n);
    fail(c, "[%s \"%s\"]: unknown key \"%s\" (known: %s)", kind, c->label, key,
         b.s ? b.s : "");
    strbuf_free(&b);
    return 0;
}

/* ---- [predicate "X"] and [priority "X"] ---- */

static int entry_key(struct ictx *c, const char *key, const char *v)
{
    const struct entry_view *ev = &c->ev;
    const struct kpe_arg_schema *schemas[KPE_MAX_ARGS];
    size_t n = c->ek->schemas(schemas, KPE_MAX_ARGS);
    int rc;

    if (!strcmp(key, "name"))
        return set_str(c, key, v, ev->name);
    if (ev->weight && !strcmp(key, "weight"))
        return once(c, key) &&
               parse_int(c, key, v, INT64_MIN, INT64_MAX, ev->weight);
    *ev->has_argument = true;
    if (!strcmp(key, "argument"))
        return argument_key(c, v, schemas, n, ev->arg);
    rc = arg_key(c, key, v, schemas, n, ev->arg);
    if (rc >= 0)
        return rc;
    return unknown_entry_key(c, c->ek->kind, c->ek->fixed, key, schemas, n);
}

/* ---- [extender "N"] ---- */

static int append_chunk(struct ictx *c, const char **dst, const char *v)
{
    const char *s = *dst ? arena_sprintf(&c->p->arena, "%s%s", *dst, v) : v;

    if (!s)
        return fail(c, "out of memory");
    *dst = s;
    return 1;
}

static int tls_key(struct ictx *c, const char *key, const char *v,
                   struct policy_extender *x)
{
    struct policy_tls *t = &x->tls;
    const char *k = key + strlen("tlsConfig.");

    x->has_tls = true;
    if (!strcmp(k, "insecure"))
        return once(c, key) && parse_bool(c, key, v, &t->insecure);
    if (!strcmp(k, "serverName"))
        return set_str(c, key, v, &t->server_name);
    if (!strcmp(k, "certFile"))
        return set_str(c, key, v, &t->cert_file);
    if (!strcmp(k, "keyFile"))
        return set_str(c, key, v, &t->key_file);
    if (!strcmp(k, "caFile"))
        return set_str(c, key, v, &t->ca_file);
    if (!strcmp(k, "certData"))
        return append_chunk(c, &t->cert_data, v);
    if (!strcmp(k, "keyData"))
        return append_chunk(c, &t->key_data, v);
    if (!strcmp(k, "caData"))
        return append_chunk(c, &t->ca_data, v);
    return fail(c,
                "[extender \"%s\"]: unknown key \"%s\" (tlsConfig keys: "
                "insecure, serverName, certFile, keyFile, caFile, "
                "certData, keyData, caData)",
                c->label, key);
}

static int ext_key(struct ictx *c, const char *key, const char *v)
{
    struct policy_extender *x = c->entry;

    if (!strncmp(key, "tlsConfig.", 10))
        return tls_key(c, key, v, x);
    if (!strcmp(key, "urlPrefix"))
        return set_str(c, key, v, &x->url_prefix);
    if (!strcmp(key, "filterVerb"))
        return set_str(c, key, v, &x->filter_verb);
    if (!strcmp(key, "preemptVerb"))
        return set_str(c, key, v, &x->preempt_verb);
    if (!strcmp(key, "prioritizeVerb"))
        return set_str(c, key, v, &x->prioritize_verb);
    if (!strcmp(key, "bindVerb"))
        return set_str(c, key, v, &x->bind_verb);
    if (!strcmp(key, "weight"))
        return once(c, key) &&
               parse_int(c, key, v, INT64_MIN, INT64_MAX, &x->weight);
    if (!strcmp(key, "httpTimeout"))
        return once(c, key) &&
               parse_int(c, key, v, INT64_MIN, INT64_MAX, &x->http_timeout_ns);
    if (!strcmp(key, "enableHttps"))
        return once(c, key) && parse_bool(c, key, v, &x->enable_https);
    if (!strcmp(key, "nodeCacheCapable"))
        return once(c, key) && parse_bool(c, key, v, &x->node_cache_capable);
    if (!strcmp(key, "ignorable"))
        return once(c, key) && parse_bool(c, key, v, &x->ignorable);
    if (!strcmp(key, "managedResources")) {
        struct policy_managed_resource *r;
        size_t n = strlen(v), sl = strlen(":ignoredByScheduler");

        r = grow(c, (void **)&x->managed_resources, &x->n_managed_resources,
                 sizeof(*r));
        if (!r)
            return 0;
        r->name = v;
        if (n >= sl && !strcmp(v + n - sl, ":ignoredByScheduler")) {
            r->name = arena_strndup(&c->p->arena, v, n - sl);
            r->ignored_by_scheduler = true;
        }
        return 1;
    }
    return fail(c,
                "[extender \"%s\"]: unknown key \"%s\" (known: urlPrefix, "
                "filterVerb, preemptVerb, prioritizeVerb, weight, "
                "bindVerb, enableHttps, tlsConfig.*, httpTimeout, "
                "nodeCacheCapable, managedResources, ignorable)",
                c->label, key);
}

static int on_key(void *user, const char *section, const char *name,
                  const char *value)
{
    struct ictx *c = user;
    const char *v;

    (void)section; /* inih keeps 50 bytes of it; we track sections */
    if (c->failed_line)
        return 0;
    if (!*name)
        return fail(c, "a value without a key before the '='");
    v = unquote(c, value);
    if (!v)
        return 0;
    switch (c->kind) {
    case SEC_POLICY:
        return policy_key(c, name, v);
    case SEC_PRED:
    case SEC_PRIO:
        return entry_key(c, name, v);
    case SEC_EXT:
        return ext_key(c, name, v);
    default:
        return fail(c,
                    "key \"%s\" outside a section ([policy], [predicate "
                    "\"Name\"], [priority \"Name\"], [extender \"N\"])",
                    name);
    }
}

/* ---- sections, seen by our reader before inih parses the line ---- */

static bool label_taken(struct ictx *c, enum sec_kind k, const char *label)
{
    const struct policy_doc *d = &c->p->doc;
    size_t i, n = k == SEC_PRED ? d->n_preds : d->n_prios;
    unsigned char *v = k == SEC_PRED ? (void *)d->preds : (void *)d->prios;

    /* Labels live in loc.path for INI entries (JSON uses it for paths). */
    if (k == SEC_PRED || k == SEC_PRIO) {
        for (i = 0; i + 1 < n; i++) {
            if (!strcmp(entry_view(c->ek, v + i * c->ek->size).loc->path,
                        label))
                return true;
        }
    } else if (k == SEC_EXT) {
        for (i = 0; i + 1 < d->n_extenders; i++) {
            if (!strcmp(d->extenders[i].loc.path, label))
                return true;
        }
    }
    return false;
}

static void start_section(struct ictx *c, const char *text)
{
    struct policy_doc *d = &c->p->doc;
    const char *kinds[] = { "policy", "predicate", "priority", "extender" };
    enum sec_kind k = SEC_NONE;
    const char *rest = NULL, *label;
    size_t i, n;

    c->seen = NULL;
    c->n_seen = 0;
    c->kind = SEC_NONE;
    for (i = 0; i < 4; i++) {
        n = strlen(kinds[i]);
        if (!strncmp(text, kinds[i], n) &&
            (text[n] == '\0' || text[n] == '.' || text[n] == ' ' ||
             text[n] == '\t')) {
            k = (enum sec_kind)(i + 1);
            rest = text + n;
            break;
        }
    }
    if (k == SEC_NONE) {
        fail(c,
             "unknown section [%s] (expected [policy], [predicate "
             "\"Name\"], [priority \"Name\"] or [extender \"N\"])",
             text);
        return;
    }
    if (k == SEC_POLICY) {
        if (*rest) {
            fail(c, "section [%s]: [policy] takes no label", text);
            return;
        }
        if (c->policy_sections++) {
            fail(c, "[policy] given twice");
            return;
        }
        c->kind = k;
        return;
    }
    if (*rest == '.') {
        label = rest + 1;
    } else {
        while (*rest == ' ' || *rest == '\t')
            rest++;
        n = strlen(rest);
        if (n < 2 || rest[0] != '"' || rest[n - 1] != '"') {
            fail(c, "section [%s]: expected [%s \"Label\"] or [%s.Label]", text,
                 kinds[k - 1], kinds[k - 1]);
            return;
        }
        label = arena_strndup(&c->p->arena, rest + 1, n - 2);
    }
    label = arena_strdup(&c->p->arena, label);
    if (!label || !*label) {
        fail(c, "section [%s]: empty label", text);
        return;
    }
    c->label = label;
    if (k == SEC_PRED || k == SEC_PRIO) {
        c->ek = k == SEC_PRED ? &pred_entry : &prio_entry;
        c->entry = k == SEC_PRED
                       ? grow(c, (void **)&d->preds, &d->n_preds, c->ek->size)
                       : grow(c, (void **)&d->prios, &d->n_prios, c->ek->size);
        if (!c->entry)
            return;
        c->ev = entry_view(c->ek, c->entry);
        *c->ev.name = label;
        c->ev.loc->path = label;
        c->ev.loc->line = c->line;
    } else {
        struct policy_extender *x =
            grow(c, (void **)&d->extenders, &d->n_extenders, sizeof(*x));
        if (!x)
            return;
        x->loc.path = label;
        x->loc.line = c->line;
        c->entry = x;
    }
    if (label_taken(c, k, label)) {
        fail(c,
             "section [%s] repeated; give it another label and a "
             "`name =` key",
             text);
        return;
    }
    c->kind = k;
}

/* Section header text of a line ("" if the line is not one). */
static void note_section(struct ictx *c, const char *line, size_t n)
{
    size_t i = 0, j;
    char text[INI_LINE_MAX];

    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i >= n || line[i] != '[')
        return;
    for (j = i + 1; j < n && line[j] != ']'; j++)
        ;
    if (j >= n)
        return; /* inih reports "no ']'" */
    memcpy(text, line + i + 1, j - i - 1);
    text[j - i - 1] = '\0';
    start_section(c, text);
}

/* ini_reader: one line at a time from the buffer, counting lines. */
static char *reader(char *str, int num, void *stream)
{
    struct ictx *c = stream;
    size_t start = c->pos, end = c->pos, n;

    if (c->pos >= c->len)
        return NULL;
    while (end < c->len && c->buf[end] != '\n')
        end++;
    n = end - start;
    c->pos = end < c->len ? end + 1 : end;
    c->line++;
    if (n + 2 > (size_t)num) {
        if (!c->failed_line) {
            c->too_long = true;
            fail(c,
                 "line longer than %d bytes (inih's INI_MAX_LINE); split "
                 "lists over repeated keys",
                 num - 2);
        }
        n = 0;
    }
    memcpy(str, c->buf + start, n);
    str[n] = '\n';
    str[n + 1] = '\0';
    if (!c->failed_line)
        note_section(c, str, n);
    return str;
}

/*
 * inih's syntax error on line `line`: say what is wrong with it, at which
 * column, quoting the text there ("3:8: section header without its
 * closing ']': \"[policy\"").
 */
static int syntax_error(const char *buf, size_t len, int line, struct err *e)
{
    const char *p = buf, *end = buf + len, *eol, *s, *why;
    char text[INI_LINE_MAX + 1], q[96];
    size_t n;
    int i;

    for (i = 1; i < line && p < end; i++) {
        p = memchr(p, '\n', (size_t)(end - p));
        p = p ? p + 1 : end;
    }
    eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
        eol = end;
    for (s = p; s < eol && (*s == ' ' || *s == '\t'); s++)
        ;
    n = (size_t)(eol - s) < INI_LINE_MAX ? (size_t)(eol - s) : INI_LINE_MAX;
    memcpy(text, s, n);
    while (n && (text[n - 1] == '\r' || text[n - 1] == ' '))
        n--;
    text[n] = '\0';
    if (text[0] == '[')
        why = "section header without its closing ']'";
    else if (text[0] == '=' || text[0] == ':')
        why = "a value without a key before the '='";
    else if (!strpbrk(text, "=:"))
        why = "a key without '=' and a value (key = value)";
    else
        why = "not a [section], key = value or ; comment";
    return err_set(e, "%d:%d: %s: %s", line, (int)(s - p) + 1, why,
                   err_quote(q, sizeof(q), text, 60));
}

static int finish_mode(struct ictx *c, const char *mode, int line, size_t n,
                       const char *what, enum policy_list_mode *out)
{
    if (!mode) {
        *out = n ? POLICY_LIST_LISTED : POLICY_LIST_DEFAULT;
        return 0;
    }
    if (!strcmp(mode, "default")) {
        if (n)
            return err_set(c->e,
                           "%d: %s = default, but the file has [%s] "
                           "sections",
                           line, what,
                           what[1] == 'r' && what[2] == 'e' ? "predicate"
                                                            : "priority");
        *out = POLICY_LIST_DEFAULT;
        return 0;
    }
    if (!strcmp(mode, "none") && n)
        return err_set(c->e,
                       "%d: %s = none, but the file has sections for "
                       "them",
                       line, what);
    *out = POLICY_LIST_LISTED;
    return 0;
}

int policy_parse_ini(struct policy *p, const char *buf, size_t len,
                     struct err *e)
{
    struct ictx c;
    int rc;

    memset(&c, 0, sizeof(c));
    memset(&p->doc, 0, sizeof(p->doc));
    p->doc.ini = 1;
    p->doc.kind = "Policy";
    c.p = p;
    c.e = e;
    c.buf = buf;
    c.len = len;
    if (memchr(buf, '\0', len))
        return err_set(e, "1: NUL byte in an INI file");
    rc = ini_parse_stream(reader, &c, on_key, &c);
    if (c.failed_line)
        return -1;
    if (rc > 0)
        return syntax_error(buf, len, rc, e);
    if (rc < 0)
        return err_set(e, "0: cannot parse INI (%d)", rc);
    if (!p->doc.api_version)
        p->doc.api_version = "v1";
    if (finish_mode(&c, c.preds_mode, c.preds_mode_line, p->doc.n_preds,
                    "predicates", &p->doc.predicates_mode) ||
        finish_mode(&c, c.prios_mode, c.prios_mode_line, p->doc.n_prios,
                    "priorities", &p->doc.priorities_mode))
        return -1;
    return 0;
}
