/*
 * json_parse.h: a strict, fast JSON parser whose output is a tree of plain
 * cJSON structs allocated from an arena, so every cJSON read function
 * (cJSON_GetObjectItemCaseSensitive, cJSON_ArrayForEach, cJSON_IsString,
 * ->valuestring, ->valuedouble, ->child/->next) works on it unchanged.
 */
#ifndef KUBE_BASE_JSON_PARSE_H
#define KUBE_BASE_JSON_PARSE_H

#include <stddef.h>

struct arena;
struct cJSON;
struct err;

/*
 * Deepest nesting of arrays and objects accepted: 512 nested containers
 * parse, the 513th is an error. The parser keeps its own stack of this
 * size and never recurses.
 */
#define JSON_ARENA_MAX_DEPTH 512

/*
 * Flag: refuse a string holding \u0000. Strings are read as C strings, so
 * without it "rdma-1\u0000evil" reads as "rdma-1"; request bodies set it
 * (the API server refuses such names), stored data keeps Go's decoding.
 */
#define JSON_ARENA_NO_NUL 0x1u

/*
 * Flag: duplicate keys of an object read as Go's encoding/json reads them
 * (json_dups.h): the last wins, two objects under one key merge. Request
 * bodies set it; the cost is a bit test per key, and a pass over an
 * object only when two of its keys may be equal.
 */
#define JSON_ARENA_GO_KEYS 0x2u

/*
 * Parse the JSON text buf[0..len) into a cJSON tree allocated from a.
 *
 * Input: buf need not be NUL-terminated; nothing at or past buf[len] is
 * read. flags: 0, JSON_ARENA_NO_NUL, JSON_ARENA_GO_KEYS, or both. The text must
 * be exactly one JSON value (RFC 8259), optionally surrounded by whitespace:
 * space, tab, CR and LF only (cJSON also skips other control bytes; Go does
 * not).
 *
 * Output: on success *out is the root and 0 is returned. Every node, key
 * and string lives in a until arena_destroy(a); never call cJSON_Delete on
 * the tree, and do not add, detach or replace items (cJSON would free
 * them). The nodes look exactly as cJSON_Parse builds them: type is one of
 * cJSON_False/True/NULL/Number/String/Array/Object with no extra bits;
 * a container's child is its first element, elements are linked through
 * next (the last one's next is NULL) and prev (the first one's prev is the
 * last element); object members carry their key in ->string.
 *
 * Values, where they differ from cJSON or Go's encoding/json:
 * - Numbers: valuedouble is the correctly rounded double (as strtod in the
 *   "C" locale gives; out-of-range numbers become +-inf or 0 as with cJSON,
 *   where Go reports an error at decode time), valueint is valuedouble
 *   saturated to INT_MIN..INT_MAX as cJSON does. ADDITIONALLY valuestring
 *   holds the number's exact source text ("-12", "1.5e3"), so int64 values
 *   beyond 2^53 can be read exactly; cJSON's own readers ignore it.
 * - Strings and keys are decoded (escapes resolved) into NUL-terminated
 *   UTF-8. As in Go's encoding/json, a lone or mismatched UTF-16 surrogate
 *   escape (\uD800) and every byte that is not part of valid UTF-8 become
 *   U+FFFD (cJSON rejects the first and copies the second). \u0000 decodes
 *   to a NUL byte, so the C string ends there (as with cJSON).
 * - Duplicate keys are kept, in document order; cJSON lookups return the
 *   first one, whereas Go's decoder keeps the last: JSON_ARENA_GO_KEYS
 *   resolves them as Go does.
 *
 * Errors: returns -1 with e->msg set (e may be NULL), *out is NULL and a
 * may hold partial allocations (released by arena_destroy). Messages are
 *   invalid JSON at byte 1234 (line 5, column 17): expected ',' or '}'
 *   after object member near "\"image\": \"ngi"
 *   invalid JSON at byte 98 (line 6, column 3): trailing comma in array
 *   near "]"
 *   invalid JSON at byte 9 (line 1, column 10): unterminated string (no
 *   closing quote) near "\"Policy}"    (at the opening quote)
 *   unexpected end of input at byte 1300
 *   out of memory parsing JSON (N bytes)
 * with 0-based byte offsets and 1-based lines and byte columns; "near"
 * quotes up to 16 bytes of the line from the error (whole UTF-8
 * characters only). Rejected:
 * empty input, trailing data, trailing commas, leading zeros, NaN and
 * Infinity, control characters in strings, invalid escapes, nesting
 * deeper than JSON_ARENA_MAX_DEPTH.
 */
