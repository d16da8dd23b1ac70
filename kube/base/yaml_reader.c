/*
 * yaml_reader.c: libyaml events into arena cJSON trees, the way
 * sigs.k8s.io/yaml turns YAML into the JSON Kubernetes decodes (see the
 * header). The reader keeps one event of lookahead.
 */
#include "kube/base/yaml_reader.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/base/hash.h"
#include "kube/base/yaml_scalar.h"

/* ---- errors ---- */

/* The text at 0-based (line, col) of the input, for "near ...". */
static void snippet(struct yaml_reader *r, size_t line, size_t col, char *out,
                    size_t sz)
{
    char text[48], *l = NULL;
    const char *p = NULL, *end = NULL;
    size_t n = 0, cap = 0, i;

    out[0] = '\0';
    if (r->buf) {
        p = r->buf;
        end = r->buf + r->len;
        for (i = 0; i < line && p < end; p++)
            if (*p == '\n')
                i++;
    } else if (r->f && fseek(r->f, 0, SEEK_SET) == 0) {
        ssize_t got = 0;

        for (i = 0; i <= line && (got = getline(&l, &cap, r->f)) >= 0; i++)
            ;
        if (got >= 0 && i == line + 1) {
            p = l;
            end = l + got;
        }
    }
    /* Columns count characters: a character is a byte and the UTF-8
     * continuation bytes after it. */
    for (i = 0; p && p < end && *p != '\n' && i < col; i++) {
        p++;
        while (p < end && ((unsigned char)*p & 0xC0) == 0x80)
            p++;
    }
    while (p && p < end && n < sizeof(text) - 1 && *p != '\n' && *p != '\r')
        text[n++] = *p++;
    text[n] = '\0';
    free(l);
    if (n)
        snprintf(out, sz, " near %s", err_quote((char[96]){ 0 }, 96, text, 30));
}

static int syntax_error(struct yaml_reader *r)
{
    const yaml_parser_t *p = &r->parser;
    char near[128], ctx[160] = "";
    size_t line = p->problem_mark.line, col = p->problem_mark.column;

    if (p->error == YAML_MEMORY_ERROR)
        return err_set(r->e, "out of memory reading YAML");
    if (p->error == YAML_READER_ERROR)
        return err_set(r->e, "invalid YAML at byte %zu: %s", p->problem_offset,
                       p->problem ? p->problem : "cannot read the input");
    if (p->context)
        snprintf(ctx, sizeof(ctx), " (%s at line %zu, column %zu)", p->context,
                 p->context_mark.line + 1, p->context_mark.column + 1);
    /* A scanner error's token is where it began (a key missing its ':', a
     * string missing its quote); a parser error's is where it was seen. */
    if (p->context && p->error == YAML_SCANNER_ERROR)
        snippet(r, p->context_mark.line, p->context_mark.column, near,
                sizeof(near));
    else
        snippet(r, line, col, near, sizeof(near));
    return err_set(r->e, "invalid YAML at line %zu, column %zu: %s%s%s",
                   line + 1, col + 1, p->problem ? p->problem : "syntax error",
                   ctx, near);
}

static int fail_at(struct yaml_reader *r, const yaml_mark_t *m,
                   const char *what)
{
    char near[128];

    snippet(r, m->line, m->column, near, sizeof(near));
    return err_set(r->e, "invalid YAML at line %zu, column %zu: %s%s",
                   m->line + 1, m->column + 1, what, near);
}

/* ---- events ---- */

static int fetch(struct yaml_reader *r)
{
    if (r->have)
        return 0;
    if (!yaml_parser_parse(&r->parser, &r->ev))
        return syntax_error(r);
    r->have = true;
    return 0;
}

static void consume(struct yaml_reader *r)
{
    if (r->have)
        yaml_event_delete(&r->ev);
    r->have = false;
}

static int start(struct yaml_reader *r)
{
    if (!yaml_parser_initialize(&r->parser))
        return err_set(r->e, "out of memory reading YAML");
    r->ready = true;
    if (r->buf)
        yaml_parser_set_input_string(&r->parser, (const unsigned char *)r->buf,
                                     r->len);
    else
        yaml_parser_set_input_file(&r->parser, r->f);
    if (fetch(r) < 0)
        return -1;
    consume(r); /* STREAM-START */
    return 0;
}

int yreader_init_buffer(struct yaml_reader *r, const char *buf, size_t len,
                        struct err *e)
{
    memset(r, 0, sizeof(*r));
    r->buf = buf ? buf : "";
    r->len = buf ? len : 0;
    r->e = e;
    return start(r);
}

