/*
 * test_prio_node_label.c: the labelPreference custom priority (NodeLabel
 * scoring).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "priorities/priorities.h"
#include "tests/support/score_fixtures.h"

#define PLUGIN "NodeLabel"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

struct label_case {
    const char *name;
    const char *present[3]; /* NULL-terminated */
    const char *absent[3];
    int64_t want;
};

/* TestNodeLabelScore (plugins/nodelabel/node_label_test.go) */
static const struct label_case upstream[] = {
    { "one present label match", { "foo" }, { NULL }, 100 },
    { "one present label mismatch", { "somelabel" }, { NULL }, 0 },
    { "two present labels match", { "foo", "bar" }, { NULL }, 100 },
    { "two present labels mismatch",
      { "somelabel1", "somelabel2" },
      { NULL },
      0 },
    { "two present labels only one matches",
      { "foo", "somelabel" },
      { NULL },
      100 / 2 },
    { "one absent label match", { NULL }, { "foo" }, 0 },
    { "one absent label mismatch", { NULL }, { "somelabel" }, 100 },
    { "two absent labels match", { NULL }, { "foo", "bar" }, 0 },
    { "two absent labels mismatch",
      { NULL },
      { "somelabel1", "somelabel2" },
      100 },
    { "two absent labels only one matches",
      { NULL },
      { "foo", "somelabel" },
      100 / 2 },
    { "two present labels match, two absent labels mismatch",
      { "foo", "bar" },
      { "somelabel1", "somelabel2" },
      100 },
    { "two present labels both mismatch, two absent labels both match",
      { "somelabel1", "somelabel2" },
      { "foo", "bar" },
      0 },
    { "two present labels one matches, two absent labels mismatch",
      { "foo", "somelabel" },
      { "somelabel1", "somelabel2" },
      3 * 100 / 4 },
    /* Ours: the integer division by the number of preferences. */
    { "one of three satisfied: 100 / 3 = 33", { "foo", "x" }, { "bar" }, 33 },
    { "no preferences at all: 0", { NULL }, { NULL }, 0 },
};

static size_t count(const char *const *v)
{
    size_t n = 0;

    while (n < 3 && v[n])
        n++;
    return n;
}

static void node_label_should_match_upstream_table(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < N(upstream); i++) {
        struct prio_args args = { .value = NULL };
        struct kpe_label_lists l;
        struct sfx_case c = {
            upstream[i].name,
            "{'metadata':{'name':'p'}}",
            { "{'metadata':{'name':'machine1','labels':{'foo':'','bar':''}}}" },
            { NULL },
            { upstream[i].want },
        };

        l.present.v = (const char **)upstream[i].present;
        l.present.n = count(upstream[i].present);
        l.absent.v = (const char **)upstream[i].absent;
        l.absent.n = count(upstream[i].absent);
        args.value = &l; /* what the entries fold into */
        sfx_run(PLUGIN, &args, &c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_label_should_match_upstream_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
