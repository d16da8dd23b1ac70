/*
 * informer.c: list+watch on one curl multi thread (see informer.h),
 * following client-go's reflector (tools/cache/reflector.go): paginated
 * list, watch from its resourceVersion with allowWatchBookmarks, relist on
 * 410 Gone (HTTP or an ERROR event), resume from the last seen
 * resourceVersion after a dropped connection, backoff 0.8 s doubling to
 * 30 s with jitter 1.0 (NewExponentialBackoffManager's defaults).
 */
#include "kube/client/informer.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/base/json_parse.h"

#define MAX_LIST_BODY ((size_t)1 << 30)
#define MAX_ERR_BODY  ((size_t)64 << 10)
#define BATCH_MAX     512

static const struct kube_resource resources[] = {
    { KUBE_KIND_NODE, "nodes", "/api/v1/nodes" },
    { KUBE_KIND_POD, "pods", "/api/v1/pods" },
    { KUBE_KIND_SERVICE, "services", "/api/v1/services" },
    { KUBE_KIND_REPLICATION_CONTROLLER, "replicationcontrollers",
      "/api/v1/replicationcontrollers" },
    { KUBE_KIND_REPLICA_SET, "replicasets", "/apis/apps/v1/replicasets" },
    { KUBE_KIND_STATEFUL_SET, "statefulsets", "/apis/apps/v1/statefulsets" },
    { KUBE_KIND_PERSISTENT_VOLUME, "persistentvolumes",
      "/api/v1/persistentvolumes" },
    { KUBE_KIND_PERSISTENT_VOLUME_CLAIM, "persistentvolumeclaims",
      "/api/v1/persistentvolumeclaims" },
    { KUBE_KIND_STORAGE_CLASS, "storageclasses",
      "/apis/storage.k8s.io/v1/storageclasses" },
    { KUBE_KIND_CSI_NODE, "csinodes", "/apis/storage.k8s.io/v1/csinodes" },
    { KUBE_KIND_NAMESPACE, "namespaces", "/api/v1/namespaces" },
};

#define N_RESOURCES (sizeof(resources) / sizeof(resources[0]))

const struct kube_resource *kube_resource_for(enum kube_kind kind)
{
    size_t i;

    for (i = 0; i < N_RESOURCES; i++)
        if (resources[i].kind == kind)
            return &resources[i];
    return NULL;
}

/* ---- lines and events ---- */

static int take_line(const char *p, size_t n, kube_line_fn *fn, void *arg)
{
    if (n && p[n - 1] == '\r')
        n--;
    if (n == 0)
        return 0;
    return fn(arg, p, n);
}

int kube_lines_feed(struct kube_lines *ls, const char *p, size_t n,
                    kube_line_fn *fn, void *arg)
{
    size_t max = ls->max ? ls->max : (size_t)256 << 20;
    int rc;

    while (n) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) : n;

        if (!ls->len && nl) {
            /* A whole line in this chunk: no copy. */
            if ((rc = take_line(p, take, fn, arg)) != 0)
                return rc;
        } else {
            if (ls->len + take > max)
                return -1;
            if (ls->len + take + 1 > ls->cap) {
                size_t cap = ls->cap ? ls->cap : 4096;
                char *nb;

                while (cap < ls->len + take + 1)
                    cap *= 2;
                nb = realloc(ls->buf, cap);
                if (!nb)
                    return -1;
                ls->buf = nb;
                ls->cap = cap;
            }
            memcpy(ls->buf + ls->len, p, take);
            ls->len += take;
            if (nl) {
                size_t len = ls->len;

                ls->len = 0;
                if ((rc = take_line(ls->buf, len, fn, arg)) != 0)
                    return rc;
            }
        }
        if (!nl)
            break;
        p += take + 1;
        n -= take + 1;
    }
    return 0;
}

void kube_lines_free(struct kube_lines *ls)
{
    free(ls->buf);
    memset(ls, 0, sizeof(*ls));
}

