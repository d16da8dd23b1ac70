/*
 * json_dups.h: duplicate object keys read as Go's encoding/json reads
 * them (issue 29). Go decodes every member in document order into the
 * field or map entry its key names, so the last one wins; a value decoded
 * into a struct, a pointer to one or a map that is already there is
 * filled in place, so two objects under one key merge (their members
 * again last-wins); anything else (an array, a scalar, null) replaces.
 * And a struct field takes every key equal to its name ignoring case
 * ("nodenames" fills NodeNames), where a map key matches exactly.
 *
 * cJSON lookups return the first member instead. json_arena_parse with
 * JSON_ARENA_GO_KEYS resolves exact duplicates as the tree is built
 * (json_dups_resolve); json_member_go reads a struct field by its name.
 */
#ifndef KUBE_BASE_JSON_DUPS_H
#define KUBE_BASE_JSON_DUPS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct arena;
struct cJSON;

/*
 * A bit (0..63) from a hash of the key's length (n bytes) and its first and
 * last 8 bytes: keys whose bits differ are not equal. The parser ORs them per
 * object and calls json_dups_resolve only when a bit repeats. (The first 8
 * bytes alone would make most label maps collide: "app.kubernetes.io/name",
 * "app.kubernetes.io/part-of"; a byte-wise hash of the whole key costs 3%
 * of a filter's CPU.)
 */
static inline unsigned json_dups_key_hash(const char *key, size_t n)
{
    uint64_t head = 0, tail = 0;

    memcpy(&head, key, n < 8 ? n : 8);
    if (n > 8)
        memcpy(&tail, key + n - 8, 8);
    return (unsigned)(((head * 0x9e3779b97f4a7c15u) ^
                       ((tail + n) * 0xc2b2ae3d27d4eb4fu)) >>
                      58);
}

static inline uint64_t json_dups_key_bit(const char *key, size_t n)
{
    return (uint64_t)1 << json_dups_key_hash(key, n);
}

/*
 * Resolve the members of obj with equal keys (exactly equal: a map's
 * keys, or a struct's exact names) as Go decodes them: objects merged
 * into the first of them, anything else replacing. obj keeps one member
 * per key; what goes is unlinked (it stays in the arena). a: scratch for
 * big objects (without it, or out of memory, the same in quadratic time).
 */
void json_dups_resolve(struct arena *a, struct cJSON *obj);

/* json_dups_resolve on every object of the tree at v, as parsing with
 * JSON_ARENA_GO_KEYS would have done. */
void json_dups_resolve_tree(struct arena *a, struct cJSON *v);

/*
 * Does the decoded key k (UTF-8, n bytes) name the ASCII struct field
 * `name` for Go's decoder: equal ignoring ASCII case, where U+017F (long
 * s) also folds to s and U+212A (Kelvin sign) to k, the two non-ASCII
 * letters that fold to ASCII ones (Go: encoding/json foldName)?
 */
int json_key_names_field(const char *k, size_t n, const char *name);

/*
 * The member of obj that Go's decoder would put into a struct field named
 * key: every member whose key equals key ignoring ASCII case, later ones
 * over earlier ones, objects merged (into the first, in the tree). NULL
 * when none (or obj is not an object).
 */
struct cJSON *json_member_go(struct arena *a, struct cJSON *obj,
                             const char *key);

#endif
