/*
 * json_scan.h: byte ranges of values in JSON text that has already been
 * validated (by json_arena_parse), so a server can echo parts of a request
 * verbatim instead of re-serializing them.
 */
#ifndef KUBE_BASE_JSON_SCAN_H
#define KUBE_BASE_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

struct json_span {
    size_t start; /* offset of the value's first byte */
    size_t end;   /* offset just past its last byte */
};

/*
 * In the object whose '{' is at or after *pos, find the member that Go's
 * decoder puts into a struct field named key (json_dups.h: equal ignoring
 * case, escapes resolved; the last one wins) and return its value's span.
 * Returns true when found. Two objects under such keys merge in Go: the
 * span is only the last one's.
 */
bool json_scan_member(const char *buf, size_t len, struct json_span obj,
                      const char *key, struct json_span *val);

/*
 * The spans of the elements of the array `arr` (which must be an array):
 * calls fn(arg, i, span) for each; stops early when fn returns non-zero.
 * Returns the number of elements visited.
 */
size_t json_scan_array(const char *buf, size_t len, struct json_span arr,
                       int (*fn)(void *arg, size_t i, struct json_span el),
                       void *arg);

/* The span of the value starting at the first non-blank at or after pos. */
struct json_span json_scan_value(const char *buf, size_t len, size_t pos);

#endif
