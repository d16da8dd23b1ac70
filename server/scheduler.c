/*
 * scheduler.c: the standalone scheduler (see scheduler.h), after
 * kube-scheduler v1.22: pkg/scheduler/scheduler.go (scheduleOne,
 * recordSchedulingFailure, bind), core/generic_scheduler.go (selectHost),
 * framework/types.go (FitError), eventhandlers.go (which watch events
 * feed the queue and which move unschedulable pods).
 */
#include "server/scheduler.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/hash.h"
#include "kube/parse.h"
#include "server/log.h"

enum { RES_SCHEDULED, RES_UNSCHEDULABLE, RES_ERROR };
static const char *const result_names[] = { "scheduled", "unschedulable",
                                            "error" };

/* A pending pod as decoded from the watch, shared by reference. */
struct sched_pod {
    atomic_int refs;
    struct arena arena;
    struct kube_pod pod;
};

struct sched_bind_job {
    struct sched_bind_job *next;
    struct sched_qitem *it;
    struct sched_pod *sp;
    char *node;
    double start; /* when the attempt began */
};

struct sched_event {
    char *buf; /* ns, name, uid, type, reason, message: one block */
    const char *ns, *name, *uid, *type, *reason, *message;
};

struct sched_node_sig {
    char *name;
    uint64_t sig;
};

/* ---- small pure helpers ---- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

size_t sched_select_host(const int64_t *totals, size_t n, uint64_t *rng)
{
    size_t i, selected = 0, count = 1;
    int64_t max = totals[0];

    for (i = 1; i < n; i++) {
        if (totals[i] > max) {
            max = totals[i];
            selected = i;
            count = 1;
        } else if (totals[i] == max) {
            count++;
            if (splitmix(rng) % count == 0)
                selected = i;
        }
    }
    return selected;
}

struct reason_count {
    const char *reason;
    size_t n;
    char *text;
};

static int cmp_text(const void *a, const void *b)
{
    return strcmp(((const struct reason_count *)a)->text,
                  ((const struct reason_count *)b)->text);
}

/* Count one reason in rc[0..*n) (capacity cap). */
static void count_reason(struct reason_count *rc, size_t *n, size_t cap,
                         const char *reason)
{
    size_t i;

    for (i = 0; i < *n; i++) {
        if (!strcmp(rc[i].reason, reason)) {
            rc[i].n++;
            return;
        }
    }
    if (*n < cap) {
        rc[*n].reason = reason;
        rc[(*n)++].n = 1;
    }
}

char *sched_fit_error(struct arena *a, const struct eval_result *r)
{
    size_t cap = 64, n = 0, i, j, k, len = 0;
    struct reason_count *rc = arena_calloc(a, cap, sizeof(*rc));
    char *out, *p;

    if (!rc)
        return NULL;
    for (i = 0; i < r->n_nodes; i++) {
        const struct pred_verdict *v = &r->nodes[i].verdict;

        if (r->nodes[i].feasible)
            continue;
        for (j = 0; j < v->n_failures; j++)
            for (k = 0; k < v->failures[j].n_reasons; k++)
                count_reason(rc, &n, cap, v->failures[j].reasons[k]);
    }
    for (i = 0; i < n; i++) {
        rc[i].text = arena_sprintf(a, "%zu %s", rc[i].n, rc[i].reason);
        if (!rc[i].text)
            return NULL;
        len += strlen(rc[i].text) + 2;
    }
    qsort(rc, n, sizeof(*rc), cmp_text);
    out = arena_alloc(a, len + 64);
    if (!out)
        return NULL;
    p = out + sprintf(out, "0/%zu nodes are available: ", r->n_nodes);
    for (i = 0; i < n; i++)
        p += sprintf(p, "%s%s", i ? ", " : "", rc[i].text);
    strcpy(p, ".");
    return out;
}

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

/* ---- pods from the watch ---- */

static void pod_release(void *arg)
{
    struct sched_pod *sp = arg;

    if (!sp || atomic_fetch_sub(&sp->refs, 1) != 1)
        return;
    arena_destroy(&sp->arena);
    free(sp);
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);

    return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* h extended by s and a 0xff separator (no JSON text has that byte). */
static uint64_t fnv_add(uint64_t h, const char *s)
{
    return (kube_fnv_str(h, s) ^ 0xff) * KUBE_FNV_PRIME;
}

/* Hash of the members' JSON: what an update must change to matter. */
static uint64_t json_hash(const cJSON *const *parts, size_t n)
{
    uint64_t h = KUBE_FNV_OFFSET;
    size_t i;

    for (i = 0; i < n; i++) {
        char *s = parts[i] ? cJSON_PrintUnformatted(parts[i]) : NULL;

        h = fnv_add(h, s ? s : "-");
        cJSON_free(s);
    }
    return h;
}

