/*
 * test_informer.c: list+watch against the fake HTTP responder: paginated
 * lists, the watch stream split at every byte, bookmarks, relists on 410,
 * resuming after a dropped connection with backoff, and 401 reported in
 * the status and the log.
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
#include <time.h>

#include "kube/client/informer.h"
#include "tests/support/fake_http.h"

/* ---- a sink that records what it is told ---- */

#define REC_MAX 64

struct recorder {
    pthread_mutex_t lock;
    int begins, ends;
    size_t n;
    char log[REC_MAX][64]; /* "ADDED n1 11", "BEGIN", "END" */
    char msgs[4096];       /* log lines */
    const char *fail_on;   /* apply fails on an object of this name */
};

static void rec_add(struct recorder *r, const char *line)
{
    pthread_mutex_lock(&r->lock);
    if (r->n < REC_MAX)
        snprintf(r->log[r->n++], sizeof(r->log[0]), "%s", line);
    pthread_mutex_unlock(&r->lock);
}

static void rec_begin(void *arg, enum kube_kind kind)
{
    struct recorder *r = arg;

    (void)kind;
    r->begins++;
    rec_add(r, "BEGIN");
}

static void rec_end(void *arg, enum kube_kind kind)
{
    struct recorder *r = arg;

    (void)kind;
    r->ends++;
    rec_add(r, "END");
}

static const char *const type_names[] = { "ADDED", "MODIFIED", "DELETED",
                                          "BOOKMARK", "ERROR" };

static int rec_apply(void *arg, enum kube_kind kind,
                     const struct kube_watch_event *ev, size_t n, struct err *e)
{
    struct recorder *r = arg;
    size_t i;

    (void)kind;
    for (i = 0; i < n; i++) {
        const cJSON *m =
            cJSON_GetObjectItemCaseSensitive(ev[i].object, "metadata");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "name");
        const char *rv = kube_object_rv(ev[i].object);
        char line[64];

        if (r->fail_on && cJSON_IsString(name) &&
            !strcmp(name->valuestring, r->fail_on)) {
            err_set(e, "cannot decode %s", r->fail_on);
            continue;
        }
        snprintf(line, sizeof(line), "%s %s %s", type_names[ev[i].type],
                 cJSON_IsString(name) ? name->valuestring : "?", rv ? rv : "-");
        rec_add(r, line);
    }
    return e->msg[0] ? -1 : 0;
}

static void rec_log(void *arg, int level, const char *msg)
{
    struct recorder *r = arg;
    size_t len;

    (void)level;
    pthread_mutex_lock(&r->lock);
    len = strlen(r->msgs);
    snprintf(r->msgs + len, sizeof(r->msgs) - len, "%s\n", msg);
    pthread_mutex_unlock(&r->lock);
}

/* The recorded lines joined by " | ". */
static void rec_join(struct recorder *r, char *out, size_t sz)
{
    size_t i, len = 0;

    out[0] = '\0';
    pthread_mutex_lock(&r->lock);
    for (i = 0; i < r->n && len < sz; i++)
        len += (size_t)snprintf(out + len, sz - len, "%s%s", i ? " | " : "",
                                r->log[i]);
    pthread_mutex_unlock(&r->lock);
}

