/*
 * sched_fail.c: a failed scheduling attempt, after kube-scheduler v1.22's
 * recordSchedulingFailure (pkg/scheduler/scheduler.go): requeue the pod,
 * post a FailedScheduling Event and set PodScheduled=False, with the
 * message truncated as truncateMessage does.
 */
#include "server/scheduler/sched_fail.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <time.h>

#include "server/common/log.h"
#include "server/scheduler/sched_events.h"
#include "server/scheduler/sched_nominate.h"

const char *sched_truncate_message(struct arena *a, const char *msg)
{
    char *t;

    if (strlen(msg) <= SCHED_MESSAGE_LIMIT)
        return msg;
    t = arena_alloc(a, SCHED_MESSAGE_LIMIT + 1);
    if (!t)
        return msg;
    memcpy(t, msg, SCHED_MESSAGE_LIMIT - 4);
    strcpy(t + SCHED_MESSAGE_LIMIT - 4, " ...");
    return t;
}

/* The PodScheduled=False condition (and the nominated node), unless the
 * pod shows them already. */
static void patch_condition(struct scheduler *s, const struct kube_pod *pod,
                            const char *reason, const char *msg,
                            bool same_message, const char *nominated)
{
    cJSON *patch = cJSON_CreateObject(), *conds, *c;
    bool was_false = false;
    struct err e = { "" };
    char *text, ts[40];
    time_t t = time(NULL);
    struct tm tm;
    size_t i;

    for (i = 0; i < pod->n_conditions; i++) {
        const struct kube_pod_condition *pc = &pod->conditions[i];

        if (pc->type && !strcmp(pc->type, "PodScheduled") && pc->status &&
            !strcmp(pc->status, "False")) {
            was_false = true;
            if (same_message && pc->reason && !strcmp(pc->reason, reason) &&
                (!nominated ||
                 (pod->nominated_node_name &&
                  !strcmp(pod->nominated_node_name, nominated)))) {
                cJSON_Delete(patch);
                return; /* UpdatePodCondition: nothing changed */
            }
        }
    }
    conds = cJSON_AddArrayToObject(cJSON_AddObjectToObject(patch, "status"),
                                   "conditions");
    if (nominated)
        cJSON_AddStringToObject(
            cJSON_GetObjectItemCaseSensitive(patch, "status"),
            "nominatedNodeName", nominated);
    c = cJSON_CreateObject();
    cJSON_AddItemToArray(conds, c);
    cJSON_AddStringToObject(c, "type", "PodScheduled");
    cJSON_AddStringToObject(c, "status", "False");
    cJSON_AddNullToObject(c, "lastProbeTime");
    if (!was_false) {
        gmtime_r(&t, &tm);
        strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
        cJSON_AddStringToObject(c, "lastTransitionTime", ts);
    }
    cJSON_AddStringToObject(c, "reason", reason);
    cJSON_AddStringToObject(c, "message", msg);
    text = cJSON_PrintUnformatted(patch);
    cJSON_Delete(patch);
    if (text && kube_client_patch_pod_status(s->client, pod->namespace,
                                             pod->name, text, &e) < 0)
        LOG_ERROR("Error updating pod %s/%s: %s", pod->namespace, pod->name,
                  e.msg);
    cJSON_free(text);
}

/*
 * recordSchedulingFailure: requeue the in-flight item, then tell the
 * user (Warning FailedScheduling event, PodScheduled=False condition).
 */
void sched_fail(struct scheduler *s, struct sched_qitem *it,
                struct sched_pod *sp, int result, const char *reason,
                const char *msg, double start)
{
    sched_fail_nominated(s, it, sp, result, reason, msg, start, NULL);
}

void sched_fail_nominated(struct scheduler *s, struct sched_qitem *it,
                          struct sched_pod *sp, int result, const char *reason,
                          const char *msg, double start, const char *node)
{
    struct arena a;
    const char *text;
    bool same, deleted;
    double now = kube_now();

    metrics_counter_add(s->attempts[result], 1);
    metrics_histogram_observe(s->attempt_duration[result], now - start);
    arena_init(&a, 0);
    text = sched_truncate_message(&a, msg);
    pthread_mutex_lock(&s->lock);
    same = it->last_message && !strcmp(it->last_message, msg);
    sched_queue_set_message(it, msg);
    deleted = it->deleted;
    /* Gone while in flight: the watch dropped its nomination already, so
     * one made in this cycle must go too (the item may be freed next). */
    if (deleted && node)
        sched_nominate_drop(s, it->key);
    sched_queue_requeue(&s->q, it, now);
    pthread_mutex_unlock(&s->lock);
    if (result == SCHED_RESULT_ERROR)
        LOG_ERROR("Error scheduling pod %s/%s: %s", sp->pod.namespace,
                  sp->pod.name, msg);
    else
        LOG_V(2, "Unable to schedule pod %s/%s; no fit; waiting: %s",
              sp->pod.namespace, sp->pod.name, msg);
    if (!deleted) {
        sched_event_post(s, &sp->pod, "Warning", "FailedScheduling", text);
        patch_condition(s, &sp->pod, reason, msg, same, node);
    }
    arena_destroy(&a);
}
