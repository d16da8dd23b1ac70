/*
 * test_server_metrics.c: the Prometheus registry: exact exposition text,
 * series identity, type clashes and lock-free updates from many threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server/common/metrics.h"

static double forty_two(void *arg)
{
    (void)arg;
    return 42;
}

static void render_should_write_the_text_format(void **state)
{
    static const double bounds[] = { 0.005, 0.5 };
    static const char want[] =
        "# HELP t_requests_total Requests.\n"
        "# TYPE t_requests_total counter\n"
        "t_requests_total{code=\"200\"} 3\n"
        "t_requests_total{code=\"404\"} 1\n"
        "# HELP t_temp Temperature\\nin C.\n"
        "# TYPE t_temp gauge\n"
        "t_temp -1.5\n"
        "t_answer{kind=\"fn\"} 42\n"
        "# HELP t_latency_seconds Latency.\n"
        "# TYPE t_latency_seconds histogram\n"
        "t_latency_seconds_bucket{route=\"/x\",le=\"0.005\"} 1\n"
        "t_latency_seconds_bucket{route=\"/x\",le=\"0.5\"} 2\n"
        "t_latency_seconds_bucket{route=\"/x\",le=\"+Inf\"} 3\n"
        "t_latency_seconds_sum{route=\"/x\"} 2.255\n"
        "t_latency_seconds_count{route=\"/x\"} 3\n";
    struct metrics *m = metrics_new();
    struct metrics_counter *ok, *nf;
    struct metrics_histogram *h;
    size_t len;
    char *text;

    (void)state;
    ok = metrics_counter(m, "t_requests_total", "Requests.", "code=\"200\"");
    nf = metrics_counter(m, "t_requests_total", "ignored", "code=\"404\"");
    metrics_gauge_set(metrics_gauge(m, "t_temp", "Temperature\nin C.", ""),
                      -1.5);
    assert_non_null(
        metrics_gauge_fn(m, "t_temp", NULL, "", NULL, NULL)); /* same one */
    assert_non_null(metrics_gauge_fn(m, "t_answer", "unused", "kind=\"fn\"",
                                     forty_two, NULL));
    h = metrics_histogram(m, "t_latency_seconds", "Latency.", "route=\"/x\"",
                          bounds, 2);
    metrics_counter_add(ok, 2);
    metrics_counter_add(ok, 1);
    metrics_counter_add(nf, 1);
    metrics_histogram_observe(h, 0.005); /* on a bound: that bucket */
    metrics_histogram_observe(h, 0.25);
    metrics_histogram_observe(h, 2);
    text = metrics_render(m, &len);
    assert_non_null(text);
    assert_int_equal(len, strlen(text));
    /* t_answer is its own family, so its HELP/TYPE come first. */
    assert_non_null(strstr(text, "# TYPE t_answer gauge\n"));
    {
        char *cut = strstr(text, "# HELP t_answer");
        char *end = strstr(cut, "t_answer{");

        memmove(cut, end, strlen(end) + 1);
    }
    assert_string_equal(text, want);
    free(text);
    metrics_free(m);
}

static void registration_should_return_the_same_series(void **state)
{
    struct metrics *m = metrics_new();
    struct metrics_counter *a, *b;

    (void)state;
    a = metrics_counter(m, "t_total", "T.", "x=\"1\"");
    b = metrics_counter(m, "t_total", "T.", "x=\"1\"");
    assert_ptr_equal(a, b);
    assert_ptr_not_equal(a, metrics_counter(m, "t_total", "T.", "x=\"2\""));
    assert_null(metrics_gauge(m, "t_total", "clash", ""));
    assert_null(metrics_histogram(m, "t_total", "clash", "", NULL, 0));
    metrics_counter_add(NULL, 1); /* ignored, no crash */
    metrics_free(m);
}

static void escape_should_quote_label_values(void **state)
{
    char buf[64];

    (void)state;
    metrics_escape_label(buf, sizeof(buf), "a\"b\\c\nd");
    assert_string_equal(buf, "a\\\"b\\\\c\\nd");
    metrics_escape_label(buf, 6, "abcdefgh");
    assert_string_equal(buf, "abc"); /* room kept for an escape + NUL */
}

struct hammer {
    struct metrics *m;
    struct metrics_counter *c;
    struct metrics_histogram *h;
};

static void *hammer_main(void *arg)
{
    struct hammer *hm = arg;
    int i;

    for (i = 0; i < 20000; i++) {
        metrics_counter_add(hm->c, 1);
        metrics_histogram_observe(hm->h, 0.5);
        if (i % 5000 == 0) /* registration and rendering race updates */
            free(metrics_render(hm->m, NULL));
    }
    return NULL;
}

static void updates_from_threads_should_all_count(void **state)
{
    static const double bounds[] = { 1 };
    struct hammer hm;
    pthread_t t[4];
    char *text;
    int i;

    (void)state;
    hm.m = metrics_new();
    hm.c = metrics_counter(hm.m, "t_hits_total", "Hits.", "");
    hm.h = metrics_histogram(hm.m, "t_obs", "Obs.", "", bounds, 1);
    for (i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, hammer_main, &hm);
    for (i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(metrics_counter_value(hm.c), 80000);
    text = metrics_render(hm.m, NULL);
    assert_non_null(strstr(text, "t_obs_bucket{le=\"1\"} 80000\n"));
    if (!strstr(text, "t_obs_sum 40000\n"))
        fail_msg("sum lost updates:\n%s", text);
    assert_non_null(strstr(text, "t_obs_count 80000\n"));
    free(text);
    metrics_free(hm.m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(render_should_write_the_text_format),
        cmocka_unit_test(registration_should_return_the_same_series),
        cmocka_unit_test(escape_should_quote_label_values),
        cmocka_unit_test(updates_from_threads_should_all_count),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
