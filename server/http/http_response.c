/*
 * http_response.c: what a handler answers (srv_reply*, headers; see
 * http.h) and how the answer is written: Content-Type, the body without a
 * copy when owned, HEAD and CONNECT framed by hand, Connection: close
 * while draining, and reading paused until the reply is out.
 */
#include "server/http/http_response.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/http_conns.h"
#include "server/http/http_keepalive.h"

static void free_owned(const void *data, size_t len, void *arg)
{
    (void)len;
    (void)arg;
    free((void *)data);
}

void srv_reply_owned(struct srv_response *r, int status,
                     const char *content_type, char *body, size_t len)
{
    if (r->owned)
        free((void *)r->body);
    if (!body) {
        srv_reply_text(r, 500, "500 out of memory\n");
        return;
    }
    srv_reply(r, status, content_type, body, len);
    r->owned = 1;
}

void srv_reply(struct srv_response *r, int status, const char *content_type,
               const char *body, size_t len)
{
    if (r->owned) {
        free((void *)r->body);
        r->owned = 0;
    }
    r->status = status;
    r->content_type = content_type;
    r->body = body;
    r->len = len;
    r->replied = 1;
}

void srv_reply_json(struct srv_response *r, int status, const char *json)
{
    srv_reply(r, status, "application/json", json, strlen(json));
}

void srv_reply_text(struct srv_response *r, int status, const char *text)
{
    srv_reply(r, status, "text/plain; charset=utf-8", text, strlen(text));
}

int srv_response_header(struct srv_response *r, const char *name,
                        const char *value)
{
    size_t n = strlen(name) + 1, v = strlen(value) + 1;

    if (n + v > sizeof(r->hdrs) - r->hdr_len)
        return -1;
    memcpy(r->hdrs + r->hdr_len, name, n);
    memcpy(r->hdrs + r->hdr_len + n, value, v);
    r->hdr_len += n + v;
    return 0;
}

/* Send r on req once; returns the body length sent. */
size_t srv_send_response(struct srv_worker *w, struct evhttp_request *req,
                         struct srv_response *r)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    struct evbuffer *b = evbuffer_new();
    struct evhttp_connection *evcon;
    enum evhttp_cmd_type cmd;
    size_t len = r->len, at;

    for (at = 0; at < r->hdr_len;) {
        const char *name = r->hdrs + at;
        const char *value = name + strlen(name) + 1;

        evhttp_add_header(h, name, value);
        at = (size_t)(value - r->hdrs) + strlen(value) + 1;
    }
    if (r->content_type)
        evhttp_add_header(h, "Content-Type", r->content_type);
    if (atomic_load(&w->srv->stopping))
        evhttp_add_header(h, "Connection", "close");
    if (b && r->owned) {
        /* Zero copy: the buffer frees the body once it is written. */
        if (evbuffer_add_reference(b, r->body, len, free_owned, NULL) != 0)
            free((void *)r->body);
        else
            len = r->len;
        r->owned = 0;
    } else if (!b || (len && evbuffer_add(b, r->body, len) != 0)) {
        evhttp_clear_headers(h);
        r->status = 500;
        len = 0;
    }
    cmd = evhttp_request_get_command(req);
    if (cmd == EVHTTP_REQ_HEAD || cmd == EVHTTP_REQ_CONNECT) {
        /* evhttp writes no Content-Length for these but would write the
         * body: HEAD gets the GET answer's length and no body (RFC 9110
         * section 9.3.2); CONNECT, which we never tunnel, gets its short
         * answer framed, then the connection is closed (srv_on_complete). */
        char n[24];

        snprintf(n, sizeof(n), "%zu", len);
        evhttp_add_header(h, "Content-Length", n);
        if (cmd == EVHTTP_REQ_HEAD && b)
            evbuffer_drain(b, evbuffer_get_length(b));
    }
    /* A reply that is never completely written (the client reset the
     * connection, or stopped reading until the timeout) gets no
     * srv_on_complete; the connection's close callback (http_conns.c)
     * settles it instead. Without a connection (gone while an offloaded
     * handler ran) evhttp just frees the request. */
    evcon = evhttp_request_get_connection(req);
    if (evcon) {
        w->busy++;
        evhttp_request_set_on_complete_cb(req, srv_on_complete, w);
    }
    evhttp_send_reply(req, r->status, NULL, b);
    /* After evhttp_send_reply, which re-enables reading to see a close. */
    if (evcon)
        bufferevent_setwatermark(evhttp_connection_get_bufferevent(evcon),
                                 EV_READ, 0, SRV_PIPELINE_READ_LIMIT);
    if (b)
        evbuffer_free(b);
    return len;
}
