/*
 * test_client.c: the API client against the fake HTTP responder: Binding
 * (201, 409 already bound, other failures), Events, pod status patches,
 * bearer tokens re-read from a changing token file, and the write rate
 * limiter's token bucket.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "kube/client/client.h"
#include "tests/support/fake_http.h"

static struct kube_client *client_for(const struct fake_http *fh,
                                      const char *token, const char *token_file)
{
    struct kube_conn conn = { 0 };
    struct err e = { "" };
    struct kube_client *c;

    conn.server = strdup(fh_url(fh));
    conn.token = token ? strdup(token) : NULL;
    conn.token_file = token_file ? strdup(token_file) : NULL;
    c = kube_client_new(&conn, NULL, &e);
    if (!c)
        fail_msg("kube_client_new: %s", e.msg);
    return c;
}

struct bind_case {
    const char *name;
    int status;
    const char *body;
    int want_rc;
    const char *want_err; /* substring; NULL when rc is 0 */
};

static const struct bind_case bind_cases[] = {
    { "created", 201, "{\"kind\":\"Status\",\"status\":\"Success\"}", 0, NULL },
    { "conflict", 409,
      "{\"kind\":\"Status\",\"message\":\"pod p1 is already assigned to node "
      "\\\"n2\\\"\",\"code\":409}",
      KUBE_CLIENT_ALREADY_BOUND,
      "pod ns1/p1 is already bound: POST "
      "/api/v1/namespaces/ns1/pods/p1/binding: HTTP 409: pod p1 is already "
      "assigned to node \"n2\"" },
    { "forbidden", 403,
      "{\"kind\":\"Status\",\"message\":\"bindings is forbidden\"}", -1,
      "HTTP 403: bindings is forbidden" },
    { "not json", 500, "oops", -1, "HTTP 500: oops" },
};

static void bind_should_post_a_binding_and_classify_the_answer(void **state)
{
    size_t i;
    int failed = 0;

    (void)state;
    for (i = 0; i < sizeof(bind_cases) / sizeof(bind_cases[0]); i++) {
        const struct bind_case *tc = &bind_cases[i];
        struct fh_response r = { "POST /api/v1/namespaces/ns1/pods/p1/binding",
                                 tc->status,
                                 tc->body,
                                 0,
                                 0,
                                 false,
                                 0,
                                 false };
        struct fake_http *fh = fh_start(&r, 1);
        struct kube_client *c = client_for(fh, "sekret", NULL);
        struct err e = { "" };
        struct fh_request req;
        int rc = kube_client_bind(c, "ns1", "p1", "uid-1", "node-a", &e);

        if (rc != tc->want_rc ||
            (tc->want_err ? !strstr(e.msg, tc->want_err) : false) ||
            !fh_request(fh, 0, &req) || req.answered_by != 0 ||
            !strstr(req.body, "\"kind\":\"Binding\"") ||
            !strstr(req.body, "\"target\":{\"apiVersion\":\"v1\",\"kind\":"
                              "\"Node\",\"name\":\"node-a\"}") ||
            !strstr(req.body, "\"uid\":\"uid-1\"") ||
            !strstr(req.headers, "Authorization: Bearer sekret") ||
            !strstr(req.headers, "Content-Type: application/json")) {
            print_error("case \"%s\": rc %d \"%s\"\n", tc->name, rc, e.msg);
            failed++;
        }
        kube_client_free(c);
        fh_stop(fh);
    }
    assert_int_equal(failed, 0);
}

static void bind_should_refuse_names_that_break_the_path(void **state)
{
    struct fake_http *fh = fh_start(NULL, 0);
    struct kube_client *c = client_for(fh, NULL, NULL);
    struct err e = { "" };

    (void)state;
    assert_int_equal(kube_client_bind(c, "ns/x", "p", NULL, "n", &e), -1);
    assert_string_equal(e.msg, "invalid namespace \"ns/x\"");
    assert_int_equal(kube_client_bind(c, "ns", "p", NULL, "", &e), -1);
    assert_string_equal(e.msg, "invalid node name \"\"");
    assert_int_equal(fh_count(fh), 0);
    kube_client_free(c);
    fh_stop(fh);
}