int yreader_init_file(struct yaml_reader *r, FILE *f, struct err *e)
{
    memset(r, 0, sizeof(*r));
    r->f = f;
    r->e = e;
    return start(r);
}

void yreader_free(struct yaml_reader *r)
{
    consume(r);
    if (r->ready)
        yaml_parser_delete(&r->parser);
    r->ready = false;
}

int yreader_restart(struct yaml_reader *r)
{
    yreader_free(r);
    r->depth = 0;
    if (r->f && fseek(r->f, 0, SEEK_SET) != 0)
        return err_set(r->e, "cannot rewind the file");
    return start(r);
}

int yreader_document(struct yaml_reader *r)
{
    for (;;) {
        if (fetch(r) < 0)
            return -1;
        switch (r->ev.type) {
        case YAML_DOCUMENT_START_EVENT:
            consume(r);
            r->depth = 0;
            return 1;
        case YAML_STREAM_END_EVENT:
            return 0;
        case YAML_DOCUMENT_END_EVENT:
            consume(r);
            break;
        default: /* the rest of a document the caller left */
            if (yreader_skip(r) < 0)
                return -1;
        }
    }
}

int yreader_peek(struct yaml_reader *r)
{
    if (fetch(r) < 0)
        return -1;
    if (r->ev.type == YAML_MAPPING_START_EVENT)
        return '{';
    if (r->ev.type == YAML_SEQUENCE_START_EVENT)
        return '[';
    return 's';
}

void yreader_where(struct yaml_reader *r, size_t *line, size_t *col)
{
    *line = *col = 0;
    if (fetch(r) < 0)
        return;
    *line = r->ev.start_mark.line + 1;
    *col = r->ev.start_mark.column + 1;
}

int yreader_skip(struct yaml_reader *r)
{
    int depth = 0;

    do {
        if (fetch(r) < 0)
            return -1;
        if (r->ev.type == YAML_MAPPING_START_EVENT ||
            r->ev.type == YAML_SEQUENCE_START_EVENT)
            depth++;
        else if (r->ev.type == YAML_MAPPING_END_EVENT ||
                 r->ev.type == YAML_SEQUENCE_END_EVENT)
            depth--;
        else if (r->ev.type != YAML_SCALAR_EVENT &&
                 r->ev.type != YAML_ALIAS_EVENT)
            return fail_at(r, &r->ev.start_mark, "unexpected YAML event");
        consume(r);
    } while (depth > 0);
    return 0;
}

/* ---- trees ---- */

struct anchor {
    char *name;
    const cJSON *node;
};

/* One yreader_value call: where nodes go, the anchors seen so far. */
struct build {
    struct yaml_reader *r;
    struct arena *a;
    struct anchor *anchors;
    size_t n_anchors, cap_anchors;
    size_t budget; /* nodes alias expansion may still add */
};

static cJSON *new_node(struct build *b, int type)
{
    cJSON *n = arena_calloc(b->a, 1, sizeof(*n));

    if (n)
        n->type = type;
    return n;
}

static int oom(struct yaml_reader *r)
{
    return err_set(r->e, "out of memory reading YAML");
}

static void append(cJSON *parent, cJSON *v)
{
    v->next = NULL;
    if (parent->child) {
        parent->child->prev->next = v;
        v->prev = parent->child->prev;
    } else {
        parent->child = v;
    }
    parent->child->prev = v;
}

/*
 * The keys of one mapping being built: a linear scan while it is small,
 * then an open-addressing table (so a mapping of 100,000 keys is not
 * 10^10 comparisons).
 */
#define KEYSET_LINEAR 16

struct keyset {
    cJSON **slot; /* NULL until the mapping outgrows KEYSET_LINEAR */
    size_t cap;   /* a power of two */
    size_t n;     /* members of the mapping */
};

static cJSON **keyset_find(struct keyset *ks, const char *key)
{
    size_t i = (size_t)kube_fnv_str(KUBE_FNV_OFFSET, key) & (ks->cap - 1);

    while (ks->slot[i] && strcmp(ks->slot[i]->string, key))
        i = (i + 1) & (ks->cap - 1);
    return &ks->slot[i];
}

/* Build (or double) the table from obj's members; -1 out of memory. */
static int keyset_grow(struct build *b, struct keyset *ks, const cJSON *obj)
{
    size_t cap = ks->cap ? 2 * ks->cap : 4 * KEYSET_LINEAR;
    cJSON **slot = arena_calloc(b->a, cap, sizeof(*slot));
    cJSON *c;

    if (!slot)
        return oom(b->r);
    ks->slot = slot;
    ks->cap = cap;
    for (c = obj->child; c; c = c->next)
        *keyset_find(ks, c->string) = c;
    return 0;
}

