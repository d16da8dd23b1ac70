/*
 * http_keepalive.c: the two timeouts of a connection. libevent 2.1 has one
 * inactivity timeout per connection: new connections start with the read
 * timeout; after each reply the idle timeout applies, and the first bytes
 * of the next request switch back to the read timeout.
 */
#include "server/http/http_keepalive.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <sys/socket.h>

#include "server/http/http_worker.h"

static void on_input(struct evbuffer *buf, const struct evbuffer_cb_info *info,
                     void *arg)
{
    struct bufferevent *bev = arg;
    struct srv_worker *w = srv_this_worker;

    if (!info->n_added || !w)
        return;
    bufferevent_set_timeouts(bev, &w->read_tv, &w->read_tv);
    evbuffer_remove_cb(buf, on_input, bev);
}

void srv_on_complete(struct evhttp_request *req, void *arg)
{
    struct srv_worker *w = arg;
    struct evhttp_connection *evcon = evhttp_request_get_connection(req);
    struct bufferevent *bev;
    struct evbuffer *in;

    w->busy--;
    if (!evcon)
        return;
    bev = evhttp_connection_get_bufferevent(evcon);
    evhttp_connection_set_timeout_tv(evcon, &w->idle_tv);
    /* The reply is out: read the next request (see SRV_PIPELINE_READ_LIMIT). */
    bufferevent_setwatermark(bev, EV_READ, 0, 0);
    /* evhttp keeps a CONNECT's connection open whatever its headers say;
     * a CONNECT is never tunnelled here, so end it: the next read sees
     * the end of the stream and evhttp frees the connection. */
    if (evhttp_request_get_command(req) == EVHTTP_REQ_CONNECT)
        shutdown(bufferevent_getfd(bev), SHUT_RDWR);
    in = bufferevent_get_input(bev);
    evbuffer_remove_cb(in, on_input, bev);
    evbuffer_add_cb(in, on_input, bev);
}