static const struct {
    const char *name;
    enum kube_event_type type;
} event_types[] = {
    { "ADDED", KUBE_EVENT_ADDED },     { "MODIFIED", KUBE_EVENT_MODIFIED },
    { "DELETED", KUBE_EVENT_DELETED }, { "BOOKMARK", KUBE_EVENT_BOOKMARK },
    { "ERROR", KUBE_EVENT_ERROR },
};

int kube_watch_event_parse(struct arena *a, const char *line, size_t len,
                           enum kube_event_type *type,
                           const struct cJSON **object, struct err *e)
{
    cJSON *root = NULL;
    const cJSON *t, *o;
    size_t i;

    if (json_arena_parse(a, line, len, 0, &root, e) < 0)
        return err_prefix(e, "watch event: ");
    t = cJSON_GetObjectItemCaseSensitive(root, "type");
    o = cJSON_GetObjectItemCaseSensitive(root, "object");
    if (!cJSON_IsString(t))
        return err_set(e, "watch event: no \"type\"");
    if (!cJSON_IsObject(o))
        return err_set(e, "watch event %s: no \"object\"", t->valuestring);
    for (i = 0; i < sizeof(event_types) / sizeof(event_types[0]); i++) {
        if (!strcmp(event_types[i].name, t->valuestring)) {
            *type = event_types[i].type;
            *object = o;
            return 0;
        }
    }
    return err_set(e, "watch event: unknown type \"%.64s\"", t->valuestring);
}

const char *kube_object_rv(const struct cJSON *obj)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(m, "resourceVersion");

    return cJSON_IsString(rv) ? rv->valuestring : NULL;
}

/* ---- informers ---- */

enum inf_state { INF_WAITING, INF_LISTING, INF_WATCHING };

struct informer {
    struct kube_informers *hub;
    const struct kube_resource *res;
    enum inf_state state;
    double next_at; /* INF_WAITING: when to start */
    bool need_list; /* the next start lists (else it watches) */
    bool listed_once;
    int failures;      /* consecutive, for backoff */
    char rv[128];      /* last seen resourceVersion */
    char *cont;        /* continue token of the next page */
    char list_rv[128]; /* resourceVersion of the list in progress */

    /* The transfer in flight. */
    CURL *h;
    struct curl_slist *hdrs;
    char errbuf[CURL_ERROR_SIZE];
    long status; /* HTTP status once headers arrived */
    char *body;  /* list page, or the body of a failed request */
    size_t body_len, body_cap;
    struct kube_lines lines;
    struct arena batch_arena;
    struct kube_watch_event batch[BATCH_MAX];
    size_t n_batch;
    char batch_rv[128]; /* rv of the last event in the batch */
    bool abort_relist;  /* ERROR 410 or an unreadable line seen */
    bool streamed;      /* this watch delivered an event or a bookmark */
    char abort_msg[256];
};

struct kube_informers {
    struct kube_client *client;
    struct kube_informer_sink sink;
    struct kube_informer_opts o;
    CURLM *multi;
    pthread_t thread;
    atomic_int stop;
    uint64_t rng;

    pthread_mutex_t lock; /* guards status */
    struct kube_informers_status status;

    size_t n;
    struct informer infs[N_RESOURCES];
};

