/*
 * test_server_tls.c: HTTPS with and without required client certificates.
 * A CA, a server certificate (IP:127.0.0.1) and client certificates are
 * made at test time with the openssl CLI in a mkdtemp directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/server_harness.h"

static char dir[64];

static char *path(const char *name)
{
    static char buf[8][160];
    static int next;
    char *p = buf[next++ % 8];

    snprintf(p, 160, "%s/%s", dir, name);
    return p;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
    char cmd[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    return system(cmd);
}

#define EC "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"

/* CA "ca", plus a leaf "name" signed by ca_name with extension ext. */
static int make_leaf(const char *ca, const char *name, const char *cn,
                     const char *ext)
{
    return sh("cd %s && printf '%%s\\n' '%s' > %s.ext && "
              "openssl req " EC " -keyout %s.key -out %s.csr -subj /CN=%s "
              "2>/dev/null && openssl x509 -req -in %s.csr -CA %s.crt "
              "-CAkey %s.key -CAcreateserial -days 1 -extfile %s.ext "
              "-out %s.crt 2>/dev/null",
              dir, ext, name, name, name, cn, name, ca, ca, name, name);
}

static int make_ca(const char *name)
{
    return sh("cd %s && openssl req -x509 " EC " -keyout %s.key -out %s.crt "
              "-subj /CN=%s -days 1 -addext "
              "basicConstraints=critical,CA:TRUE 2>/dev/null",
              dir, name, name, name);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/kpe-tls-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    if (make_ca("ca") || make_ca("other") ||
        make_leaf("ca", "server", "127.0.0.1",
                  "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth") ||
        make_leaf("ca", "client", "scheduler", "extendedKeyUsage=clientAuth") ||
        make_leaf("other", "stranger", "stranger",
                  "extendedKeyUsage=clientAuth"))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return sh("rm -rf %s", dir) ? -1 : 0;
}

/* GET /healthz over TLS, trusting ca.crt, with an optional client pair. */
static struct http_result get_healthz(struct harness *h, const char *client)
{
    struct http_result r;
    char url[256], crt[32], key[32];
    CURL *c = curl_easy_init();

    snprintf(url, sizeof(url), "%s/healthz", h->url);
    curl_easy_setopt(c, CURLOPT_CAINFO, path("ca.crt"));
    if (client) {
        snprintf(crt, sizeof(crt), "%s.crt", client);
        snprintf(key, sizeof(key), "%s.key", client);
        curl_easy_setopt(c, CURLOPT_SSLCERT, path(crt));
        curl_easy_setopt(c, CURLOPT_SSLKEY, path(key));
    }
    http_do(c, "GET", url, NULL, 0, &r);
    curl_easy_cleanup(c);
    return r;
}

static void https_should_serve_with_tls12_floor(void **state)
{
    const char *args[] = { "--tls-cert-file", path("server.crt"),
                           "--tls-key-file", path("server.key"), NULL };
    struct harness h;
    struct http_result r;
    char plain[256];

    (void)state;
    harness_new(&h, args);
    harness_start(&h);
    assert_int_equal(strncmp(h.url, "https://", 8), 0);
    r = get_healthz(&h, NULL);
    assert_int_equal(r.code, CURLE_OK);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "ok\n");
    http_result_free(&r);
    assert_int_equal(SSL_CTX_get_min_proto_version(h.srv->ssl_ctx),
                     TLS1_2_VERSION);
    /* Plain HTTP to the TLS port: 400 saying so, as Go's net/http. */
    snprintf(plain, sizeof(plain), "http://127.0.0.1:%d/healthz", h.srv->port);
    http_once("GET", plain, NULL, 0, &r);
    assert_int_equal(r.status, 400);
    assert_string_equal(r.body,
                        "Client sent an HTTP request to an HTTPS server.\n");
    http_result_free(&r);
    /* With a body behind it (read away, so the close is no reset). */
    {
        static char body[20000];

        memset(body, '{', sizeof(body));
        http_once("POST", plain, body, sizeof(body), &r);
        assert_int_equal(r.status, 400);
        http_result_free(&r);
    }
    /* The server still serves TLS. */
    r = get_healthz(&h, NULL);
    assert_int_equal(r.status, 200);
    http_result_free(&r);
    harness_free(&h);
}

struct client_case {
    const char *name;
    const char *client; /* NULL: no client certificate */
    int want_ok;
};

static void client_ca_should_require_a_trusted_certificate(void **state)
{
    static const struct client_case cases[] = {
        { "no client certificate", NULL, 0 },
        { "certificate from another CA", "stranger", 0 },
        { "certificate from the client CA", "client", 1 },
    };
    const char *args[] = { "--tls-cert-file",
                           path("server.crt"),
                           "--tls-key-file",
                           path("server.key"),
                           "--tls-client-ca-file",
                           path("ca.crt"),
                           NULL };
    struct harness h;
    size_t i;

    (void)state;
    harness_new(&h, args);
    harness_start(&h);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct http_result r = get_healthz(&h, cases[i].client);
        int ok = r.code == CURLE_OK && r.status == 200;

        if (ok != cases[i].want_ok)
            fail_msg("%s: curl %d (%s), status %ld", cases[i].name, r.code,
                     curl_easy_strerror(r.code), r.status);
        http_result_free(&r);
    }
    harness_free(&h);
}

static void bad_key_should_fail_at_start(void **state)
{
    const char *args[] = { "--tls-cert-file", path("server.crt"),
                           "--tls-key-file", path("client.key"), NULL };
    struct harness h;
    struct err e = { "" };

    (void)state;
    harness_new(&h, args);
    assert_int_equal(srv_start(h.srv, &e), -1);
    if (strncmp(e.msg, "--tls-key-file", 14) || !strstr(e.msg, "client.key"))
        fail_msg("unexpected error: %s", e.msg);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(https_should_serve_with_tls12_floor),
        cmocka_unit_test(client_ca_should_require_a_trusted_certificate),
        cmocka_unit_test(bad_key_should_fail_at_start),
    };
    int rc;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, setup, teardown);
    curl_global_cleanup();
    return rc;
}