static size_t rec_count(struct recorder *r)
{
    size_t n;

    pthread_mutex_lock(&r->lock);
    n = r->n;
    pthread_mutex_unlock(&r->lock);
    return n;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* Wait up to 5 s for at least n recorded lines. */
static void rec_wait(struct recorder *r, size_t n)
{
    int i;

    for (i = 0; i < 500 && rec_count(r) < n; i++)
        sleep_ms(10);
}

struct run {
    struct recorder rec;
    struct fake_http *fh;
    struct kube_client *client;
    struct kube_informers *infs;
};

/* fail_on and the bounds for the next run_start (zero: the defaults). */
static const char *next_fail_on;
static struct kube_informer_opts next_bounds;

/* Serve script and start a node informer with quick backoff. */
static void run_start(struct run *t, const struct fh_response *script, size_t n,
                      double backoff)
{
    struct kube_conn conn = { 0 };
    struct kube_informer_opts o = { 0 };
    struct kube_informer_sink sink = { rec_begin, rec_apply, rec_end, NULL };
    struct err e = { "" };

    memset(t, 0, sizeof(*t));
    t->rec.fail_on = next_fail_on;
    next_fail_on = NULL;
    pthread_mutex_init(&t->rec.lock, NULL);
    t->fh = fh_start(script, n);
    conn.server = strdup(fh_url(t->fh));
    t->client = kube_client_new(&conn, NULL, &e);
    assert_non_null(t->client);
    sink.arg = &t->rec;
    o.kinds = KUBE_KIND_BIT(KUBE_KIND_NODE);
    o.page_size = 2;
    o.backoff_base = backoff;
    o.backoff_cap = backoff * 4;
    o.jitter = -1;
    o.watch_timeout_s = 30;
    o.log = rec_log;
    o.log_arg = &t->rec;
    o.list_page_max = next_bounds.list_page_max;
    o.watch_event_max = next_bounds.watch_event_max;
    o.memory = next_bounds.memory;
    memset(&next_bounds, 0, sizeof(next_bounds));
    if (kube_informers_start(t->client, &sink, &o, &t->infs, &e) < 0)
        fail_msg("start: %s", e.msg);
}

static void run_stop(struct run *t)
{
    if (getenv("DEBUG_INF"))
        fprintf(stderr, "%s", t->rec.msgs);
    kube_informers_stop(t->infs);
    kube_client_free(t->client);
    fh_stop(t->fh);
    pthread_mutex_destroy(&t->rec.lock);
}

static void expect_log(struct run *t, const char *want)
{
    char got[4096];

    rec_join(&t->rec, got, sizeof(got));
    if (strcmp(got, want))
        fail_msg("recorded \"%s\"\n  want \"%s\"", got, want);
}

static void expect_target(struct run *t, size_t i, const char *want)
{
    struct fh_request r;

    if (!fh_request(t->fh, i, &r))
        fail_msg("request %zu never arrived", i);
    if (!strstr(r.target, want))
        fail_msg("request %zu: \"%s\" lacks \"%s\"", i, r.target, want);
}

#define NODE(name, rv)                                                         \
    "{\"metadata\":{\"name\":\"" name "\",\"resourceVersion\":\"" rv "\"}}"
#define EV(type, obj) "{\"type\":\"" type "\",\"object\":" obj "}\n"
#define LIST(rv, cont, items)                                                  \
    "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"" rv           \
    "\",\"continue\":\"" cont "\"},\"items\":[" items "]}"

/* An answer row: whole body, not chunked, closed at once. */
#define ROW(match, status, body)                                               \
    {                                                                          \
        match, status, body, 0, 0, false, 0, false                             \
    }
/* A watch row: chunked events, then held open (-1) or closed. */
#define WATCH(match, body, hold, drop)                                         \
    {                                                                          \
        match, 200, body, 0, 0, true, hold, drop                               \
    }

static void informer_should_page_through_the_list_then_watch(void **state)
{
    const struct fh_response script[] = {
        ROW("GET /api/v1/nodes?limit=2", 200,
            LIST("10", "c/1==", NODE("n1", "3") "," NODE("n2", "4"))),
        ROW("continue=c%2F1%3D%3D", 200, LIST("10", "", NODE("n3", "5"))),
        WATCH("watch=true", EV("ADDED", NODE("n4", "11")), -1, false),
    };
    struct run t;
    struct kube_informers_status st;

    (void)state;
    run_start(&t, script, 3, 0.05);
    rec_wait(&t.rec, 6);
    expect_log(&t, "BEGIN | ADDED n1 3 | ADDED n2 4 | ADDED n3 5 | END | "
                   "ADDED n4 11");
    expect_target(&t, 0, "/api/v1/nodes?limit=2");
    expect_target(&t, 1, "limit=2&continue=c%2F1%3D%3D");
    expect_target(&t, 2, "allowWatchBookmarks=true&resourceVersion=10&");
    kube_informers_status(t.infs, &st);
    assert_true(st.synced);
    assert_false(st.auth_failed);
    assert_int_equal(st.lists, 1);
    run_stop(&t);
}

static void bookmark_should_advance_the_resource_version(void **state)
{
    const struct fh_response script[] = {
        ROW("limit=2", 200, LIST("10", "", "")),
        WATCH("resourceVersion=10&",
              EV("ADDED", NODE("n1", "11"))
                  EV("BOOKMARK", "{\"kind\":\"Node\",\"metadata\":{"
                                 "\"resourceVersion\":\"50\"}}"),
              0, false),
        WATCH("resourceVersion=50&", "", -1, false),
    };
    struct run t;

    (void)state;
    run_start(&t, script, 3, 0.05);
    assert_true(fh_wait(t.fh, 3, 5000) >= 3);
    expect_target(&t, 2, "resourceVersion=50&");
    rec_wait(&t.rec, 3);
    /* The bookmark is no object event. */
    expect_log(&t, "BEGIN | END | ADDED n1 11");
    run_stop(&t);
}

struct gone_case {
    const char *name;
    struct fh_response watch;
};

static const struct gone_case gone_cases[] = {
    { "ERROR event 410",
      WATCH("watch=true",
            EV("ADDED", NODE("n1", "11"))
                EV("ERROR", "{\"kind\":\"Status\",\"code\":410,\"reason\":"
                            "\"Expired\",\"message\":\"too old resource "
                            "version: 10 (20)\"}"),
            -1, false) },
    { "HTTP 410",
      ROW("watch=true", 410,
          "{\"kind\":\"Status\",\"code\":410,\"message\":\"gone\"}") },
};

static void gone_should_relist(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(gone_cases) / sizeof(gone_cases[0]); i++) {
        const struct fh_response script[] = {
            ROW("limit=2", 200, LIST("10", "", NODE("n0", "9"))),
            gone_cases[i].watch,
            ROW("limit=2", 200, LIST("30", "", NODE("n1", "25"))),
            WATCH("resourceVersion=30&", "", -1, false),
        };
        struct run t;

        run_start(&t, script, 4, 0.05);
        if (fh_wait(t.fh, 4, 5000) < 4)
            fail_msg("case \"%s\": only %zu requests", gone_cases[i].name,
                     fh_count(t.fh));
        expect_target(&t, 2, "/api/v1/nodes?limit=2");
        expect_target(&t, 3, "resourceVersion=30&");
        assert_int_equal(t.rec.begins, 2);
        assert_int_equal(t.rec.ends, 2);
        run_stop(&t);
    }
}

