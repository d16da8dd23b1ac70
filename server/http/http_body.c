/*
 * http_body.c: request bodies: the framing check of RFC 9112 section 6.3,
 * the copy into the request's arena, and the memory a request may use
 * (413 when it alone never fits, 503 while the requests in flight hold
 * --max-inflight-bytes).
 */
#include "server/http/http_body.h"

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>
#include <stdio.h>
#include <string.h>

/*
 * Copy the request body into the arena, NUL-terminated, and free evhttp's
 * copy at once (it would otherwise live until the answer is written).
 */
char *srv_body_copy(struct evhttp_request *req, struct arena *a, size_t *len)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    char *buf;

    *len = evbuffer_get_length(in);
    buf = arena_alloc(a, *len + 1);
    if (!buf)
        return NULL;
    if (*len && evbuffer_copyout(in, buf, *len) != (ev_ssize_t)*len)
        return NULL;
    buf[*len] = '\0';
    evbuffer_drain(in, *len);
    return buf;
}

long long srv_request_reserve(const struct server *s, size_t len)
{
    long long r = s->mem.cap / SRV_SMALL_RESERVE_DIV;

    if (len <= SRV_SMALL_BODY)
        return 0;
    return r < SRV_SMALL_RESERVE_MAX ? r : SRV_SMALL_RESERVE_MAX;
}

/*
 * The memory a request with a body of len bytes may use (arena, answer):
 * SRV_REQ_MEM_FACTOR x len + SRV_REQ_MEM_BASE, and no more than what
 * --max-inflight-bytes (less the small requests' reserve) leaves beside
 * its received body, so that a request too big for the server gets 413
 * (never fits) rather than 503 (retry).
 */
size_t srv_request_memory_limit(const struct server *s, size_t len)
{
    size_t cap = (size_t)(s->opts.max_inflight_bytes -
                          srv_request_reserve(s, len)),
           room = 1 << 20;

    if (cap > len + (2u << 20))
        room = cap - len - (1u << 20);
    if (room < SRV_REQ_MEM_BASE ||
        len > (room - SRV_REQ_MEM_BASE) / SRV_REQ_MEM_FACTOR)
        return room;
    return len * SRV_REQ_MEM_FACTOR + SRV_REQ_MEM_BASE;
}

/*
 * Answer a request refused for memory: 413 when it alone needs more than
 * srv_request_memory_limit() (it will never fit), 503 when the requests in
 * flight hold the budget (retry later). msg is the caller's buffer.
 */
void srv_refuse_memory(struct server *s, const struct arena *a, size_t body_len,
                       struct srv_response *r, char *msg, size_t msg_size)
{
    long long mib = 1 << 20;
    char kept[80] = "";

    if (a->over == ARENA_OVER_LIMIT) {
        metrics_counter_add(s->mem_refused_request, 1);
        snprintf(msg, msg_size,
                 "413 request needs more than %zu MiB to answer (at most %d "
                 "x its body of %zu bytes + %d MiB, within "
                 "--max-inflight-bytes): send fewer nodes\n",
                 srv_request_memory_limit(s, body_len) >> 20,
                 SRV_REQ_MEM_FACTOR, body_len, SRV_REQ_MEM_BASE >> 20);
        srv_reply_text(r, 413, msg);
        return;
    }
    metrics_counter_add(s->mem_refused_inflight, 1);
    if (a->reserve)
        snprintf(kept, sizeof(kept),
                 " (the last %lld KiB are kept for bodies up to 1 MiB)",
                 a->reserve >> 10);
    snprintf(msg, msg_size,
             "503 busy: requests in flight hold %lld MiB of "
             "--max-inflight-bytes %lld MiB%s; retry\n",
             atomic_load(&s->mem.used) / mib, s->mem.cap / mib, kept);
    srv_response_header(r, "Retry-After", "1");
    srv_reply_text(r, 503, msg);
}

/*
 * RFC 9112 section 6.3: a request whose length is ambiguous (more than one
 * Content-Length, a value that is not plain digits such as "+10", or
 * Content-Length beside Transfer-Encoding) is refused with 400 and the
 * connection is closed, since a proxy in front of us may have framed it
 * differently. evhttp has already read a body by the first value; nothing
 * after it on this connection is trusted. Returns the message, or NULL.
 */
const char *srv_framing_error(struct evhttp_request *req)
{
    const struct evkeyvalq *h = evhttp_request_get_input_headers(req);
    const struct evkeyval *kv;
    int n_len = 0, n_te = 0;

    for (kv = h->tqh_first; kv; kv = kv->next.tqe_next) {
        if (!evutil_ascii_strcasecmp(kv->key, "Transfer-Encoding")) {
            n_te++;
            continue;
        }
        if (evutil_ascii_strcasecmp(kv->key, "Content-Length"))
            continue;
        if (++n_len > 1)
            return "400 bad request: more than one Content-Length header\n";
        if (!*kv->value || strspn(kv->value, "0123456789") != strlen(kv->value))
            return "400 bad request: Content-Length is not a decimal number "
                   "of bytes\n";
    }
    if (n_len && n_te)
        return "400 bad request: both Content-Length and Transfer-Encoding\n";
    return NULL;
}
