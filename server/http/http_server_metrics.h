/*
 * http_server_metrics.h: the HTTP server's own series.
 */
#ifndef SERVER_HTTP_HTTP_SERVER_METRICS_H
#define SERVER_HTTP_HTTP_SERVER_METRICS_H

#include "server/http/http_server.h"

/* Register build info, start time, readiness, connection and memory
 * series on s->metrics. 0, or -1 when out of memory. */
int srv_register_server_metrics(struct server *s);

#endif