/* A pod ours to schedule: our name, no node, not finished or going. */
static bool pod_is_pending(const struct scheduler *s, const cJSON *obj)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *node = jstr(spec, "nodeName"), *sched;
    const char *phase = jstr(status, "phase");

    sched = jstr(spec, "schedulerName");
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
    const char *ns = jstr(meta, "namespace");

    snprintf(key, sz, "%s/%s", ns && *ns ? ns : "default",
             jstr(meta, "name") ? jstr(meta, "name") : "");
}

static struct sched_pod *pod_decode(const cJSON *obj, uint64_t *hash,
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
        pod_release(sp);
        return NULL;
    }
    parts[0] = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    parts[1] = cJSON_GetObjectItemCaseSensitive(meta, "annotations");
    parts[2] = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    *hash = json_hash(parts, 3);
    return sp;
}

/* One pod event: queue, update or forget it; a deleted bound pod frees
 * room (AssignedPodDelete). */
static void on_pod(struct scheduler *s, const struct kube_watch_event *ev,
                   double now)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(ev->object, "spec");
    const char *node = jstr(spec, "nodeName");
    char key[512];
    struct sched_pod *sp;
    struct err e = { "" };
    uint64_t hash = 0;
    enum sched_qadd r;

    pod_key(ev->object, key, sizeof(key));
    if (ev->type == KUBE_EVENT_DELETED || !pod_is_pending(s, ev->object)) {
        pthread_mutex_lock(&s->lock);
        sched_queue_delete(&s->q, key);
        if (ev->type == KUBE_EVENT_DELETED && node && *node) {
            sched_queue_move_all(&s->q, now);
            pthread_cond_signal(&s->cond);
        }
        pthread_mutex_unlock(&s->lock);
        return;
    }
    sp = pod_decode(ev->object, &hash, &e);
    if (!sp) {
        LOG_WARN("pod %s: cannot be scheduled: %s", key, e.msg);
        return;
    }
    /* An older version of a pod we just bound (skipPodUpdate). */
    if (kube_cache_pod_assumed(s->cache, sp->pod.namespace, sp->pod.name)) {
        pod_release(sp);
        return;
    }
    pthread_mutex_lock(&s->lock);
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

/* ---- nodes: only changes that can make a pod fit move the queue ---- */

static uint64_t node_sig(const cJSON *obj)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const cJSON *conds = cJSON_GetObjectItemCaseSensitive(status, "conditions");
    const cJSON *c, *parts[5];
    uint64_t h;

    parts[0] = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    parts[1] = cJSON_GetObjectItemCaseSensitive(spec, "unschedulable");
    parts[2] = cJSON_GetObjectItemCaseSensitive(spec, "taints");
    parts[3] = cJSON_GetObjectItemCaseSensitive(status, "allocatable");
    parts[4] = cJSON_GetObjectItemCaseSensitive(meta, "annotations");
    h = json_hash(parts, 4); /* annotations: only preferAvoidPods below */
    h = fnv_add(h, jstr(parts[4], KUBE_ANNOTATION_PREFER_AVOID_PODS));
    /* Conditions by type and status, not their heartbeat times. */
    cJSON_ArrayForEach(c, conds)
    {
        h = fnv_add(h, jstr(c, "type"));
        h = fnv_add(h, jstr(c, "status"));
    }
    return h;
}

static uint64_t str_hash(const char *s)
{
    return fnv_add(KUBE_FNV_OFFSET, s);
}

