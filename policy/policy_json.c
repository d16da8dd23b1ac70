/*
 * policy_json.c: the legacy Policy JSON, read as kube-scheduler v1.22
 * decodes it (staging/.../kube-scheduler/config/v1/types.go): keys are
 * case-sensitive except inside extenders[] (Go's encoding/json there),
 * null means "not set", an unknown key fails the load as v1.20-v1.22's
 * strict decoder refuses it ("strict decoder error for ...:
 * v1.Policy.ReadObject: found unknown field: X", serializer.EnableStrict
 * in apis/config/scheme; docs/VERSION-SEMANTICS.md "Policy decoding"),
 * whatever --semantics says. A key given
 * twice in one object fails the load, as v1.20-v1.22's strict decoder
 * refuses the file ("key \"x\" already set in map"; checked on a real
 * v1.20.2); keys that differ only in case inside extenders[] do not (the
 * last one wins there). The writer is policy_json_write.c.
 */
#include "policy/policy.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kube/base/doc_format.h"
#include "kube/base/json_parse.h"
#include "policy/policy_buf.h"
#include "policy/policy_internal.h"

struct jctx {
    struct policy *p;
    struct err *e;
};

struct jfield {
    const char *key;
    int (*fn)(struct jctx *c, const cJSON *v, void *obj, const char *path);
};

/* ---- small helpers ---- */

static const char *jpath(struct jctx *c, const char *path, const char *key)
{
    if (!path || !*path)
        return arena_strdup(&c->p->arena, key);
    return arena_sprintf(&c->p->arena, "%s.%s", path, key);
}

static const char *jindex(struct jctx *c, const char *path, size_t i)
{
    return arena_sprintf(&c->p->arena, "%s[%zu]", path, i);
}

/* Describe a JSON value for a type error. */
static const char *describe(struct jctx *c, const cJSON *v)
{
    char q[96];

    if (cJSON_IsString(v))
        return arena_sprintf(&c->p->arena, "string %s",
                             err_quote(q, sizeof(q), v->valuestring, 40));
    if (cJSON_IsNumber(v))
        return arena_sprintf(&c->p->arena, "number %.17g", v->valuedouble);
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? "true" : "false";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    return "null";
}

static int type_error(struct jctx *c, const cJSON *v, const char *path,
                      const char *want)
{
    return err_set(c->e, "%s: expected %s, got %s", path, want, describe(c, v));
}

static int get_string(struct jctx *c, const cJSON *v, const char *path,
                      const char **out)
{
    if (cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v))
        return type_error(c, v, path, "a string");
    *out = arena_strdup(&c->p->arena, v->valuestring);
    return *out ? 0 : err_set(c->e, "out of memory");
}

static int get_bool(struct jctx *c, const cJSON *v, const char *path, bool *out)
{
    if (cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsBool(v))
        return type_error(c, v, path, "true or false");
    *out = cJSON_IsTrue(v);
    return 0;
}

static int get_int(struct jctx *c, const cJSON *v, const char *path,
                   int64_t *out, int bits)
{
    double d, lim = bits == 32 ? 2147483648.0 : 9223372036854775808.0;

    if (cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v))
        return type_error(c, v, path,
                          bits == 32 ? "an int32 number" : "an int64 number");
    d = v->valuedouble;
    if (!isfinite(d) || d != floor(d))
        return err_set(c->e, "%s: expected an integer, got number %.17g", path,
                       d);
    if (d >= lim || d < -lim)
        return err_set(c->e, "%s: number %.17g overflows int%d", path, d, bits);
    *out = (int64_t)d;
    return 0;
}

static int get_int32(struct jctx *c, const cJSON *v, const char *path,
                     int32_t *out)
{
    int64_t x = *out;

    if (get_int(c, v, path, &x, 32))
        return -1;
    *out = (int32_t)x;
    return 0;
}

static int get_strlist(struct jctx *c, const cJSON *v, const char *path,
                       struct policy_strlist *out)
{
    const cJSON *it;
    size_t n = 0, i = 0;

