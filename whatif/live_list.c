/*
 * live_list.c: the one-shot list of live_list.h. The informers run with
 * list_only (kube/client/informer.h) into a sink that decodes each list
 * item into arena objects, kind by kind; the caller's thread waits for
 * every kind to be listed, or for the first error.
 */
#include "whatif/live_list.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "framework/plugin.h"
#include "kube/client/informer.h"
#include "kube/parse/parse.h"

#define N_KINDS KUBE_KIND_COUNT

/* What the sink gathers (on the informer thread). */
struct gather {
    struct arena *a;
    void **objs[N_KINDS];
    size_t n[N_KINDS], cap[N_KINDS];
    pthread_mutex_t lock; /* guards failed and e (read by the waiter) */
    bool failed;
    struct err e;
};

unsigned whatif_kinds_for(unsigned needs)
{
    static const struct {
        unsigned need;
        unsigned kinds;
    } map[] = {
        { KPE_NEED_SERVICES, KUBE_KIND_BIT(KUBE_KIND_SERVICE) },
        { KPE_NEED_CONTROLLERS,
          KUBE_KIND_BIT(KUBE_KIND_REPLICATION_CONTROLLER) |
              KUBE_KIND_BIT(KUBE_KIND_REPLICA_SET) |
              KUBE_KIND_BIT(KUBE_KIND_STATEFUL_SET) },
        { KPE_NEED_PVS, KUBE_KIND_BIT(KUBE_KIND_PERSISTENT_VOLUME) },
        { KPE_NEED_PVCS, KUBE_KIND_BIT(KUBE_KIND_PERSISTENT_VOLUME_CLAIM) },
        { KPE_NEED_STORAGE_CLASSES, KUBE_KIND_BIT(KUBE_KIND_STORAGE_CLASS) },
        { KPE_NEED_CSINODES, KUBE_KIND_BIT(KUBE_KIND_CSI_NODE) },
        { KPE_NEED_NAMESPACES, KUBE_KIND_BIT(KUBE_KIND_NAMESPACE) },
    };
    unsigned kinds =
        KUBE_KIND_BIT(KUBE_KIND_NODE) | KUBE_KIND_BIT(KUBE_KIND_POD);
    size_t i;

    for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (needs & map[i].need)
            kinds |= map[i].kinds;
    }
    return kinds;
}

static void fail(struct gather *g, const struct err *e)
{
    pthread_mutex_lock(&g->lock);
    if (!g->failed)
        g->e = *e;
    g->failed = true;
    pthread_mutex_unlock(&g->lock);
}

static void on_list_begin(void *arg, enum kube_kind kind)
{
    struct gather *g = arg;

    g->n[kind] = 0; /* a relist (expired continue token) starts over */
}

static void on_list_end(void *arg, enum kube_kind kind)
{
    (void)arg;
    (void)kind;
}

static int on_apply(void *arg, enum kube_kind kind,
                    const struct kube_watch_event *ev, size_t n, struct err *e)
{
    struct gather *g = arg;
    const struct kube_resource *res = kube_resource_for(kind);
    char path[96];
    size_t i;

    for (i = 0; i < n; i++) {
        void *obj;

        if (g->n[kind] == g->cap[kind]) {
            size_t cap = g->cap[kind] ? 2 * g->cap[kind] : 256;
            void **v = realloc(g->objs[kind], cap * sizeof(*v));

            if (!v) {
                err_set(e, "out of memory");
                fail(g, e);
                return -1;
            }
            g->objs[kind] = v;
            g->cap[kind] = cap;
        }
        snprintf(path, sizeof(path), "%s: items[%zu]", res->name, g->n[kind]);
        if (kube_object_from_cjson(g->a, kind, ev[i].object, path, &obj, e) <
            0) {
            fail(g, e);
            return -1;
        }
        g->objs[kind][g->n[kind]++] = obj;
    }
    return 0;
}

static void quiet(void *arg, int level, const char *msg)
{
    (void)arg;
    (void)level;
    (void)msg;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait for every kind, the first error or the deadline; 0 or -1. */
static int wait_listed(struct kube_informers *infs, struct gather *g,
                       const char *server, double timeout_s, struct err *e)
{
    double deadline = now_s() + timeout_s;
    struct timespec tick = { 0, 5 * 1000 * 1000 };

    for (;;) {
        struct kube_informers_status st;
        bool failed;

        pthread_mutex_lock(&g->lock);
        failed = g->failed;
        if (failed)
            *e = g->e;
        pthread_mutex_unlock(&g->lock);
        if (failed)
            return err_prefix(e, "API server %s: ", server);
        kube_informers_status(infs, &st);
        if (st.synced)
            return 0;
        if (st.last_error[0])
            return err_set(e, "API server %s: %s%s", server, st.last_error,
                           st.last_http_status == 401 ? " (unauthorized)"
                           : st.last_http_status == 403
                               ? " (forbidden: check RBAC for list)"
                               : "");
        if (now_s() > deadline)
            return err_set(e, "API server %s: no complete list after %gs",
                           server, timeout_s);
        nanosleep(&tick, NULL);
    }
}

int whatif_list_live(struct kube_client *client, unsigned kinds,
                     double timeout_s, struct arena *a,
                     struct kube_objects *objs, struct err *e)
{
    struct gather g;
    struct kube_informer_sink sink = { on_list_begin, on_apply, on_list_end,
                                       &g };
    struct kube_informer_opts io = { 0 };
    struct kube_informers *infs = NULL;
    size_t k;
    int rc = -1;

    memset(&g, 0, sizeof(g));
    g.a = a;
    pthread_mutex_init(&g.lock, NULL);
    io.kinds = kinds;
    io.list_only = true;
    io.log = quiet;
    if (kube_informers_start(client, &sink, &io, &infs, e) < 0)
        goto out;
    rc = wait_listed(infs, &g, client->conn.server, timeout_s, e);
    kube_informers_stop(infs);
    for (k = 1; rc == 0 && k < N_KINDS; k++) {
        void **arr;

        if (!(kinds & KUBE_KIND_BIT(k)) || !g.n[k])
            continue;
        arr = arena_alloc(a, g.n[k] * sizeof(*arr));
        if (!arr) {
            rc = err_set(e, "out of memory");
            break;
        }
        memcpy(arr, g.objs[k], g.n[k] * sizeof(*arr));
        kube_objects_put(objs, (enum kube_kind)k, arr, g.n[k]);
    }
out:
    for (k = 0; k < N_KINDS; k++)
        free(g.objs[k]);
    pthread_mutex_destroy(&g.lock);
    return rc;
}