/* Record name's signature; true when it is new or changed. */
static bool node_sig_changed(struct scheduler *s, const char *name,
                             uint64_t sig)
{
    size_t i;

    if (s->n_sigs + 1 > s->sig_slots / 2) {
        size_t n = s->sig_slots ? s->sig_slots * 2 : 1024;
        struct sched_node_sig *t = calloc(n, sizeof(*t));

        if (!t)
            return true;
        for (i = 0; i < s->sig_slots; i++) {
            size_t j = str_hash(s->sigs[i].name ? s->sigs[i].name : "");

            if (!s->sigs[i].name)
                continue;
            for (j &= n - 1; t[j].name; j = (j + 1) & (n - 1))
                ;
            t[j] = s->sigs[i];
        }
        free(s->sigs);
        s->sigs = t;
        s->sig_slots = n;
    }
    for (i = str_hash(name) & (s->sig_slots - 1); s->sigs[i].name;
         i = (i + 1) & (s->sig_slots - 1)) {
        if (!strcmp(s->sigs[i].name, name)) {
            bool changed = s->sigs[i].sig != sig;

            s->sigs[i].sig = sig;
            return changed;
        }
    }
    s->sigs[i].name = strdup(name);
    s->sigs[i].sig = sig;
    if (s->sigs[i].name)
        s->n_sigs++;
    return true;
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
            const char *name = jstr(meta, "name");

            if (ev[i].type != KUBE_EVENT_DELETED && name &&
                node_sig_changed(s, name, node_sig(ev[i].object)))
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

/* ---- events ---- */

static void event_post(struct scheduler *s, const struct kube_pod *pod,
                       const char *type, const char *reason, const char *msg)
{
    const char *parts[6] = {
        pod->namespace, pod->name, pod->uid ? pod->uid : "", type, reason, msg
    };
    size_t len = 0, i;
    struct sched_event *ev;
    char *p;

    for (i = 0; i < 6; i++)
        len += strlen(parts[i]) + 1;
    pthread_mutex_lock(&s->ev_lock);
    if (s->ev_n == SCHED_EVENT_QUEUE || s->ev_stopping) {
        pthread_mutex_unlock(&s->ev_lock);
        metrics_counter_add(s->events_dropped, 1);
        return;
    }
    ev = &s->events[(s->ev_head + s->ev_n) % SCHED_EVENT_QUEUE];
    ev->buf = p = malloc(len);
    if (!p) {
        pthread_mutex_unlock(&s->ev_lock);
        return;
    }
    for (i = 0; i < 6; i++) {
        const char **dst[6] = { &ev->ns,   &ev->name,   &ev->uid,
                                &ev->type, &ev->reason, &ev->message };

        *dst[i] = strcpy(p, parts[i]);
        p += strlen(parts[i]) + 1;
    }
    s->ev_n++;
    /* broadcast: a thread waiting to retry must not take the wakeup */
    pthread_cond_broadcast(&s->ev_cond);
    pthread_mutex_unlock(&s->ev_lock);
}

/*
 * Post one Event, trying again while the API server gives no answer (an
 * apiserver restart), as client-go's recordToSink does. Sleeps on ev_cond
 * with ev_lock released, so a stop ends the wait. 0, or -1 with e set.
 */
static int post_event(struct scheduler *s, const struct kube_event_ref *ref,
                      const struct sched_event *ev, struct err *e)
{
    double wait = s->opts.event_retry > 0 ? s->opts.event_retry
                                          : SCHED_EVENT_RETRY_SECONDS;
    int try, rc = -1;

    for (try = 1; try <= SCHED_EVENT_TRIES; try++) {
        struct timespec until;
        bool stopping;

        rc = kube_client_create_event(s->eclient, ref, ev->type, ev->reason,
                                      ev->message, s->opts.scheduler_name, e);
        if (rc != KUBE_CLIENT_UNREACHABLE || try == SCHED_EVENT_TRIES)
            break;
        LOG_V(1,
              "event %s for pod %s/%s: no answer (%s); trying again in "
              "%.1f s (%d of %d)",
              ev->reason, ev->ns, ev->name, e->msg, wait, try,
              SCHED_EVENT_TRIES);
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += (time_t)wait;
        until.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&s->ev_lock);
        while (!s->ev_stopping &&
               pthread_cond_timedwait(&s->ev_cond, &s->ev_lock, &until) == 0)
            ;
        stopping = s->ev_stopping;
        pthread_mutex_unlock(&s->ev_lock);
        if (stopping)
            break;
    }
    return rc < 0 ? -1 : 0;
}

static void *event_main(void *arg)
{
    struct scheduler *s = arg;

    pthread_mutex_lock(&s->ev_lock);
    for (;;) {
        struct sched_event ev;
        struct kube_event_ref ref = { "Pod", NULL, NULL, NULL, "v1" };
        struct err e = { "" };

        while (!s->ev_n && !s->ev_stopping)
            pthread_cond_wait(&s->ev_cond, &s->ev_lock);
        if (!s->ev_n)
            break;
        ev = s->events[s->ev_head];
        s->ev_head = (s->ev_head + 1) % SCHED_EVENT_QUEUE;
        s->ev_n--;
        pthread_mutex_unlock(&s->ev_lock);
        ref.namespace = ev.ns;
        ref.name = ev.name;
        ref.uid = *ev.uid ? ev.uid : NULL;
        if (post_event(s, &ref, &ev, &e) < 0) {
            metrics_counter_add(s->events_posted[1], 1);
            LOG_V(1, "event %s for pod %s/%s not recorded: %s", ev.reason,
                  ev.ns, ev.name, e.msg);
        } else {
            metrics_counter_add(s->events_posted[0], 1);
        }
        free(ev.buf);
        pthread_mutex_lock(&s->ev_lock);
    }
    pthread_mutex_unlock(&s->ev_lock);
    return NULL;
}

