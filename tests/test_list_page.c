/*
 * test_list_page.c: a List page read item by item (kube/client/
 * list_page.h): batches cut by count and by size, metadata before or after
 * the items, and every malformed page refused with a message that names
 * what is wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "kube/client/informer.h"
#include "kube/client/list_page.h"

struct got {
    char names[512]; /* "a,b|c" : batches split by '|' */
    size_t batches;
};

static int take(void *arg, const struct kube_watch_event *ev, size_t n,
                struct err *e)
{
    struct got *g = arg;
    size_t i, len;

    (void)e;
    for (i = 0; i < n; i++) {
        const cJSON *m =
            cJSON_GetObjectItemCaseSensitive(ev[i].object, "metadata");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "name");

        len = strlen(g->names);
        snprintf(g->names + len, sizeof(g->names) - len, "%s%s",
                 i ? "," : (g->batches ? "|" : ""),
                 cJSON_IsString(name) ? name->valuestring : "?");
    }
    g->batches++;
    return 0;
}

static int read_page(const char *text, size_t max_items, size_t max_bytes,
                     struct got *g, struct kube_list_meta *meta, struct err *e)
{
    struct kube_watch_event slot[8];
    struct arena a;
    struct kube_list_reader r = { &a, slot, max_items, max_bytes, take, g };
    int rc;

    memset(g, 0, sizeof(*g));
    arena_init(&a, 1024);
    rc = kube_list_page_read(&r, text, strlen(text), meta, e);
    arena_destroy(&a);
    return rc;
}

#define N(x) "{\"metadata\":{\"name\":\"" x "\"}}"

static void page_should_deliver_items_in_batches(void **state)
{
    const char *page = "{\"kind\":\"NodeList\",\"items\":[" N("a") "," N(
        "b") "," N("c") "," N("d") "," N("e") "],\"metadata\":{"
                                              "\"resourceVersion\":\"7\","
                                              "\"continue\":\"tok\"}}";
    struct kube_list_meta meta;
    struct err e = { "" };
    struct got g;

    (void)state;
    assert_int_equal(read_page(page, 2, 1 << 20, &g, &meta, &e), 0);
    assert_string_equal(g.names, "a,b|c,d|e");
    assert_string_equal(meta.rv, "7");
    assert_string_equal(meta.cont, "tok");
    assert_int_equal(meta.n_items, 5);
    /* By size: each item's tree passes 1 byte, so one item a batch. */
    assert_int_equal(read_page(page, 8, 1, &g, &meta, &e), 0);
    assert_string_equal(g.names, "a|b|c|d|e");
    assert_int_equal(read_page("{\"items\":null}", 8, 1 << 20, &g, &meta, &e),
                     0);
    assert_int_equal(g.batches, 0);
    assert_string_equal(meta.rv, "");
}

struct bad_page {
    const char *text;
    const char *want;
};

static const struct bad_page bad_pages[] = {
    { "[]", "list: not a JSON object" },
    { "", "unexpected end of input at byte 0" },
    { "{\"items\":{}}", "list: \"items\" is not an array" },
    { "{\"items\":[1]}", "list: items[0] is not an object" },
    { "{\"items\":[],\"items\":[" N("x") "]}",
      "list: \"items\" appears twice" },
    { "{\"metadata\":{},\"metadata\":{}}", "list: \"metadata\" appears twice" },
    { "{\"items\":[" N("a") ",]}",
      "invalid JSON at byte 36 (line 1, column 37): trailing comma in array" },
    { "{\"items\":[]} x",
      "invalid JSON at byte 13 (line 1, column 14): trailing data" },
};

static void page_should_refuse_malformed_pages(void **state)
{
    struct kube_list_meta meta;
    struct got g;
    size_t i;
    int failed = 0;

    (void)state;
    for (i = 0; i < sizeof(bad_pages) / sizeof(bad_pages[0]); i++) {
        struct err e = { "" };

        if (read_page(bad_pages[i].text, 8, 1 << 20, &g, &meta, &e) != -1 ||
            strncmp(e.msg, bad_pages[i].want, strlen(bad_pages[i].want))) {
            print_error("page %s: got \"%s\", want \"%s\"\n", bad_pages[i].text,
                        e.msg, bad_pages[i].want);
            failed++;
        }
    }
    assert_int_equal(failed, 0);
}

static void page_should_refuse_a_continue_token_too_long(void **state)
{
    static char page[4096];
    struct kube_list_meta meta;
    struct err e = { "" };
    struct got g;

    (void)state;
    snprintf(page, sizeof(page), "{\"metadata\":{\"continue\":\"%0*d\"}}", 3100,
             0);
    assert_int_equal(read_page(page, 8, 1 << 20, &g, &meta, &e), -1);
    assert_string_equal(e.msg,
                        "list: metadata.continue is longer than 3071 bytes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(page_should_deliver_items_in_batches),
        cmocka_unit_test(page_should_refuse_malformed_pages),
        cmocka_unit_test(page_should_refuse_a_continue_token_too_long),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
