/*
 * sched_sink.c: the standalone scheduler's informer sink, after
 * kube-scheduler v1.22's eventhandlers.go: every watch event feeds the
 * cache first, then the queue (pending pods are added, updated or
 * forgotten) and the cluster-event moves of unschedulable pods.
 */
#include "server/scheduler/scheduler.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predicates/inter_pod_affinity.h"
#include "server/common/log.h"
#include "server/scheduler/sched_lost_bind.h"
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

/* A bound pod's event, decoded only once a waiting pod needs it. */
struct assigned {
    const cJSON *obj;
    const struct cluster *cluster; /* read-locked: the namespaces' labels */
    enum kpe_semantics semantics;
    struct sched_pod *sp; /* decoded, or NULL */
    const struct kube_labels *ns_labels;
    bool failed; /* not decodable: nothing moves */
};

static const struct kube_pod *assigned_pod(struct assigned *a)
{
    const struct kube_namespace *ns;
    struct err e = { "" };
    uint64_t hash;

    if (a->sp || a->failed)
        return a->sp ? &a->sp->pod : NULL;
    a->sp = sched_pod_decode(a->obj, &hash, &e);
    if (!a->sp) {
        a->failed = true;
        LOG_WARN("bound pod not decoded, no waiting pod moved: %s", e.msg);
        return NULL;
    }
    ns = cluster_namespace(a->cluster, a->sp->pod.namespace);
    a->ns_labels = ns ? &ns->labels : NULL;
    return &a->sp->pod;
}

/* A waiting pod with a required pod affinity term the bound pod matches
 * (getUnschedulablePodsWithMatchingAffinityTerm, v1.20.2
 * internal/queue/scheduling_queue.go; v1.22 the same with the term's
 * namespaceSelector). */
static bool affinity_match(const struct sched_qitem *it, void *arg)
{
    struct assigned *a = arg;
    const struct sched_pod *sp = it->payload;
    const struct kube_pod_affinity *pa = &sp->pod.affinity.pod_affinity;
    const struct kube_pod *bound;
    size_t i;

    if (!pa->n_required || !(bound = assigned_pod(a)))
        return false;
    for (i = 0; i < pa->n_required; i++)
        if (pred_ipa_existing_term_matches(sp->pod.namespace, &pa->required[i],
                                           bound, a->ns_labels, a->semantics))
            return true;
    return false;
}

/*
 * A bound pod was added or updated (AssignedPodAdded / AssignedPodUpdated,
 * v1.20.2 and v1.22 eventhandlers.go addPodToCache, updatePodInCache; our
 * own binds arrive so too): the unschedulable pods whose required affinity
 * it may satisfy move, and a pod in flight that fails goes to backoff.
 * The cache's read lock is taken before ours, never after (no path holds
 * ours and asks the cache).
 */
static void assigned_pod_event(struct scheduler *s, const cJSON *obj,
                               double now)
{
    struct assigned a = { obj, NULL, s->app->semantics, NULL, NULL, false };

    a.cluster = kube_cache_read_lock(s->cache);
    pthread_mutex_lock(&s->lock);
    if (sched_queue_move_if(&s->q, now, affinity_match, &a))
        pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    kube_cache_read_unlock(s->cache);
    sched_pod_release(a.sp);
}

/* A pod whose Binding is out shows up bound: its binder learns the node
 * (sched_lost_bind.h) should the POST's answer be lost. */
static void note_bound_in_flight(struct scheduler *s, const char *key,
                                 const char *node)
{
    struct sched_qitem *it = sched_queue_find(&s->q, key);

    if (it && it->state == SCHED_Q_IN_FLIGHT && !it->bound_node)
        it->bound_node = strdup(node); /* none when out of memory: unknown */
}

/* One pod event: queue, update or forget it; a deleted bound pod frees
 * room (AssignedPodDelete), an added or updated one may let pods with
 * affinity to it fit. */
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
        bool bound = ev->type != KUBE_EVENT_DELETED && node && *node;
        char *uid = NULL;
        bool landed;

        pthread_mutex_lock(&s->lock);
        landed = sched_lost_bind_take(s, key, bound ? node : NULL, &uid);
        if (bound)
            note_bound_in_flight(s, key, node);
        sched_queue_delete(&s->q, key);
        sched_nominate_drop(s, key);
        if (ev->type == KUBE_EVENT_DELETED && node && *node) {
            sched_queue_move_all(&s->q, now);
            pthread_cond_signal(&s->cond);
        }
        pthread_mutex_unlock(&s->lock);
        if (landed)
            sched_lost_bind_report(s, key, uid, node);
        free(uid);
        if (bound)
            assigned_pod_event(s, ev->object, now);
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

/*
 * v1.20.2's updateNodeInCache moves every pod (MoveAllToActiveOrBackoffQueue
 * with the Unknown event) on any update of a node while no pod is
 * unschedulable, so a pod in flight that fails goes to backoff; #98899
 * (v1.21) dropped that, moving only when the node changed what filters
 * read.
 */
static bool no_unschedulable(struct scheduler *s)
{
    bool none;

    pthread_mutex_lock(&s->lock);
    none = sched_queue_len(&s->q, SCHED_Q_UNSCHEDULABLE) == 0;
    pthread_mutex_unlock(&s->lock);
    return none;
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
            else if (ev[i].type == KUBE_EVENT_MODIFIED &&
                     s->app->semantics < KPE_SEM_1_21 && no_unschedulable(s))
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
