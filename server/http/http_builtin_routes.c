/*
 * http_builtin_routes.c: the routes every server answers: /healthz (500
 * with the reason once a call is stuck, see http_offload.h), /readyz (503
 * with the reason while not ready), /metrics (Prometheus text) and
 * /version. All SRV_INLINE: answered on the worker's own thread, never
 * queued behind evaluations on the pool.
 */
#include "server/http/http_builtin_routes.h"

#include <event2/event.h>
#include <openssl/crypto.h>
#include <stdlib.h>

#include "server/common/version.h"

static void healthz(struct server *s, const struct srv_request *req,
                    struct srv_response *r, void *arg)
{
    char *msg;

    (void)arg;
    if (!atomic_load(&s->unhealthy)) {
        srv_reply_text(r, 200, "ok\n");
        return;
    }
    pthread_mutex_lock(&s->lock);
    msg = arena_sprintf(req->arena, "unhealthy: %s\n", s->unhealthy_reason);
    pthread_mutex_unlock(&s->lock);
    srv_reply_text(r, 500, msg ? msg : "unhealthy\n");
}

static void readyz(struct server *s, const struct srv_request *req,
                   struct srv_response *r, void *arg)
{
    char *msg;

    (void)arg;
    if (atomic_load(&s->ready)) {
        srv_reply_text(r, 200, "ok\n");
        return;
    }
    pthread_mutex_lock(&s->lock);
    msg = arena_sprintf(req->arena, "not ready: %s\n", s->not_ready_reason);
    pthread_mutex_unlock(&s->lock);
    srv_reply_text(r, 503, msg ? msg : "not ready\n");
}

static void metrics_route(struct server *s, const struct srv_request *req,
                          struct srv_response *r, void *arg)
{
    size_t len = 0;
    char *text = metrics_render(s->metrics, &len);
    char *copy;

    (void)arg;
    if (!text) {
        srv_reply_text(r, 500, "out of memory\n");
        return;
    }
    copy = arena_strndup(req->arena, text, len);
    free(text);
    if (!copy) {
        srv_reply_text(r, 500, "out of memory\n");
        return;
    }
    srv_reply(r, 200, "text/plain; version=0.0.4; charset=utf-8", copy, len);
}

static void version_route(struct server *s, const struct srv_request *req,
                          struct srv_response *r, void *arg)
{
    char *body;

    (void)s;
    (void)arg;
    body = arena_sprintf(req->arena,
                         "{\"version\":\"%s\",\"gitCommit\":\"%s\","
                         "\"libevent\":\"%s\",\"openssl\":\"%s\"}\n",
                         kpe_version(), kpe_git_revision(), event_get_version(),
                         OpenSSL_version(OPENSSL_VERSION));
    if (body)
        srv_reply_json(r, 200, body);
    else
        srv_reply_text(r, 500, "out of memory\n");
}

int srv_register_builtin_routes(struct server *s, struct err *e)
{
    const unsigned get = SRV_GET | SRV_INLINE;

    if (srv_register_route(s, "/healthz", get, healthz, NULL, e) ||
        srv_register_route(s, "/readyz", get, readyz, NULL, e) ||
        srv_register_route(s, "/metrics", get, metrics_route, NULL, e) ||
        srv_register_route(s, "/version", get, version_route, NULL, e))
        return -1;
    return 0;
}
