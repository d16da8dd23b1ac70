/*
 * echo_server.c: the in-process echo server of the HTTP suites (see
 * echo_server.h).
 */
#include "tests/support/echo_server.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

void echo_server_handler(struct server *s, const struct srv_request *req,
                         struct srv_response *r, void *arg)
{
    (void)s;
    (void)arg;
    assert_int_equal(strlen(req->body) <= req->body_len, 1);
    assert_int_equal(req->body[req->body_len], '\0');
    srv_reply(r, 200, "application/octet-stream", req->body, req->body_len);
}

void echo_server_start(struct harness *h, const char *const *args)
{
    struct err e = { "" };

    harness_new(h, args);
    if (srv_register_verb(h->srv, "filter", echo_server_handler, NULL, &e) != 0)
        fail_msg("%s", e.msg);
    harness_start(h);
}