static void inf_log(struct kube_informers *hub, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void inf_log(struct kube_informers *hub, int level, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (hub->o.log)
        hub->o.log(hub->o.log_arg, level, msg);
    else
        fprintf(stderr, "informer: %s\n", msg);
}

static double rand01(struct kube_informers *hub)
{
    uint64_t x = hub->rng; /* xorshift64 */

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    hub->rng = x;
    return (double)(x >> 11) / 9007199254740992.0;
}

/* Wait before the next attempt: base * 2^(failures-1), capped, jittered. */
static double backoff(struct informer *inf)
{
    struct kube_informers *hub = inf->hub;
    double d = hub->o.backoff_base;
    int i;

    for (i = 1; i < inf->failures && d < hub->o.backoff_cap; i++)
        d *= 2;
    if (d > hub->o.backoff_cap)
        d = hub->o.backoff_cap;
    if (hub->o.jitter > 0)
        d += d * hub->o.jitter * rand01(hub);
    return d;
}

static void set_error(struct informer *inf, long status, const char *msg)
{
    struct kube_informers *hub = inf->hub;

    pthread_mutex_lock(&hub->lock);
    hub->status.last_http_status = status;
    hub->status.auth_failed = status == 401 || status == 403;
    snprintf(hub->status.last_error, sizeof(hub->status.last_error),
             "%s: %.400s", inf->res->name, msg);
    pthread_mutex_unlock(&hub->lock);
}

static void clear_error(struct informer *inf)
{
    struct kube_informers *hub = inf->hub;

    pthread_mutex_lock(&hub->lock);
    hub->status.auth_failed = false;
    hub->status.last_http_status = 0;
    hub->status.last_error[0] = '\0';
    pthread_mutex_unlock(&hub->lock);
}

static void count(struct kube_informers *hub, unsigned long *field,
                  unsigned long n)
{
    pthread_mutex_lock(&hub->lock);
    *field += n;
    pthread_mutex_unlock(&hub->lock);
}

static void copy_rv(char *dst, const char *rv)
{
    snprintf(dst, 128, "%s", rv ? rv : "");
}

/* Hand the pending watch events to the sink. */
static void flush(struct informer *inf)
{
    struct kube_informers *hub = inf->hub;
    struct err e = { "" };
    size_t n = inf->n_batch;

    if (!n)
        return;
    inf->n_batch = 0;
    /* A failed apply is logged; relisting would not make it succeed. */
    if (hub->sink.apply(hub->sink.arg, inf->res->kind, inf->batch, n, &e) < 0)
        inf_log(hub, KUBE_LOG_ERROR, "%s: applying %zu events: %s",
                inf->res->name, n, e.msg);
    copy_rv(inf->rv, inf->batch_rv);
    count(hub, &hub->status.events, n);
    arena_destroy(&inf->batch_arena);
    arena_init(&inf->batch_arena, 0);
}

/* One watch line: queue an object event, follow a bookmark, or stop. */
static int on_line(void *arg, const char *line, size_t len)
{
    struct informer *inf = arg;
    struct err e = { "" };
    enum kube_event_type type;
    const cJSON *obj;
    const cJSON *code;

    if (kube_watch_event_parse(&inf->batch_arena, line, len, &type, &obj, &e) <
        0) {
        snprintf(inf->abort_msg, sizeof(inf->abort_msg), "%.200s", e.msg);
        inf->abort_relist = true;
        return 1;
    }
    if (type != KUBE_EVENT_ERROR)
        inf->streamed = true;
    switch (type) {
    case KUBE_EVENT_BOOKMARK: {
        char rv[128];

        /* flush() frees the tree the bookmark lives in: copy first. */
        copy_rv(rv, kube_object_rv(obj));
        flush(inf);
        if (rv[0])
            copy_rv(inf->rv, rv);
        return 0;
    }
    case KUBE_EVENT_ERROR:
        code = cJSON_GetObjectItemCaseSensitive(obj, "code");
        snprintf(
            inf->abort_msg, sizeof(inf->abort_msg), "watch ERROR event: %.200s",
            cJSON_IsString(cJSON_GetObjectItemCaseSensitive(obj, "message"))
                ? cJSON_GetObjectItemCaseSensitive(obj, "message")->valuestring
                : "(no message)");
        if (cJSON_IsNumber(code) && code->valueint == 410)
            inf->abort_relist = true;
        return 1;
    default:
        break;
    }
    inf->batch[inf->n_batch].type = type;
    inf->batch[inf->n_batch].object = obj;
    inf->n_batch++;
    if (kube_object_rv(obj))
        copy_rv(inf->batch_rv, kube_object_rv(obj));
    if (inf->n_batch == BATCH_MAX)
        flush(inf);
    return 0;
}

static int append_body(struct informer *inf, const char *p, size_t n,
                       size_t max)
{
    if (inf->body_len + n > max)
        return -1;
    if (inf->body_len + n + 1 > inf->body_cap) {
        size_t cap = inf->body_cap ? inf->body_cap : 65536;
        char *nb;

        while (cap < inf->body_len + n + 1)
            cap *= 2;
        nb = realloc(inf->body, cap);
        if (!nb)
            return -1;
        inf->body = nb;
        inf->body_cap = cap;
    }
    memcpy(inf->body + inf->body_len, p, n);
    inf->body_len += n;
    inf->body[inf->body_len] = '\0';
    return 0;
}

static size_t on_data(char *p, size_t sz, size_t nm, void *arg)
{
    struct informer *inf = arg;
    size_t n = sz * nm;

    if (!inf->status)
        curl_easy_getinfo(inf->h, CURLINFO_RESPONSE_CODE, &inf->status);
    if (inf->state == INF_LISTING)
        return append_body(inf, p, n, MAX_LIST_BODY) < 0 ? 0 : n;
    if (inf->status != 200) {
        /* Keep the start of an error body for the message. */
        if (inf->body_len < MAX_ERR_BODY)
            append_body(inf, p,
                        n < MAX_ERR_BODY - inf->body_len
                            ? n
                            : MAX_ERR_BODY - inf->body_len,
                        MAX_ERR_BODY);
        return n;
    }
    if (kube_lines_feed(&inf->lines, p, n, on_line, inf) != 0) {
        if (!inf->abort_msg[0])
            snprintf(inf->abort_msg, sizeof(inf->abort_msg),
                     "watch line too long or out of memory");
        return 0;
    }
    return n;
}

static void end_transfer(struct informer *inf)
{
    if (inf->h) {
        curl_multi_remove_handle(inf->hub->multi, inf->h);
        curl_easy_cleanup(inf->h);
        inf->h = NULL;
    }
    curl_slist_free_all(inf->hdrs);
    inf->hdrs = NULL;
    inf->body_len = 0;
    kube_lines_free(&inf->lines);
    inf->n_batch = 0;
    arena_destroy(&inf->batch_arena);
    arena_init(&inf->batch_arena, 0);
}

static void wait_then(struct informer *inf, double delay)
{
    inf->state = INF_WAITING;
    inf->next_at = kube_now() + delay;
}

/* Percent-encode s (a continue token) for a query string. */
static void query_escape(const char *s, char *out, size_t sz)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;

    for (; *s && o + 4 < sz; s++) {
        unsigned char c = (unsigned char)*s;

        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || strchr("-._~", c)) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
}

