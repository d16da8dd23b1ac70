/*
 * http_keepalive.h: a connection's read and idle timeouts around each
 * reply.
 */
#ifndef SERVER_HTTP_HTTP_KEEPALIVE_H
#define SERVER_HTTP_HTTP_KEEPALIVE_H

struct evhttp_request;

/* evhttp's on-complete callback of a written reply (arg: the struct
 * srv_worker): idle timeout, reading resumed, CONNECT ended. */
void srv_on_complete(struct evhttp_request *req, void *arg);

#endif
