/*
 * test_server_http.c: the HTTP server driven with libcurl: built-in
 * routes, routing errors, limits, keep-alive, concurrency and a verb.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "server/common/version.h"
#include "tests/support/echo_server.h"

static char *url_of(struct harness *h, const char *path)
{
    static _Thread_local char buf[256];

    snprintf(buf, sizeof(buf), "%s%s", h->url, path);
    return buf;
}

static void builtin_routes_should_answer(void **state)
{
    struct harness h;
    struct http_result r;
    cJSON *v;

    (void)state;
    echo_server_start(&h, NULL);
    assert_int_equal(http_once("GET", url_of(&h, "/healthz"), NULL, 0, &r),
                     CURLE_OK);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "ok\n");
    http_result_free(&r);

    http_once("GET", url_of(&h, "/version"), NULL, 0, &r);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.headers, "Content-Type: application/json"));
    v = cJSON_Parse(r.body);
    assert_non_null(v);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(v, "version")->valuestring,
        kpe_version());
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(v, "gitCommit")->valuestring,
        kpe_git_revision());
    cJSON_Delete(v);
    http_result_free(&r);
    harness_free(&h);
}

static void readyz_should_follow_the_ready_flag(void **state)
{
    struct harness h;
    struct http_result r;

    (void)state;
    echo_server_start(&h, NULL);
    srv_set_ready(h.srv, 0, "policy not loaded");
    http_once("GET", url_of(&h, "/readyz"), NULL, 0, &r);
    assert_int_equal(r.status, 503);
    assert_string_equal(r.body, "not ready: policy not loaded\n");
    http_result_free(&r);

    srv_set_ready(h.srv, 1, NULL);
    http_once("GET", url_of(&h, "/readyz"), NULL, 0, &r);
    assert_int_equal(r.status, 200);
    http_result_free(&r);
    harness_free(&h);
}

/* Every sample line is NAME[{LABELS}] VALUE, after its # TYPE line. */
static void check_exposition(const char *text)
{
    char *copy = strdup(text), *save = NULL, *line;
    char typed[64][128];
    int ntyped = 0, i, lines = 0;

    for (line = strtok_r(copy, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char name[128], *sp;
        size_t n;

        lines++;
        if (!strncmp(line, "# HELP ", 7))
            continue;
        if (!strncmp(line, "# TYPE ", 7)) {
            assert_true(ntyped < 64);
            sscanf(line + 7, "%127s", typed[ntyped++]);
            continue;
        }
        n = strcspn(line, "{ ");
        assert_true(n > 0 && n < sizeof(name));
        memcpy(name, line, n);
        name[n] = '\0';
        sp = strrchr(line, ' ');
        if (!sp || !sp[1])
            fail_msg("sample without a value: %s", line);
        if (line[n] == '{' && sp[-1] != '}')
            fail_msg("unclosed labels: %s", line);
        for (i = 0; i < ntyped; i++) {
            size_t tl = strlen(typed[i]);

            if (!strncmp(name, typed[i], tl) &&
                (!name[tl] || !strcmp(name + tl, "_bucket") ||
                 !strcmp(name + tl, "_sum") || !strcmp(name + tl, "_count")))
                break;
        }
        if (i == ntyped)
            fail_msg("sample before its # TYPE: %s", line);
    }
    assert_true(lines > 5);
    free(copy);
}

static void metrics_should_count_requests_per_route_and_code(void **state)
{
    struct harness h;
    struct http_result r;
    int i;

    (void)state;
    echo_server_start(&h, NULL);
    for (i = 0; i < 3; i++) {
        http_once("GET", url_of(&h, "/healthz"), NULL, 0, &r);
        http_result_free(&r);
    }
    http_once("GET", url_of(&h, "/nope"), NULL, 0, &r);
    http_result_free(&r);
    http_once("GET", url_of(&h, "/metrics"), NULL, 0, &r);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.headers, "text/plain; version=0.0.4"));
    check_exposition(r.body);
    assert_non_null(strstr(r.body, "# TYPE kpe_http_requests_total counter\n"));
    assert_non_null(
        strstr(r.body,
               "kpe_http_requests_total{route=\"/healthz\",code=\"200\"} 3\n"));
    assert_non_null(strstr(
        r.body,
        "kpe_http_requests_total{route=\"unmatched\",code=\"404\"} 1\n"));
    assert_non_null(strstr(r.body,
                           "kpe_http_request_duration_seconds_count{route=\"/"
                           "healthz\",outcome=\"success\"} 3\n"));
    assert_non_null(strstr(r.body, "kpe_http_request_duration_seconds_bucket{"
                                   "route=\"/healthz\",outcome=\"success\","
                                   "le=\"+Inf\"} 3\n"));
    assert_non_null(strstr(r.body, "kpe_build_info{version=\""));
    assert_non_null(strstr(r.body, "\nprocess_start_time_seconds 1"));
    http_result_free(&r);
    harness_free(&h);
}