    if (cJSON_IsNull(v)) {
        out->v = NULL;
        out->n = 0;
        return 0;
    }
    if (!cJSON_IsArray(v))
        return type_error(c, v, path, "an array of strings");
    n = (size_t)cJSON_GetArraySize(v);
    if (n > POLICY_MAX_LIST)
        return err_set(c->e, "%s: more than %d items", path, POLICY_MAX_LIST);
    out->v = arena_calloc(&c->p->arena, n ? n : 1, sizeof(*out->v));
    if (!out->v)
        return err_set(c->e, "out of memory");
    cJSON_ArrayForEach(it, v)
    {
        const char *s = "";

        if (cJSON_IsNull(it))
            s = "";
        else if (get_string(c, it, jindex(c, path, i), &s))
            return -1;
        out->v[i++] = s;
    }
    out->n = i;
    return 0;
}

/* An unknown key: the strict decoder's error, with the closest known key. */
static int refuse_unknown(struct jctx *c, const char *path, const char *key,
                          const char *const *keys, size_t n)
{
    const char *sug = policy_suggest(key, keys, n);
    char q[96];

    return err_set(c->e,
                   "%s: unknown field %s (kube-scheduler's strict decoder "
                   "refuses the Policy: found unknown field: %s)%s%s%s",
                   jpath(c, path, key), err_quote(q, sizeof(q), key, 60), key,
                   sug ? "; did you mean \"" : "", sug ? sug : "",
                   sug ? "\"?" : "");
}

/*
 * Decode an object through a field table. fold: match keys
 * case-insensitively (exact match first), as Go's encoding/json does.
 * An unknown key fails, naming the closest known key.
 */
static int decode_object(struct jctx *c, const cJSON *obj, const char *path,
                         const struct jfield *f, size_t nf, bool fold,
                         void *target)
{
    const cJSON *it;

    if (!cJSON_IsObject(obj))
        return type_error(c, obj, path && *path ? path : "(document)",
                          "an object");
    cJSON_ArrayForEach(it, obj)
    {
        const struct jfield *hit = NULL;
        size_t i;

        for (i = 0; i < nf && !hit; i++) {
            if (!strcmp(f[i].key, it->string))
                hit = &f[i];
        }
        for (i = 0; i < nf && !hit && fold; i++) {
            if (!strcasecmp(f[i].key, it->string))
                hit = &f[i];
        }
        if (hit) {
            if (hit->fn(c, it, target, jpath(c, path, hit->key)))
                return -1;
            continue;
        }
        {
            const char *keys[32];

            for (i = 0; i < nf && i < 32; i++)
                keys[i] = f[i].key;
            return refuse_unknown(c, path, it->string, keys, i);
        }
    }
    return 0;
}

#define NF(t) (sizeof(t) / sizeof((t)[0]))

/* ---- arguments, decoded through the plugins' schemas ---- */

static int decode_value(struct jctx *c, const cJSON *obj, const char *path,
                        const struct kpe_arg_schema *s, void *value,
                        uint64_t *given);

/* Decode one array item (not null) at item. */
typedef int item_fn(struct jctx *c, const cJSON *it, const char *path,
                    void *item, const void *ctx);

/*
 * An array of size-byte items, each decoded by one (null items stay
 * zero), into arena memory: *out and *n_out. null: no array.
 */
static int get_array(struct jctx *c, const cJSON *v, const char *path,
                     size_t size, item_fn *one, const void *ctx, void **out,
                     size_t *n_out)
{
    const cJSON *it;
    size_t n, i = 0;
    unsigned char *items;

    *out = NULL;
    *n_out = 0;
    if (cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsArray(v))
        return type_error(c, v, path, "an array");
    n = (size_t)cJSON_GetArraySize(v);
    if (n > POLICY_MAX_ENTRIES)
        return err_set(c->e, "%s: more than %d items", path,
                       POLICY_MAX_ENTRIES);
    items = arena_calloc(&c->p->arena, n ? n : 1, size);
    if (!items)
        return err_set(c->e, "out of memory");
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsNull(it) &&
            one(c, it, jindex(c, path, i), items + i * size, ctx))
            return -1;
        i++;
    }
    *out = items;
    *n_out = i;
    return 0;
}

static int elem_item(struct jctx *c, const cJSON *it, const char *path,
                     void *item, const void *ctx)
{
    return decode_value(c, it, path, ctx, item, NULL);
}

