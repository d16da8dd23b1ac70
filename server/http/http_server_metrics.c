/*
 * http_server_metrics.c: the HTTP server's own series: build info, start
 * time, readiness, connections (open, the cap, accept pauses, idle ones
 * shed) and the memory of requests in flight with its refusals.
 */
#include "server/http/http_server_metrics.h"

#include <stdio.h>

#include "server/common/version.h"

static double gauge_start_time(void *arg)
{
    return ((struct server *)arg)->start_time;
}

static double gauge_ready(void *arg)
{
    return atomic_load(&((struct server *)arg)->ready) ? 1 : 0;
}

static double gauge_conns(void *arg)
{
    return atomic_load(&((struct server *)arg)->conns_open);
}

static double gauge_max_conns(void *arg)
{
    return ((struct server *)arg)->max_conns;
}

static double gauge_inflight(void *arg)
{
    return (double)atomic_load(&((struct server *)arg)->mem.used);
}

static double gauge_receiving(void *arg)
{
    return (double)atomic_load(&((struct server *)arg)->mem_receiving);
}

static double gauge_max_inflight(void *arg)
{
    return (double)((struct server *)arg)->opts.max_inflight_bytes;
}

static double gauge_max_body(void *arg)
{
    return (double)((struct server *)arg)->opts.max_body_bytes;
}

/* Connections: open, the cap, pauses of accept() and idle ones closed;
 * memory in flight and its refusals. */
static int conn_metrics(struct server *s)
{
    static const char paused[] = "kpe_http_accept_paused_total";
    static const char paused_help[] =
        "Times accepting connections paused for 100 ms, by reason: the "
        "connection cap, or accept() failing (EMFILE...).";

    s->accept_paused_cap =
        metrics_counter(s->metrics, paused, paused_help, "reason=\"cap\"");
    s->accept_paused_error =
        metrics_counter(s->metrics, paused, paused_help, "reason=\"error\"");
    s->conns_shed = metrics_counter(
        s->metrics, "kpe_http_connections_shed_total",
        "Connections silent for 250 ms or more closed to make room at the cap.",
        "");
    s->chunk_refused = metrics_counter(
        s->metrics, "kpe_http_corrupt_chunked_total",
        "Requests whose chunked body had a malformed chunk size or trailer "
        "line, answered 400 (Bad Request) and closed.",
        "");
    s->header_refused = metrics_counter(
        s->metrics, "kpe_http_bad_headers_total",
        "Requests whose header section RFC 9112 refuses and evhttp would "
        "take (whitespace before a colon, control characters, no or two "
        "Host, a Transfer-Encoding other than chunked, obs-fold...), "
        "answered 400 (Bad Request) and closed.",
        "");
    s->deadline_headers = metrics_counter(
        s->metrics, "kpe_http_request_deadline_total",
        "Connections closed because their request had not all arrived in "
        "time, by what was still missing: headers (--header-timeout) or "
        "body (--body-timeout).",
        "missed=\"headers\"");
    s->deadline_body = metrics_counter(
        s->metrics, "kpe_http_request_deadline_total",
        "Connections closed because their request had not all arrived in "
        "time, by what was still missing: headers (--header-timeout) or "
        "body (--body-timeout).",
        "missed=\"body\"");
    s->eval_late = metrics_counter(
        s->metrics, "kpe_http_eval_deadline_total",
        "Requests answered 503 because their evaluation had not finished "
        "--eval-timeout after they were received.",
        "");
    s->mem_refused_request = metrics_counter(
        s->metrics, "kpe_http_memory_refusals_total",
        "Requests refused for memory: one needing more than 8 x its body + "
        "8 MiB (413), or the requests in flight holding "
        "--max-inflight-bytes (503).",
        "reason=\"request\"");
    s->mem_refused_inflight = metrics_counter(
        s->metrics, "kpe_http_memory_refusals_total",
        "Requests refused for memory: one needing more than 8 x its body + "
        "8 MiB (413), or the requests in flight holding "
        "--max-inflight-bytes (503).",
        "reason=\"inflight\"");
    if (!s->accept_paused_cap || !s->accept_paused_error || !s->conns_shed ||
        !s->chunk_refused || !s->header_refused || !s->deadline_headers ||
        !s->deadline_body || !s->eval_late || !s->mem_refused_request ||
        !s->mem_refused_inflight ||
        !metrics_gauge_fn(s->metrics, "kpe_http_inflight_bytes",
                          "Memory held by requests in flight.", "",
                          gauge_inflight, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_http_receiving_bytes",
                          "The part of kpe_http_inflight_bytes received "
                          "and not yet answered (at most half the cap).",
                          "", gauge_receiving, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_http_max_inflight_bytes",
                          "--max-inflight-bytes.", "", gauge_max_inflight, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_http_max_body_bytes",
                          "--max-body-bytes.", "", gauge_max_body, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_http_connections",
                          "Open client connections.", "", gauge_conns, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_http_max_connections",
                          "The cap on open client connections "
                          "(--max-connections).",
                          "", gauge_max_conns, s))
        return -1;
    return 0;
}

int srv_register_server_metrics(struct server *s)
{
    char labels[256], v[64], g[64];
    struct metrics_gauge *build;

    metrics_escape_label(v, sizeof(v), kpe_version());
    metrics_escape_label(g, sizeof(g), kpe_git_revision());
    snprintf(labels, sizeof(labels), "version=\"%s\",revision=\"%s\"", v, g);
    build =
        metrics_gauge(s->metrics, "kpe_build_info",
                      "Build of the running binary; the value is 1.", labels);
    metrics_gauge_set(build, 1);
    if (!build ||
        !metrics_gauge_fn(s->metrics, "process_start_time_seconds",
                          "Start time of the process since the Unix epoch "
                          "in seconds.",
                          "", gauge_start_time, s) ||
        !metrics_gauge_fn(s->metrics, "kpe_ready",
                          "1 when /readyz answers 200.", "", gauge_ready, s) ||
        conn_metrics(s) != 0)
        return -1;
    return 0;
}