/* Preemption's victims: DELETE with the UID as precondition; gone (404)
 * or replaced (409 on the precondition) is KUBE_CLIENT_GONE. */
static void delete_pod_should_send_the_uid_precondition(void **state)
{
    static const struct {
        int status;
        int want;
    } cases[] = { { 200, 0 },
                  { 404, KUBE_CLIENT_GONE },
                  { 409, KUBE_CLIENT_GONE },
                  { 500, -1 } };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fh_response r = { "DELETE /api/v1/namespaces/ns1/pods/p1",
                                 cases[i].status,
                                 "{}",
                                 0,
                                 0,
                                 false,
                                 0,
                                 false };
        struct fake_http *fh = fh_start(&r, 1);
        struct kube_client *c = client_for(fh, NULL, NULL);
        struct err e = { "" };
        struct fh_request req;

        assert_int_equal(kube_client_delete_pod(c, "ns1", "p1", "uid-9", &e),
                         cases[i].want);
        assert_true(fh_request(fh, 0, &req));
        assert_int_equal(req.answered_by, 0);
        assert_non_null(strstr(req.body, "\"kind\":\"DeleteOptions\""));
        assert_non_null(
            strstr(req.body, "\"preconditions\":{\"uid\":\"uid-9\"}"));
        kube_client_free(c);
        fh_stop(fh);
    }
}

static void event_and_status_patch_should_reach_their_paths(void **state)
{
    struct fh_response rs[] = {
        { "POST /api/v1/namespaces/ns1/events", 201, "{}", 0, 0, false, 0,
          false },
        { "PATCH /api/v1/namespaces/ns1/pods/p1/status", 200, "{}", 0, 0, false,
          0, false },
    };
    struct fake_http *fh = fh_start(rs, 2);
    struct kube_client *c = client_for(fh, NULL, NULL);
    struct kube_event_ref ref = { "Pod", "ns1", "p1", "u1", NULL };
    struct fh_request req;
    struct err e = { "" };

    (void)state;
    assert_int_equal(kube_client_create_event(c, &ref, "Warning",
                                              "FailedScheduling", "no fit",
                                              "kube-policy-extender", &e),
                     0);
    assert_true(fh_request(fh, 0, &req));
    assert_int_equal(req.answered_by, 0);
    assert_non_null(strstr(req.body,
                           "\"involvedObject\":{\"apiVersion\":"
                           "\"v1\",\"kind\":\"Pod\",\"namespace\":"
                           "\"ns1\",\"name\":\"p1\",\"uid\":\"u1\"}"));
    assert_non_null(strstr(req.body, "\"reason\":\"FailedScheduling\""));
    assert_non_null(strstr(req.body, "\"name\":\"p1."));

    assert_int_equal(kube_client_patch_pod_status(
                         c, "ns1", "p1",
                         "{\"status\":{\"conditions\":[{\"type\":"
                         "\"PodScheduled\",\"status\":\"False\"}]}}",
                         &e),
                     0);
    assert_true(fh_request(fh, 1, &req));
    assert_int_equal(req.answered_by, 1);
    assert_non_null(strstr(
        req.headers, "Content-Type: application/strategic-merge-patch+json"));
    assert_int_equal(kube_client_patch_pod_status(c, "ns1", "p1", "[1]", &e),
                     -1);
    kube_client_free(c);
    fh_stop(fh);
}

static void token_file_should_be_reread_when_it_changes(void **state)
{
    char path[] = "/tmp/kpe-token-XXXXXX";
    int fd = mkstemp(path);
    struct fake_http *fh = fh_start(NULL, 0);
    struct kube_client *c;
    struct err e = { "" };
    char *tok;

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "first\n", 6), 6);
    close(fd);
    c = client_for(fh, "static-ignored", path);
    tok = kube_client_token(c, &e);
    assert_string_equal(tok, "first");
    free(tok);

    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "second-token", 12), 12);
    close(fd);
    tok = kube_client_token(c, &e);
    assert_string_equal(tok, "second-token");
    free(tok);

    /* A vanished file keeps the last good token (rotation in progress). */
    unlink(path);
    tok = kube_client_token(c, &e);
    assert_string_equal(tok, "second-token");
    free(tok);
    kube_client_free(c);
    fh_stop(fh);
}

