/*
 * term_index.h: the cluster's distinct pod (anti-)affinity terms.
 *
 * Replicas of one Deployment carry identical affinity terms, so a
 * 5,000-node cluster with 40,000 pods that have terms has only a few
 * hundred distinct ones. InterPodAffinity scoring asks of every existing
 * pod's term "does it match the incoming pod?"; with the terms interned,
 * a request answers that once per distinct term and then walks compact
 * per-node entries (struct node_info.aff_entries) instead of chasing
 * every pod's selectors.
 *
 * A term is identified by its content (label selector, namespaces,
 * namespace selector, topology key) and, when it names no namespaces and
 * has no namespace selector, by its owner pod's namespace, which it then
 * means. The index keeps its own copy of each distinct term, counts its
 * users, and frees it when the last one goes. Ids are small integers,
 * reused after a term is freed; n_ids bounds them for per-request arrays.
 */
#ifndef KUBE_CLUSTER_TERM_INDEX_H
#define KUBE_CLUSTER_TERM_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "kube/model/types.h"

struct term_index_term {
    struct kube_pod_affinity_term *term; /* our copy; NULL: a free id */
    const char *owner_ns; /* its owner's namespace when it lists none */
    uint64_t hash;
    uint32_t refs;
};

struct term_index {
    uint32_t n_ids; /* ids in use are below this */
    uint32_t cap_ids;
    struct term_index_term *terms; /* by id */
    uint32_t n_free;
    uint32_t *free_ids;
    /* hash -> id + 1 (0: empty), open addressing; size a power of two */
    uint32_t *slots;
    size_t n_slots;
    size_t n_used;
};

/*
 * The id of the term t of a pod in namespace owner_ns, interned on first
 * sight; each call takes one reference. The term's selectors must be
 * valid (no `invalid` reason). Returns 0, or -1 when out of memory.
 */
int term_index_intern(struct term_index *x,
                      const struct kube_pod_affinity_term *t,
                      const char *owner_ns, uint32_t *id);

/* Drop one reference to id; the last one frees the term and the id. */
void term_index_release(struct term_index *x, uint32_t id);

/* The term behind id, and the namespace it means (see above). */
const struct term_index_term *term_index_get(const struct term_index *x,
                                             uint32_t id);

/* Number of distinct terms held. */
size_t term_index_size(const struct term_index *x);

void term_index_free(struct term_index *x);

#endif
