/*
 * json_writer.h: a small streaming JSON writer into a growable buffer,
 * compact (extender responses) or indented (explain, check). Commas and
 * indentation are handled by the writer; strings are escaped as Go's
 * encoding/json escapes them (<, >, & included).
 */
#ifndef KUBE_BASE_JSON_WRITER_H
#define KUBE_BASE_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/base/strbuf.h"

#define JSONW_MAX_DEPTH 64

struct jsonw {
    /*
     * The text so far; out.failed: out of memory or misuse, the output is
     * unusable. out.charge (NULL after jsonw_init): the growth is charged
     * to this arena's limit and budget, and fails the writer when refused.
     */
    struct strbuf out;
    int indent; /* spaces per level; 0 = compact */
    int depth;
    bool first[JSONW_MAX_DEPTH]; /* no member written yet at this level */
    bool after_key;
};

void jsonw_init(struct jsonw *w, int indent);
void jsonw_free(struct jsonw *w);

/* Hand over the buffer (caller frees) and reset w; NULL when failed. */
char *jsonw_take(struct jsonw *w, size_t *len);

void jsonw_begin_object(struct jsonw *w);
void jsonw_end_object(struct jsonw *w);
void jsonw_begin_array(struct jsonw *w);
void jsonw_end_array(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_string(struct jsonw *w, const char *s); /* NULL writes null */
void jsonw_string_n(struct jsonw *w, const char *s, size_t n);
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* Insert already-encoded JSON text as one value (echoing request bytes). */
void jsonw_raw(struct jsonw *w, const char *json, size_t n);

#endif