/* An argument's object list; a string left out (or a null element's) has
 * Go's zero value "". */
static int get_elems(struct jctx *c, const cJSON *v, const char *path,
                     const struct kpe_arg_schema *elem, void **out,
                     size_t *n_out)
{
    size_t i, k;

    if (get_array(c, v, path, elem->size, elem_item, elem, out, n_out))
        return -1;
    for (i = 0; i < *n_out; i++) {
        for (k = 0; k < elem->n_fields; k++) {
            const char **str =
                (const char **)((unsigned char *)*out + i * elem->size +
                                elem->fields[k].offset);

            if (elem->fields[k].type == KPE_ARG_STRING && !*str)
                *str = "";
        }
    }
    return 0;
}

static int decode_field(struct jctx *c, const cJSON *v, const char *path,
                        const struct kpe_arg_field *f, void *value)
{
    unsigned char *at = (unsigned char *)value + f->offset;

    switch (f->type) {
    case KPE_ARG_STRING:
        return get_string(c, v, path, (const char **)at);
    case KPE_ARG_BOOL:
        return get_bool(c, v, path, (bool *)at);
    case KPE_ARG_INT32:
        return get_int32(c, v, path, (int32_t *)at);
    case KPE_ARG_INT64:
        return get_int(c, v, path, (int64_t *)at, 64);
    case KPE_ARG_STRINGS:
        return get_strlist(c, v, path, (struct policy_strlist *)at);
    case KPE_ARG_OBJECTS:
        return get_elems(c, v, path, f->elem, (void **)at,
                         (size_t *)((unsigned char *)value + f->count_offset));
    default:
        break;
    }
    return err_set(c->e, "%s: field of an unknown type", path);
}

/*
 * One argument's value: its fields by exact name, the rest warned about.
 * given (NULL: not kept) gets a bit per field given and not null.
 */
static int decode_value(struct jctx *c, const cJSON *obj, const char *path,
                        const struct kpe_arg_schema *s, void *value,
                        uint64_t *given)
{
    const cJSON *it;
    size_t i;

    if (!cJSON_IsObject(obj))
        return type_error(c, obj, path, "an object");
    cJSON_ArrayForEach(it, obj)
    {
        const char *keys[32];

        for (i = 0; i < s->n_fields; i++) {
            if (!strcmp(s->fields[i].name, it->string))
                break;
        }
        if (i < s->n_fields) {
            if (decode_field(c, it, jpath(c, path, it->string), &s->fields[i],
                             value))
                return -1;
            if (given && !cJSON_IsNull(it) && i < KPE_MAX_ARG_FIELDS)
                *given |= (uint64_t)1 << i;
            continue;
        }
        for (i = 0; i < s->n_fields && i < 32; i++)
            keys[i] = s->fields[i].name;
        return refuse_unknown(c, path, it->string, keys, i);
    }
    return 0;
}

/* An entry's `argument`: each member through the schema of that name. */
static int decode_args(struct jctx *c, const cJSON *obj, const char *path,
                       const struct kpe_arg_schema *const *schemas, size_t n,
                       struct kpe_args_written *out)
{
    const cJSON *it;
    uint64_t given;
    size_t i;

    if (!cJSON_IsObject(obj))
        return type_error(c, obj, path, "an object");
    cJSON_ArrayForEach(it, obj)
    {
        const char *keys[KPE_MAX_ARGS];
        void *value;

        for (i = 0; i < n; i++) {
            if (!strcmp(schemas[i]->key, it->string))
                break;
        }
        if (i == n) {
            for (i = 0; i < n; i++)
                keys[i] = schemas[i]->key;
            return refuse_unknown(c, path, it->string, keys, n);
        }
        if (cJSON_IsNull(it))
            continue; /* a nil pointer in v1.22: not given */
        value = kpe_args_add(out, schemas[i], &c->p->arena);
        if (!value)
            return err_set(c->e, "out of memory");
        given = 0;
        if (decode_value(c, it, jpath(c, path, it->string), schemas[i], value,
                         &given))
            return -1;
        kpe_args_given(out, schemas[i], given);
    }
    return 0;
}

