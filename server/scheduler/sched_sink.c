/*
 * sched_sink.c: the standalone scheduler's informer sink, after
 * kube-scheduler v1.22's eventhandlers.go: every watch event feeds the
 * cache first, then the queue (pending pods are added, updated or
 * forgotten) and the cluster-event moves of unschedulable pods.
 */
#include "server/scheduler/scheduler.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "server/common/log.h"
#include "server/scheduler/sched_nominate.h"
#include "server/scheduler/sched_pod.h"
#include "server/scheduler/sched_signature.h"

/* A pod ours to schedule: our name, no node, not finished or going. */
static bool pod_is_pending(const struct scheduler *s, const cJSON *obj)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *node = sched_jstr(spec, "nodeName"), *sched;
    const char *phase = sched_jstr(status, "phase");

    sched = sched_jstr(spec, "schedulerName");
    if (!sched || !*sched)
        sched = SCHED_DEFAULT_NAME;
    if (node && *node)
        return false;
    if (strcmp(sched, s->opts.scheduler_name))
        return false;
    if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
        return false;
    return !cJSON_GetObjectItemCaseSensitive(meta, "deletionTimestamp");
}

static void pod_key(const cJSON *obj, char *key, size_t sz)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const char *ns = sched_jstr(meta, "namespace");

    snprintf(key, sz, "%s/%s", ns && *ns ? ns : "default",
             sched_jstr(meta, "name") ? sched_jstr(meta, "name") : "");
}

/* One pod event: queue, update or forget it; a deleted bound pod frees
 * room (AssignedPodDelete). */
static void on_pod(struct scheduler *s, const struct kube_watch_event *ev,
                   double now)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(ev->object, "spec");
    const char *node = sched_jstr(spec, "nodeName");
    char key[512];
    struct sched_pod *sp;
    struct err e = { "" };
    uint64_t hash = 0;
    enum sched_qadd r;

    pod_key(ev->object, key, sizeof(key));
    if (ev->type == KUBE_EVENT_DELETED || !pod_is_pending(s, ev->object)) {
        pthread_mutex_lock(&s->lock);
        sched_queue_delete(&s->q, key);
        sched_nominate_drop(s, key);
        if (ev->type == KUBE_EVENT_DELETED && node && *node) {
            sched_queue_move_all(&s->q, now);
            pthread_cond_signal(&s->cond);
        }
        pthread_mutex_unlock(&s->lock);
        return;
    }
    sp = sched_pod_decode(ev->object, &hash, &e);
    if (!sp) {
        LOG_WARN("pod %s: cannot be scheduled: %s", key, e.msg);
        return;
    }
    /* An older version of a pod we just bound (skipPodUpdate). */
    if (kube_cache_pod_assumed(s->cache, sp->pod.namespace, sp->pod.name)) {
        sched_pod_release(sp);
        return;
    }
    pthread_mutex_lock(&s->lock);
    sched_nominate_on_pod(s, key, sp);
    r = sched_queue_add(&s->q, key, sp, sp->pod.priority,
                        sp->pod.creation_timestamp, hash, now);
    if (r != SCHED_QADD_ERROR)
        sched_queue_find(&s->q, key)->mark = s->pod_list_gen;
    if (r == SCHED_QADD_NEW || r == SCHED_QADD_MOVED)
        pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    if (r == SCHED_QADD_ERROR)
        LOG_ERROR("pod %s: out of memory queueing it", key);
}

/* Kinds whose add/update (v1.22 eventhandlers.go) may make pods fit. */
static bool kind_moves_pods(enum kube_kind k, enum kube_event_type t)
{
    switch (k) {
    case KUBE_KIND_PERSISTENT_VOLUME:
    case KUBE_KIND_PERSISTENT_VOLUME_CLAIM:
    case KUBE_KIND_CSI_NODE:
        return t != KUBE_EVENT_DELETED;
    case KUBE_KIND_STORAGE_CLASS:
        return t == KUBE_EVENT_ADDED;
    case KUBE_KIND_SERVICE:
        return true;
    default:
        return false;
    }
}

/* ---- the sink: the cache first, then us ---- */

static void sink_begin(void *arg, enum kube_kind kind)
{
    struct scheduler *s = arg;
    struct kube_informer_sink cs;

    kube_cache_sink(s->cache, &cs);
    cs.list_begin(cs.arg, kind);
    if (kind == KUBE_KIND_POD) {
        pthread_mutex_lock(&s->lock);
        s->pod_list_gen++;
        pthread_mutex_unlock(&s->lock);
    }
}

static void sink_end(void *arg, enum kube_kind kind)
{
    struct scheduler *s = arg;
    struct kube_informer_sink cs;

    kube_cache_sink(s->cache, &cs);
    cs.list_end(cs.arg, kind);
    if (kind == KUBE_KIND_POD) {
        pthread_mutex_lock(&s->lock);
        sched_queue_drop_unmarked(&s->q, s->pod_list_gen);
        pthread_mutex_unlock(&s->lock);
    }
}

static int sink_apply(void *arg, enum kube_kind kind,
                      const struct kube_watch_event *ev, size_t n,
                      struct err *e)
{
    struct scheduler *s = arg;
    int rc = kube_cache_apply(s->cache, kind, ev, n, e);
    double now = kube_now();
    bool move = false;
    size_t i;

    for (i = 0; i < n; i++) {
        if (kind == KUBE_KIND_POD) {
            on_pod(s, &ev[i], now);
        } else if (kind == KUBE_KIND_NODE) {
            const cJSON *meta =
                cJSON_GetObjectItemCaseSensitive(ev[i].object, "metadata");
            const char *name = sched_jstr(meta, "name");

            if (ev[i].type != KUBE_EVENT_DELETED && name &&
                sched_node_sig_changed(s, name, sched_node_sig(ev[i].object)))
                move = true;
        } else if (kind_moves_pods(kind, ev[i].type)) {
            move = true;
        }
    }
    if (move) {
        pthread_mutex_lock(&s->lock);
        sched_queue_move_all(&s->q, now);
        pthread_cond_signal(&s->cond);
        pthread_mutex_unlock(&s->lock);
    }
    return rc;
}

void sched_sink(struct scheduler *s, struct kube_informer_sink *out)
{
    out->list_begin = sink_begin;
    out->apply = sink_apply;
    out->list_end = sink_end;
    out->arg = s;
}