/* ---- failures ---- */

/* The PodScheduled=False condition, unless the pod shows it already. */
static void patch_condition(struct scheduler *s, const struct kube_pod *pod,
                            const char *reason, const char *msg,
                            bool same_message)
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
            if (same_message && pc->reason && !strcmp(pc->reason, reason)) {
                cJSON_Delete(patch);
                return; /* UpdatePodCondition: nothing changed */
            }
        }
    }
    conds = cJSON_AddArrayToObject(cJSON_AddObjectToObject(patch, "status"),
                                   "conditions");
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
static void fail(struct scheduler *s, struct sched_qitem *it,
                 struct sched_pod *sp, int result, const char *reason,
                 const char *msg, double start)
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
    sched_queue_requeue(&s->q, it, now);
    pthread_mutex_unlock(&s->lock);
    if (result == RES_ERROR)
        LOG_ERROR("Error scheduling pod %s/%s: %s", sp->pod.namespace,
                  sp->pod.name, msg);
    else
        LOG_V(2, "Unable to schedule pod %s/%s; no fit; waiting: %s",
              sp->pod.namespace, sp->pod.name, msg);
    if (!deleted) {
        event_post(s, &sp->pod, "Warning", "FailedScheduling", text);
        patch_condition(s, &sp->pod, reason, msg, same);
    }
    arena_destroy(&a);
}

/* ---- binding ---- */

static void bind_one(struct scheduler *s, struct sched_bind_job *j)
{
    const struct kube_pod *pod = &j->sp->pod;
    struct err e = { "" };
    struct arena a;
    double t0 = kube_now();
    int rc;

    if (!atomic_load(&s->active)) {
        kube_cache_forget_pod(s->cache, pod->namespace, pod->name);
        pthread_mutex_lock(&s->lock);
        sched_queue_requeue(&s->q, j->it, t0);
        pthread_mutex_unlock(&s->lock);
        return;
    }
    rc = kube_client_bind(s->client, pod->namespace, pod->name, pod->uid,
                          j->node, &e);
    metrics_histogram_observe(s->binding_duration, kube_now() - t0);
    if (rc == 0) {
        kube_cache_finish_binding(s->cache, pod->namespace, pod->name,
                                  kube_now() + SCHED_ASSUMED_TTL);
        pthread_mutex_lock(&s->lock);
        sched_queue_done(&s->q, j->it);
        pthread_mutex_unlock(&s->lock);
        metrics_counter_add(s->attempts[RES_SCHEDULED], 1);
        metrics_histogram_observe(s->attempt_duration[RES_SCHEDULED],
                                  kube_now() - j->start);
        arena_init(&a, 0);
        event_post(s, pod, "Normal", "Scheduled",
                   arena_sprintf(&a, "Successfully assigned %s/%s to %s",
                                 pod->namespace, pod->name, j->node));
        arena_destroy(&a);
        LOG_V(2, "Successfully bound pod %s/%s to node %s", pod->namespace,
              pod->name, j->node);
        return;
    }
    kube_cache_forget_pod(s->cache, pod->namespace, pod->name);
    if (rc == KUBE_CLIENT_ALREADY_BOUND) {
        /* Someone else bound it: nothing to retry (the watch will show). */
        pthread_mutex_lock(&s->lock);
        sched_queue_done(&s->q, j->it);
        pthread_mutex_unlock(&s->lock);
        metrics_counter_add(s->attempts[RES_ERROR], 1);
        LOG_INFO("pod %s/%s was bound by someone else; dropped from the "
                 "queue: %s",
                 pod->namespace, pod->name, e.msg);
        return;
    }
    arena_init(&a, 0);
    fail(s, j->it, j->sp, RES_ERROR, "SchedulerError",
         arena_sprintf(&a, "binding rejected: %s", e.msg), j->start);
    arena_destroy(&a);
}

static void job_free(struct sched_bind_job *j)
{
    pod_release(j->sp);
    free(j->node);
    free(j);
}

