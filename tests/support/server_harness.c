/*
 * server_harness.c: in-process server and libcurl helpers for the
 * tests/test_server_*.c suites (see server_harness.h).
 */
#include "tests/support/server_harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/common/log.h"

void harness_new(struct harness *h, const char *const *args)
{
    char *argv[64];
    struct err e = { "" };
    int argc = 0;

    memset(h, 0, sizeof(*h));
    arena_init(&h->arena, 0);
    argv[argc++] = "serve";
    argv[argc++] = "--listen";
    argv[argc++] = "127.0.0.1:0";
    argv[argc++] = "--workers";
    argv[argc++] = "2";
    while (args && *args && argc < 63)
        argv[argc++] = (char *)*args++;
    argv[argc] = NULL;
    if (opts_parse(&h->opts, &h->arena, argc, argv, &e) != 0)
        fail_msg("options: %s", e.msg);
    log_configure(stderr, LOG_FORMAT_TEXT, h->opts.verbosity);
    h->srv = srv_new(&h->opts, &e);
    if (!h->srv)
        fail_msg("srv_new: %s", e.msg);
}

void harness_start(struct harness *h)
{
    struct err e = { "" };

    if (srv_start(h->srv, &e) != 0)
        fail_msg("srv_start: %s", e.msg);
    snprintf(h->url, sizeof(h->url), "%s://127.0.0.1:%d",
             h->opts.tls_cert_file ? "https" : "http", h->srv->port);
}

void harness_free(struct harness *h)
{
    srv_free(h->srv);
    h->srv = NULL;
    arena_destroy(&h->arena);
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
    struct http_result *r = arg;
    size_t add = size * n;
    char *nb = realloc(r->body, r->len + add + 1);

    if (!nb)
        return 0;
    memcpy(nb + r->len, p, add);
    r->body = nb;
    r->len += add;
    r->body[r->len] = '\0';
    return add;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
    struct http_result *r = arg;
    size_t have = strlen(r->headers), add = size * n;

    if (have + add < sizeof(r->headers)) {
        memcpy(r->headers + have, p, add);
        r->headers[have + add] = '\0';
    }
    return add;
}

CURLcode http_do(CURL *c, const char *method, const char *url, const char *body,
                 size_t len, struct http_result *r)
{
    memset(r, 0, sizeof(*r));
    r->body = calloc(1, 1);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    if (!strcmp(method, "POST")) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, NULL);
        curl_easy_setopt(c, CURLOPT_POST, 1L);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)(body ? len : 0));
    } else {
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST,
                         strcmp(method, "GET") ? method : NULL);
    }
    r->code = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &r->connects);
    return r->code;
}

CURLcode http_once(const char *method, const char *url, const char *body,
                   size_t len, struct http_result *r)
{
    CURL *c = curl_easy_init();
    CURLcode rc;

    if (!c) {
        memset(r, 0, sizeof(*r));
        return r->code = CURLE_FAILED_INIT;
    }
    rc = http_do(c, method, url, body, len, r);
    curl_easy_cleanup(c);
    return rc;
}

void http_result_free(struct http_result *r)
{
    free(r->body);
    r->body = NULL;
}
