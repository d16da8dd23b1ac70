/*
 * cluster_source.c: the cluster source of `serve` and `schedule` (see
 * cluster_source.h): the choice between snapshot files and an API server,
 * the API client, the informers, and the wait for their first lists
 * (kube-scheduler starts scheduling after WaitForCacheSync likewise).
 */
#include "server/source/cluster_source.h"

#include <stdlib.h>
#include <unistd.h>

#include "kube/client/kubeconfig.h"
#include "server/http/http.h"
#include "server/common/log.h"

enum cluster_source_kind cluster_source_pick(const struct srv_options *o,
                                             bool *conflict)
{
    bool api = o->kubeconfig || o->master || getenv("KUBERNETES_SERVICE_HOST");

    if (conflict)
        *conflict = o->n_cluster_files && (o->kubeconfig || o->master);
    if (o->n_cluster_files)
        return CLUSTER_SOURCE_FILES;
    return api ? CLUSTER_SOURCE_API : CLUSTER_SOURCE_NONE;
}

struct kube_client *cluster_source_client(const struct srv_options *o,
                                          const struct kube_client_opts *co,
                                          struct err *e)
{
    struct kube_conn_opts cop = { o->kubeconfig, o->context, o->master, NULL };
    struct kube_conn conn;

    if (kube_conn_resolve(&cop, &conn, e) < 0)
        return NULL;
    return kube_client_new(&conn, co, e); /* takes over conn */
}

void cluster_source_log(void *arg, int level, const char *msg)
{
    (void)arg;
    if (level == KUBE_LOG_ERROR)
        LOG_ERROR("%s", msg);
    else if (level == KUBE_LOG_WARN)
        LOG_WARN("%s", msg);
    else
        LOG_INFO("%s", msg);
}

int cluster_source_start_informers(struct cluster_source *cs,
                                   struct kube_client *client,
                                   const struct kube_informer_sink *sink,
                                   struct err *e)
{
    struct kube_informer_opts io = { 0 };

    io.log = cluster_source_log;
    if (!sink)
        return kube_cache_start(cs->cache, client, &io, e);
    io.kinds = cs->kinds ? cs->kinds : KUBE_KINDS_ALL;
    return kube_informers_start(client, sink, &io, &cs->infs, e);
}

static void *sync_main(void *arg)
{
    struct cluster_source *cs = arg;
    struct kube_informers_status st;

    while (!atomic_load(&cs->stop)) {
        if (kube_cache_synced(cs->cache)) {
            srv_set_ready(cs->srv, 1, NULL);
            LOG_INFO("cluster cache synced: ready");
            if (cs->on_synced)
                cs->on_synced(cs->arg);
            return NULL;
        }
        if (cs->infs)
            kube_informers_status(cs->infs, &st);
        else
            kube_cache_status(cs->cache, &st);
        srv_set_ready(cs->srv, 0,
                      st.last_error[0] ? st.last_error
                                       : "waiting for the first list of "
                                         "every watched kind");
        usleep((useconds_t)cs->poll_ms * 1000);
    }
    return NULL;
}

int cluster_source_watch_sync(struct cluster_source *cs, struct err *e)
{
    if (pthread_create(&cs->thread, NULL, sync_main, cs) != 0)
        return err_set(e, "cannot start the cache sync watcher");
    cs->running = true;
    return 0;
}

void cluster_source_stop(struct cluster_source *cs)
{
    if (!cs->running)
        return;
    atomic_store(&cs->stop, true);
    pthread_join(cs->thread, NULL);
    cs->running = false;
}
