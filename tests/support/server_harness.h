/*
 * server_harness.h: run the HTTP server in-process on 127.0.0.1 with an
 * ephemeral port, and drive it with libcurl.
 */
#ifndef TESTS_SUPPORT_SERVER_HARNESS_H
#define TESTS_SUPPORT_SERVER_HARNESS_H

#include <curl/curl.h>
#include <stddef.h>

#include "kube/base/arena.h"
#include "server/http/http.h"

struct harness {
    struct arena arena; /* owns the option strings */
    struct srv_options opts;
    struct server *srv;
    char url[128]; /* "http://127.0.0.1:PORT" (https when TLS) */
};

/*
 * Parse serve-style args (NULL-terminated, without the subcommand; the
 * harness adds --listen 127.0.0.1:0 first, so args may override it) and
 * create the server, not yet started. Fails the test on error.
 */
void harness_new(struct harness *h, const char *const *args);

/* Start the server and fill h->url. Fails the test on error. */
void harness_start(struct harness *h);

/* Stop, wait and free. */
void harness_free(struct harness *h);

struct http_result {
    long status;
    char *body; /* NUL-terminated, malloc'd */
    size_t len;
    char headers[4096]; /* raw response headers */
    long connects;      /* CURLINFO_NUM_CONNECTS of this transfer */
    CURLcode code;
};

/*
 * One request on handle c (reuse it for keep-alive). method "GET"/"POST"
 * or another verb; body may be NULL. Returns the CURLcode, also in r.
 */
CURLcode http_do(CURL *c, const char *method, const char *url, const char *body,
                 size_t len, struct http_result *r);

/* http_do on a fresh handle. */
CURLcode http_once(const char *method, const char *url, const char *body,
                   size_t len, struct http_result *r);

void http_result_free(struct http_result *r);

#endif