/* Issue 29: a token file holding "\r\nX-Injected: 1" would have become a
 * header at the API server. The request is refused, naming the file, and
 * nothing reaches the server. */
static void token_file_with_control_characters_should_be_refused(void **state)
{
    char path[] = "/tmp/kpe-token-XXXXXX", want[128];
    int fd = mkstemp(path);
    struct fake_http *fh = fh_start(NULL, 0);
    struct kube_client *c;
    struct kube_response r;
    struct err e = { "" };

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "abc\r\nX-Injected: 1\n", 20), 20);
    close(fd);
    c = client_for(fh, NULL, path);
    assert_int_equal(
        kube_client_request(c, "GET", "/api", NULL, NULL, 0, &r, &e), -1);
    snprintf(want, sizeof(want),
             "GET /api: token file %s: control character 0x0d at byte 3 is "
             "not allowed in an HTTP header",
             path);
    assert_string_equal(e.msg, want);
    assert_int_equal(fh_count(fh), 0);
    kube_client_free(c);
    unlink(path);
    fh_stop(fh);
}

/* Every other header value we send: the user agent, a token set directly. */
static void
header_values_with_control_characters_should_be_refused(void **state)
{
    static const struct {
        const char *ua, *token, *want;
    } cases[] = {
        { "kpe\r\nX-Injected: 1", NULL,
          "user agent: control character 0x0d at byte 3 is not allowed in an "
          "HTTP header" },
        { "kpe\x7f", NULL,
          "user agent: control character 0x7f at byte 3 is not allowed in an "
          "HTTP header" },
        { NULL, "tok\nX: 1",
          "token: control character 0x0a at byte 3 is not allowed in an HTTP "
          "header" },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kube_conn conn = { 0 };
        struct kube_client_opts o = { 0 };
        struct err e = { "" };

        conn.server = strdup("http://127.0.0.1:1");
        conn.token = cases[i].token ? strdup(cases[i].token) : NULL;
        o.user_agent = cases[i].ua;
        assert_null(kube_client_new(&conn, &o, &e));
        assert_string_equal(e.msg, cases[i].want);
    }
}

/* Issue 29: a synchronous answer was taken up to 64 MiB; it is capped at
 * KUBE_LIST_PAGE_MAX like a list page, declared (Content-Length) or not
 * (chunked). */
static void answer_over_the_cap_should_be_refused(void **state)
{
    size_t len = KUBE_LIST_PAGE_MAX + 1, i;
    char *big = malloc(len + 1);

    (void)state;
    assert_non_null(big);
    memset(big, 'x', len);
    big[len] = '\0';
    for (i = 0; i < 2; i++) {
        struct fh_response r = { "GET /api", 200, big, 0, 0, i == 1, 0, false };
        struct fake_http *fh = fh_start(&r, 1);
        struct kube_client *c = client_for(fh, NULL, NULL);
        struct kube_response out;
        struct err e = { "" };

        assert_int_equal(
            kube_client_request(c, "GET", "/api", NULL, NULL, 0, &out, &e), -1);
        assert_non_null(strstr(e.msg, "/api: answer larger than 33554432 "
                                      "bytes: refused"));
        kube_client_free(c);
        fh_stop(fh);
    }
    free(big);
}

/* A write's answer is read for its status message only: a big one is
 * dropped past 64 KiB, never taken whole (32 writes run at once) nor
 * refused (the write took effect). */