static void dropped_watch_should_resume_from_last_rv_after_backoff(void **state)
{
    const struct fh_response script[] = {
        ROW("limit=2", 200, LIST("10", "", "")),
        WATCH("resourceVersion=10&",
              EV("ADDED", NODE("a", "11")) EV("MODIFIED", NODE("a", "12")), 50,
              true),
        WATCH("resourceVersion=12&", EV("DELETED", NODE("a", "13")), -1, false),
    };
    struct fh_request w1, w2;
    struct run t;

    (void)state;
    run_start(&t, script, 3, 0.3);
    assert_true(fh_wait(t.fh, 3, 5000) >= 3);
    rec_wait(&t.rec, 5);
    expect_log(&t, "BEGIN | END | ADDED a 11 | MODIFIED a 12 | DELETED a 13");
    assert_true(fh_request(t.fh, 1, &w1));
    assert_true(fh_request(t.fh, 2, &w2));
    assert_int_equal(w2.answered_by, 2);
    /* 50 ms of stream, then at least the 0.3 s backoff. */
    if (w2.at - w1.at < 0.3)
        fail_msg("resumed after %.3f s, before the backoff", w2.at - w1.at);
    run_stop(&t);
}

/* Found by tests/soak/soak.py: watches cut every few seconds (after
 * streaming events each time) doubled the backoff up to its cap, so the
 * cache lagged the API server by up to a minute after a burst of cuts. */
