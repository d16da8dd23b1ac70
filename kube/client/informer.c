/*
 * informer.c: list+watch on one curl multi thread (see informer.h),
 * following client-go's reflector (tools/cache/reflector.go): paginated
 * list, watch from its resourceVersion with allowWatchBookmarks, relist on
 * 410 Gone (HTTP or an ERROR event), resume from the last seen
 * resourceVersion after a dropped connection, backoff 0.8 s doubling to
 * 30 s with jitter 1.0, reset after 2 min (NewExponentialBackoffManager's
 * defaults, kube/client/backoff.h). As in the reflector, where Run waits
 * the backoff manager (wait.BackoffUntil) each time ListAndWatch returns,
 * every relist after the first list waits its backoff: after an event we
 * cannot read or of an unknown type, an ERROR event, 410 Gone, a failed
 * list, and a "very short watch" (closed within a second with nothing
 * received, watchHandler's check). Reconnecting a watch that failed
 * waits a second backoff of its own (the reflector's
 * initConnBackoffManager), which starts over once a watch streamed.
 * Where client-go logs an event of an unknown type and reads on
 * (watchHandler's "unable to understand watch event"), we relist after
 * the backoff: the cache may have missed a change we could not read.
 */
#include "kube/client/informer.h"

#include <cjson/cJSON.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/base/json_parse.h"
#include "kube/client/backoff.h"
#include "kube/client/list_page.h"

#define MAX_ERR_BODY ((size_t)64 << 10)
#define BATCH_MAX    512
/* A batch of events or list items is handed on once its trees take this
 * much, whatever their number. */
#define BATCH_BYTES ((size_t)4 << 20)
/* A transfer that held this much gives its memory back to the system when
 * it ends (malloc_trim), rather than leave it in malloc's free lists. */
#define TRIM_AFTER ((size_t)4 << 20)
/* client-go's reflector: a watch that ends sooner than this with no event
 * is a failure ("very short watch"). */
#define SHORT_WATCH_S 1.0

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
    /* policy/v1beta1: what v1.20.2's DefaultPreemption lists, served up
     * to v1.24. Only schedule watches it (KUBE_KINDS_SCHEDULE). */
    { KUBE_KIND_PDB, "poddisruptionbudgets",
      "/apis/policy/v1beta1/poddisruptionbudgets" },
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
    size_t max = ls->max ? ls->max : KUBE_WATCH_EVENT_MAX;
    int rc;

    while (n) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) : n;

        if (ls->len + take > max)
            return KUBE_LINES_TOO_LONG;
        if (!ls->len && nl) {
            /* A whole line in this chunk: no copy. */
            if ((rc = take_line(p, take, fn, arg)) != 0)
                return rc;
        } else {
            if (ls->len + take + 1 > ls->cap) {
                size_t cap = ls->cap ? ls->cap : 4096;
                char *nb;

                while (cap < ls->len + take + 1)
                    cap *= 2;
                if (cap > max + 1)
                    cap = max + 1;
                nb = realloc(ls->buf, cap);
                if (!nb)
                    return KUBE_LINES_NOMEM;
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
    unsigned long list_starts;  /* lists begun (continue pages not counted) */
    struct kube_backoff relist; /* before each list but the first */
    struct kube_backoff resume; /* before re-opening a failed watch */
    char rv[128];               /* last seen resourceVersion */
    char *cont;                 /* continue token of the next page */
    char list_rv[128];          /* resourceVersion of the list in progress */

    /* The transfer in flight. */
    CURL *h;
    struct curl_slist *hdrs;
    char errbuf[CURL_ERROR_SIZE];
    long status;    /* HTTP status once headers arrived */
    double started; /* when it started */
    char *body;     /* list page, or the body of a failed request */
    size_t body_len, body_cap;
    struct kube_lines lines;
    struct arena held;        /* charged with body_cap and lines.cap */
    size_t peak;              /* most held at once, for malloc_trim */
    struct arena batch_arena; /* trees of the pending events or items */
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
    struct arena_budget mem; /* o.memory: every informer's held + batches */

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

/* The wait before the next list (b: &inf->relist) or watch (&inf->resume). */
static double backoff(struct informer *inf, struct kube_backoff *b)
{
    return kube_backoff_next(b, kube_now(), rand01(inf->hub));
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
    if (inf->held.charged + inf->batch_arena.total > inf->peak)
        inf->peak = inf->held.charged + inf->batch_arena.total;
    arena_destroy(&inf->batch_arena);
}

/* The message of a parse that ran out of the memory budget, or NULL. */
static const char *over_budget(struct informer *inf, size_t len, char *buf,
                               size_t sz)
{
    if (!inf->batch_arena.over && !inf->held.over)
        return NULL;
    snprintf(buf, sz,
             "a %s of %zu bytes needs more than the %zu bytes the informers "
             "may hold at once",
             inf->state == INF_LISTING ? "list page" : "watch event", len,
             inf->hub->o.memory);
    return buf;
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
        if (!over_budget(inf, len, inf->abort_msg, sizeof(inf->abort_msg)))
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
        arena_destroy(&inf->batch_arena);
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
    if (inf->n_batch == BATCH_MAX || inf->batch_arena.total >= BATCH_BYTES)
        flush(inf);
    return 0;
}

/* Count the buffers' growth to `now` bytes against the memory budget. */
static int hold(struct informer *inf, size_t now)
{
    if (now > inf->held.charged &&
        arena_charge(&inf->held, now - inf->held.charged) < 0)
        return -1;
    if (now > inf->peak)
        inf->peak = now;
    return 0;
}

/* Append to the body: 0, or -1 past max, -2 past the budget, -3 no memory. */
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
        if (cap > max + 1)
            cap = max + 1;
        if (hold(inf, cap + inf->lines.cap) < 0)
            return -2;
        nb = realloc(inf->body, cap);
        if (!nb)
            return -3;
        inf->body = nb;
        inf->body_cap = cap;
    }
    memcpy(inf->body + inf->body_len, p, n);
    inf->body_len += n;
    inf->body[inf->body_len] = '\0';
    return 0;
}