struct route_case {
    const char *name;
    const char *method;
    const char *path;
    long want_status;
    const char *want_allow; /* NULL: no Allow header expected */
};

static void routing_errors_should_use_the_right_status(void **state)
{
    static const char *const args[] = { "--url-prefix", "/scheduler", NULL };
    static const struct route_case cases[] = {
        { "unknown path", "GET", "/nope", 404, NULL },
        { "verb without prefix", "POST", "/filter", 404, NULL },
        { "query is ignored", "GET", "/healthz?x=1", 200, NULL },
        { "POST to a GET route", "POST", "/healthz", 405, "GET, HEAD" },
        { "DELETE to a GET route", "DELETE", "/version", 405, "GET, HEAD" },
        { "GET to a verb", "GET", "/scheduler/filter", 405, "POST" },
        { "PUT to a verb", "PUT", "/scheduler/filter", 405, "POST" },
        { "verb under prefix", "POST", "/scheduler/filter", 200, NULL },
    };
    struct harness h;
    size_t i;

    (void)state;
    echo_server_start(&h, args);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct route_case *c = &cases[i];
        struct http_result r;
        char want[64];

        http_once(c->method, url_of(&h, c->path), "{}", 2, &r);
        if (r.status != c->want_status)
            fail_msg("%s: status %ld, want %ld", c->name, r.status,
                     c->want_status);
        if (c->want_allow) {
            snprintf(want, sizeof(want), "Allow: %s\r\n", c->want_allow);
            if (!strstr(r.headers, want))
                fail_msg("%s: no \"%s\" in:\n%s", c->name, want, r.headers);
        }
        http_result_free(&r);
    }
    harness_free(&h);
}

static void oversized_body_should_get_413(void **state)
{
    static const char *const args[] = { "--max-body-bytes", "1Ki", NULL };
    struct harness h;
    struct http_result r;
    char body[4096];

    (void)state;
    memset(body, 'x', sizeof(body));
    echo_server_start(&h, args);
    http_once("POST", url_of(&h, "/filter"), body, sizeof(body), &r);
    assert_int_equal(r.status, 413);
    http_result_free(&r);
    /* At the limit it still passes. */
    http_once("POST", url_of(&h, "/filter"), body, 1024, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, 1024);
    http_result_free(&r);
    harness_free(&h);
}

static void oversized_headers_should_be_refused(void **state)
{
    static const char *const args[] = { "--max-header-bytes", "2Ki", NULL };
    struct harness h;
    struct http_result r;
    struct curl_slist *hdr = NULL;
    char big[4096];
    CURL *c = curl_easy_init();

    (void)state;
    echo_server_start(&h, args);
    snprintf(big, sizeof(big), "X-Big: %03000d", 7);
    hdr = curl_slist_append(hdr, big);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    http_do(c, "GET", url_of(&h, "/healthz"), NULL, 0, &r);
    /* libevent answers 400 Bad Request (it has no 431). */
    assert_int_equal(r.code, CURLE_OK);
    assert_int_equal(r.status, 400);
    http_result_free(&r);
    curl_slist_free_all(hdr);
    curl_easy_cleanup(c);
    harness_free(&h);
}

static void verb_should_receive_the_body_intact(void **state)
{
    struct harness h;
    struct http_result r;
    size_t n = 300000, i;
    char *body = malloc(n);

    (void)state;
    for (i = 0; i < n; i++)
        body[i] = (char)(i * 7 + 3); /* includes NUL bytes */
    echo_server_start(&h, NULL);
    http_once("POST", url_of(&h, "/filter"), body, n, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, n);
    assert_memory_equal(r.body, body, n);
    http_result_free(&r);
    http_once("POST", url_of(&h, "/filter"), "", 0, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, 0);
    http_result_free(&r);
    free(body);
    harness_free(&h);
}

