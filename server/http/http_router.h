/*
 * http_router.h: the HTTP server's dispatch of every request (the route
 * table itself is registered through http.h).
 */
#ifndef SERVER_HTTP_HTTP_ROUTER_H
#define SERVER_HTTP_HTTP_ROUTER_H

struct evhttp_request;

/* The evhttp generic callback (arg: the struct srv_worker): route req to
 * its handler or an error answer, reply, count and log it. */
void srv_route_request(struct evhttp_request *req, void *arg);

#endif
