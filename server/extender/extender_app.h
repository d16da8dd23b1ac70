/*
 * extender_app.h: the extender application that `serve` runs on the HTTP
 * server: state, verbs, /policy and reload (see extender_app.c).
 */
#ifndef SERVER_EXTENDER_EXTENDER_APP_H
#define SERVER_EXTENDER_EXTENDER_APP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "kube/base/err.h"
#include "server/source/cluster_source.h"
#include "server/common/file_watch.h"
#include "server/extender/serve_holds.h"
#include "server/http/http_server.h"
#include "engine/engine_state.h"

struct kube_client;
struct kube_cache;

struct extender_app {
    struct app app;
    /* The live source (--kubeconfig, --master, in-cluster), or NULL when
     * the cluster comes from --cluster files. */
    struct kube_client *client;
    struct kube_cache *cache;
    struct cluster_source source; /* its informers and sync watcher */
    int ready;                    /* app initialised */
    struct metrics_counter *reloads_ok;
    struct metrics_counter *reloads_failed;
    struct metrics_gauge *reload_time;
    struct metrics_counter *nodes_evaluated;
    struct metrics_counter *nodes_feasible;
    struct metrics_counter *prioritize_errors;
    struct serve_holds holds;       /* the extender's own decisions */
    struct file_watch policy_watch; /* reloads on a change of the file */
    struct server *srv;
    struct call_ring *calls; /* --debug-endpoints: GET /debug/calls */
};

/*
 * Register the verbs and routes on s (created, not started), load the
 * policy and cluster named in s->opts and mark the server ready. ctx must
 * be zeroed and outlive s. Returns 0, or -1 with e set.
 */
int extender_app_init(struct extender_app *ctx, struct server *s,
                      struct err *e);

/*
 * Stop the background reloads (the policy file watcher). Call before the
 * server is freed: a reload records metrics on it. Idempotent.
 */
void extender_app_stop(struct extender_app *ctx);

/* Release the state (after the server has stopped). */
void extender_app_destroy(struct extender_app *ctx);

#endif