/* ---- predicates ---- */

static int pe_name(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_string(c, v, p, &((struct policy_pred_entry *)o)->name);
}
static int pe_arg(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    struct policy_pred_entry *pe = o;
    const struct kpe_arg_schema *schemas[KPE_MAX_ARGS];
    size_t n = pred_arg_schemas(schemas, KPE_MAX_ARGS);

    memset(&pe->arg, 0, sizeof(pe->arg));
    pe->has_argument = !cJSON_IsNull(v);
    return pe->has_argument ? decode_args(c, v, p, schemas, n, &pe->arg) : 0;
}
static const struct jfield pred_fields[] = {
    { "name", pe_name },
    { "argument", pe_arg },
};

/* ---- priorities ---- */

static int re_name(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_string(c, v, p, &((struct policy_prio_entry *)o)->name);
}
static int re_weight(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_int(c, v, p, &((struct policy_prio_entry *)o)->weight, 64);
}
static int re_arg(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    struct policy_prio_entry *pe = o;
    const struct kpe_arg_schema *schemas[KPE_MAX_ARGS];
    size_t n = prio_arg_schemas(schemas, KPE_MAX_ARGS);

    memset(&pe->arg, 0, sizeof(pe->arg));
    pe->has_argument = !cJSON_IsNull(v);
    return pe->has_argument ? decode_args(c, v, p, schemas, n, &pe->arg) : 0;
}
static const struct jfield prio_fields[] = {
    { "name", re_name },
    { "weight", re_weight },
    { "argument", re_arg },
};

/* An object list decoded through one field table. */
struct table {
    const struct jfield *f;
    size_t nf;
    bool fold;
};

static int table_item(struct jctx *c, const cJSON *it, const char *path,
                      void *item, const void *ctx)
{
    const struct table *t = ctx;

    return decode_object(c, it, path, t->f, t->nf, t->fold, item);
}

static int get_objects(struct jctx *c, const cJSON *v, const char *path,
                       size_t size, const struct jfield *f, size_t nf,
                       bool fold, void **out, size_t *n_out)
{
    const struct table t = { f, nf, fold };

    return get_array(c, v, path, size, table_item, &t, out, n_out);
}

/* ---- extenders (case-insensitive keys) ---- */

#define EXT_STR(fn, member)                                                    \
    static int fn(struct jctx *c, const cJSON *v, void *o, const char *p)      \
    {                                                                          \
        return get_string(c, v, p, &((struct policy_extender *)o)->member);    \
    }
EXT_STR(ex_url, url_prefix)
EXT_STR(ex_filter, filter_verb)
EXT_STR(ex_preempt, preempt_verb)
EXT_STR(ex_prioritize, prioritize_verb)
EXT_STR(ex_bind, bind_verb)

#define TLS_STR(fn, member)                                                    \
    static int fn(struct jctx *c, const cJSON *v, void *o, const char *p)      \
    {                                                                          \
        return get_string(c, v, p, &((struct policy_tls *)o)->member);         \
    }
TLS_STR(tls_server_name, server_name)
TLS_STR(tls_cert_file, cert_file)
TLS_STR(tls_key_file, key_file)
TLS_STR(tls_ca_file, ca_file)