static void *binder_main(void *arg)
{
    struct scheduler *s = arg;

    pthread_mutex_lock(&s->bind_lock);
    for (;;) {
        struct sched_bind_job *j;

        while (!s->jobs && !s->bind_stopping)
            pthread_cond_wait(&s->bind_cond, &s->bind_lock);
        if (!s->jobs)
            break;
        j = s->jobs;
        s->jobs = j->next;
        if (!s->jobs)
            s->jobs_tail = NULL;
        pthread_mutex_unlock(&s->bind_lock);
        bind_one(s, j);
        job_free(j);
        pthread_mutex_lock(&s->bind_lock);
    }
    pthread_mutex_unlock(&s->bind_lock);
    return NULL;
}

static void bind_async(struct scheduler *s, struct sched_bind_job *j)
{
    pthread_mutex_lock(&s->bind_lock);
    if (s->jobs_tail)
        s->jobs_tail->next = j;
    else
        s->jobs = j;
    s->jobs_tail = j;
    pthread_cond_signal(&s->bind_cond);
    pthread_mutex_unlock(&s->bind_lock);
}

/* ---- deciding ---- */

size_t sched_num_feasible_nodes_to_find(int percentage, size_t n_all)
{
    size_t want;
    long pct = percentage;

    if (n_all < SCHED_MIN_FEASIBLE_NODES || percentage >= 100)
        return n_all;
    if (pct <= 0) {
        /* n_all / 125 may exceed 50: compare before subtracting. */
        size_t drop = n_all / 125;

        pct = drop >= SCHED_BASE_PERCENT_TO_SCORE - SCHED_MIN_FEASIBLE_PERCENT
                  ? SCHED_MIN_FEASIBLE_PERCENT
                  : SCHED_BASE_PERCENT_TO_SCORE - (long)drop;
    }
    want = n_all * (size_t)pct / 100;
    return want < SCHED_MIN_FEASIBLE_NODES ? SCHED_MIN_FEASIBLE_NODES : want;
}

/* Size out for n nodes and at most n_find feasible ones. */
static int result_alloc(struct eval_result *out, size_t n, size_t n_find,
                        struct arena *a, struct err *e)
{
    memset(out, 0, sizeof(*out));
    out->selected = -1;
    out->nodes = arena_calloc(a, n, sizeof(*out->nodes));
    out->feasible =
        arena_calloc(a, n_find ? n_find : 1, sizeof(*out->feasible));
    if (!out->nodes || !out->feasible)
        return err_set(e, "out of memory evaluating %zu nodes", n);
    return 0;
}

int sched_find_feasible(const struct pred_plan *plan,
                        const struct kube_pod *pod, const struct cluster *c,
                        const struct node_info *const *nodes, size_t n,
                        int percentage, size_t *next_start, struct arena *a,
                        struct eval_result *out, struct err *e)
{
    size_t n_find = sched_num_feasible_nodes_to_find(percentage, n);
    size_t start = *next_start % n, i;
    struct pred_eval ev;
    int rc = 0;

    if (result_alloc(out, n, n_find, a, e) < 0)
        return -1;
    if (pred_eval_begin(&ev, plan, pod, c, a, e) < 0)
        return -1;
    if (ev.rejected) {
        /* PreFilter said no: every node carries that status. */
        for (i = 0; i < n; i++) {
            out->nodes[i].ni = nodes[i];
            out->nodes[i].verdict = ev.rejection;
            out->nodes[i].feasible_index = -1;
        }
        out->n_nodes = n;
        return 0;
    }
    for (i = 0; i < n && out->n_feasible < n_find; i++) {
        struct eval_node *en = &out->nodes[i];

        en->ni = nodes[(start + i) % n];
        en->feasible_index = -1;
        if (plan->n_steps == 0) {
            en->verdict.code = PRED_FIT; /* no filter plugins */
        } else if (pred_eval_node(&ev, en->ni, &en->verdict, e) < 0) {
            rc = err_prefix(e, "node %s: ", en->ni->node->name);
            break;
        }
        en->feasible = en->verdict.code == PRED_FIT;
        if (en->feasible) {
            en->feasible_index = (int)out->n_feasible;
            out->feasible[out->n_feasible++] = en->ni;
        }
    }
    out->n_nodes = i;
    *next_start = (start + i) % n;
    return rc;
}

/*
 * s->node_buf with every node of cl in kube-scheduler's walking order
 * (NodeTree.list: round robin over zones), as its snapshot lists them.
 * 0, -1 when out of memory, -2 when the tree and the nodes disagree.
 */