static size_t take_list_data(struct informer *inf, const char *p, size_t n)
{
    size_t max = inf->hub->o.list_page_max;
    int rc = append_body(inf, p, n, max);

    if (rc == -1)
        snprintf(inf->abort_msg, sizeof(inf->abort_msg),
                 "list page larger than %zu bytes (the cap for a page of %ld "
                 "objects) once decompressed: refused",
                 max, inf->hub->o.page_size);
    else if (rc == -2)
        over_budget(inf, inf->body_len + n, inf->abort_msg,
                    sizeof(inf->abort_msg));
    else if (rc == -3)
        snprintf(inf->abort_msg, sizeof(inf->abort_msg),
                 "out of memory reading a list page of %zu bytes",
                 inf->body_len + n);
    return rc < 0 ? 0 : n;
}

/* The most ls's buffer may take after n more bytes (kube_lines_feed
 * doubles it from 4 KiB, up to max + 1). */
static size_t lines_room(const struct kube_lines *ls, size_t n)
{
    size_t max = ls->max ? ls->max : KUBE_WATCH_EVENT_MAX;
    size_t cap = ls->cap ? ls->cap : 4096;

    while (cap < ls->len + n + 1 && cap <= max)
        cap *= 2;
    return cap > max + 1 ? max + 1 : cap;
}

static size_t on_data(char *p, size_t sz, size_t nm, void *arg)
{
    struct informer *inf = arg;
    size_t n = sz * nm;
    int rc;

    if (!inf->status)
        curl_easy_getinfo(inf->h, CURLINFO_RESPONSE_CODE, &inf->status);
    if (inf->state == INF_LISTING && inf->status == 200)
        return take_list_data(inf, p, n);
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
    /* Charge what the partial line's buffer may grow to before it does. */
    if (hold(inf, inf->body_cap + lines_room(&inf->lines, n)) < 0) {
        over_budget(inf, inf->lines.len + n, inf->abort_msg,
                    sizeof(inf->abort_msg));
        inf->abort_relist = true;
        return 0;
    }
    rc = kube_lines_feed(&inf->lines, p, n, on_line, inf);
    if (rc == KUBE_LINES_TOO_LONG) {
        snprintf(inf->abort_msg, sizeof(inf->abort_msg),
                 "watch event larger than %zu bytes: refused", inf->lines.max);
        inf->abort_relist = true; /* the event is lost: list again */
    } else if (rc == KUBE_LINES_NOMEM) {
        snprintf(inf->abort_msg, sizeof(inf->abort_msg),
                 "out of memory reading a watch event");
        inf->abort_relist = true;
    }
    return rc ? 0 : n;
}