/* The member of obj named key, or NULL. */
static cJSON *member(struct keyset *ks, const cJSON *obj, const char *key)
{
    cJSON *c;

    if (ks->slot)
        return *keyset_find(ks, key);
    for (c = obj->child; c; c = c->next)
        if (!strcmp(c->string, key))
            return c;
    return NULL;
}

/*
 * obj[key] = v; a key already there is replaced in place (last wins),
 * and the first time (when note is set) b->r->dup says where. -1 out of
 * memory.
 */
static int set_member(struct build *b, struct keyset *ks, const yaml_mark_t *at,
                      bool note, cJSON *obj, char *key, cJSON *v)
{
    struct yaml_reader *r = b->r;
    cJSON *old = member(ks, obj, key);
    char q[80];

    v->string = key;
    if (!old) {
        append(obj, v);
        ks->n++;
        if (ks->slot)
            *keyset_find(ks, key) = v;
        if ((!ks->slot && ks->n > KEYSET_LINEAR) ||
            (ks->slot && 2 * ks->n > ks->cap))
            return keyset_grow(b, ks, obj);
        return 0;
    }
    if (note && !r->dup[0])
        snprintf(r->dup, sizeof(r->dup),
                 "line %zu, column %zu: key %s already set in map",
                 at->line + 1, at->column + 1,
                 err_quote(q, sizeof(q), key, 40));
    if (old == obj->child) {
        obj->child = v;
        v->prev = old->prev == old ? v : old->prev;
    } else {
        v->prev = old->prev;
        old->prev->next = v;
    }
    v->next = old->next;
    if (old->next)
        old->next->prev = v;
    else
        obj->child->prev = v;
    if (ks->slot)
        *keyset_find(ks, key) = v;
    return 0;
}

static cJSON *copy_tree(struct build *b, const cJSON *src, int depth)
{
    const cJSON *c;
    cJSON *n;

    if (b->budget == 0 || depth > YAML_READER_MAX_DEPTH)
        return NULL;
    b->budget--;
    n = new_node(b, src->type);
    if (!n)
        return NULL;
    n->valuedouble = src->valuedouble;
    n->valueint = src->valueint;
    n->valuestring = src->valuestring; /* immutable, shared */
    for (c = src->child; c; c = c->next) {
        cJSON *k = copy_tree(b, c, depth + 1);

        if (!k)
            return NULL;
        k->string = c->string;
        append(n, k);
    }
    return n;
}

static int add_anchor(struct build *b, const char *name, const cJSON *node)
{
    if (!name)
        return 0;
    if (b->n_anchors == b->cap_anchors) {
        size_t cap = b->cap_anchors ? 2 * b->cap_anchors : 8;
        struct anchor *v = arena_calloc(b->a, cap, sizeof(*v));

        if (!v)
            return oom(b->r);
        if (b->n_anchors)
            memcpy(v, b->anchors, b->n_anchors * sizeof(*v));
        b->anchors = v;
        b->cap_anchors = cap;
    }
    b->anchors[b->n_anchors].name = arena_strdup(b->a, name);
    if (!b->anchors[b->n_anchors].name)
        return oom(b->r);
    b->anchors[b->n_anchors++].node = node;
    return 0;
}

static int alias(struct build *b, cJSON **out)
{
    const char *name = (const char *)b->r->ev.data.alias.anchor;
    char msg[160], q[80];
    size_t i;

    for (i = b->n_anchors; i-- > 0;) {
        if (strcmp(b->anchors[i].name, name))
            continue;
        *out = copy_tree(b, b->anchors[i].node, 0);
        if (*out)
            return 0;
        if (b->budget == 0) {
            snprintf(msg, sizeof(msg),
                     "aliases expand to more than %d nodes (at *%s)",
                     YAML_READER_ALIAS_BUDGET,
                     err_quote(q, sizeof(q), name, 40));
            return fail_at(b->r, &b->r->ev.start_mark, msg);
        }
        return oom(b->r);
    }
    snprintf(msg, sizeof(msg),
             "unknown anchor %s (anchors count within one object)",
             err_quote(q, sizeof(q), name, 40));
    return fail_at(b->r, &b->r->ev.start_mark, msg);
}

