/*
 * sched_preempt.h: DefaultPreemption in the standalone scheduler, after
 * kube-scheduler v1.22's defaultpreemption PostFilter and
 * PrepareCandidate: when a pod fits nowhere, engine_preempt picks a node
 * and its victims on the same snapshot; then the victims are deleted
 * (with their UID as precondition), each gets a Normal Preempted Event,
 * pods of lower priority nominated to that node lose their nomination,
 * and the caller records the failure with the node nominated
 * (sched_fail_nominated), which requeues the pod.
 *
 * PodDisruptionBudgets come from the cache (policy/v1beta1, watched by
 * schedule only: KUBE_KINDS_SCHEDULE).
 */
#ifndef SERVER_SCHEDULER_SCHED_PREEMPT_H
#define SERVER_SCHEDULER_SCHED_PREEMPT_H

#include <stddef.h>

#include "engine/engine_nominated.h"
#include "engine/evaluate.h"
#include "kube/base/arena.h"
#include "server/scheduler/sched_pod.h"
#include "server/scheduler/scheduler.h"

/* A pod by reference (strings from the decision's arena). */
struct sched_pod_ref {
    const char *ns, *name, *uid;
};

/* What a preemption will do, copied out of the snapshot. */
struct sched_preemption {
    const char *node; /* NULL: nothing to do */
    size_t n_victims;
    struct sched_pod_ref *victims;
    size_t n_clear; /* lower-priority pods nominated to node */
    struct sched_pod_ref *clear;
    int clear_own; /* no node might help: clear the pod's own nomination */
};

/*
 * The decision, on the snapshot cl the failed pass filtered ran on (the
 * caller holds the cache's read lock) with the nominations noms.
 * Fills *out from a. Returns 0, or -1 with e set.
 */
int sched_preempt_decide(struct scheduler *s, const struct eval_plans *plans,
                         const struct kube_pod *pod, const struct cluster *cl,
                         const struct eval_result *filtered,
                         const struct engine_nominees *noms, struct arena *a,
                         struct sched_preemption *out, struct err *e);

/*
 * Carry out *p for pod (key its queue key): delete the victims, post
 * their Events, clear the lower nominations, nominate the pod in the
 * nominator. Returns the nominated node (p->node), or NULL when nothing
 * was nominated (a victim could not be deleted: e says why).
 */
const char *sched_preempt_execute(struct scheduler *s, const char *key,
                                  struct sched_pod *sp,
                                  const struct sched_preemption *p,
                                  struct err *e);

#endif
