/*
 * leader.c: Lease leader election (see leader.h), after client-go v0.22
 * tools/leaderelection (leaderelection.go: acquire, renew,
 * tryAcquireOrRenew, release) with resourcelock/leaselock.go's mapping of
 * the record onto coordination.k8s.io/v1 Lease fields.
 */
#include "server/scheduler/leader.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/common/log.h"

#define LEASES_PATH "/apis/coordination.k8s.io/v1/namespaces/%s/leases"

int leader_config_check(const struct leader_config *c, struct err *e)
{
    if (!c->name || !*c->name)
        return err_set(e, "leader election: the lease needs a name");
    if (!c->namespace || !*c->namespace)
        return err_set(e, "leader election: the lease needs a namespace");
    if (!c->identity || !*c->identity)
        return err_set(e, "leader election: the identity is empty");
    if (!(c->lease_duration > c->renew_deadline))
        return err_set(e,
                       "leader election: the lease duration (%gs) must be "
                       "greater than the renew deadline (%gs)",
                       c->lease_duration, c->renew_deadline);
    if (!(c->renew_deadline > LEADER_JITTER_FACTOR * c->retry_period))
        return err_set(e,
                       "leader election: the renew deadline (%gs) must be "
                       "greater than the retry period (%gs) * %g",
                       c->renew_deadline, c->retry_period,
                       LEADER_JITTER_FACTOR);
    if (!(c->retry_period > 0))
        return err_set(e, "leader election: the retry period must be "
                          "positive");
    return 0;
}

static bool same_record(const struct leader_record *a,
                        const struct leader_record *b)
{
    return a->exists == b->exists && !strcmp(a->holder, b->holder) &&
           a->lease_duration_s == b->lease_duration_s &&
           !strcmp(a->acquire_time, b->acquire_time) &&
           !strcmp(a->renew_time, b->renew_time) &&
           a->transitions == b->transitions;
}

enum leader_action leader_decide(const struct leader_config *c,
                                 const struct leader_record *cur,
                                 struct leader_observed *obs, double now,
                                 const char *now_str, struct leader_record *out)
{
    bool is_leader;

    memset(out, 0, sizeof(*out));
    out->exists = true;
    snprintf(out->holder, sizeof(out->holder), "%s", c->identity);
    out->lease_duration_s = (int)ceil(c->lease_duration);
    snprintf(out->acquire_time, sizeof(out->acquire_time), "%s", now_str);
    snprintf(out->renew_time, sizeof(out->renew_time), "%s", now_str);
    if (!cur->exists)
        return LEADER_CREATE;
    if (!same_record(cur, &obs->rec)) {
        obs->rec = *cur;
        obs->time = now;
    }
    is_leader = !strcmp(obs->rec.holder, c->identity);
    if (cur->holder[0] && obs->time + c->lease_duration > now && !is_leader)
        return LEADER_WAIT;
    if (is_leader) {
        snprintf(out->acquire_time, sizeof(out->acquire_time), "%s",
                 cur->acquire_time);
        out->transitions = cur->transitions;
    } else {
        out->transitions = cur->transitions + 1;
    }
    snprintf(out->resource_version, sizeof(out->resource_version), "%s",
             cur->resource_version);
    return LEADER_UPDATE;
}

/* ---- the Lease object ---- */

static void copy_str(char *dst, size_t sz, const cJSON *j)
{
    snprintf(dst, sz, "%s", cJSON_IsString(j) ? j->valuestring : "");
}

int leader_record_parse(const char *json, size_t len, struct leader_record *out,
                        struct err *e)
{
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(root, "spec");
    const cJSON *n;

