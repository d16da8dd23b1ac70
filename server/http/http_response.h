/*
 * http_response.h: writing a handler's answer on its evhttp request. Used
 * by the http_*.c files only (handlers use the srv_reply* of http.h).
 */
#ifndef SERVER_HTTP_HTTP_RESPONSE_H
#define SERVER_HTTP_HTTP_RESPONSE_H

#include <stddef.h>

#include "server/http/http.h"
#include "server/http/http_worker.h"

struct evhttp_request;

/* Send r on req once (counted busy on w until written); returns the body
 * length sent. An owned body is handed over without a copy. */
size_t srv_send_response(struct srv_worker *w, struct evhttp_request *req,
                         struct srv_response *r);

#endif
