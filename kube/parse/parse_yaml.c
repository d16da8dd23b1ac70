/*
 * parse_yaml.c: Kubernetes YAML (`kubectl get -o yaml`, a List, any
 * <Kind>List, documents joined with ---) into the object model, through
 * the same one-item-at-a-time path as JSON (parse_stream.c's doc_stream),
 * so a snapshot streams from its file and is never held whole.
 */
#include "kube/parse/parse.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "kube/base/doc_format.h"
#include "kube/parse/parse_doc.h"
#include "kube/base/yaml_reader.h"

/* Where the document being read is, and the scratch arena for items. */
struct ypass {
    struct yaml_reader *r;
    struct arena *scratch;
    size_t doc; /* 1-based index of the document in the stream */
    /* Where the first item of each sort of failure starts (0: none). */
    size_t kind_line, kind_col, decode_line, decode_col;
};

/* Note where the first failing item of each sort starts. */
static void note_failure(struct ypass *p, const struct doc_stream *st,
                         bool kind_before, bool decode_before, size_t line,
                         size_t col)
{
    if (!kind_before && st->kind_failed) {
        p->kind_line = line;
        p->kind_col = col;
    }
    if (!decode_before && st->decode_failed) {
        p->decode_line = line;
        p->decode_col = col;
    }
}

/* Item i at the reader: build it into scratch, hand it over, drop it. */
static int read_item(struct ypass *p, struct doc_stream *st, size_t i,
                     const char *elem, bool second)
{
    bool kind_before = st->kind_failed, decode_before = st->decode_failed;
    size_t line, col;
    cJSON *it;
    int rc;

    yreader_where(p->r, &line, &col);
    rc = yreader_value(p->r, p->scratch, &it);
    if (rc == 0) {
        if (second)
            doc_stream_take(st, it, i, elem);
        else
            doc_stream_item(st, it, i);
        note_failure(p, st, kind_before, decode_before, line, col);
    }
    arena_destroy(p->scratch);
    return rc;
}

/* Skip to the first "items" of document p->doc and open it. */
static int seek_items(struct ypass *p)
{
    size_t d;
    char *key;
    int rc;

    if (yreader_restart(p->r) < 0)
        return -1;
    for (d = 0; d < p->doc; d++) {
        if (d > 0 && yreader_skip(p->r) < 0)
            return -1;
        if ((rc = yreader_document(p->r)) != 1)
            goto changed;
    }
    if (yreader_enter(p->r) < 0)
        return -1;
    while ((rc = yreader_next(p->r, p->scratch, &key)) == 1) {
        if (!strcmp(key, "items"))
            return yreader_enter(p->r);
        if (yreader_skip(p->r) < 0)
            return -1;
    }
changed:
    /* The first pass found them: the file changed under us. */
    return rc < 0 ? -1 : err_set(p->r->e, "the file changed while it was read");
}

/* doc_stream's second pass: the items from st->defer_index on. */
static int reread(void *arg, struct doc_stream *st, const char *elem,
                  struct err *e)
{
    struct ypass *p = arg;
    size_t i;
    int rc;

    p->r->e = e;
    if (seek_items(p) < 0)
        return -1;
    for (i = 0; (rc = yreader_next(p->r, NULL, NULL)) == 1; i++) {
        if (i < st->defer_index) {
            if (yreader_skip(p->r) < 0)
                return -1;
            continue;
        }
        if (read_item(p, st, i, elem, true) < 0)
            return -1;
        if (st->kind_failed)
            break;
    }
    return rc < 0 ? -1 : 0;
}

/* Every member of the top-level mapping, the first "items" streamed. */
static int read_mapping(void *arg, struct doc_stream *st, struct arena *top)
{
    struct ypass *p = arg;
    char *key;
    cJSON *v;
    size_t i;
    int rc;

    if (yreader_enter(p->r) < 0)
        return -1;
    while ((rc = yreader_next(p->r, top, &key)) == 1) {
        if (!strcmp(key, "items") && !st->items_seen) {
            st->items_seen = true;
            if (yreader_peek(p->r) == '[') {
                st->streamed = true;
                if (yreader_enter(p->r) < 0)
                    return -1;
                for (i = 0; (rc = yreader_next(p->r, NULL, NULL)) == 1; i++)
                    if (read_item(p, st, i, st->elem, false) < 0)
                        return -1;
                if (rc < 0)
                    return -1;
                continue;
            }
        } else if (!strcmp(key, "items")) {
            /* Lookups never see a later duplicate, as in parse_stream.c. */
            if (yreader_skip(p->r) < 0)
                return -1;
            continue;
        }
        if (yreader_value(p->r, top, &v) < 0)
            return -1;
        doc_stream_member(st, v, key);
    }
    return rc;
}

