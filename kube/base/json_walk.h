/*
 * json_walk.h: typed getters over a cJSON tree that keep the JSON path of
 * the value being read, so every error names it ("spec.containers[2].image:
 * expected a string, got number"). Internal to kube/; no cJSON pointer
 * leaves the parse functions. A JSON null reads as "absent" everywhere, as
 * Go's encoding/json treats it.
 */
#ifndef KUBE_BASE_JSON_WALK_H
#define KUBE_BASE_JSON_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"

#define JW_PATH_MAX 512

/* The walk state: where results go, where errors go, the current path. */
struct jw {
    struct arena *a;
    struct err *e;
    size_t len;             /* strlen(path) */
    char path[JW_PATH_MAX]; /* e.g. "items[3].spec"; "" at the root */
};

/* Start a walk at prefix (NULL or "" for the document root). */
void jw_init(struct jw *w, struct arena *a, struct err *e, const char *prefix);

/* Descend into a key or an index; both return a mark for jw_pop(). */
size_t jw_push(struct jw *w, const char *key);
size_t jw_push_index(struct jw *w, size_t i);
void jw_pop(struct jw *w, size_t mark);

/* Set e to "<path>: <message>" (or just the message at the root); -1. */
int jw_fail(struct jw *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* jw_fail() at path.key without keeping key on the path. */
int jw_fail_key(struct jw *w, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "expected <want>, got <what v is>" at the current path. */
int jw_fail_type(struct jw *w, const char *want, const cJSON *v);

/* "out of memory" at the current path. */
int jw_oom(struct jw *w);

/* The member key of obj, NULL when obj is NULL, key absent or null. */
const cJSON *jw_get(const cJSON *obj, const char *key);

/* Number of elements of an array (0 for NULL). */
size_t jw_count(const cJSON *arr);

/* Allocate n zeroed elements of size sz from the arena (never NULL for 0). */
void *jw_calloc(struct jw *w, size_t n, size_t sz);

/*
 * Value readers: v is the value at the current path (NULL = absent).
 * Each returns 0 or -1 with the error naming the path and the value.
 */
int jw_as_object(struct jw *w, const cJSON *v);
int jw_as_array(struct jw *w, const cJSON *v);
int jw_as_string(struct jw *w, const cJSON *v, const char *dflt,
                 const char **out);
/* Integers: a plain decimal text is read exactly, as Go's ParseInt
 * (INT64_MAX fits an int64; one more is out of range, named as written);
 * 1e3 or 2.0 through the double. */
int jw_as_int32(struct jw *w, const cJSON *v, int32_t *out);
int jw_as_int64(struct jw *w, const cJSON *v, int64_t *out);

/*
 * Member readers: obj may be NULL (then everything is absent). Absent or
 * null members leave the default (dflt / NULL / 0 / false) and clear the
 * optional `present` flag.
 */
int jw_object(struct jw *w, const cJSON *obj, const char *key,
              const cJSON **out);
int jw_array(struct jw *w, const cJSON *obj, const char *key, const cJSON **out,
             size_t *n);
int jw_string(struct jw *w, const cJSON *obj, const char *key, const char *dflt,
              const char **out);
/* A string that must be present (a JSON null counts as missing). */
int jw_string_req(struct jw *w, const cJSON *obj, const char *key,
                  const char **out);
int jw_bool(struct jw *w, const cJSON *obj, const char *key, bool *out);
int jw_int32(struct jw *w, const cJSON *obj, const char *key, int32_t *out,
             bool *present);
int jw_int64(struct jw *w, const cJSON *obj, const char *key, int64_t *out,
             bool *present);
/* An RFC 3339 timestamp as seconds since the epoch (0 when absent). */
int jw_time(struct jw *w, const cJSON *obj, const char *key, int64_t *out,
            bool *present);
/* An array of strings; null elements read as "". */
int jw_string_array(struct jw *w, const cJSON *obj, const char *key,
                    const char ***out, size_t *n);

/*
 * The shortest decimal text that reads back as d (for messages and for
 * quantities written as JSON numbers). Writes into buf and returns it.
 */
const char *jw_number_text(double d, char *buf, size_t sz);

/*
 * The number v as written: its source text when the parser kept it
 * (json_arena_parse does), else jw_number_text. For messages and for
 * quantities written as JSON numbers: never a different number than the
 * one received (1e309 is not 1e999).
 */
const char *jw_number_source(const cJSON *v, char *buf, size_t sz);

/* Decode one array element (obj NULL for a JSON null) into out. */
typedef int jw_decode_fn(struct jw *w, const cJSON *obj, void *out);

/*
 * Decode the array obj.key of objects into a zeroed arena array of *n
 * elements of size bytes each, calling fn at path key[i] for each. Returns
 * the array (NULL when absent, *n = 0); on failure *rc = -1 (else 0).
 */
void *jw_objects(struct jw *w, const cJSON *obj, const char *key, size_t size,
                 jw_decode_fn *fn, size_t *n, int *rc);

/* Parse RFC 3339 ("2006-01-02T15:04:05Z07:00", fraction optional). */
int jw_parse_rfc3339(const char *s, int64_t *out);

#endif
