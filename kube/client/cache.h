/*
 * cache.h: the live object store. Informers (informer.h) deliver watch
 * events; the cache decodes them, owns one copy of each object (a replaced
 * or deleted version is freed) and keeps the SAME struct cluster the
 * predicates read (cluster.h) up to date incrementally: a pod event
 * touches only its node's aggregates, nodes are added, updated and
 * removed in place, and the object lists (services, controllers, volumes,
 * classes, CSINodes, namespaces) follow their events.
 *
 * Concurrency: one pthread rwlock, preferring writers. The informer thread
 * decodes a batch with no lock held, then applies it under the write lock
 * (pointer swaps and aggregate arithmetic: microseconds per event) and
 * frees replaced objects after unlocking. A request handler holds the
 * read lock for the whole request, so everything it reads is one
 * consistent state; many handlers read at once. Writer preference keeps
 * a steady stream of requests from starving the informer; therefore a
 * thread must never take the read lock twice (it could deadlock against
 * a waiting writer).
 *
 * How the server uses it, behind the same `const struct cluster *` as the
 * static --cluster snapshot:
 *
 *   struct kube_conn conn;            // kube_conn_resolve (kubeconfig.h)
 *   struct kube_client *cl = kube_client_new(&conn, NULL, &e);
 *   struct kube_cache *cache = kube_cache_new(KUBE_KINDS_ALL, &e);
 *   kube_cache_start(cache, cl, NULL, &e);     // informer thread
 *   ...
 *   // per request:
 *   const struct cluster *c = kube_cache_read_lock(cache);
 *   ... evaluate against c ...
 *   kube_cache_read_unlock(cache);
 *   // /readyz: kube_cache_synced(cache), kube_cache_status(cache, &st)
 *   ...
 *   kube_cache_free(cache);           // stops the informers first
 *   kube_client_free(cl);
 */
#ifndef KUBE_CLIENT_CACHE_H
#define KUBE_CLIENT_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/client/client.h"
#include "kube/cluster/cluster.h"
#include "kube/cluster/compact.h"
#include "kube/base/err.h"
#include "kube/client/informer.h"
#include "kube/model/types.h"

/* The only node annotation kept is KUBE_ANNOTATION_PREFER_AVOID_PODS. */

struct kube_cache;

/*
 * An empty cache that counts as synced once every kind in `kinds`
 * (KUBE_KIND_BIT()s; 0: KUBE_KINDS_ALL) has been listed once. NULL with e
 * set on failure.
 */
struct kube_cache *kube_cache_new(unsigned kinds, struct err *e);

/* Stop the informers (if started) and free every object. NULL is fine. */
void kube_cache_free(struct kube_cache *c);

/*
 * Start informers for the cache's kinds on client (which must outlive
 * the cache), feeding this cache. o may be NULL; o->kinds is ignored.
 * Returns 0, or -1 with e set. At most once per cache.
 */
int kube_cache_start(struct kube_cache *c, struct kube_client *client,
                     const struct kube_informer_opts *o, struct err *e);

/*
 * Lock the cache for reading and return the cluster, valid (and
 * unchanging) until kube_cache_read_unlock. Never nest on one thread.
 */
const struct cluster *kube_cache_read_lock(struct kube_cache *c);
void kube_cache_read_unlock(struct kube_cache *c);

/* True once every expected kind has been listed (stays true). */
bool kube_cache_synced(const struct kube_cache *c);

/* The informers' status (zeroed when not started). */
void kube_cache_status(struct kube_cache *c, struct kube_informers_status *out);

/* The informer sink that feeds this cache (for tests and custom sources). */
void kube_cache_sink(struct kube_cache *c, struct kube_informer_sink *out);

/*
 * The event-apply path the sink uses, callable directly (bench, tests):
 * decode every object (no lock held), then apply them all under the write
 * lock. ADDED and MODIFIED both mean "this is the object now"; DELETED of
 * an unknown object is ignored. An object that does not decode is skipped
 * (the cache keeps its previous version, if any) and the others are
 * applied; then -1 is returned with e naming the first such object
 * ("object skipped: event 3: spec.taints: ..."). -1 also when memory ran
 * out. 0 otherwise.
 */
int kube_cache_apply(struct kube_cache *c, enum kube_kind kind,
                     const struct kube_watch_event *ev, size_t n,
                     struct err *e);

/*
 * A full list of kind starts / ends: objects of that kind not applied in
 * between are deleted at the end, and the kind counts as listed.
 */
void kube_cache_list_begin(struct kube_cache *c, enum kube_kind kind);
void kube_cache_list_end(struct kube_cache *c, enum kube_kind kind);

struct kube_cache_stats {
    size_t objects[KUBE_KIND_COUNT]; /* by enum kube_kind */
    size_t object_bytes;             /* memory held by object copies */
    size_t orphan_pods;              /* bound to nodes the cache has not seen */
};

void kube_cache_stats(struct kube_cache *c, struct kube_cache_stats *out);

/*
 * Assumed pods, for a scheduler (kube-scheduler's AssumePod / ForgetPod /
 * FinishBinding): the decision is accounted at once so the next one sees
 * its resources and ports, before the API server confirms the binding.
 *
 * kube_cache_assume_pod: account a copy of pod (made here; pod is not
 * kept) with nodeName `node` on that node, replacing an earlier
 * assumption of the same namespace/name. The copy goes away by itself
 * when the watch delivers the pod with a nodeName (the real object is
 * then accounted instead: never both) or deletes it. Returns 1 when
 * assumed, 0 when the node is unknown, KUBE_CACHE_POD_BOUND when the cache
 * already holds the pod on a node, -1 when out of memory.
 * kube_cache_forget_pod: drop the assumption (a failed bind). Returns 1
 * when there was one, 0 otherwise.
 * kube_cache_finish_binding: the bind succeeded; the assumption expires
 * at `deadline` (kube_now() seconds) unless the watch confirms it first.
 * kube_cache_cleanup_assumed: drop the finished assumptions whose
 * deadline passed; returns how many.
 * kube_cache_pod_assumed: whether ns/name is assumed now (read lock).
 */
#define KUBE_CACHE_POD_BOUND (-2)

int kube_cache_assume_pod(struct kube_cache *c, const struct kube_pod *pod,
                          const char *node);
int kube_cache_forget_pod(struct kube_cache *c, const char *ns,
                          const char *name);
void kube_cache_finish_binding(struct kube_cache *c, const char *ns,
                               const char *name, double deadline);
size_t kube_cache_cleanup_assumed(struct kube_cache *c, double now);
bool kube_cache_pod_assumed(struct kube_cache *c, const char *ns,
                            const char *name);

#endif