static void watch_cut_after_streaming_should_not_grow_the_backoff(void **state)
{
    const struct fh_response script[] = {
        ROW("limit=2", 200, LIST("10", "", "")),
        WATCH("resourceVersion=10&", EV("ADDED", NODE("a", "11")), 20, true),
        WATCH("resourceVersion=11&", EV("ADDED", NODE("b", "12")), 20, true),
        WATCH("resourceVersion=12&", EV("ADDED", NODE("c", "13")), 20, true),
        WATCH("resourceVersion=13&", EV("ADDED", NODE("d", "14")), 20, true),
        WATCH("resourceVersion=14&", EV("ADDED", NODE("e", "15")), -1, false),
    };
    struct fh_request prev, next;
    struct run t;
    size_t i;

    (void)state;
    run_start(&t, script, 6, 0.4);
    assert_true(fh_wait(t.fh, 6, 5000) >= 6);
    rec_wait(&t.rec, 7);
    expect_log(&t, "BEGIN | END | ADDED a 11 | ADDED b 12 | ADDED c 13 | "
                   "ADDED d 14 | ADDED e 15");
    /* Each retry waits the base 0.4 s (plus 20 ms of stream), never the
     * doubled 0.8 s. */
    for (i = 2; i < 6; i++) {
        assert_true(fh_request(t.fh, i - 1, &prev));
        assert_true(fh_request(t.fh, i, &next));
        if (next.at - prev.at < 0.4 || next.at - prev.at >= 0.75)
            fail_msg("watch %zu started %.3f s after watch %zu", i,
                     next.at - prev.at, i - 1);
    }
    run_stop(&t);
}

static void unauthorized_should_show_in_status_and_log(void **state)
{
    const struct fh_response script[] = {
        ROW("limit=2", 401,
            "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":"
            "\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}"),
        ROW("limit=2", 200, LIST("7", "", "")),
    };
    struct kube_informers_status st;
    struct run t;
    int i;

    (void)state;
    run_start(&t, script, 2, 1.0);
    assert_true(fh_wait(t.fh, 1, 5000) >= 1);
    for (i = 0; i < 100; i++) {
        kube_informers_status(t.infs, &st);
        if (st.auth_failed)
            break;
        sleep_ms(10);
    }
    assert_true(st.auth_failed);
    assert_false(st.synced);
    assert_int_equal(st.last_http_status, 401);
    assert_string_equal(st.last_error, "nodes: HTTP 401: Unauthorized");
    pthread_mutex_lock(&t.rec.lock);
    assert_non_null(strstr(t.rec.msgs, "nodes: list http://127.0.0.1:"));
    assert_non_null(strstr(t.rec.msgs, "HTTP 401: Unauthorized (unauthorized: "
                                       "check the token)"));
    pthread_mutex_unlock(&t.rec.lock);
    /* After the backoff the retry succeeds and the failure clears. */
    for (i = 0; i < 300; i++) {
        kube_informers_status(t.infs, &st);
        if (st.synced)
            break;
        sleep_ms(10);
    }
    assert_true(st.synced);
    assert_false(st.auth_failed);
    assert_string_equal(st.last_error, "");
    run_stop(&t);
}

static void watch_should_decode_events_split_into_small_pieces(void **state)
{
    const struct fh_response script[] = {
        ROW("limit=2", 200, LIST("10", "", "")),
        { "watch=true", 200,
          EV("ADDED", NODE("n1", "11")) EV("MODIFIED", NODE("n1", "12"))
              EV("DELETED", NODE("n1", "13")),
          7, 1, true, -1, false },
    };
    struct run t;

    (void)state;
    run_start(&t, script, 2, 0.05);
    rec_wait(&t.rec, 5);
    expect_log(&t,
               "BEGIN | END | ADDED n1 11 | MODIFIED n1 12 | DELETED n1 13");
    run_stop(&t);
}