static void start(struct informer *inf)
{
    struct kube_informers *hub = inf->hub;
    struct err e = { "" };
    char path[4096], esc[3072];
    long timeout_s;

    inf->h = curl_easy_init();
    inf->status = 0;
    inf->streamed = false;
    inf->abort_relist = false;
    inf->abort_msg[0] = '\0';
    inf->errbuf[0] = '\0';
    if (inf->need_list) {
        inf->state = INF_LISTING;
        query_escape(inf->cont ? inf->cont : "", esc, sizeof(esc));
        snprintf(path, sizeof(path), "%s?limit=%ld%s%s", inf->res->path,
                 hub->o.page_size, inf->cont ? "&continue=" : "", esc);
    } else {
        inf->state = INF_WATCHING;
        query_escape(inf->rv, esc, sizeof(esc));
        timeout_s = hub->o.watch_timeout_s ? hub->o.watch_timeout_s
                                           : 300 + (long)(300 * rand01(hub));
        snprintf(path, sizeof(path),
                 "%s?allowWatchBookmarks=true&resourceVersion=%s"
                 "&timeoutSeconds=%ld&watch=true",
                 inf->res->path, esc, timeout_s);
        curl_easy_setopt(inf->h, CURLOPT_TIMEOUT_MS, (timeout_s + 30) * 1000L);
        curl_easy_setopt(inf->h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(inf->h, CURLOPT_LOW_SPEED_TIME, hub->o.watch_idle_s);
        count(hub, &hub->status.watches, 1);
    }
    if (!inf->h ||
        kube_client_prepare(hub->client, inf->h, path, &inf->hdrs, &e) < 0) {
        inf_log(hub, KUBE_LOG_ERROR, "%s: %s", inf->res->name,
                e.msg[0] ? e.msg : "cannot create a curl handle");
        set_error(inf, 0, e.msg);
        end_transfer(inf);
        inf->failures++;
        wait_then(inf, backoff(inf));
        return;
    }
    if (inf->state == INF_LISTING)
        curl_easy_setopt(inf->h, CURLOPT_TIMEOUT_MS, hub->o.list_timeout_ms);
    curl_easy_setopt(inf->h, CURLOPT_HTTPHEADER, inf->hdrs);
    curl_easy_setopt(inf->h, CURLOPT_ERRORBUFFER, inf->errbuf);
    curl_easy_setopt(inf->h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(inf->h, CURLOPT_WRITEDATA, inf);
    curl_easy_setopt(inf->h, CURLOPT_PRIVATE, inf);
    curl_multi_add_handle(hub->multi, inf->h);
}

/* The message of a failed answer: the Status "message", else the body. */
static void failure_text(struct informer *inf, CURLcode rc, char *buf,
                         size_t sz)
{
    struct kube_response r = { inf->status, inf->body, inf->body_len };
    char msg[400];

    if (inf->status && inf->status != 200)
        snprintf(buf, sz, "HTTP %ld: %s", inf->status,
                 inf->body_len ? kube_status_message(&r, msg, sizeof(msg))
                               : "(no body)");
    else if (inf->abort_msg[0])
        snprintf(buf, sz, "%s", inf->abort_msg);
    else
        snprintf(buf, sz, "%s",
                 inf->errbuf[0] ? inf->errbuf : curl_easy_strerror(rc));
}

/* Deliver one list page; 0, or -1 with e set. */
static int take_page(struct informer *inf, char *cont_out, size_t cont_sz,
                     struct err *e)
{
    struct kube_informers *hub = inf->hub;
    struct arena a;
    cJSON *root = NULL;
    const cJSON *items, *it, *meta, *c;
    struct kube_watch_event *ev = NULL;
    size_t n = 0, i = 0;
    int rc = -1;

    arena_init(&a, 0);
    if (json_arena_parse(&a, inf->body, inf->body_len, 0, &root, e) < 0)
        goto out;
    items = cJSON_GetObjectItemCaseSensitive(root, "items");
    meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    if (!cJSON_IsArray(items) && !cJSON_IsNull(items) && items) {
        err_set(e, "list: \"items\" is not an array");
        goto out;
    }
    for (it = items ? items->child : NULL; it; it = it->next)
        n++;
    ev = calloc(n ? n : 1, sizeof(*ev));
    if (!ev) {
        err_set(e, "out of memory");
        goto out;
    }
    for (it = items ? items->child : NULL; it; it = it->next) {
        ev[i].type = KUBE_EVENT_ADDED;
        ev[i++].object = it;
    }
    copy_rv(inf->list_rv, kube_object_rv(root));
    c = cJSON_GetObjectItemCaseSensitive(meta, "continue");
    snprintf(cont_out, cont_sz, "%s", cJSON_IsString(c) ? c->valuestring : "");
    /* A request without a continue token starts a (re)list. */
    if (!inf->cont)
        hub->sink.list_begin(hub->sink.arg, inf->res->kind);
    if (n && hub->sink.apply(hub->sink.arg, inf->res->kind, ev, n, e) < 0)
        inf_log(hub, KUBE_LOG_ERROR, "%s: list: %s", inf->res->name, e->msg);
    count(hub, &hub->status.events, n);
    rc = 0;
out:
    free(ev);
    arena_destroy(&a);
    return rc;
}

static void finish_list(struct informer *inf, CURLcode rc)
{
    struct kube_informers *hub = inf->hub;
    struct err e = { "" };
    char cont[3072], msg[600];

    if (rc == CURLE_OK && inf->status == 200) {
        if (take_page(inf, cont, sizeof(cont), &e) < 0) {
            inf_log(hub, KUBE_LOG_ERROR, "%s: list: %s", inf->res->name, e.msg);
            set_error(inf, 200, e.msg);
            free(inf->cont);
            inf->cont = NULL;
            inf->failures++;
            end_transfer(inf);
            wait_then(inf, backoff(inf));
            return;
        }
        free(inf->cont);
        inf->cont = cont[0] ? strdup(cont) : NULL;
        end_transfer(inf);
        if (inf->cont) {
            wait_then(inf, 0); /* next page now */
            return;
        }
        hub->sink.list_end(hub->sink.arg, inf->res->kind);
        copy_rv(inf->rv, inf->list_rv);
        inf->need_list = false;
        inf->failures = 0;
        if (!inf->listed_once)
            inf_log(hub, KUBE_LOG_INFO, "%s: listed, watching from %s",
                    inf->res->name, inf->rv);
        inf->listed_once = true;
        clear_error(inf);
        count(hub, &hub->status.lists, 1);
        /* list_only: a one-shot list; this informer is done. */
        wait_then(inf, hub->o.list_only ? HUGE_VAL : 0);
        return;
    }
    failure_text(inf, rc, msg, sizeof(msg));
    end_transfer(inf);
    if (inf->status == 410 && inf->cont) {
        /* The continue token expired: list again from the start. */
        inf_log(hub, KUBE_LOG_WARN, "%s: list continuation expired, relisting",
                inf->res->name);
        free(inf->cont);
        inf->cont = NULL;
        wait_then(inf, 0);
        return;
    }
    inf_log(hub, KUBE_LOG_ERROR, "%s: list %s: %s%s", inf->res->name,
            hub->client->conn.server, msg,
            inf->status == 401   ? " (unauthorized: check the token)"
            : inf->status == 403 ? " (forbidden: check RBAC for list/watch)"
                                 : "");
    set_error(inf, inf->status, msg);
    free(inf->cont);
    inf->cont = NULL;
    inf->failures++;
    wait_then(inf, backoff(inf));
}

static void finish_watch(struct informer *inf, CURLcode rc)
{
    struct kube_informers *hub = inf->hub;
    char msg[600];

    flush(inf);
    failure_text(inf, rc, msg, sizeof(msg));
    if (inf->abort_relist || inf->status == 410) {
        end_transfer(inf);
        inf_log(hub, KUBE_LOG_WARN, "%s: watch from %s: %s; relisting",
                inf->res->name, inf->rv, msg);
        inf->need_list = true;
        wait_then(inf, 0);
        return;
    }
    if (inf->status == 200 &&
        (rc == CURLE_OK || rc == CURLE_OPERATION_TIMEDOUT)) {
        /* The server's timeoutSeconds, or an idle stream: watch again. */
        end_transfer(inf);
        inf->failures = 0;
        wait_then(inf, 0);
        return;
    }
    end_transfer(inf);
    /* A watch that streamed was healthy until it broke (a proxy or load
     * balancer cutting long connections): retry after the base backoff
     * instead of doubling it with every such cut. */
    if (inf->streamed)
        inf->failures = 0;
    inf->failures++;
    inf_log(hub, KUBE_LOG_WARN, "%s: watch from %s: %s%s; retrying",
            inf->res->name, inf->rv, msg,
            inf->status == 401   ? " (unauthorized: check the token)"
            : inf->status == 403 ? " (forbidden: check RBAC for list/watch)"
                                 : "");
    set_error(inf, inf->status == 200 ? 0 : inf->status, msg);
    wait_then(inf, backoff(inf));
}

static void update_synced(struct kube_informers *hub)
{
    size_t i;
    bool all = true;

    for (i = 0; i < hub->n; i++)
        all = all && hub->infs[i].listed_once;
    pthread_mutex_lock(&hub->lock);
    hub->status.synced = all;
    pthread_mutex_unlock(&hub->lock);
}

static void *run(void *arg)
{
    struct kube_informers *hub = arg;
    CURLMsg *m;
    int running, left;
    size_t i;

    while (!atomic_load(&hub->stop)) {
        double now = kube_now(), next = now + 1.0;

        for (i = 0; i < hub->n; i++) {
            struct informer *inf = &hub->infs[i];

            if (inf->state == INF_WAITING && inf->next_at <= now)
                start(inf);
            if (inf->state == INF_WAITING && inf->next_at < next)
                next = inf->next_at;
        }
        curl_multi_perform(hub->multi, &running);
        for (i = 0; i < hub->n; i++) {
            if (hub->infs[i].state == INF_WATCHING)
                flush(&hub->infs[i]);
        }
        while ((m = curl_multi_info_read(hub->multi, &left))) {
            struct informer *inf;
            char *priv = NULL;

            if (m->msg != CURLMSG_DONE)
                continue;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &priv);
            inf = (struct informer *)(void *)priv;
            if (!inf->status)
                curl_easy_getinfo(inf->h, CURLINFO_RESPONSE_CODE, &inf->status);
            if (inf->state == INF_LISTING)
                finish_list(inf, m->data.result);
            else
                finish_watch(inf, m->data.result);
            update_synced(hub);
            next = kube_now();
        }
        now = kube_now();
        curl_multi_poll(hub->multi, NULL, 0,
                        next <= now ? 0 : (int)((next - now) * 1000) + 1, NULL);
    }
    return NULL;
}

static void defaults(struct kube_informer_opts *o,
                     const struct kube_client *client)
{
    if (!o->kinds)
        o->kinds = KUBE_KINDS_ALL;
    if (o->page_size <= 0)
        o->page_size = 500;
    if (o->backoff_base <= 0)
        o->backoff_base = 0.8;
    if (o->backoff_cap <= 0)
        o->backoff_cap = 30;
    if (o->jitter == 0)
        o->jitter = 1.0;
    if (o->watch_idle_s <= 0)
        o->watch_idle_s = 150;
    if (o->list_timeout_ms <= 0)
        o->list_timeout_ms = client->opts.request_timeout_ms;
}

int kube_informers_start(struct kube_client *client,
                         const struct kube_informer_sink *sink,
                         const struct kube_informer_opts *o,
                         struct kube_informers **out, struct err *e)
{
    struct kube_informers *hub = calloc(1, sizeof(*hub));
    size_t i;

    *out = NULL;
    if (!hub)
        return err_set(e, "out of memory");
    hub->client = client;
    hub->sink = *sink;
    if (o)
        hub->o = *o;
    defaults(&hub->o, client);
    hub->rng = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)(uintptr_t)hub;
    hub->rng = hub->rng ? hub->rng : 1;
    pthread_mutex_init(&hub->lock, NULL);
    hub->multi = curl_multi_init();
    if (!hub->multi) {
        pthread_mutex_destroy(&hub->lock);
        free(hub);
        return err_set(e, "cannot create a curl multi handle");
    }
    for (i = 0; i < N_RESOURCES; i++) {
        struct informer *inf;

        if (!(hub->o.kinds & KUBE_KIND_BIT(resources[i].kind)))
            continue;
        inf = &hub->infs[hub->n++];
        inf->hub = hub;
        inf->res = &resources[i];
        inf->state = INF_WAITING;
        inf->need_list = true;
        arena_init(&inf->batch_arena, 0);
    }
    if (pthread_create(&hub->thread, NULL, run, hub) != 0) {
        curl_multi_cleanup(hub->multi);
        pthread_mutex_destroy(&hub->lock);
        free(hub);
        return err_set(e, "cannot start the informer thread");
    }
    *out = hub;
    return 0;
}

void kube_informers_stop(struct kube_informers *hub)
{
    size_t i;

    if (!hub)
        return;
    atomic_store(&hub->stop, 1);
    curl_multi_wakeup(hub->multi);
    pthread_join(hub->thread, NULL);
    for (i = 0; i < hub->n; i++) {
        end_transfer(&hub->infs[i]);
        arena_destroy(&hub->infs[i].batch_arena);
        free(hub->infs[i].body);
        free(hub->infs[i].cont);
    }
    curl_multi_cleanup(hub->multi);
    pthread_mutex_destroy(&hub->lock);
    free(hub);
}

void kube_informers_status(struct kube_informers *hub,
                           struct kube_informers_status *out)
{
    pthread_mutex_lock(&hub->lock);
    *out = hub->status;
    pthread_mutex_unlock(&hub->lock);
}