static int scalar(struct build *b, cJSON **out)
{
    const yaml_event_t *ev = &b->r->ev;
    const char *text = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    struct yaml_scalar s;
    static const int types[] = {
        [YAML_SCALAR_STRING] = cJSON_String, [YAML_SCALAR_NULL] = cJSON_NULL,
        [YAML_SCALAR_TRUE] = cJSON_True,     [YAML_SCALAR_FALSE] = cJSON_False,
        [YAML_SCALAR_NUMBER] = cJSON_Number,
    };
    char msg[160], q[80];
    cJSON *n;

    yaml_scalar_resolve(text, len,
                        ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE,
                        (const char *)ev->data.scalar.tag, &s);
    if (s.kind == YAML_SCALAR_BAD) {
        snprintf(msg, sizeof(msg), "%s is not a number JSON can hold",
                 err_quote(q, sizeof(q), text, 40));
        return fail_at(b->r, &ev->start_mark, msg);
    }
    n = new_node(b, types[s.kind]);
    if (!n)
        return oom(b->r);
    if (s.kind == YAML_SCALAR_STRING) {
        n->valuestring = arena_strndup(b->a, text, len);
        if (!n->valuestring)
            return oom(b->r);
    } else if (s.kind == YAML_SCALAR_NUMBER) {
        n->valuedouble = s.d;
        n->valueint = s.d >= (double)INT_MAX   ? INT_MAX
                      : s.d <= (double)INT_MIN ? INT_MIN
                                               : (int)s.d;
        n->valuestring = arena_strdup(b->a, s.num);
        if (!n->valuestring)
            return oom(b->r);
    }
    *out = n;
    return 0;
}

/*
 * The text of the key at the reader (a scalar, or an alias of one), as
 * sigs.k8s.io/yaml writes a key: resolved numbers and booleans as JSON
 * text, null as "null". Sets *merge for a plain `<<`.
 */
static char *key_text(struct yaml_reader *r, struct arena *a, bool *merge)
{
    const yaml_event_t *ev = &r->ev;
    struct yaml_scalar s;
    const char *text;
    size_t len;

    *merge = false;
    if (ev->type != YAML_SCALAR_EVENT) {
        fail_at(r, &ev->start_mark,
                ev->type == YAML_ALIAS_EVENT
                    ? "an alias as a mapping key is not supported"
                    : "a mapping or sequence as a mapping key cannot be "
                      "JSON");
        return NULL;
    }
    text = (const char *)ev->data.scalar.value;
    len = ev->data.scalar.length;
    yaml_scalar_resolve(text, len,
                        ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE,
                        (const char *)ev->data.scalar.tag, &s);
    *merge = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
             !ev->data.scalar.tag && len == 2 && !memcmp(text, "<<", 2);
    switch (s.kind) {
    case YAML_SCALAR_NULL:
        text = "null";
        len = 4;
        break;
    case YAML_SCALAR_TRUE:
        text = "true";
        len = 4;
        break;
    case YAML_SCALAR_FALSE:
        text = "false";
        len = 5;
        break;
    case YAML_SCALAR_NUMBER:
        text = s.num;
        len = strlen(s.num);
        break;
    default:
        break;
    }
    {
        char *k = arena_strndup(a, text, len);

        if (!k)
            oom(r);
        return k;
    }
}

static int build(struct build *b, int depth, cJSON **out);

/* `<<: value`: merge a mapping, or a sequence of them, as yaml.v2 does. */
static int merge(struct build *b, struct keyset *ks, cJSON *obj, const cJSON *v,
                 const yaml_mark_t *at)
{
    const cJSON *m, *c;

    if (cJSON_IsObject(v)) {
        for (c = v->child; c; c = c->next) {
            cJSON *k = copy_tree(b, c, 0);

            if (!k)
                return b->budget ? oom(b->r)
                                 : fail_at(b->r, at, "merge too large");
            if (set_member(b, ks, at, false, obj, c->string, k) < 0)
                return -1;
        }
        return 0;
    }
    if (!cJSON_IsArray(v))
        return fail_at(b->r, at,
                       "map merge requires a map or a sequence of maps as "
                       "the value");
    /* Later maps first, so the earlier ones win. */
    for (m = v->child ? v->child->prev : NULL; m;
         m = m == v->child ? NULL : m->prev) {
        if (!cJSON_IsObject(m))
            return fail_at(b->r, at,
                           "map merge requires a map or a sequence of maps "
                           "as the value");
        if (merge(b, ks, obj, m, at) < 0)
            return -1;
    }
    return 0;
}

static int build_mapping(struct build *b, int depth, cJSON *n)
{
    struct yaml_reader *r = b->r;
    struct keyset ks = { NULL, 0, 0 };
    yaml_mark_t at;
    bool is_merge;
    cJSON *v;
    char *key;

    for (;;) {
        if (fetch(r) < 0)
            return -1;
        if (r->ev.type == YAML_MAPPING_END_EVENT) {
            consume(r);
            return 0;
        }
        at = r->ev.start_mark;
        key = key_text(r, b->a, &is_merge);
        if (!key)
            return -1;
        consume(r);
        if (build(b, depth + 1, &v) < 0)
            return -1;
        if (is_merge ? merge(b, &ks, n, v, &at) < 0
                     : set_member(b, &ks, &at, true, n, key, v) < 0)
            return -1;
    }
}