static void sink_failure_should_be_logged_and_the_stream_go_on(void **state)
{
    const struct fh_response script[] = {
        ROW("limit=2", 200,
            LIST("10", "", NODE("bad", "8") "," NODE("n1", "9"))),
        WATCH("resourceVersion=10&",
              EV("ADDED", NODE("bad", "11")) EV("ADDED", NODE("n2", "12")), -1,
              false),
    };
    struct run t;

    (void)state;
    next_fail_on = "bad";
    run_start(&t, script, 2, 0.05);
    rec_wait(&t.rec, 4);
    expect_log(&t, "BEGIN | ADDED n1 9 | END | ADDED n2 12");
    assert_int_equal(fh_count(t.fh), 2);
    pthread_mutex_lock(&t.rec.lock);
    assert_non_null(strstr(t.rec.msgs, "nodes: list: cannot decode bad"));
    assert_non_null(
        strstr(t.rec.msgs, "nodes: applying 2 events: cannot decode bad"));
    pthread_mutex_unlock(&t.rec.lock);
    run_stop(&t);
}

/* Wait up to 5 s for text in the log lines. */
static bool log_has(struct run *t, const char *text)
{
    bool found = false;
    int i;

    for (i = 0; i < 500 && !found; i++) {
        pthread_mutex_lock(&t->rec.lock);
        found = strstr(t->rec.msgs, text) != NULL;
        pthread_mutex_unlock(&t->rec.lock);
        if (!found)
            sleep_ms(10);
    }
    return found;
}

/* Seconds between requests i and j. */
static double gap(struct run *t, size_t i, size_t j)
{
    struct fh_request a, b;

    if (!fh_request(t->fh, i, &a) || !fh_request(t->fh, j, &b))
        fail_msg("requests %zu and %zu never arrived", i, j);
    return b.at - a.at;
}

/*
 * Issue 29: an event we cannot read or of an unknown type relisted at once,
 * a full LIST and a new WATCH every ~44 ms forever. Each relist now waits
 * the reflector's backoff, doubling (0.1, 0.2, 0.4 s here, no jitter).
 */
static void unreadable_events_should_relist_with_growing_backoff(void **state)
{
    const struct fh_response script[] = {
        ROW("limit=2", 200, LIST("10", "", "")),
        WATCH("watch=true", "not json\n", -1, false),
        ROW("limit=2", 200, LIST("10", "", "")),
        WATCH("watch=true", EV("FOO", "{}"), -1, false),
        ROW("limit=2", 200, LIST("10", "", "")),
        WATCH("watch=true", EV("ERROR", "{\"kind\":\"Status\",\"code\":410}"),
              -1, false),
        ROW("limit=2", 200, LIST("10", "", "")),
    };
    const double want[] = { 0.1, 0.2, 0.4 };
    struct kube_informers_status st;
    struct run t;
    size_t i;

    (void)state;
    run_start(&t, script, 7, 0.1);
    assert_true(fh_wait(t.fh, 8, 5000) >= 8);
    for (i = 0; i < 3; i++) {
        double g = gap(&t, 1 + 2 * i, 2 + 2 * i);

        expect_target(&t, 2 + 2 * i, "/api/v1/nodes?limit=2");
        if (g < want[i] || g > want[i] + 1.0)
            fail_msg("relist %zu came %.3f s after the bad watch, want %.1f s",
                     i + 1, g, want[i]);
    }
    kube_informers_status(t.infs, &st);
    assert_int_equal(st.relists, 3);
    assert_true(log_has(&t, "nodes: watch from 10: watch event: invalid JSON "
                            "at byte 0"));
    assert_true(log_has(&t, "nodes: watch from 10: watch event: unknown type "
                            "\"FOO\"; relisting"));
    run_stop(&t);
}

/* client-go's watchHandler: a watch closed within a second with nothing
 * received is a failure, so a server that closes every watch at once does
 * not get a new one every few milliseconds. */
