/*
 * test_server_calls.c: GET /debug/calls (server/extender/call_ring.c):
 * the ring keeps the last CALL_RING_SIZE calls newest first, with their
 * fields; adds from several threads are safe (run under TSan: the name is
 * in the Makefile's TSAN_NAMES); the extender records the calls
 * kube-scheduler makes; without --debug-endpoints the route is a 404.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/extender/call_ring.h"
#include "server/extender/extender_app.h"
#include "tests/support/server_harness.h"

static cJSON *ring_json(struct call_ring *c)
{
    size_t len = 0;
    char *s = call_ring_json(c, &len);
    cJSON *j;

    assert_non_null(s);
    j = cJSON_ParseWithLength(s, len);
    free(s);
    assert_non_null(j);
    return j;
}

static void ring_should_keep_the_last_calls_newest_first(void **state)
{
    struct call_ring *c = malloc(sizeof(*c));
    const size_t n = CALL_RING_SIZE + 10;
    cJSON *j, *calls, *first, *last;
    size_t i;

    (void)state;
    call_ring_init(c);
    for (i = 1; i <= n; i++) {
        char name[32];

        snprintf(name, sizeof(name), "pod-%zu", i);
        call_ring_add(c, "filter", i % 2 ? "ns" : NULL, name, i, "ok", 0.25);
    }
    j = ring_json(c);
    assert_int_equal(cJSON_GetObjectItem(j, "total")->valuedouble, n);
    calls = cJSON_GetObjectItem(j, "calls");
    assert_int_equal(cJSON_GetArraySize(calls), CALL_RING_SIZE);
    first = cJSON_GetArrayItem(calls, 0);
    last = cJSON_GetArrayItem(calls, CALL_RING_SIZE - 1);
    assert_int_equal(cJSON_GetObjectItem(first, "seq")->valuedouble, n);
    assert_string_equal(cJSON_GetObjectItem(first, "verb")->valuestring,
                        "filter");
    /* n is odd (266): its namespace was given. */
    assert_string_equal(cJSON_GetObjectItem(first, "pod")->valuestring,
                        "default/pod-266");
    assert_int_equal(cJSON_GetObjectItem(first, "nodes")->valuedouble, n);
    assert_string_equal(cJSON_GetObjectItem(first, "answer")->valuestring,
                        "ok");
    assert_true(cJSON_GetObjectItem(first, "latencySeconds")->valuedouble ==
                0.25);
    /* The oldest kept is call 11: calls 1..10 were overwritten. */
    assert_int_equal(cJSON_GetObjectItem(last, "seq")->valuedouble, 11);
    assert_string_equal(cJSON_GetObjectItem(last, "pod")->valuestring,
                        "ns/pod-11");
    cJSON_Delete(j);
    call_ring_destroy(c);
    free(c);
}

static void ring_should_cut_long_strings(void **state)
{
    struct call_ring c;
    char big[400];
    cJSON *j, *r;

    (void)state;
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    call_ring_init(&c);
    call_ring_add(&c, "prioritize", NULL, NULL, 0, big, 0);
    j = ring_json(&c);
    r = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "calls"), 0);
    assert_string_equal(cJSON_GetObjectItem(r, "pod")->valuestring, "");
    assert_int_equal(strlen(cJSON_GetObjectItem(r, "answer")->valuestring),
                     sizeof(((struct call_rec *)0)->answer) - 1);
    cJSON_Delete(j);
    call_ring_destroy(&c);
}

#define THREADS 4
#define PER     500

static void *adder(void *arg)
{
    struct call_ring *c = arg;
    int i;

    for (i = 0; i < PER; i++) {
        call_ring_add(c, "filter", "ns", "p", 1, "ok", 0);
        if (i % 100 == 0)
            free(call_ring_json(c, &(size_t){ 0 }));
    }
    return NULL;
}

static void ring_should_take_adds_from_threads(void **state)
{
    struct call_ring *c = malloc(sizeof(*c));
    pthread_t t[THREADS];
    cJSON *j, *calls;
    int i;

    (void)state;
    call_ring_init(c);
    for (i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, adder, c), 0);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    j = ring_json(c);
    assert_int_equal(cJSON_GetObjectItem(j, "total")->valuedouble,
                     THREADS * PER);
    calls = cJSON_GetObjectItem(j, "calls");
    /* Every slot holds a distinct, newest-first sequence number. */
    for (i = 0; i < CALL_RING_SIZE; i++)
        assert_int_equal(
            cJSON_GetObjectItem(cJSON_GetArrayItem(calls, i), "seq")
                ->valuedouble,
            THREADS * PER - i);
    cJSON_Delete(j);
    call_ring_destroy(c);
    free(c);
}