static int node_list(struct scheduler *s, const struct cluster *cl)
{
    size_t i, n;

    if (cl->n_nodes > s->node_cap) {
        const struct node_info **nb =
            realloc(s->node_buf, cl->n_nodes * sizeof(*nb));
        size_t *ib = realloc(s->node_idx, cl->n_nodes * sizeof(*ib));

        if (nb)
            s->node_buf = nb;
        if (ib)
            s->node_idx = ib;
        if (!nb || !ib)
            return -1;
        s->node_cap = cl->n_nodes;
    }
    n = node_tree_list(&cl->tree, s->node_idx);
    if (n != cl->n_nodes)
        return -2; /* the tree lost step with the nodes: a bug */
    for (i = 0; i < n; i++)
        s->node_buf[i] = &cl->nodes[s->node_idx[i]];
    return 0;
}

/*
 * Filter nodes from the rotating start until enough fit
 * (sched_find_feasible), score the feasible ones (unless only one), pick
 * the best. Returns 0 with *node (malloc'd), 1 with *msg (from a) when the
 * pod fits nowhere, -1 with *msg on an internal error.
 */
static int decide(struct scheduler *s, const struct app_state *st,
                  const struct kube_pod *pod, struct arena *a, char **node,
                  const char **msg)
{
    const struct cluster *cl = kube_cache_read_lock(s->cache);
    struct eval_result res, scored;
    struct err e = { "" };
    size_t best;
    int rc = 1;

    *node = NULL;
    if (!cl->n_nodes) {
        *msg = SCHED_NO_NODES;
        goto out;
    }
    rc = -1;
    switch (node_list(s, cl)) {
    case 0:
        break;
    case -1:
        *msg = "out of memory listing nodes";
        goto out;
    default:
        *msg = "internal error: the node order is out of step with the cache";
        goto out;
    }
    if (sched_find_feasible(&st->plans.pred, pod, cl, s->node_buf, cl->n_nodes,
                            s->opts.percentage_of_nodes_to_score,
                            &s->next_start, a, &res, &e) < 0) {
        *msg = arena_strdup(a, e.msg);
        goto out;
    }
    if (!res.n_feasible) {
        *msg = sched_fit_error(a, &res);
        rc = *msg ? 1 : -1;
        goto out;
    }
    best = 0;
    if (res.n_feasible > 1) {
        if (evaluate_pod(&st->plans, pod, cl, res.feasible, res.n_feasible,
                         EVAL_SCORE, a, &scored, &e) < 0) {
            *msg = arena_strdup(a, e.msg);
            goto out;
        }
        best = sched_select_host(scored.prio.totals, res.n_feasible, &s->rng);
    }
    *node = strdup(res.feasible[best]->node->name);
    rc = *node ? 0 : -1;
    if (rc)
        *msg = "out of memory";
out:
    kube_cache_read_unlock(s->cache);
    return rc;
}

/* scheduleOne for an item the scheduling thread popped. */
static void schedule_one(struct scheduler *s, struct sched_qitem *it,
                         struct sched_pod *sp)
{
    double start = kube_now();
    struct app_state *st = app_acquire(s->app);
    struct sched_bind_job *j;
    const char *msg = "policy not loaded";
    struct arena a;
    char *node = NULL;
    int rc = -1;

    arena_init(&a, 0);
    if (st)
        rc = decide(s, st, &sp->pod, &a, &node, &msg);
    app_release(st);
    metrics_histogram_observe(s->algorithm_duration, kube_now() - start);
    if (rc == 0) {
        rc = kube_cache_assume_pod(s->cache, &sp->pod, node);
        if (rc == KUBE_CACHE_POD_BOUND) {
            pthread_mutex_lock(&s->lock);
            sched_queue_done(&s->q, it);
            pthread_mutex_unlock(&s->lock);
            LOG_INFO("pod %s/%s is bound already; dropped from the queue",
                     sp->pod.namespace, sp->pod.name);
            goto out;
        }
        if (rc != 1)
            msg = arena_sprintf(&a, "cannot assume pod on node %s: %s", node,
                                rc ? "out of memory" : "the node is gone");
        rc = rc == 1 ? 0 : -1;
    }
    if (rc != 0) {
        fail(s, it, sp, rc > 0 ? RES_UNSCHEDULABLE : RES_ERROR, "Unschedulable",
             msg ? msg : "out of memory", start);
        goto out;
    }
    j = calloc(1, sizeof(*j));
    if (!j) {
        kube_cache_forget_pod(s->cache, sp->pod.namespace, sp->pod.name);
        fail(s, it, sp, RES_ERROR, "Unschedulable", "out of memory", start);
        goto out;
    }
    atomic_fetch_add(&sp->refs, 1);
    j->it = it;
    j->sp = sp;
    j->node = node;
    j->start = start;
    node = NULL;
    bind_async(s, j);
out:
    free(node);
    arena_destroy(&a);
}