static int build(struct build *b, int depth, cJSON **out)
{
    struct yaml_reader *r = b->r;
    const char *anchor = NULL;
    bool map;
    cJSON *n, *v;

    if (fetch(r) < 0)
        return -1;
    if (depth > YAML_READER_MAX_DEPTH)
        return fail_at(r, &r->ev.start_mark, "nesting deeper than 256 levels");
    switch (r->ev.type) {
    case YAML_ALIAS_EVENT:
        if (alias(b, out) < 0)
            return -1;
        consume(r);
        return 0;
    case YAML_SCALAR_EVENT:
        if (scalar(b, out) < 0 ||
            add_anchor(b, (const char *)r->ev.data.scalar.anchor, *out) < 0)
            return -1;
        consume(r);
        return 0;
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT:
        break;
    default:
        return fail_at(r, &r->ev.start_mark, "unexpected YAML event");
    }
    map = r->ev.type == YAML_MAPPING_START_EVENT;
    anchor = (const char *)(map ? r->ev.data.mapping_start.anchor
                                : r->ev.data.sequence_start.anchor);
    if (anchor && !(anchor = arena_strdup(b->a, anchor)))
        return oom(r);
    n = new_node(b, map ? cJSON_Object : cJSON_Array);
    if (!n)
        return oom(r);
    consume(r);
    if (map) {
        if (build_mapping(b, depth, n) < 0)
            return -1;
    } else {
        for (;;) {
            if (fetch(r) < 0)
                return -1;
            if (r->ev.type == YAML_SEQUENCE_END_EVENT) {
                consume(r);
                break;
            }
            if (build(b, depth + 1, &v) < 0)
                return -1;
            append(n, v);
        }
    }
    *out = n;
    return add_anchor(b, anchor, n);
}

int yreader_value(struct yaml_reader *r, struct arena *a, cJSON **out)
{
    struct build b = { r, a, NULL, 0, 0, YAML_READER_ALIAS_BUDGET };

    *out = NULL;
    return build(&b, r->depth, out);
}

int yreader_enter(struct yaml_reader *r)
{
    if (fetch(r) < 0)
        return -1;
    if (r->ev.type != YAML_MAPPING_START_EVENT &&
        r->ev.type != YAML_SEQUENCE_START_EVENT)
        return fail_at(r, &r->ev.start_mark, "expected a mapping or sequence");
    if (r->depth >= YAML_READER_MAX_DEPTH)
        return fail_at(r, &r->ev.start_mark, "nesting deeper than 256 levels");
    r->is_map[++r->depth] = r->ev.type == YAML_MAPPING_START_EVENT;
    consume(r);
    return 0;
}

int yreader_next(struct yaml_reader *r, struct arena *a, char **key)
{
    bool is_merge;

    if (key)
        *key = NULL;
    if (r->depth <= 0)
        return err_set(r->e, "yreader_next: no open container");
    if (fetch(r) < 0)
        return -1;
    if (r->ev.type == YAML_MAPPING_END_EVENT ||
        r->ev.type == YAML_SEQUENCE_END_EVENT) {
        consume(r);
        r->depth--;
        return 0;
    }
    if (!r->is_map[r->depth])
        return 1;
    *key = key_text(r, a, &is_merge);
    if (!*key)
        return -1;
    consume(r);
    return 1;
}

int yaml_parse_one(struct arena *a, const char *buf, size_t len,
                   struct cJSON **out, struct yaml_notes *notes, struct err *e)
{
    struct yaml_reader r;
    int rc;

    *out = NULL;
    if (notes)
        memset(notes, 0, sizeof(*notes));
    if (yreader_init_buffer(&r, buf, len, e) < 0) {
        yreader_free(&r);
        return -1;
    }
    rc = yreader_document(&r);
    if (rc == 0)
        rc = err_set(e, "no YAML document");
    else if (rc > 0)
        rc = yreader_value(&r, a, out);
    if (rc >= 0 && notes) {
        struct err ignored;

        memcpy(notes->dup, r.dup, sizeof(notes->dup));
        r.e = &ignored; /* what follows is not read: no error of its own */
        notes->more_docs = yreader_document(&r) == 1;
    }
    yreader_free(&r);
    return rc < 0 ? -1 : 0;
}