/* serve with or without --debug-endpoints. */
struct fixture {
    struct harness h;
    struct extender_app ctx;
};

static void start(struct fixture *f, bool debug)
{
    struct err e = { "" };
    const char *args[] = { "--policy",
                           "tests/data/extender/policy.json",
                           "--cluster",
                           "deploy/demo/cluster.json",
                           debug ? "--debug-endpoints" : NULL,
                           NULL };

    memset(f, 0, sizeof(*f));
    harness_new(&f->h, args);
    if (extender_app_init(&f->ctx, f->h.srv, &e) < 0)
        fail_msg("extender_app_init: %s", e.msg);
    harness_start(&f->h);
}

static void stop(struct fixture *f)
{
    extender_app_stop(&f->ctx);
    harness_free(&f->h);
    extender_app_destroy(&f->ctx);
}

static void get(struct fixture *f, const char *path, struct http_result *r)
{
    char url[192];

    snprintf(url, sizeof(url), "%s%s", f->h.url, path);
    assert_int_equal(http_once("GET", url, NULL, 0, r), CURLE_OK);
}

static void serve_should_list_the_calls_it_answered(void **state)
{
    static const char body[] =
        "{\"Pod\":{\"metadata\":{\"name\":\"web\",\"namespace\":\"shop\"},"
        "\"spec\":{\"containers\":[{\"name\":\"c\"}]}},\"Nodes\":null,"
        "\"NodeNames\":[\"rdma-1\",\"general-1\",\"ghost\"]}";
    struct fixture *f = malloc(sizeof(*f));
    struct http_result r;
    char url[192];
    cJSON *j, *calls, *c;

    (void)state;
    start(f, true);
    get(f, "/debug/calls", &r);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, "\"total\":0,\"calls\":[]"));
    http_result_free(&r);
    snprintf(url, sizeof(url), "%s/filter", f->h.url);
    assert_int_equal(http_once("POST", url, body, strlen(body), &r), CURLE_OK);
    http_result_free(&r);
    snprintf(url, sizeof(url), "%s/prioritize", f->h.url);
    assert_int_equal(http_once("POST", url, body, strlen(body), &r), CURLE_OK);
    http_result_free(&r);
    get(f, "/debug/calls", &r);
    assert_int_equal(r.status, 200);
    j = cJSON_Parse(r.body);
    assert_non_null(j);
    calls = cJSON_GetObjectItem(j, "calls");
    assert_int_equal(cJSON_GetArraySize(calls), 2);
    c = cJSON_GetArrayItem(calls, 0);
    assert_string_equal(cJSON_GetObjectItem(c, "verb")->valuestring,
                        "prioritize");
    assert_string_equal(cJSON_GetObjectItem(c, "pod")->valuestring, "shop/web");
    c = cJSON_GetArrayItem(calls, 1);
    assert_string_equal(cJSON_GetObjectItem(c, "verb")->valuestring, "filter");
    assert_string_equal(cJSON_GetObjectItem(c, "pod")->valuestring, "shop/web");
    assert_int_equal(cJSON_GetObjectItem(c, "nodes")->valuedouble, 3);
    if (!strstr(cJSON_GetObjectItem(c, "answer")->valuestring, " of 3 passed"))
        fail_msg("filter answer: %s",
                 cJSON_GetObjectItem(c, "answer")->valuestring);
    assert_true(cJSON_GetObjectItem(c, "latencySeconds")->valuedouble >= 0);
    cJSON_Delete(j);
    http_result_free(&r);
    stop(f);
    free(f);
}

static void serve_without_the_flag_should_have_no_route(void **state)
{
    struct fixture *f = malloc(sizeof(*f));
    struct http_result r;

    (void)state;
    start(f, false);
    get(f, "/debug/calls", &r);
    assert_int_equal(r.status, 404);
    http_result_free(&r);
    stop(f);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ring_should_keep_the_last_calls_newest_first),
        cmocka_unit_test(ring_should_cut_long_strings),
        cmocka_unit_test(ring_should_take_adds_from_threads),
        cmocka_unit_test(serve_should_list_the_calls_it_answered),
        cmocka_unit_test(serve_without_the_flag_should_have_no_route),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