    memset(out, 0, sizeof(*out));
    if (!cJSON_IsObject(root) || !cJSON_IsObject(meta)) {
        cJSON_Delete(root);
        return err_set(e, "lease: not a Lease object");
    }
    out->exists = true;
    copy_str(out->resource_version, sizeof(out->resource_version),
             cJSON_GetObjectItemCaseSensitive(meta, "resourceVersion"));
    copy_str(out->holder, sizeof(out->holder),
             cJSON_GetObjectItemCaseSensitive(spec, "holderIdentity"));
    copy_str(out->acquire_time, sizeof(out->acquire_time),
             cJSON_GetObjectItemCaseSensitive(spec, "acquireTime"));
    copy_str(out->renew_time, sizeof(out->renew_time),
             cJSON_GetObjectItemCaseSensitive(spec, "renewTime"));
    n = cJSON_GetObjectItemCaseSensitive(spec, "leaseDurationSeconds");
    out->lease_duration_s = cJSON_IsNumber(n) ? n->valueint : 0;
    n = cJSON_GetObjectItemCaseSensitive(spec, "leaseTransitions");
    out->transitions = cJSON_IsNumber(n) ? n->valueint : 0;
    cJSON_Delete(root);
    return 0;
}

char *leader_record_json(const struct leader_config *c,
                         const struct leader_record *rec)
{
    cJSON *l = cJSON_CreateObject(), *meta, *spec;
    char *out;

    cJSON_AddStringToObject(l, "apiVersion", "coordination.k8s.io/v1");
    cJSON_AddStringToObject(l, "kind", "Lease");
    meta = cJSON_AddObjectToObject(l, "metadata");
    cJSON_AddStringToObject(meta, "name", c->name);
    cJSON_AddStringToObject(meta, "namespace", c->namespace);
    if (rec->resource_version[0])
        cJSON_AddStringToObject(meta, "resourceVersion", rec->resource_version);
    spec = cJSON_AddObjectToObject(l, "spec");
    cJSON_AddStringToObject(spec, "holderIdentity", rec->holder);
    cJSON_AddNumberToObject(spec, "leaseDurationSeconds",
                            rec->lease_duration_s);
    if (rec->acquire_time[0])
        cJSON_AddStringToObject(spec, "acquireTime", rec->acquire_time);
    if (rec->renew_time[0])
        cJSON_AddStringToObject(spec, "renewTime", rec->renew_time);
    if (!cJSON_AddNumberToObject(spec, "leaseTransitions", rec->transitions)) {
        cJSON_Delete(l);
        return NULL;
    }
    out = cJSON_PrintUnformatted(l);
    cJSON_Delete(l);
    return out;
}

/* ---- small helpers ---- */

int leader_parse_duration(const char *s, double *out)
{
    static const struct {
        const char *unit;
        double secs;
    } units[] = {
        { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 },
        { "h", 3600 },  { "m", 60 },    { "s", 1 },
    };
    double total = 0;
    size_t i;

    if (!s || !*s)
        return -1;
    if (!strcmp(s, "0")) {
        *out = 0;
        return 0;
    }
    while (*s) {
        char *end;
        double v;

        if (!isdigit((unsigned char)*s) && *s != '.')
            return -1;
        v = strtod(s, &end);
        if (end == s)
            return -1;
        s = end;
        for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
            size_t n = strlen(units[i].unit);

            if (!strncmp(s, units[i].unit, n)) {
                total += v * units[i].secs;
                s += n;
                break;
            }
        }
        if (i == sizeof(units) / sizeof(units[0]))
            return -1; /* a number without a unit */
    }
    *out = total;
    return 0;
}

void leader_identity(char *buf, size_t sz)
{
    unsigned char u[16];
    char host[128] = "localhost";
    FILE *f = fopen("/dev/urandom", "rb");
    size_t got = f ? fread(u, 1, sizeof(u), f) : 0;
    size_t i;

    if (f)
        fclose(f);
    for (i = got; i < sizeof(u); i++)
        u[i] = (unsigned char)(rand() ^ (int)(i * 31) ^ (int)getpid());
    u[6] = (unsigned char)((u[6] & 0x0f) | 0x40); /* version 4 */
    u[8] = (unsigned char)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    snprintf(buf, sz,
             "%s_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x"
             "%02x%02x",
             host, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
             u[10], u[11], u[12], u[13], u[14], u[15]);
}

