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

/*
 * A TLS connection failed: if OpenSSL saw a plaintext HTTP request where
 * the handshake should be (SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST),
 * answer it in plaintext "400 Client sent an HTTP request to an HTTPS
 * server." (as Go's net/http) on the socket, before the connection
 * closes. Returns 1 when it answered.
 */
int srv_tls_answer_plaintext(struct bufferevent *bev);

#endif
