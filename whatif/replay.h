/*
 * replay.h: one placement run of a set of pods under one policy, from the
 * snapshot as it is (the pending pods re-placed) or from its nodes alone
 * (every pod replayed), and the order the pods take: kube-scheduler's
 * queue order (priority, then creation) for pending pods, creation order
 * for a replay. What diff runs once per policy.
 */
#ifndef WHATIF_REPLAY_H
#define WHATIF_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/evaluate.h"
#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/cluster/cluster.h"
#include "whatif/place.h"

/*
 * The pods to place, from a: with replay, every active pod of objs (bound
 * or not) by creation time; else the pending ones (active, no nodeName,
 * not being deleted; of scheduler `sched`, NULL: any) by priority
 * (highest first), then creation time; ties by namespace/name. Returns
 * 0, or -1 when out of memory.
 */
int whatif_pods_to_place(const struct kube_objects *objs, bool replay,
                         const char *sched, struct arena *a,
                         const struct kube_pod ***out, size_t *n);

/* The outcome of one run. */
struct whatif_run {
    struct cluster c;            /* the snapshot after the run */
    struct whatif_placement *pl; /* one per pod, in order */
    struct whatif_usage *before, *after;
};

/*
 * Place pods[0..n) in order on a cluster built from objs (without any
 * pod when `empty`) under plans, as whatif_sim_init(percentage, seed).
 * Memory from a; free r->c with cluster_free (also after a failure).
 * Returns 0, or -1 with e set.
 */
int whatif_run_pods(const struct eval_plans *plans,
                    const struct kube_objects *objs, bool empty,
                    const struct kube_pod *const *pods, size_t n,
                    int percentage, uint64_t seed, struct arena *a,
                    struct whatif_run *r, struct err *e);

#endif