static void big_write_answer_should_be_dropped_not_refused(void **state)
{
    size_t len = KUBE_LIST_PAGE_MAX + 1; /* refused by kube_client_request */
    char *big = malloc(len + 1);
    struct fh_response r = {
        "POST /api/v1/namespaces/ns1/events", 201, big, 0, 0, true, 0, false
    };
    struct kube_event_ref ref = { "Pod", "ns1", "p1", NULL, NULL };
    struct fake_http *fh;
    struct kube_client *c;
    struct err e = { "" };

    (void)state;
    assert_non_null(big);
    memset(big, ' ', len);
    big[0] = '{';
    big[len - 1] = '}';
    big[len] = '\0';
    fh = fh_start(&r, 1);
    c = client_for(fh, NULL, NULL);
    assert_int_equal(kube_client_create_event(c, &ref, "Normal", "Scheduled",
                                              "m", "kpe", &e),
                     0);
    kube_client_free(c);
    fh_stop(fh);
    free(big);
}

struct rl_step {
    double at;   /* seconds */
    double wait; /* expected */
};

struct rl_case {
    const char *name;
    double qps;
    int burst;
    struct rl_step steps[8];
    size_t n;
};

/* TestSimultaneousRequests-style walk through golang.org/x/time/rate. */
static const struct rl_case rl_cases[] = {
    { "burst then qps",
      10,
      2,
      { { 0, 0 }, { 0, 0 }, { 0, 0.1 }, { 0, 0.2 }, { 1, 0 }, { 1, 0 } },
      6 },
    { "refill is capped at burst",
      1,
      1,
      { { 0, 0 }, { 100, 0 }, { 100, 1 } },
      3 },
    { "disabled", -1, 1, { { 0, 0 }, { 0, 0 }, { 0, 0 } }, 3 },
};

static void ratelimit_should_allow_burst_then_space_at_qps(void **state)
{
    size_t i, j;
    int failed = 0;

    (void)state;
    for (i = 0; i < sizeof(rl_cases) / sizeof(rl_cases[0]); i++) {
        const struct rl_case *tc = &rl_cases[i];
        struct kube_ratelimit rl;

        kube_ratelimit_init(&rl, tc->qps, tc->burst);
        for (j = 0; j < tc->n; j++) {
            double w = kube_ratelimit_reserve(&rl, tc->steps[j].at);

            if (w < tc->steps[j].wait - 1e-9 || w > tc->steps[j].wait + 1e-9) {
                print_error("case \"%s\" step %zu: wait %g, want %g\n",
                            tc->name, j, w, tc->steps[j].wait);
                failed++;
            }
        }
        kube_ratelimit_destroy(&rl);
    }
    assert_int_equal(failed, 0);
}

static void client_should_report_an_unreachable_server(void **state)
{
    struct kube_conn conn = { 0 };
    struct kube_client_opts o = { 0 };
    struct kube_response r;
    struct err e = { "" };
    struct kube_client *c;

    (void)state;
    /* Port 1 on loopback: nothing listens there. */
    conn.server = strdup("http://127.0.0.1:1");
    o.connect_timeout_ms = 2000;
    c = kube_client_new(&conn, &o, &e);
    assert_non_null(c);
    assert_int_equal(
        kube_client_request(c, "GET", "/api", NULL, NULL, 0, &r, &e), -1);
    assert_non_null(strstr(e.msg, "GET http://127.0.0.1:1/api: "));
    kube_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bind_should_post_a_binding_and_classify_the_answer),
        cmocka_unit_test(bind_should_refuse_names_that_break_the_path),
        cmocka_unit_test(event_and_status_patch_should_reach_their_paths),
        cmocka_unit_test(delete_pod_should_send_the_uid_precondition),
        cmocka_unit_test(token_file_should_be_reread_when_it_changes),
        cmocka_unit_test(token_file_with_control_characters_should_be_refused),
        cmocka_unit_test(
            header_values_with_control_characters_should_be_refused),
        cmocka_unit_test(answer_over_the_cap_should_be_refused),
        cmocka_unit_test(big_write_answer_should_be_dropped_not_refused),
        cmocka_unit_test(ratelimit_should_allow_burst_then_space_at_qps),
        cmocka_unit_test(client_should_report_an_unreachable_server),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
