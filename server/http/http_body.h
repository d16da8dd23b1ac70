/*
 * http_body.h: request bodies of the HTTP server: framing, the copy, and
 * the memory a request may use. Used by the http_*.c files only.
 */
#ifndef SERVER_HTTP_HTTP_BODY_H
#define SERVER_HTTP_HTTP_BODY_H

#include <stddef.h>

#include "kube/base/arena.h"
#include "server/http/http.h"

struct evhttp_request;

/*
 * Copy the request body into a, NUL-terminated, and free evhttp's copy at
 * once; *len gets its length. NULL when a refuses the memory.
 */
char *srv_body_copy(struct evhttp_request *req, struct arena *a, size_t *len);

/*
 * The memory a request with a body of len bytes may use (arena, answer):
 * SRV_REQ_MEM_FACTOR x len + SRV_REQ_MEM_BASE, and no more than what
 * --max-inflight-bytes leaves beside its received body.
 */
size_t srv_request_memory_limit(const struct server *s, size_t len);

/* The part of --max-inflight-bytes a request with a body of len bytes may
 * not take (arena.reserve): kept for small requests. */
long long srv_request_reserve(const struct server *s, size_t len);

/*
 * Answer a request refused for memory: 413 when a went over its own limit,
 * 503 when the requests in flight hold the budget. msg (msg_size bytes)
 * is the caller's buffer for the text.
 */
void srv_refuse_memory(struct server *s, const struct arena *a, size_t body_len,
                       struct srv_response *r, char *msg, size_t msg_size);

/* The 400 message for a request whose length is ambiguous (RFC 9112
 * section 6.3), or NULL. */
const char *srv_framing_error(struct evhttp_request *req);

#endif