void leader_micro_time(char *buf, size_t sz)
{
    struct timespec ts;
    struct tm tm;
    char base[32];

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, sz, "%s.%06ldZ", base, ts.tv_nsec / 1000);
}

/* ---- talking to the API server ---- */

/* GET the Lease: 1 found (*cur set), 0 none, -1 failure (e set). */
static int get_lease(struct leader_elector *le, struct leader_record *cur,
                     struct err *e)
{
    char path[512], msg[300];
    struct kube_response r;
    int rc;

    snprintf(path, sizeof(path), LEASES_PATH "/%s", le->cfg.namespace,
             le->cfg.name);
    if (kube_client_request(le->client, "GET", path, NULL, NULL, 0, &r, e) < 0)
        return -1;
    if (r.status == 404) {
        memset(cur, 0, sizeof(*cur));
        rc = 0;
    } else if (r.status != 200) {
        rc = err_set(e, "GET %s: HTTP %ld: %s", path, r.status,
                     kube_status_message(&r, msg, sizeof(msg)));
    } else {
        rc = leader_record_parse(r.body, r.len, cur, e) < 0 ? -1 : 1;
    }
    kube_response_free(&r);
    return rc;
}

/* POST (create) or PUT (update) rec; the answer becomes the observed. */
static int write_lease(struct leader_elector *le, bool create,
                       const struct leader_record *rec, struct err *e)
{
    char path[512], msg[300];
    struct kube_response r;
    char *body = leader_record_json(&le->cfg, rec);
    int rc;

    if (!body)
        return err_set(e, "out of memory");
    snprintf(path, sizeof(path), LEASES_PATH "%s%s", le->cfg.namespace,
             create ? "" : "/", create ? "" : le->cfg.name);
    rc = kube_client_request(le->client, create ? "POST" : "PUT", path,
                             "application/json", body, strlen(body), &r, e);
    cJSON_free(body);
    if (rc < 0)
        return -1;
    if (r.status < 200 || r.status > 299)
        rc = err_set(e, "%s %s: HTTP %ld: %s", create ? "POST" : "PUT", path,
                     r.status, kube_status_message(&r, msg, sizeof(msg)));
    else if (leader_record_parse(r.body, r.len, &le->obs.rec, e) < 0)
        rc = -1;
    kube_response_free(&r);
    if (rc == 0)
        le->obs.time = kube_now();
    return rc;
}

/* tryAcquireOrRenew: true when this candidate holds the lease now. */
static bool try_acquire_or_renew(struct leader_elector *le)
{
    struct leader_record cur, next;
    struct err e = { "" };
    char now_str[40];
    enum leader_action act;
    int found;

    found = get_lease(le, &cur, &e);
    if (found < 0) {
        LOG_WARN("leader election: error retrieving lease %s/%s: %s",
                 le->cfg.namespace, le->cfg.name, e.msg);
        return false;
    }
    leader_micro_time(now_str, sizeof(now_str));
    act = leader_decide(&le->cfg, &cur, &le->obs, kube_now(), now_str, &next);
    if (act == LEADER_WAIT)
        return false;
    if (write_lease(le, act == LEADER_CREATE, &next, &e) < 0) {
        LOG_WARN("leader election: cannot %s lease %s/%s: %s",
                 act == LEADER_CREATE ? "create" : "update", le->cfg.namespace,
                 le->cfg.name, e.msg);
        return false;
    }
    return true;
}

/* Sleep up to secs; returns early (true) when asked to stop. */
static bool nap(struct leader_elector *le, double secs)
{
    struct timespec ts;
    double until;
    bool stop;

    clock_gettime(CLOCK_REALTIME, &ts);
    until = (double)ts.tv_sec + ts.tv_nsec / 1e9 + secs;
    ts.tv_sec = (time_t)until;
    ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
    pthread_mutex_lock(&le->lock);
    while (!(stop = atomic_load(&le->stop))) {
        if (pthread_cond_timedwait(&le->cond, &le->lock, &ts) != 0)
            break;
    }
    pthread_mutex_unlock(&le->lock);
    return stop || atomic_load(&le->stop);
}

