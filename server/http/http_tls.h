/*
 * http_tls.h: TLS for the HTTP server.
 */
#ifndef SERVER_HTTP_HTTP_TLS_H
#define SERVER_HTTP_HTTP_TLS_H

#include "kube/base/err.h"
#include "server/http/http_server.h"

struct bufferevent;
struct event_base;

/* Build s->ssl_ctx from --tls-cert-file, --tls-key-file and
 * --tls-client-ca-file (nothing without a certificate). 0, or -1 with e
 * set naming the file and OpenSSL's reason. */
int srv_tls_setup(struct server *s, struct err *e);

/* evhttp's bufferevent factory (arg: the struct srv_worker): one plain or
 * TLS bufferevent per accepted connection, counted by the worker. */
struct bufferevent *srv_make_bev(struct event_base *base, void *arg);

#endif
