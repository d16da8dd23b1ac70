/*
 * http_listen.h: the HTTP server's shared listening socket.
 */
#ifndef SERVER_HTTP_HTTP_LISTEN_H
#define SERVER_HTTP_HTTP_LISTEN_H

#include "kube/base/err.h"
#include "server/http/http_server.h"

/* Bind and listen on --listen; sets s->listen_fd and s->port. 0, or -1
 * with e set (the address and the cause). */
int srv_listen_socket(struct server *s, struct err *e);

#endif
