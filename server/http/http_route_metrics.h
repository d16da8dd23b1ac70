/*
 * http_route_metrics.h: the HTTP server's series per route.
 */
#ifndef SERVER_HTTP_HTTP_ROUTE_METRICS_H
#define SERVER_HTTP_HTTP_ROUTE_METRICS_H

#include "server/http/http_server.h"

/* kpe_http_requests_total{route, code} of rt, registered on first use
 * (common codes cached in rt). */
struct metrics_counter *srv_route_counter(struct server *s,
                                          struct srv_route *rt, int code);

/* kpe_http_request_duration_seconds{route, outcome} of rt; oc is 0
 * (success), 1 (4xx) or 2 (5xx). */
struct metrics_histogram *srv_route_histogram(struct server *s,
                                              struct srv_route *rt, int oc);

#endif
