/*
 * sched_pod.c: a pending pod as the standalone scheduler holds it: decoded
 * once from the watch into its own arena, shared by reference between the
 * queue, the scheduling thread and the binders.
 */
#include "server/scheduler/sched_pod.h"

#include <stdlib.h>

#include "kube/parse/parse.h"
#include "server/scheduler/sched_signature.h"

void sched_pod_release(void *arg)
{
    struct sched_pod *sp = arg;

    if (!sp || atomic_fetch_sub(&sp->refs, 1) != 1)
        return;
    arena_destroy(&sp->arena);
    free(sp);
}

struct sched_pod *sched_pod_decode(const cJSON *obj, uint64_t *hash,
                                   struct err *e)
{
    struct sched_pod *sp = calloc(1, sizeof(*sp));
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *parts[3];

    if (!sp) {
        err_set(e, "out of memory");
        return NULL;
    }
    arena_init(&sp->arena, 4096);
    atomic_init(&sp->refs, 1);
    if (kube_pod_from_cjson(&sp->arena, obj, NULL, &sp->pod, e) < 0) {
        sched_pod_release(sp);
        return NULL;
    }
    parts[0] = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    parts[1] = cJSON_GetObjectItemCaseSensitive(meta, "annotations");
    parts[2] = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    *hash = sched_hash_json(parts, 3);
    return sp;
}