static void *sched_main(void *arg)
{
    struct scheduler *s = arg;
    double last_cleanup = 0;

    for (;;) {
        struct sched_qitem *it = NULL;
        struct sched_pod *sp;
        double now = kube_now();

        if (now - last_cleanup >= 1) {
            kube_cache_cleanup_assumed(s->cache, now);
            last_cleanup = now;
        }
        pthread_mutex_lock(&s->lock);
        while (!s->stopping) {
            double due = sched_queue_flush(&s->q, kube_now());
            struct timespec ts;

            if (atomic_load(&s->active) && (it = sched_queue_pop(&s->q)))
                break;
            due = fmin(due - kube_now(), 1.0);
            clock_gettime(CLOCK_REALTIME, &ts);
            due += (double)ts.tv_sec + ts.tv_nsec / 1e9;
            ts.tv_sec = (time_t)due;
            ts.tv_nsec = (long)((due - (double)ts.tv_sec) * 1e9);
            if (pthread_cond_timedwait(&s->cond, &s->lock, &ts) != 0)
                break; /* time for the assumed-pod cleanup */
        }
        if (s->stopping) {
            pthread_mutex_unlock(&s->lock);
            return NULL;
        }
        if (!it) {
            pthread_mutex_unlock(&s->lock);
            continue;
        }
        sp = it->payload;
        atomic_fetch_add(&sp->refs, 1);
        pthread_mutex_unlock(&s->lock);
        schedule_one(s, it, sp);
        pod_release(sp);
    }
}

/* ---- life cycle ---- */

static double depth_fn(void *arg)
{
    const struct sched_depth *d = arg;

    return (double)sched_pending(d->s, (enum sched_qstate)d->state);
}

size_t sched_pending(struct scheduler *s, enum sched_qstate st)
{
    size_t n;

    pthread_mutex_lock(&s->lock);
    n = sched_queue_len(&s->q, st);
    pthread_mutex_unlock(&s->lock);
    return n;
}

static void register_metrics(struct scheduler *s, struct metrics *m)
{
    static const double buckets[] = { 0.001, 0.002, 0.004, 0.008, 0.016,
                                      0.032, 0.064, 0.128, 0.256, 0.512,
                                      1.024, 2.048, 4.096, 8.192, 16.384 };
    static const char *const queues[] = { "active", "backoff", "unschedulable",
                                          "in_flight" };
    size_t nb = sizeof(buckets) / sizeof(buckets[0]);
    char label[128];
    int i;

    for (i = 0; i < 4; i++) {
        s->depth[i].s = s;
        s->depth[i].state = i;
        snprintf(label, sizeof(label), "queue=\"%s\"", queues[i]);
        metrics_gauge_fn(m, "kpe_scheduler_pending_pods",
                         "Pods waiting in each scheduling queue.", label,
                         depth_fn, &s->depth[i]);
    }
    for (i = 0; i < 3; i++) {
        snprintf(label, sizeof(label), "result=\"%s\"", result_names[i]);
        s->attempts[i] = metrics_counter(
            m, "kpe_schedule_attempts_total",
            "Scheduling attempts by result (scheduled, unschedulable, error).",
            label);
        s->attempt_duration[i] = metrics_histogram(
            m, "kpe_scheduling_attempt_duration_seconds",
            "Scheduling attempt latency in seconds (decision and binding).",
            label, buckets, nb);
    }
    s->algorithm_duration = metrics_histogram(
        m, "kpe_scheduling_algorithm_duration_seconds",
        "Decision latency in seconds: filter (until enough nodes fit, "
        "percentageOfNodesToScore) and score.",
        "", buckets, nb);
    s->binding_duration = metrics_histogram(
        m, "kpe_binding_duration_seconds",
        "Latency in seconds of the Binding POST.", "", buckets, nb);
    s->events_dropped = metrics_counter(
        m, "kpe_scheduler_events_dropped_total",
        "Events not sent because the event queue was full.", "");
    for (i = 0; i < 2; i++)
        s->events_posted[i] = metrics_counter(
            m, "kpe_scheduler_events_posted_total",
            "Events POSTed to the API server, by result (sent, failed).",
            i ? "result=\"failed\"" : "result=\"sent\"");
    snprintf(label, sizeof(label), "name=\"%s\"", s->opts.scheduler_name);
    s->leader = metrics_gauge(
        m, "kpe_leader_election_master_status",
        "1 while this replica leads (and schedules), else 0.", label);
}