static void very_short_watch_should_relist_after_backoff(void **state)
{
    const struct fh_response script[] = {
        ROW("limit=2", 200, LIST("10", "", "")),
        WATCH("watch=true", "", 0, false),
        ROW("limit=2", 200, LIST("11", "", "")),
        WATCH("watch=true", "", 0, false),
        ROW("limit=2", 200, LIST("12", "", "")),
    };
    struct run t;

    (void)state;
    run_start(&t, script, 5, 0.2);
    assert_true(fh_wait(t.fh, 6, 5000) >= 6);
    expect_target(&t, 2, "/api/v1/nodes?limit=2");
    expect_target(&t, 4, "/api/v1/nodes?limit=2");
    if (gap(&t, 1, 2) < 0.2 || gap(&t, 3, 4) < 0.4)
        fail_msg("relisted after %.3f s and %.3f s, want 0.2 and 0.4",
                 gap(&t, 1, 2), gap(&t, 3, 4));
    assert_true(log_has(&t, "nodes: watch from 10 closed within 1 s with no "
                            "event; relisting"));
    run_stop(&t);
}

#define BIG_ITEMS                                                              \
    NODE("a-node-with-a-long-name-0", "1")                                     \
    "," NODE("a-node-with-a-long-name-1",                                      \
             "2") "," NODE("a-node-with-a-long-name-2",                        \
                           "3") "," NODE("a-node-with-a-long-name-3", "4")

/*
 * Issue 29: a list page could take 1 GiB. Past the cap (200 bytes here)
 * the page is refused, with the resource and the size, whether its length
 * was declared (Content-Length: refused before the body is read) or not
 * (chunked: refused as it arrives); the relist after the backoff goes on.
 */
static void list_page_over_the_cap_should_be_refused(void **state)
{
    const struct fh_response declared[] = {
        ROW("limit=2", 200, LIST("10", "", BIG_ITEMS)),
        ROW("limit=2", 200, LIST("10", "", NODE("n1", "1"))),
    };
    const struct fh_response streamed[] = {
        WATCH("limit=2", LIST("10", "", BIG_ITEMS), 0, false),
        ROW("limit=2", 200, LIST("10", "", NODE("n1", "1"))),
    };
    const struct {
        const struct fh_response *script;
        const char *want;
    } cases[] = {
        { declared, "list page declared larger than 200 bytes (the cap for "
                    "a page of 2 objects): refused" },
        { streamed, "list page larger than 200 bytes (the cap for a page of 2 "
                    "objects) once decompressed: refused" },
    };
    size_t i;

    (void)state;
    for (i = 0; i < 2; i++) {
        struct run t;

        next_bounds.list_page_max = 200;
        run_start(&t, cases[i].script, 2, 0.05);
        rec_wait(&t.rec, 3);
        expect_log(&t, "BEGIN | ADDED n1 1 | END");
        if (!log_has(&t, cases[i].want) || !log_has(&t, "nodes: list http://"))
            fail_msg("case %zu: log lacks \"%s\":\n%s", i, cases[i].want,
                     t.rec.msgs);
        run_stop(&t);
    }
}

/* client-go's streaming decoder refuses an object over 16 MiB; a 100 MB
 * event was buffered whole. Past the cap (120 bytes here) the watch ends
 * and, the event being lost, the informer relists. */
static void watch_event_over_the_cap_should_relist(void **state)
{
    const struct fh_response script[] = {
        ROW("limit=2", 200, LIST("10", "", "")),
        WATCH("watch=true",
              EV("ADDED", NODE("small", "11"))
                  EV("ADDED", NODE("a-node-with-a-name-long-enough-to-pass-the-"
                                   "cap-of-one-hundred-and-twenty-bytes",
                                   "12")),
              -1, false),
        ROW("limit=2", 200, LIST("20", "", "")),
    };
    struct run t;

    (void)state;
    next_bounds.watch_event_max = 120;
    run_start(&t, script, 3, 0.05);
    rec_wait(&t.rec, 5);
    expect_log(&t, "BEGIN | END | ADDED small 11 | BEGIN | END");
    assert_true(log_has(&t, "nodes: watch from 11: watch event larger than "
                            "120 bytes: refused; relisting"));
    run_stop(&t);
}