/* []byte fields: base64 text (Go's encoding/json StdEncoding). */
static bool is_base64(const char *s)
{
    size_t n = strlen(s), i, pad = 0;

    if (n % 4)
        return false;
    for (i = 0; i < n; i++) {
        char ch = s[i];

        if (ch == '=') {
            pad++;
            if (i < n - 2)
                return false;
            continue;
        }
        if (pad || !(((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                      (ch >= '0' && ch <= '9') || ch == '+' || ch == '/')))
            return false;
    }
    return true;
}

static int get_bytes(struct jctx *c, const cJSON *v, const char *p,
                     const char **out)
{
    char q[96];

    if (get_string(c, v, p, out))
        return -1;
    if (*out && !is_base64(*out))
        return err_set(c->e, "%s: expected base64 data, got %s", p,
                       err_quote(q, sizeof(q), *out, 40));
    return 0;
}
static int tls_cert_data(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_bytes(c, v, p, &((struct policy_tls *)o)->cert_data);
}
static int tls_key_data(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_bytes(c, v, p, &((struct policy_tls *)o)->key_data);
}
static int tls_ca_data(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_bytes(c, v, p, &((struct policy_tls *)o)->ca_data);
}
static int tls_insecure(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_bool(c, v, p, &((struct policy_tls *)o)->insecure);
}
static const struct jfield tls_fields[] = {
    { "insecure", tls_insecure },  { "serverName", tls_server_name },
    { "certFile", tls_cert_file }, { "keyFile", tls_key_file },
    { "caFile", tls_ca_file },     { "certData", tls_cert_data },
    { "keyData", tls_key_data },   { "caData", tls_ca_data },
};

static int mr_name(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_string(c, v, p, &((struct policy_managed_resource *)o)->name);
}
static int mr_ignored(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_bool(
        c, v, p, &((struct policy_managed_resource *)o)->ignored_by_scheduler);
}
static const struct jfield mr_fields[] = {
    { "name", mr_name },
    { "ignoredByScheduler", mr_ignored },
};

static int ex_weight(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_int(c, v, p, &((struct policy_extender *)o)->weight, 64);
}
static int ex_https(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_bool(c, v, p, &((struct policy_extender *)o)->enable_https);
}
static int ex_tls(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    struct policy_extender *x = o;

    memset(&x->tls, 0, sizeof(x->tls));
    x->has_tls = !cJSON_IsNull(v);
    return x->has_tls ? decode_object(c, v, p, tls_fields, NF(tls_fields), true,
                                      &x->tls)
                      : 0;
}
static int ex_timeout(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    if (cJSON_IsString(v))
        return err_set(c->e,
                       "%s: expected an integer number of nanoseconds (a Go "
                       "time.Duration), got %s; write 5000000000 for 5s",
                       p, describe(c, v));
    return get_int(c, v, p, &((struct policy_extender *)o)->http_timeout_ns,
                   64);
}
static int ex_cache(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_bool(c, v, p,
                    &((struct policy_extender *)o)->node_cache_capable);
}
static int ex_managed(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    struct policy_extender *x = o;

    return get_objects(c, v, p, sizeof(*x->managed_resources), mr_fields,
                       NF(mr_fields), true, (void **)&x->managed_resources,
                       &x->n_managed_resources);
}
static int ex_ignorable(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_bool(c, v, p, &((struct policy_extender *)o)->ignorable);
}
static const struct jfield ext_fields[] = {
    { "urlPrefix", ex_url },
    { "filterVerb", ex_filter },
    { "preemptVerb", ex_preempt },
    { "prioritizeVerb", ex_prioritize },
    { "weight", ex_weight },
    { "bindVerb", ex_bind },
    { "enableHttps", ex_https },
    { "tlsConfig", ex_tls },
    { "httpTimeout", ex_timeout },
    { "nodeCacheCapable", ex_cache },
    { "managedResources", ex_managed },
    { "ignorable", ex_ignorable },
};

/* ---- top level ---- */

static int top_kind(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_string(c, v, p, &((struct policy_doc *)o)->kind);
}
static int top_api(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_string(c, v, p, &((struct policy_doc *)o)->api_version);
}
static int top_preds(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    struct policy_doc *d = o;
    size_t i;

    d->predicates_mode =
        cJSON_IsNull(v) ? POLICY_LIST_DEFAULT : POLICY_LIST_LISTED;
    if (get_objects(c, v, p, sizeof(*d->preds), pred_fields, NF(pred_fields),
                    false, (void **)&d->preds, &d->n_preds))
        return -1;
    for (i = 0; i < d->n_preds; i++)
        d->preds[i].loc.path = jindex(c, p, i);
    return 0;
}
static int top_prios(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    struct policy_doc *d = o;
    size_t i;

    d->priorities_mode =
        cJSON_IsNull(v) ? POLICY_LIST_DEFAULT : POLICY_LIST_LISTED;
    if (get_objects(c, v, p, sizeof(*d->prios), prio_fields, NF(prio_fields),
                    false, (void **)&d->prios, &d->n_prios))
        return -1;
    for (i = 0; i < d->n_prios; i++)
        d->prios[i].loc.path = jindex(c, p, i);
    return 0;
}
static int top_exts(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    struct policy_doc *d = o;
    size_t i;

    if (get_objects(c, v, p, sizeof(*d->extenders), ext_fields, NF(ext_fields),
                    true, (void **)&d->extenders, &d->n_extenders))
        return -1;
    for (i = 0; i < d->n_extenders; i++)
        d->extenders[i].loc.path = jindex(c, p, i);
    return 0;
}
static int top_hard(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_int32(
        c, v, p, &((struct policy_doc *)o)->hard_pod_affinity_symmetric_weight);
}
static int top_always(struct jctx *c, const cJSON *v, void *o, const char *p)
{
    return get_bool(c, v, p,
                    &((struct policy_doc *)o)->always_check_all_predicates);
}
static const struct jfield top_fields[] = {
    { "kind", top_kind },
    { "apiVersion", top_api },
    { "predicates", top_preds },
    { "priorities", top_prios },
    { "extenders", top_exts },
    { "hardPodAffinitySymmetricWeight", top_hard },
    { "alwaysCheckAllPredicates", top_always },
};

/* Sort helper: members by key. */
static int cmp_key(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string,
                  (*(const cJSON *const *)b)->string);
}