static void keepalive_should_reuse_one_connection(void **state)
{
    struct harness h;
    struct http_result r;
    CURL *c = curl_easy_init();
    long connects = 0;
    int i;

    (void)state;
    echo_server_start(&h, NULL);
    for (i = 0; i < 5; i++) {
        const char *body = i % 2 ? "{\"a\":1}" : "{}";

        http_do(c, i % 2 ? "POST" : "GET",
                url_of(&h, i % 2 ? "/filter" : "/healthz"), body, strlen(body),
                &r);
        assert_int_equal(r.status, 200);
        connects += r.connects;
        http_result_free(&r);
    }
    assert_int_equal(connects, 1);
    curl_easy_cleanup(c);
    harness_free(&h);
}

struct client {
    struct harness *h;
    int id;
    int ok;
};

static void *client_main(void *arg)
{
    struct client *cl = arg;
    CURL *c = curl_easy_init();
    int i;

    for (i = 0; i < 25; i++) {
        struct http_result r;
        char body[64], url[256];

        snprintf(body, sizeof(body), "{\"client\":%d,\"i\":%d}", cl->id, i);
        snprintf(url, sizeof(url), "%s/filter", cl->h->url);
        http_do(c, "POST", url, body, strlen(body), &r);
        if (r.status == 200 && !strcmp(r.body, body))
            cl->ok++;
        http_result_free(&r);
    }
    curl_easy_cleanup(c);
    return NULL;
}

static void concurrent_clients_should_all_be_served(void **state)
{
    struct harness h;
    struct client cl[8];
    pthread_t t[8];
    int i;

    (void)state;
    echo_server_start(&h, NULL);
    for (i = 0; i < 8; i++) {
        cl[i] = (struct client){ &h, i, 0 };
        pthread_create(&t[i], NULL, client_main, &cl[i]);
    }
    for (i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        if (cl[i].ok != 25)
            fail_msg("client %d: %d of 25 answers right", i, cl[i].ok);
    }
    harness_free(&h);
}

static void listener_should_set_tcp_nodelay(void **state)
{
    struct harness h;
    int v = 0;
    socklen_t vl = sizeof(v);

    (void)state;
    echo_server_start(&h, NULL);
    assert_int_equal(
        getsockopt(h.srv->listen_fd, IPPROTO_TCP, TCP_NODELAY, &v, &vl), 0);
    assert_int_equal(v, 1);
    harness_free(&h);
}

static void registration_should_reject_duplicates_and_bad_verbs(void **state)
{
    struct harness h;
    struct err e = { "" };

    (void)state;
    echo_server_start(&h, NULL);
    harness_free(&h);
    harness_new(&h, NULL);
    assert_int_equal(
        srv_register_verb(h.srv, "bind", echo_server_handler, NULL, &e), 0);
    assert_int_equal(
        srv_register_verb(h.srv, "bind", echo_server_handler, NULL, &e), -1);
    assert_string_equal(e.msg, "route \"/bind\": already registered");
    assert_int_equal(
        srv_register_verb(h.srv, "a/b", echo_server_handler, NULL, &e), -1);
    assert_string_equal(e.msg, "verb \"a/b\": want a name without '/'");
    harness_start(&h);
    assert_int_equal(
        srv_register_verb(h.srv, "late", echo_server_handler, NULL, &e), -1);
    assert_string_equal(e.msg, "route \"/late\": server already started");
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_routes_should_answer),
        cmocka_unit_test(readyz_should_follow_the_ready_flag),
        cmocka_unit_test(metrics_should_count_requests_per_route_and_code),
        cmocka_unit_test(routing_errors_should_use_the_right_status),
        cmocka_unit_test(oversized_body_should_get_413),
        cmocka_unit_test(oversized_headers_should_be_refused),
        cmocka_unit_test(verb_should_receive_the_body_intact),
        cmocka_unit_test(keepalive_should_reuse_one_connection),
        cmocka_unit_test(concurrent_clients_should_all_be_served),
        cmocka_unit_test(listener_should_set_tcp_nodelay),
        cmocka_unit_test(registration_should_reject_duplicates_and_bad_verbs),
    };
    int rc;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
