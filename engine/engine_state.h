/*
 * engine_state.h: the state the evaluator works from (struct app), what a
 * request or a scheduling cycle reads — the loaded policy, its plans and
 * the cluster snapshot — published as one immutable, reference-counted
 * struct. A reload builds a complete new state and swaps the pointer;
 * requests in flight finish on the state they started with. Shared by
 * serve (extender_app.c) and schedule (scheduler.h).
 */
#ifndef ENGINE_ENGINE_STATE_H
#define ENGINE_ENGINE_STATE_H

#include <pthread.h>
#include <stdatomic.h>

#include "kube/base/arena.h"
#include "kube/cluster/cluster.h"
#include "kube/base/err.h"
#include "kube/model/types.h"
#include "policy/policy.h"
#include "engine/evaluate.h"

struct policy;

/* A cluster snapshot with the objects it points into. */
struct cluster_ref {
    atomic_int refs;
    struct arena arena; /* the parsed objects */
    struct kube_objects objs;
    struct cluster cluster;
};

struct app_state {
    atomic_int refs;
    struct policy *policy;
    struct eval_plans plans; /* built from policy at load */
    struct policy_role role; /* what the policy makes of the extender */
    struct cluster_ref *cluster;
};

struct app {
    pthread_mutex_t lock; /* guards cur only while it is read or swapped */
    struct app_state *cur;
    const char *policy_path;
    const char *const *cluster_paths;
    size_t n_cluster_paths;
    unsigned compat;              /* POLICY_COMPAT_* */
    unsigned gates;               /* POLICY_GATE_* */
    enum kpe_semantics semantics; /* --semantics */
};

/* Set up an empty app (no state yet). Paths must outlive the app. */
void app_init(struct app *app, const char *policy_path,
              const char *const *cluster_paths, size_t n_cluster_paths,
              unsigned compat);

/* Drop the current state (in-flight holders keep theirs alive). */
void app_destroy(struct app *app);

/*
 * Load the cluster files and the policy and publish them. On failure the
 * running state (if any) stays as it was. Returns 0 or -1 with e set.
 */
int app_load(struct app *app, struct err *e);

/*
 * Reload only the policy, keeping the cluster snapshot. On failure the
 * running policy keeps serving.
 */
int app_reload_policy(struct app *app, struct err *e);

/* Take a reference to the current state (NULL before the first load). */
struct app_state *app_acquire(struct app *app);

/* Give a reference back; the last one frees the state. NULL is fine. */
void app_release(struct app_state *st);

/* Load a cluster snapshot from files into a new reference (refs = 1). */
struct cluster_ref *cluster_ref_load(const char *const *paths, size_t n,
                                     struct err *e);
void cluster_ref_release(struct cluster_ref *c);

#endif