/*
 * The first member of obj whose key an earlier member has, or NULL. The
 * keys are sorted first (n log n), so only an object that has a repeat
 * pays for finding the first one.
 */
static const cJSON *repeated_key(struct jctx *c, const cJSON *obj)
{
    const cJSON *it, *jt, **v;
    size_t n = 0, i;
    bool any = false;

    for (it = obj->child; it; it = it->next)
        n++;
    if (n < 2)
        return NULL;
    v = arena_calloc(&c->p->arena, n, sizeof(*v));
    if (!v)
        return NULL;
    for (i = 0, it = obj->child; it; it = it->next)
        v[i++] = it;
    qsort(v, n, sizeof(*v), cmp_key);
    for (i = 1; i < n && !any; i++)
        any = !strcmp(v[i - 1]->string, v[i]->string);
    if (!any)
        return NULL;
    for (it = obj->child; it; it = it->next)
        for (jt = obj->child; jt != it; jt = jt->next)
            if (!strcmp(jt->string, it->string))
                return it;
    return NULL;
}

/* A key given twice anywhere in v (at path) fails, as v1.22 does. */
static int check_repeats(struct jctx *c, const cJSON *v, const char *path)
{
    const cJSON *it, *rep;
    char q[96];
    size_t i = 0;

    if (cJSON_IsObject(v)) {
        rep = repeated_key(c, v);
        if (rep)
            return err_set(c->e,
                           "%s: key %s already set in map (v1.22's strict "
                           "decoder refuses a Policy with a repeated key)",
                           jpath(c, path, rep->string),
                           err_quote(q, sizeof(q), rep->string, 60));
        for (it = v->child; it; it = it->next)
            if (check_repeats(c, it, jpath(c, path, it->string)) < 0)
                return -1;
    } else if (cJSON_IsArray(v)) {
        for (it = v->child; it; it = it->next)
            if (check_repeats(c, it, jindex(c, path, i++)) < 0)
                return -1;
    }
    return 0;
}

int policy_decode_tree(struct policy *p, const cJSON *root, struct err *e)
{
    struct jctx c = { p, e };

    memset(&p->doc, 0, sizeof(p->doc));
    return decode_object(&c, root, "", top_fields, NF(top_fields), false,
                         &p->doc);
}

int policy_parse_json(struct policy *p, const char *buf, size_t len,
                      struct err *e)
{
    struct arena tree;
    cJSON *root;
    int rc;

    /* The request parser's JSON reader: its errors name the cause. */
    doc_skip_bom(&buf, &len);
    arena_init(&tree, 0);
    rc = json_arena_parse(&tree, buf, len, 0, &root, e);
    if (rc == 0) {
        struct jctx c = { p, e };

        rc = check_repeats(&c, root, "");
    }
    if (rc == 0)
        rc = policy_decode_tree(p, root, e);
    arena_destroy(&tree);
    return rc;
}