/* Compressed bytes of a list page, before decompression: capped too. */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow)
{
    struct informer *inf = arg;
    size_t max = inf->hub->o.list_page_max;

    (void)dltotal;
    (void)ultotal;
    (void)ulnow;
    if (inf->state != INF_LISTING || dlnow <= (curl_off_t)max)
        return 0;
    snprintf(inf->abort_msg, sizeof(inf->abort_msg),
             "list page larger than %zu bytes (the cap for a page of %ld "
             "objects) as sent: refused",
             max, inf->hub->o.page_size);
    return 1;
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
    free(inf->body);
    inf->body = NULL;
    inf->body_len = inf->body_cap = 0;
    kube_lines_free(&inf->lines);
    inf->n_batch = 0;
    arena_destroy(&inf->batch_arena);
    arena_destroy(&inf->held);
#ifdef __GLIBC__
    /* A big page or event leaves its pages resident in malloc's free
     * lists otherwise (issue 29: 1.9 GB for 30 s after a 500 MB list). */
    if (inf->peak >= TRIM_AFTER)
        malloc_trim(0);
#endif
    inf->peak = 0;
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

/* List again from the start, after the relist backoff (as the reflector's
 * Run waits its backoff manager each time ListAndWatch returns). */
static void relist(struct informer *inf)
{
    free(inf->cont);
    inf->cont = NULL;
    inf->need_list = true;
    wait_then(inf, backoff(inf, &inf->relist));
}

static void start(struct informer *inf)
{
    struct kube_informers *hub = inf->hub;
    struct err e = { "" };
    char path[4096], esc[3072];
    long timeout_s;

    inf->h = curl_easy_init();
    inf->status = 0;
    inf->started = kube_now();
    inf->streamed = false;
    inf->abort_relist = false;
    inf->abort_msg[0] = '\0';
    inf->errbuf[0] = '\0';
    inf->lines.max = hub->o.watch_event_max;
    inf->held.over = inf->batch_arena.over = 0;
    if (inf->need_list) {
        inf->state = INF_LISTING;
        if (!inf->cont && inf->list_starts++ > 0)
            count(hub, &hub->status.relists, 1);
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
        if (inf->need_list)
            wait_then(inf, backoff(inf, &inf->relist));
        else
            wait_then(inf, backoff(inf, &inf->resume));
        return;
    }
    if (inf->state == INF_LISTING) {
        curl_easy_setopt(inf->h, CURLOPT_TIMEOUT_MS, hub->o.list_timeout_ms);
        /* A declared Content-Length over the cap fails at once; the
         * progress callback counts the bytes as they come. */
        curl_easy_setopt(inf->h, CURLOPT_MAXFILESIZE_LARGE,
                         (curl_off_t)hub->o.list_page_max);
        curl_easy_setopt(inf->h, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(inf->h, CURLOPT_XFERINFODATA, inf);
        curl_easy_setopt(inf->h, CURLOPT_NOPROGRESS, 0L);
    }
    /* HTTP/1.1, a connection per transfer: multiplexed on one HTTP/2
     * connection (libcurl 7.88's default in a multi), the first list of
     * one kind sometimes never completed while the others streamed (2 of
     * 80 starts against kube-apiserver v1.20.2, 500 nodes, 2,000 pods;
     * bench/informer_stall.py). */
    curl_easy_setopt(inf->h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
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
    else if (rc == CURLE_FILESIZE_EXCEEDED)
        snprintf(buf, sz,
                 "list page declared larger than %zu bytes (the cap for a "
                 "page of %ld objects): refused",
                 inf->hub->o.list_page_max, inf->hub->o.page_size);
    else
        snprintf(buf, sz, "%s",
                 inf->errbuf[0] ? inf->errbuf : curl_easy_strerror(rc));
}

struct page_ctx {
    struct informer *inf;
    bool begun;
};

/* A request without a continue token starts a (re)list. */
static void page_begin(struct page_ctx *pc)
{
    struct kube_informers *hub = pc->inf->hub;

    if (!pc->begun && !pc->inf->cont)
        hub->sink.list_begin(hub->sink.arg, pc->inf->res->kind);
    pc->begun = true;
}

static int page_items(void *arg, const struct kube_watch_event *ev, size_t n,
                      struct err *e)
{
    struct page_ctx *pc = arg;
    struct informer *inf = pc->inf;
    struct kube_informers *hub = inf->hub;
    struct err ae = { "" };

    (void)e;
    page_begin(pc);
    if (inf->batch_arena.total > inf->peak)
        inf->peak = inf->batch_arena.total + inf->held.charged;
    /* Objects that do not decode are logged; the list goes on. */
    if (hub->sink.apply(hub->sink.arg, inf->res->kind, ev, n, &ae) < 0)
        inf_log(hub, KUBE_LOG_ERROR, "%s: list: %s", inf->res->name, ae.msg);
    count(hub, &hub->status.events, n);
    return 0;
}

/* Deliver one list page item by item; 0, or -1 with e set. */
static int take_page(struct informer *inf, struct kube_list_meta *meta,
                     struct err *e)
{
    struct page_ctx pc = { inf, false };
    struct kube_list_reader r = { &inf->batch_arena, inf->batch, BATCH_MAX,
                                  BATCH_BYTES,       page_items, &pc };
    char msg[256];

    if (kube_list_page_read(&r, inf->body, inf->body_len, meta, e) < 0) {
        if (over_budget(inf, inf->body_len, msg, sizeof(msg)))
            err_set(e, "%s", msg);
        return -1;
    }
    page_begin(&pc);
    copy_rv(inf->list_rv, meta->rv);
    return 0;
}

static void finish_list(struct informer *inf, CURLcode rc)
{
    struct kube_informers *hub = inf->hub;
    struct err e = { "" };
    struct kube_list_meta meta;
    char msg[600];

    if (rc == CURLE_OK && inf->status == 200) {
        int taken = take_page(inf, &meta, &e);

        end_transfer(inf);
        if (taken < 0) {
            inf_log(hub, KUBE_LOG_ERROR, "%s: list: %s", inf->res->name, e.msg);
            set_error(inf, 200, e.msg);
            relist(inf);
            return;
        }
        free(inf->cont);
        inf->cont = meta.cont[0] ? strdup(meta.cont) : NULL;
        if (inf->cont) {
            wait_then(inf, 0); /* next page now */
            return;
        }
        hub->sink.list_end(hub->sink.arg, inf->res->kind);
        copy_rv(inf->rv, inf->list_rv);
        inf->need_list = false;
        kube_backoff_reset(&inf->resume);
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
        relist(inf);
        return;
    }
    inf_log(hub, KUBE_LOG_ERROR, "%s: list %s: %s%s", inf->res->name,
            hub->client->conn.server, msg,
            inf->status == 401   ? " (unauthorized: check the token)"
            : inf->status == 403 ? " (forbidden: check RBAC for list/watch)"
                                 : "");
    set_error(inf, inf->status, msg);
    relist(inf);
}

static void finish_watch(struct informer *inf, CURLcode rc)
{
    struct kube_informers *hub = inf->hub;
    bool short_watch = kube_now() - inf->started < SHORT_WATCH_S;
    char msg[600];

    flush(inf);
    failure_text(inf, rc, msg, sizeof(msg));
    if (inf->abort_relist || inf->status == 410) {
        end_transfer(inf);
        inf_log(hub, KUBE_LOG_WARN, "%s: watch from %s: %s; relisting",
                inf->res->name, inf->rv, msg);
        relist(inf);
        return;
    }
    if (inf->status == 200 &&
        (rc == CURLE_OK || rc == CURLE_OPERATION_TIMEDOUT)) {
        end_transfer(inf);
        if (short_watch && !inf->streamed) {
            /* The reflector's "very short watch": a failure. */
            inf_log(hub, KUBE_LOG_WARN,
                    "%s: watch from %s closed within %.0f s with no event; "
                    "relisting",
                    inf->res->name, inf->rv, SHORT_WATCH_S);
            relist(inf);
        } else if (short_watch) {
            /* Events, then closed at once: again, but not in a loop. */
            wait_then(inf, backoff(inf, &inf->resume));
        } else {
            /* The server's timeoutSeconds, or an idle stream: watch
             * again now. */
            kube_backoff_reset(&inf->resume);
            wait_then(inf, 0);
        }
        return;
    }
    end_transfer(inf);
    /* A watch that streamed was healthy until it broke (a proxy or load
     * balancer cutting long connections): retry after the base backoff
     * instead of doubling it with every such cut. */
    if (inf->streamed)
        kube_backoff_reset(&inf->resume);
    inf_log(hub, KUBE_LOG_WARN, "%s: watch from %s: %s%s; retrying",
            inf->res->name, inf->rv, msg,
            inf->status == 401   ? " (unauthorized: check the token)"
            : inf->status == 403 ? " (forbidden: check RBAC for list/watch)"
                                 : "");
    set_error(inf, inf->status == 200 ? 0 : inf->status, msg);
    wait_then(inf, backoff(inf, &inf->resume));
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
    if (o->backoff_reset <= 0)
        o->backoff_reset = 120;
    if (o->jitter == 0)
        o->jitter = 1.0;
    if (o->list_page_max == 0)
        o->list_page_max = KUBE_LIST_PAGE_MAX;
    if (o->watch_event_max == 0)
        o->watch_event_max = KUBE_WATCH_EVENT_MAX;
    if (o->memory == 0)
        o->memory = KUBE_INFORMER_MEMORY;
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
    hub->mem.cap = (long long)hub->o.memory;
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
        kube_backoff_init(&inf->relist, hub->o.backoff_base, hub->o.backoff_cap,
                          hub->o.backoff_reset, hub->o.jitter);
        inf->resume = inf->relist;
        arena_init(&inf->batch_arena, 0);
        inf->batch_arena.budget = &hub->mem;
        arena_init(&inf->held, 0);
        inf->held.budget = &hub->mem;
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