/* All informers' data at once stays under one budget: a page that fits
 * the page cap but not the budget is refused too, and says so. */
static void list_page_over_the_budget_should_be_refused(void **state)
{
    static char big[300000];
    const struct fh_response script[] = {
        WATCH("limit=2", big, 0, false),
        ROW("limit=2", 200, LIST("10", "", "")),
    };
    struct run t;

    (void)state;
    snprintf(big, sizeof(big), "{\"kind\":\"NodeList\",\"x\":\"%0*d\"}",
             (int)sizeof(big) - 40, 0);
    next_bounds.list_page_max = 1 << 20;
    next_bounds.memory = 200000;
    run_start(&t, script, 2, 0.05);
    rec_wait(&t.rec, 2);
    expect_log(&t, "BEGIN | END");
    assert_true(log_has(&t, "bytes needs more than the 200000 bytes the "
                            "informers may hold at once"));
    run_stop(&t);
}

/* A watch event under its cap but over the budget: refused before its
 * buffer grows past the budget, then a relist. */
static void watch_event_over_the_budget_should_relist(void **state)
{
    static char big[300000];
    const struct fh_response script[] = {
        ROW("limit=2", 200, LIST("10", "", "")),
        { "watch=true", 200, big, 16384, 0, true, -1, false },
        ROW("limit=2", 200, LIST("20", "", "")),
    };
    struct run t;

    (void)state;
    snprintf(
        big, sizeof(big),
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"%0*d\"}}}"
        "\n",
        (int)sizeof(big) - 80, 0);
    next_bounds.watch_event_max = 1 << 20;
    next_bounds.memory = 200000;
    run_start(&t, script, 3, 0.05);
    rec_wait(&t.rec, 4);
    expect_log(&t, "BEGIN | END | BEGIN | END");
    assert_true(log_has(&t, "bytes needs more than the 200000 bytes the "
                            "informers may hold at once; relisting"));
    run_stop(&t);
}

/* ---- the stream decoder, without the network ---- */

struct lines_out {
    char text[2048];
};

static int collect(void *arg, const char *line, size_t len)
{
    struct lines_out *o = arg;
    size_t have = strlen(o->text);

    snprintf(o->text + have, sizeof(o->text) - have, "[%.*s]", (int)len, line);
    return 0;
}

static const char stream[] =
    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\r\n"
    "\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"b\\n\"}}}\n"
    "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"c\"}}}\n";

static void lines_should_survive_every_split_point(void **state)
{
    struct lines_out whole = { "" }, split;
    size_t len = strlen(stream), i, j;
    struct kube_lines ls = { 0 };

    (void)state;
    assert_int_equal(kube_lines_feed(&ls, stream, len, collect, &whole), 0);
    assert_int_equal(ls.len, 0);
    kube_lines_free(&ls);
    for (i = 0; i <= len; i++) {
        memset(&split, 0, sizeof(split));
        assert_int_equal(kube_lines_feed(&ls, stream, i, collect, &split), 0);
        assert_int_equal(
            kube_lines_feed(&ls, stream + i, len - i, collect, &split), 0);
        if (strcmp(split.text, whole.text))
            fail_msg("split at %zu: %s", i, split.text);
        kube_lines_free(&ls);
    }
    /* One byte at a time. */
    memset(&split, 0, sizeof(split));
    for (j = 0; j < len; j++)
        assert_int_equal(kube_lines_feed(&ls, stream + j, 1, collect, &split),
                         0);
    assert_string_equal(split.text, whole.text);
    kube_lines_free(&ls);
}

struct parse_ctx {
    struct arena a;
    char names[256];
    int failed;
};

