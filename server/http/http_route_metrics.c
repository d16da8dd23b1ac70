/*
 * http_route_metrics.c: the HTTP server's series per route:
 * kpe_http_requests_total by status code (the common codes cached in the
 * route) and kpe_http_request_duration_seconds by outcome.
 */
#include "server/http/http_route_metrics.h"

#include <stdio.h>

/* Prometheus buckets for request latency, in seconds. */
static const double latency_bounds[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                         0.025,  0.05,  0.1,    0.25,  0.5,
                                         1,      2.5,   5,      10 };
/* Status codes with a cached counter per route; others are looked up. */
static const int code_slots[SRV_CODE_SLOTS] = { 200, 204, 400, 403, 404, 405,
                                                408, 413, 429, 500, 503, 0 };
static const char *const outcomes[3] = { "success", "client_error",
                                         "server_error" };

struct metrics_counter *srv_route_counter(struct server *s,
                                          struct srv_route *rt, int code)
{
    char labels[512], path[256];
    struct metrics_counter *c;
    int slot;

    for (slot = 0; slot < SRV_CODE_SLOTS - 1; slot++) {
        if (code_slots[slot] == code)
            break;
    }
    if (slot < SRV_CODE_SLOTS - 1) {
        c = atomic_load(&rt->by_code[slot]);
        if (c)
            return c;
    }
    metrics_escape_label(path, sizeof(path), rt->path);
    snprintf(labels, sizeof(labels), "route=\"%s\",code=\"%d\"", path, code);
    c = metrics_counter(s->metrics, "kpe_http_requests_total",
                        "HTTP requests answered, by route and status code.",
                        labels);
    if (slot < SRV_CODE_SLOTS - 1)
        atomic_store(&rt->by_code[slot], c);
    return c;
}

struct metrics_histogram *srv_route_histogram(struct server *s,
                                              struct srv_route *rt, int oc)
{
    char labels[512], path[256];
    struct metrics_histogram *h = atomic_load(&rt->by_outcome[oc]);

    if (h)
        return h;
    metrics_escape_label(path, sizeof(path), rt->path);
    snprintf(labels, sizeof(labels), "route=\"%s\",outcome=\"%s\"", path,
             outcomes[oc]);
    h = metrics_histogram(
        s->metrics, "kpe_http_request_duration_seconds",
        "Time from the request's dispatch to its reply, by route and "
        "outcome.",
        labels, latency_bounds,
        sizeof(latency_bounds) / sizeof(latency_bounds[0]));
    atomic_store(&rt->by_outcome[oc], h);
    return h;
}