int sched_init(struct scheduler *s, const struct sched_options *o,
               struct app *app, struct kube_cache *cache,
               struct kube_client *client, struct kube_client *eclient,
               struct metrics *m, struct err *e)
{
    s->opts = *o;
    if (!s->opts.scheduler_name || !*s->opts.scheduler_name)
        s->opts.scheduler_name = SCHED_DEFAULT_NAME;
    if (s->opts.bind_workers <= 0)
        s->opts.bind_workers = SCHED_DEFAULT_BIND_WORKERS;
    s->app = app;
    s->cache = cache;
    s->client = client;
    s->eclient = eclient ? eclient : client;
    s->rng = o->seed ? o->seed : (uint64_t)time(NULL) ^ (uint64_t)clock();
    sched_queue_init(&s->q, pod_release);
    if (o->initial_backoff > 0)
        s->q.initial_backoff = o->initial_backoff;
    if (o->max_backoff > 0)
        s->q.max_backoff = o->max_backoff;
    s->events = calloc(SCHED_EVENT_QUEUE, sizeof(*s->events));
    s->binders = calloc((size_t)s->opts.bind_workers, sizeof(*s->binders));
    s->ev_threads =
        calloc((size_t)s->opts.bind_workers, sizeof(*s->ev_threads));
    if (!s->events || !s->binders || !s->ev_threads)
        return err_set(e, "out of memory");
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    pthread_mutex_init(&s->bind_lock, NULL);
    pthread_cond_init(&s->bind_cond, NULL);
    pthread_mutex_init(&s->ev_lock, NULL);
    pthread_cond_init(&s->ev_cond, NULL);
    register_metrics(s, m);
    return 0;
}

int sched_start(struct scheduler *s, struct err *e)
{
    int i;

    /* From here sched_stop joins what was started; the scheduling
     * thread counts as stopped until it exists. */
    s->started = true;
    s->stopping = true;
    for (i = 0; i < s->opts.bind_workers; i++) {
        if (pthread_create(&s->ev_threads[i], NULL, event_main, s) != 0)
            return err_set(e, "cannot start event thread %d", i);
        s->n_ev_threads++;
    }
    for (i = 0; i < s->opts.bind_workers; i++) {
        if (pthread_create(&s->binders[i], NULL, binder_main, s) != 0)
            return err_set(e, "cannot start binder thread %d", i);
        s->n_binders++;
    }
    s->stopping = false;
    if (pthread_create(&s->thread, NULL, sched_main, s) != 0) {
        s->stopping = true;
        return err_set(e, "cannot start the scheduling thread");
    }
    return 0;
}

void sched_set_active(struct scheduler *s, bool active)
{
    pthread_mutex_lock(&s->lock);
    atomic_store(&s->active, active);
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    metrics_gauge_set(s->leader, active ? 1 : 0);
}

void sched_stop(struct scheduler *s)
{
    struct sched_bind_job *j, *next;
    int i;

    if (!s->started)
        return;
    pthread_mutex_lock(&s->lock);
    if (!s->stopping) {
        s->stopping = true;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
    } else {
        pthread_mutex_unlock(&s->lock);
    }
    /* Binds not started: forget the decisions. */
    pthread_mutex_lock(&s->bind_lock);
    j = s->jobs;
    s->jobs = s->jobs_tail = NULL;
    s->bind_stopping = true;
    pthread_cond_broadcast(&s->bind_cond);
    pthread_mutex_unlock(&s->bind_lock);
    for (; j; j = next) {
        next = j->next;
        kube_cache_forget_pod(s->cache, j->sp->pod.namespace, j->sp->pod.name);
        job_free(j);
    }
    for (i = 0; i < s->n_binders; i++)
        pthread_join(s->binders[i], NULL);
    s->n_binders = 0;
    pthread_mutex_lock(&s->ev_lock);
    s->ev_stopping = true;
    pthread_cond_broadcast(&s->ev_cond);
    pthread_mutex_unlock(&s->ev_lock);
    for (i = 0; i < s->n_ev_threads; i++)
        pthread_join(s->ev_threads[i], NULL);
    s->n_ev_threads = 0;
    s->started = false;
}

void sched_destroy(struct scheduler *s)
{
    size_t i;

    sched_stop(s);
    sched_queue_destroy(&s->q);
    for (i = 0; s->events && i < s->ev_n; i++)
        free(s->events[(s->ev_head + i) % SCHED_EVENT_QUEUE].buf);
    free(s->events);
    free(s->binders);
    free(s->ev_threads);
    for (i = 0; i < s->sig_slots; i++)
        free(s->sigs[i].name);
    free(s->sigs);
    free(s->node_buf);
    free(s->node_idx);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->bind_lock);
    pthread_cond_destroy(&s->bind_cond);
    pthread_mutex_destroy(&s->ev_lock);
    pthread_cond_destroy(&s->ev_cond);
}
