/*
 * test_log.c: klog-style text lines, JSON lines, verbosity gating and
 * whole lines under concurrent writers, captured through a memory FILE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/common/log.h"

struct capture {
    char *text;
    size_t len;
    FILE *f;
};

static void capture_begin(struct capture *c, enum log_format fmt, int v)
{
    c->text = NULL;
    c->len = 0;
    c->f = open_memstream(&c->text, &c->len);
    assert_non_null(c->f);
    log_configure(c->f, fmt, v);
}

static void capture_end(struct capture *c)
{
    log_configure(NULL, LOG_FORMAT_TEXT, 0);
    fclose(c->f);
}

static void assert_matches(const char *name, const char *text,
                           const char *pattern)
{
    regex_t re;

    assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
    if (regexec(&re, text, 0, NULL, 0) != 0)
        fail_msg("%s: \"%s\" does not match /%s/", name, text, pattern);
    regfree(&re);
}

#define KLOG_HEAD "^%c[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} +[0-9]+ "

struct text_case {
    const char *name;
    char letter;
    const char *tail; /* regex after the header */
};

static void text_lines_should_use_the_klog_header(void **state)
{
    static const struct text_case cases[] = {
        { "info", 'I', "test_log\\.c:[0-9]+\\] hello 42\n$" },
        { "warning", 'W', "test_log\\.c:[0-9]+\\] careful\n$" },
        { "error", 'E', "test_log\\.c:[0-9]+\\] broken: x\n$" },
        { "structured", 'I',
          "test_log\\.c:[0-9]+\\] \"HTTP\" method=\"GET\" status=200 "
          "duration_ms=1\\.5\n$" },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct capture c;
        char pattern[256];

        capture_begin(&c, LOG_FORMAT_TEXT, 0);
        switch (i) {
        case 0:
            LOG_INFO("hello %d", 42);
            break;
        case 1:
            LOG_WARN("careful");
            break;
        case 2:
            LOG_ERROR("broken: %s", "x");
            break;
        default:
            LOG_VS(0, "HTTP", LOG_S("method", "GET"), LOG_I("status", 200),
                   LOG_F("duration_ms", 1.5));
        }
        capture_end(&c);
        snprintf(pattern, sizeof(pattern), KLOG_HEAD "%s", cases[i].letter,
                 cases[i].tail);
        assert_matches(cases[i].name, c.text, pattern);
        free(c.text);
    }
}

static void verbosity_should_gate_v_lines(void **state)
{
    struct capture c;

    (void)state;
    capture_begin(&c, LOG_FORMAT_TEXT, 2);
    LOG_V(3, "too detailed");
    LOG_VS(3, "too detailed", LOG_I("n", 1));
    LOG_V(2, "shown");
    LOG_VS(1, "also shown", LOG_I("n", 1));
    capture_end(&c);
    assert_null(strstr(c.text, "too detailed"));
    assert_non_null(strstr(c.text, "] shown\n"));
    assert_non_null(strstr(c.text, "] \"also shown\" n=1\n"));
    assert_int_equal(log_enabled(0), 1);
    free(c.text);
}

static void json_lines_should_parse_with_typed_fields(void **state)
{
    struct capture c;
    cJSON *j;
    char *nl;

    (void)state;
    capture_begin(&c, LOG_FORMAT_JSON, 2);
    LOG_VS(2, "req \"quoted\"\n", LOG_S("path", "/a\"b"), LOG_I("status", 413),
           LOG_F("ms", 0.25));
    LOG_ERROR("plain %s", "text\twith tab");
    capture_end(&c);
    nl = strchr(c.text, '\n');
    assert_non_null(nl);
    *nl = '\0';
    j = cJSON_Parse(c.text);
    if (!j)
        fail_msg("not JSON: %s", c.text);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "ts")));
    assert_true(cJSON_GetObjectItemCaseSensitive(j, "ts")->valuedouble > 1.6e9);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(j, "level")->valuestring, "info");
    assert_matches("caller",
                   cJSON_GetObjectItemCaseSensitive(j, "caller")->valuestring,
                   "^test_log\\.c:[0-9]+$");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "msg")->valuestring,
                        "req \"quoted\"\n");
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(j, "path")->valuestring, "/a\"b");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "status")->valueint,
                     413);
    assert_true(cJSON_GetObjectItemCaseSensitive(j, "ms")->valuedouble == 0.25);
    cJSON_Delete(j);
    j = cJSON_Parse(nl + 1);
    assert_non_null(j);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(j, "level")->valuestring, "error");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "msg")->valuestring,
                        "plain text\twith tab");
    cJSON_Delete(j);
    free(c.text);
}

static void *writer(void *arg)
{
    int id = *(int *)arg, i;
    char big[3000];

    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    for (i = 0; i < 200; i++)
        LOG_INFO("writer %d line %d %s", id, i, i % 50 ? "" : big);
    return NULL;
}

static void concurrent_writers_should_never_interleave(void **state)
{
    struct capture c;
    pthread_t t[4];
    int ids[4] = { 0, 1, 2, 3 }, i, lines = 0;
    char *line, *save = NULL;

    (void)state;
    capture_begin(&c, LOG_FORMAT_TEXT, 0);
    for (i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, writer, &ids[i]);
    for (i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    capture_end(&c);
    for (line = strtok_r(c.text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        assert_matches("concurrent", line,
                       "^I[0-9]{4} .* test_log\\.c:[0-9]+\\] writer "
                       "[0-3] line [0-9]+ (z{2999})?$");
        lines++;
    }
    assert_int_equal(lines, 800);
    free(c.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_lines_should_use_the_klog_header),
        cmocka_unit_test(verbosity_should_gate_v_lines),
        cmocka_unit_test(json_lines_should_parse_with_typed_fields),
        cmocka_unit_test(concurrent_writers_should_never_interleave),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
