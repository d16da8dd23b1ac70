/*
 * serve_holds.c: the extender's own assumed pods (see serve_holds.h), on
 * the live cache's assume / forget / expire (kube-scheduler's AssumePod,
 * ForgetPod and the assumed pods' TTL).
 */
#include "server/extender/serve_holds.h"

#include <stddef.h>

#include "kube/client/cache.h"
#include "kube/client/client.h"
#include "server/common/log.h"
#include "server/common/metrics.h"

/* How often the expired holds are swept, at most (seconds). */
#define HOLDS_SWEEP_INTERVAL 1.0

void serve_holds_init(struct serve_holds *h, struct kube_cache *cache,
                      double timeout, struct metrics *m)
{
    h->cache = cache;
    h->timeout = timeout;
    atomic_init(&h->next_cleanup, 0.0);
    h->taken = h->expired = h->released = NULL;
    if (!m)
        return;
    h->taken = metrics_counter(
        m, "kpe_extender_holds_total",
        "Pods the extender assumed on the node its answer left "
        "kube-scheduler (a single feasible or top-scored node).",
        NULL);
    h->expired = metrics_counter(
        m, "kpe_extender_holds_expired_total",
        "Holds dropped after --hold-timeout without the watch showing the "
        "pod bound.",
        NULL);
    h->released = metrics_counter(
        m, "kpe_extender_holds_released_total",
        "Holds dropped because the same pod was evaluated again or its "
        "bind through this server failed.",
        NULL);
}

bool serve_holds_enabled(const struct serve_holds *h)
{
    return h->cache && h->timeout > 0;
}

void serve_holds_sweep(struct serve_holds *h)
{
    double now, next;
    size_t n;

    if (!serve_holds_enabled(h))
        return;
    now = kube_now();
    next = atomic_load(&h->next_cleanup);
    if (now < next || !atomic_compare_exchange_strong(
                          &h->next_cleanup, &next, now + HOLDS_SWEEP_INTERVAL))
        return;
    n = kube_cache_cleanup_assumed(h->cache, now);
    if (n) {
        metrics_counter_add(h->expired, n);
        LOG_INFO("holds: %zu expired without a binding in %.0f s", n,
                 h->timeout);
    }
}

void serve_holds_settle(struct serve_holds *h, const struct ext_decision *d)
{
    const struct kube_pod *pod = d->pod;
    int rc;

    if (!serve_holds_enabled(h) || !pod || !pod->name || !pod->namespace)
        return;
    if (!d->node) {
        if (kube_cache_pod_assumed(h->cache, pod->namespace, pod->name))
            serve_holds_release(h, pod->namespace, pod->name);
        return;
    }
    rc = kube_cache_assume_pod(h->cache, pod, d->node);
    if (rc != 1) {
        if (rc < 0)
            LOG_WARN("holds: out of memory holding %s/%s on %s", pod->namespace,
                     pod->name, d->node);
        return;
    }
    kube_cache_finish_binding(h->cache, pod->namespace, pod->name,
                              kube_now() + h->timeout);
    metrics_counter_add(h->taken, 1);
}

void serve_holds_release(struct serve_holds *h, const char *ns,
                         const char *name)
{
    if (serve_holds_enabled(h) && kube_cache_forget_pod(h->cache, ns, name))
        metrics_counter_add(h->released, 1);
}