/* One document whose root is a mapping, streamed. */
static int stream_mapping(struct ypass *p, struct arena *a,
                          struct kube_objects *objs, struct err *e)
{
    struct doc_stream st;
    int rc;

    p->kind_line = p->decode_line = 0;
    rc = doc_stream_run(&st, a, objs, read_mapping, reread, p, e);
    /* doc_stream_finish reports a kind failure before a decode failure. */
    if (rc < 0 && st.kind_failed && p->kind_line)
        err_prefix(e, "line %zu, column %zu: ", p->kind_line, p->kind_col);
    else if (rc < 0 && st.decode_failed && p->decode_line)
        err_prefix(e, "line %zu, column %zu: ", p->decode_line, p->decode_col);
    return rc;
}

/* A document that is not a mapping: the tree path says what is wrong. */
static int whole_document(struct ypass *p, struct arena *a,
                          struct kube_objects *objs, struct err *e)
{
    cJSON *v;
    int rc;

    rc = yreader_value(p->r, p->scratch, &v);
    if (rc == 0 && cJSON_IsNull(v)) {
        arena_destroy(p->scratch);
        return 0; /* an empty document, as between two --- */
    }
    if (rc == 0)
        rc = parse_tree_document(a, v, "a mapping at the top level", objs, e);
    arena_destroy(p->scratch);
    return rc;
}

static int parse_stream(struct yaml_reader *r, struct arena *a,
                        struct kube_objects *objs, struct err *e)
{
    struct arena scratch;
    struct ypass p = { r, &scratch, 0, 0, 0, 0, 0 };
    size_t line, col;
    int rc;

    arena_init(&scratch, 0);
    while ((rc = yreader_document(r)) == 1) {
        p.doc++;
        yreader_where(r, &line, &col);
        rc = yreader_peek(r);
        if (rc == '{')
            rc = stream_mapping(&p, a, objs, e);
        else if (rc > 0)
            rc = whole_document(&p, a, objs, e);
        if (rc < 0) {
            if (p.doc > 1 && strncmp(e->msg, "invalid YAML", 12))
                err_prefix(e, "document %zu (line %zu): ", p.doc, line);
            break;
        }
    }
    arena_destroy(&scratch);
    return rc < 0 ? -1 : 0;
}

int kube_parse_yaml_file(struct arena *a, FILE *f, struct kube_objects *objs,
                         struct err *e)
{
    struct yaml_reader r;
    int rc = yreader_init_file(&r, f, e);

    if (rc == 0)
        rc = parse_stream(&r, a, objs, e);
    yreader_free(&r);
    return rc;
}

int kube_parse_yaml(struct arena *a, const char *buf, size_t len,
                    struct kube_objects *objs, struct err *e)
{
    struct yaml_reader r;
    int rc = yreader_init_buffer(&r, buf, len, e);

    if (rc == 0)
        rc = parse_stream(&r, a, objs, e);
    yreader_free(&r);
    return rc;
}

int kube_parse_pod_text(struct arena *a, const char *text, size_t len,
                        struct kube_pod *out, struct err *e)
{
    struct arena tree;
    cJSON *root;
    int rc;

    switch (doc_format_sniff(text, len, e)) {
    case DOC_FORMAT_JSON:
        return kube_parse_pod(a, text, len, out, e);
    case DOC_FORMAT_YAML:
        break;
    case DOC_FORMAT_INI:
        return err_set(e, "looks like INI; expected a Pod in JSON or YAML");
    default:
        return -1;
    }
    arena_init(&tree, 0);
    rc = yaml_parse_one(&tree, text, len, &root, NULL, e);
    if (rc == 0)
        rc = kube_pod_from_document(a, root, out, e);
    arena_destroy(&tree);
    return rc;
}