static int parse_line(void *arg, const char *line, size_t len)
{
    struct parse_ctx *p = arg;
    enum kube_event_type type;
    const cJSON *obj;
    struct err e = { "" };
    const cJSON *m, *n;
    size_t have = strlen(p->names);

    if (kube_watch_event_parse(&p->a, line, len, &type, &obj, &e) < 0) {
        p->failed++;
        return 0;
    }
    m = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    n = cJSON_GetObjectItemCaseSensitive(m, "name");
    snprintf(p->names + have, sizeof(p->names) - have, "%s:%s;",
             type_names[type], n->valuestring);
    return 0;
}

static void watch_events_should_decode_across_every_split(void **state)
{
    size_t len = strlen(stream), i;

    (void)state;
    for (i = 0; i <= len; i++) {
        struct parse_ctx p;
        struct kube_lines ls = { 0 };

        memset(&p, 0, sizeof(p));
        arena_init(&p.a, 0);
        kube_lines_feed(&ls, stream, i, parse_line, &p);
        kube_lines_feed(&ls, stream + i, len - i, parse_line, &p);
        if (p.failed || strcmp(p.names, "ADDED:a;MODIFIED:b\n;DELETED:c;"))
            fail_msg("split at %zu: %d failed, got %s", i, p.failed, p.names);
        kube_lines_free(&ls);
        arena_destroy(&p.a);
    }
}

struct bad_event {
    const char *line;
    const char *want;
};

static const struct bad_event bad_events[] = {
    { "{\"type\":\"ADDED\"", "watch event: unexpected end of input" },
    { "{\"object\":{}}", "watch event: no \"type\"" },
    { "{\"type\":\"ADDED\"}", "watch event ADDED: no \"object\"" },
    { "{\"type\":\"SYNC\",\"object\":{}}",
      "watch event: unknown type \"SYNC\"" },
};

static void watch_event_parse_should_reject_malformed_lines(void **state)
{
    size_t i;
    int failed = 0;

    (void)state;
    for (i = 0; i < sizeof(bad_events) / sizeof(bad_events[0]); i++) {
        struct arena a;
        enum kube_event_type type;
        const cJSON *obj;
        struct err e = { "" };

        arena_init(&a, 0);
        if (kube_watch_event_parse(&a, bad_events[i].line,
                                   strlen(bad_events[i].line), &type, &obj,
                                   &e) != -1 ||
            strncmp(e.msg, bad_events[i].want, strlen(bad_events[i].want))) {
            print_error("case %s: got \"%s\"\n", bad_events[i].line, e.msg);
            failed++;
        }
        arena_destroy(&a);
    }
    assert_int_equal(failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_should_survive_every_split_point),
        cmocka_unit_test(watch_events_should_decode_across_every_split),
        cmocka_unit_test(watch_event_parse_should_reject_malformed_lines),
        cmocka_unit_test(informer_should_page_through_the_list_then_watch),
        cmocka_unit_test(bookmark_should_advance_the_resource_version),
        cmocka_unit_test(gone_should_relist),
        cmocka_unit_test(
            dropped_watch_should_resume_from_last_rv_after_backoff),
        cmocka_unit_test(watch_cut_after_streaming_should_not_grow_the_backoff),
        cmocka_unit_test(unauthorized_should_show_in_status_and_log),
        cmocka_unit_test(watch_should_decode_events_split_into_small_pieces),
        cmocka_unit_test(sink_failure_should_be_logged_and_the_stream_go_on),
        cmocka_unit_test(unreadable_events_should_relist_with_growing_backoff),
        cmocka_unit_test(very_short_watch_should_relist_after_backoff),
        cmocka_unit_test(list_page_over_the_cap_should_be_refused),
        cmocka_unit_test(watch_event_over_the_cap_should_relist),
        cmocka_unit_test(list_page_over_the_budget_should_be_refused),
        cmocka_unit_test(watch_event_over_the_budget_should_relist),
    };

    curl_global_init(CURL_GLOBAL_DEFAULT);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
