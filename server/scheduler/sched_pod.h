/*
 * sched_pod.h: a pending pod decoded from the watch, shared by reference
 * between the queue, the scheduling thread and the binders.
 */
#ifndef SERVER_SCHEDULER_SCHED_POD_H
#define SERVER_SCHEDULER_SCHED_POD_H

#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdint.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/model/types.h"

struct sched_pod {
    atomic_int refs;
    struct arena arena;
    struct kube_pod pod;
};

/*
 * Decode obj into a new sched_pod holding one reference; *hash gets the
 * hash of its labels, annotations and spec (what an update must change to
 * matter). NULL with e set on a bad pod or out of memory.
 */
struct sched_pod *sched_pod_decode(const cJSON *obj, uint64_t *hash,
                                   struct err *e);

/* Drop one reference to a struct sched_pod (NULL is fine); the last one
 * frees it. A void * for the queue's payload release. */
void sched_pod_release(void *arg);

#endif
