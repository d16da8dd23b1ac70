/*
 * http_builtin_routes.h: /healthz, /readyz, /metrics and /version.
 */
#ifndef SERVER_HTTP_HTTP_BUILTIN_ROUTES_H
#define SERVER_HTTP_HTTP_BUILTIN_ROUTES_H

#include "kube/base/err.h"
#include "server/http/http.h"

/* Register the four routes on s. 0, or -1 with e set. */
int srv_register_builtin_routes(struct server *s, struct err *e);

#endif