int json_arena_parse(struct arena *a, const char *buf, size_t len,
                     unsigned flags, struct cJSON **out, struct err *e);

/*
 * Offset of the first byte of s[0..n) that is not part of valid UTF-8
 * (as json_arena_parse judges strings), or n when all of it is valid.
 */
size_t json_utf8_invalid_at(const char *s, size_t n);

/*
 * json_arena_parse, decoding strings in place: keys and string values
 * point into buf (each is NUL-terminated where its closing quote was), so
 * buf must stay alive and unchanged as long as the tree is used. Number
 * texts, strings holding invalid UTF-8 (which grows into U+FFFD), and
 * strings with an escaped line feed (kept out of buf so error lines and
 * columns stay those of the input), go to the arena. buf is modified even
 * when parsing fails. Faster than copying when the caller owns a writable
 * copy of the body anyway.
 */
int json_arena_parse_in_situ(struct arena *a, char *buf, size_t len,
                             unsigned flags, struct cJSON **out, struct err *e);

/*
 * A pull reader over one JSON text, for texts too big for one tree: walk
 * the outer containers element by element and parse each inner value into
 * a tree of its own (say one list item at a time, into an arena reset
 * after each). The reader accepts exactly what json_arena_parse accepts,
 * and every error, at the same place, has json_arena_parse's message for
 * the whole text: bytes, lines and columns count from buf[0]. The reader
 * holds no memory; copy the struct to come back to a position.
 *
 * Use: json_reader_init; then at a value either json_reader_value (the
 * whole value as a tree) or, when json_reader_peek says '{' or '[',
 * json_reader_enter and a loop on json_reader_next, which returns 1 before
 * each element (with its key for an object) and 0 once the container has
 * closed. When the outermost value is done, trailing data is an error, as
 * for json_arena_parse.
 */
struct json_reader {
    const char *buf;
    size_t len;
    size_t pos; /* next byte to read */
    struct err *e;
    int depth; /* open containers */
    int fresh; /* the innermost container was just entered */
    unsigned char is_obj[(JSON_ARENA_MAX_DEPTH + 8) / 8]; /* bit per level */
};

/* Start reading buf[0..len) (buf need not be NUL-terminated). */
void json_reader_init(struct json_reader *r, const char *buf, size_t len,
                      struct err *e);

/* Skip whitespace; the next byte, or -1 at the end of the text. */
int json_reader_peek(struct json_reader *r);

/*
 * Parse the value at the reader (an element of the open container, or the
 * whole text) into a tree allocated from a, as json_arena_parse builds it
 * (strings are copied). Returns 0 with *out set, or -1 with e set.
 */
int json_reader_value(struct json_reader *r, struct arena *a,
                      struct cJSON **out);

/*
 * Open the object or array at the reader; json_reader_peek must have
 * returned '{' or '['. Returns 0, or -1 with e set (nesting too deep).
 */
int json_reader_enter(struct json_reader *r);

/*
 * Move to the next element of the innermost open container: returns 1
 * when one follows (for an object, *key is its decoded key, allocated
 * from a; NULL for an array), 0 when the container closed (and, for the
 * outermost one, nothing but whitespace follows), -1 with e set.
 */
int json_reader_next(struct json_reader *r, struct arena *a, char **key);

#endif
