/*
 * echo_server.h: the HTTP server of server_harness.h with one verb,
 * POST /filter, that answers 200 with the body it received, for the
 * suites that test the HTTP layer itself (test_server_http.c,
 * test_server_hostile.c).
 */
#ifndef TESTS_SUPPORT_ECHO_SERVER_H
#define TESTS_SUPPORT_ECHO_SERVER_H

#include "tests/support/server_harness.h"

/* The echo: answers 200 with the body it received (an srv_handler_fn). */
void echo_server_handler(struct server *s, const struct srv_request *req,
                         struct srv_response *r, void *arg);

/*
 * harness_new(h, args), register the echo verb "filter", harness_start(h).
 * The echo also checks that the body it got is NUL-terminated at
 * body_len. Fails the test on error.
 */
void echo_server_start(struct harness *h, const char *const *args);

#endif