/* wait.Jitter(d, 1.2): d plus up to 1.2 d more. */
static double jitter(struct leader_elector *le, double d)
{
    return d + d * LEADER_JITTER_FACTOR * (rand_r(&le->rng) / (RAND_MAX + 1.0));
}

/* Renew until the deadline; false when it passed without success. */
static bool renew(struct leader_elector *le)
{
    double deadline = kube_now() + le->cfg.renew_deadline;

    for (;;) {
        if (try_acquire_or_renew(le))
            return true;
        if (atomic_load(&le->stop))
            return true;
        if (kube_now() >= deadline)
            return false;
        if (nap(le, fmin(le->cfg.retry_period, deadline - kube_now())))
            return true;
    }
}

static void *elector_main(void *arg)
{
    struct leader_elector *le = arg;

    LOG_INFO("attempting to acquire leader lease %s/%s...", le->cfg.namespace,
             le->cfg.name);
    while (!try_acquire_or_renew(le)) {
        if (nap(le, jitter(le, le->cfg.retry_period)))
            return NULL;
    }
    atomic_store(&le->leading, true);
    LOG_INFO("successfully acquired lease %s/%s as %s", le->cfg.namespace,
             le->cfg.name, le->cfg.identity);
    if (le->on_started)
        le->on_started(le->arg);
    while (!atomic_load(&le->stop)) {
        if (nap(le, le->cfg.retry_period))
            break;
        if (!renew(le)) {
            atomic_store(&le->leading, false);
            LOG_ERROR("failed to renew lease %s/%s: timed out reached (renew "
                      "deadline %gs)",
                      le->cfg.namespace, le->cfg.name, le->cfg.renew_deadline);
            if (le->on_stopped)
                le->on_stopped(le->arg);
            return NULL;
        }
    }
    return NULL;
}

int leader_start(struct leader_elector *le, struct err *e)
{
    if (leader_config_check(&le->cfg, e) < 0)
        return -1;
    pthread_mutex_init(&le->lock, NULL);
    pthread_cond_init(&le->cond, NULL);
    le->rng = (unsigned)time(NULL) ^ (unsigned)getpid();
    if (pthread_create(&le->thread, NULL, elector_main, le) != 0) {
        pthread_cond_destroy(&le->cond);
        pthread_mutex_destroy(&le->lock);
        return err_set(e, "cannot start the leader election thread");
    }
    le->running = true;
    return 0;
}

/* release(): hand the lease back so a standby need not wait for it. */
static void release(struct leader_elector *le)
{
    struct leader_record rec = le->obs.rec;
    struct err e = { "" };
    char now_str[40];

    leader_micro_time(now_str, sizeof(now_str));
    rec.holder[0] = '\0';
    rec.lease_duration_s = 1;
    snprintf(rec.acquire_time, sizeof(rec.acquire_time), "%s", now_str);
    snprintf(rec.renew_time, sizeof(rec.renew_time), "%s", now_str);
    if (write_lease(le, false, &rec, &e) < 0)
        LOG_WARN("leader election: cannot release lease %s/%s: %s",
                 le->cfg.namespace, le->cfg.name, e.msg);
    else
        LOG_INFO("released lease %s/%s", le->cfg.namespace, le->cfg.name);
}

void leader_stop(struct leader_elector *le)
{
    if (!le->running)
        return;
    pthread_mutex_lock(&le->lock);
    atomic_store(&le->stop, true);
    pthread_cond_broadcast(&le->cond);
    pthread_mutex_unlock(&le->lock);
    pthread_join(le->thread, NULL);
    le->running = false;
    if (atomic_load(&le->leading))
        release(le);
    atomic_store(&le->leading, false);
    pthread_cond_destroy(&le->cond);
    pthread_mutex_destroy(&le->lock);
}
