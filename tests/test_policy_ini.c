/*
 * test_policy_ini.c: the INI form: what it can say (absent vs empty lists,
 * every argument kind, extenders), errors with line numbers, and the
 * lossless JSON -> INI -> JSON round trip over every tests/policies file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

static struct policy *load_ini(const char *text, struct err *e)
{
    struct policy_load_opts o = { .compat = POLICY_COMPAT_LEGACY,
                                  .format = POLICY_FORMAT_INI,
                                  .warnings = NULL };
    struct policy *p = NULL;

    if (policy_load_buffer("t.ini", text, strlen(text), &o, &p, e))
        return NULL;
    return p;
}

struct icase {
    const char *name;
    const char *ini;
    const char *want; /* exact error */
};

static const struct icase error_cases[] = {
    { "unknown key",
      "[policy]\npredicates = none\n\n[priority \"A\"]\n"
      "weight = 1\nwieght = 2\n",
      "t.ini:6: [priority \"A\"]: unknown key \"wieght\" (known: name, "
      "weight, argument, serviceAntiAffinity.label, labelPreference.label, "
      "labelPreference.presence, requestedToCapacityRatioArguments.shape, "
      "requestedToCapacityRatioArguments.resources, highComm.*, "
      "labelScoreRule.*)" },
    { "unknown section", "; c\n[predicates \"A\"]\n",
      "t.ini:2: unknown section [predicates \"A\"] (expected [policy], "
      "[predicate \"Name\"], [priority \"Name\"] or [extender \"N\"])" },
    { "key before any section", "weight = 1\n",
      "t.ini:1: key \"weight\" outside a section ([policy], [predicate "
      "\"Name\"], [priority \"Name\"], [extender \"N\"])" },
    { "bad boolean", "[predicate \"A\"]\nlabelsPresence.presence = yes\n",
      "t.ini:2: labelsPresence.presence: expected true or false, got \"yes\"" },
    { "apiVersion the JSON form refuses (fuzz_policy)",
      "[policy]\napiVersion = listed\n",
      "t.ini:2: apiVersion: expected v1 or kubescheduler.config.k8s.io/v1, "
      "got \"listed\"" },
    { "bad integer", "[priority \"A\"]\nweight = 1x\n",
      "t.ini:2: weight: expected an integer, got \"1x\"" },
    { "scalar twice", "[priority \"A\"]\nweight = 1\nweight = 2\n",
      "t.ini:3: weight: given twice in this section" },
    { "section repeated", "[predicate \"A\"]\n[predicate.A]\n",
      "t.ini:2: section [predicate.A] repeated; give it another label and "
      "a `name =` key" },
    { "default with sections",
      "[policy]\npredicates = default\n"
      "[predicate \"HostName\"]\n",
      "t.ini:2: predicates = default, but the file has [predicate] "
      "sections" },
    { "line too long",
      "[policy]\napiVersion = "
      "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
      "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
      "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\n",
      "t.ini:2: line longer than 198 bytes (inih's INI_MAX_LINE); split "
      "lists over repeated keys" },
    { "unknown predicate keeps v1.22 text and the line",
      "[policy]\npriorities = none\n\n[predicate \"PodFitsHostNw\"]\n",
      "t.ini:4: name: predicate type not found for \"PodFitsHostNw\"; did "
      "you mean \"PodFitsHostNew\"?" },
    { "ValidatePolicy message with the line",
      "[priority \"LeastRequestedPriority\"]\nweight = 0\n",
      "t.ini:1: weight: priority LeastRequestedPriority should have a "
      "positive weight applied to it or it has overflown" },
    { "malformed quoting", "[extender \"0\"]\nurlPrefix = \"a\\q\"\n",
      "t.ini:2: malformed quoted value \"a\\q\" (escapes: \\\\ \\\" \\n \\t "
      "\\r \\xHH)" },
    { "section without its bracket", "[policy]\npredicates = none\n[priority\n",
      "t.ini:3:1: section header without its closing ']': \"[priority\"" },
    { "key without a value", "[policy]\n  predicates none\n",
      "t.ini:2:3: a key without '=' and a value (key = value): \"predicates "
      "none\"" },
    { "value without a key", "[policy]\n= none\n",
      "t.ini:2: a value without a key before the '='" },
    { "unterminated quote", "[extender \"0\"]\nurlPrefix = \"http://x\n",
      "t.ini:2: unterminated quoted value \"\\\"http://x\" (no closing "
      "'\"')" },
    { "bad shape point",
      "[priority \"R\"]\nweight = 1\n"
      "requestedToCapacityRatioArguments.shape = 10\n",
      "t.ini:3: requestedToCapacityRatioArguments.shape: expected "
      "utilization:score, got \"10\"" },
};

static void ini_errors_should_name_the_line(void **state)
{
    size_t i;
    int bad = 0;

    (void)state;
    for (i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
        struct err e;
        struct policy *p;

        err_clear(&e);
        p = load_ini(error_cases[i].ini, &e);
        if (p) {
            print_error("%s: loaded\n", error_cases[i].name);
            policy_free(p);
            bad++;
        } else if (strcmp(e.msg, error_cases[i].want)) {
            print_error("%s:\n  got  %s\n  want %s\n", error_cases[i].name,
                        e.msg, error_cases[i].want);
            bad++;
        }
    }
    if (bad)
        fail_msg("%d case(s) failed", bad);
}

static void ini_should_say_absent_vs_empty(void **state)
{
    struct err e;
    struct policy *p;

    (void)state;
    p = load_ini("[policy]\nhardPodAffinitySymmetricWeight = 5\n", &e);
    assert_non_null(p);
    assert_int_equal(p->n_preds, 12);
    assert_int_equal(p->n_prios, 8);
    assert_int_equal(p->hard_pod_affinity_weight, 5);
    policy_free(p);
    p = load_ini("[policy]\npredicates = none\npriorities = none\n", &e);
    assert_non_null(p);
    assert_int_equal(p->n_preds, 2);
    assert_int_equal(p->n_prios, 0);
    policy_free(p);
    /* sections alone imply "listed" */
    p = load_ini("[priority \"ImageLocalityPriority\"]\nweight = 3\n", &e);
    assert_non_null(p);
    assert_int_equal(p->n_preds, 12);
    assert_int_equal(p->n_prios, 1);
    assert_int_equal(p->prios[0].weight, 3);
    policy_free(p);
}

static void ini_should_carry_every_argument_kind(void **state)
{
    struct err e;
    struct policy *p;
    const struct policy_high_comm_arg *hc;

    (void)state;
    p = load_ini(
        "[policy]\nalwaysCheckAllPredicates = true\n"
        "[predicate \"dup-1\"]\nname = HostName\n"
        "[predicate \"dup-2\"]\nname = HostName\n"
        "[predicate \"HC\"]\nhighComm.podLabel = \"gpu.job\"\n"
        "[predicate \"Old\"]\nname = CheckNodeCondition\n"
        "[predicate \"GeneralPredicates\"]\n"
        "[priority \"RdmaAwarePriority\"]\nweight = 2\n"
        "argument = highComm\n"
        "[extender \"a\"]\nurlPrefix = \"http://x/ \\x3bb\"\nweight = 2\n"
        "prioritizeVerb = p\nmanagedResources = ex.com/a:"
        "ignoredByScheduler\nmanagedResources = ex.com/b\n"
        "tlsConfig.caData = QUJD\ntlsConfig.caData = REVG\n",
        &e);
    if (!p)
        fail_msg("%s", e.msg);
    assert_true(p->always_check_all_predicates);
    assert_string_equal(p->doc.preds[1].name, "HostName");
    hc = kpe_args_get(&p->doc.preds[2].arg,
                      pred_lookup("HighCommPodFilter")->args);
    assert_non_null(hc);
    assert_string_equal(hc->pod_label, "gpu.job");
    assert_string_equal(p->doc.extenders[0].url_prefix, "http://x/ ;b");
    assert_string_equal(p->preds[0].def->name, "CheckNodeCondition");
    assert_int_equal(p->n_prios, 1);
    assert_string_equal(p->doc.extenders[0].tls.ca_data, "QUJDREVG");
    assert_true(p->doc.extenders[0].managed_resources[0].ignored_by_scheduler);
    assert_string_equal(p->doc.extenders[0].managed_resources[0].name,
                        "ex.com/a");
    assert_false(p->doc.extenders[0].managed_resources[1].ignored_by_scheduler);
    policy_free(p);
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = calloc(1, (size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* JSON -> INI -> JSON gives the same canonical JSON and the same check. */
static int round_trip(const char *path)
{
    struct policy_load_opts o = { .compat = POLICY_COMPAT_LEGACY,
                                  .format = POLICY_FORMAT_AUTO,
                                  .warnings = NULL };
    struct policy *a = NULL, *b = NULL;
    struct err e;
    char *ini, *json1, *json2;
    int bad = 0;

    if (policy_load_file(path, &o, &a, &e)) {
        print_error("%s: %s\n", path, e.msg);
        return 1;
    }
    ini = policy_write_ini(&a->doc, &a->arena, &e);
    json1 = policy_write_json(&a->doc, &a->arena, &e);
    if (!ini || !json1) {
        print_error("%s: write: %s\n", path, e.msg);
        policy_free(a);
        return 1;
    }
    o.format = POLICY_FORMAT_INI;
    if (policy_load_buffer("rt.ini", ini, strlen(ini), &o, &b, &e)) {
        print_error("%s: INI does not load back: %s\n%s\n", path, e.msg, ini);
        policy_free(a);
        return 1;
    }
    json2 = policy_write_json(&b->doc, &b->arena, &e);
    if (!json2 || strcmp(json1, json2)) {
        print_error("%s: round trip differs:\n%s\n---\n%s\n", path, json1,
                    json2 ? json2 : "");
        bad = 1;
    }
    if (a->n_preds != b->n_preds || a->n_prios != b->n_prios)
        bad = 1;
    policy_free(a);
    policy_free(b);
    return bad;
}

static void json_ini_json_should_be_lossless(void **state)
{
    const char *dirs[] = { "tests/policies", "tests/policies/legacy" };
    size_t d;
    int bad = 0, count = 0;

    (void)state;
    for (d = 0; d < 2; d++) {
        DIR *dir = opendir(dirs[d]);
        struct dirent *de;

        assert_non_null(dir);
        while ((de = readdir(dir))) {
            char path[512];
            size_t n = strlen(de->d_name);

            if (n < 5 || strcmp(de->d_name + n - 5, ".json"))
                continue;
            snprintf(path, sizeof(path), "%s/%s", dirs[d], de->d_name);
            bad += round_trip(path);
            count++;
        }
        closedir(dir);
    }
    assert_true(count >= 20);
    if (bad)
        fail_msg("%d of %d policies do not round-trip", bad, count);
}

static void ini_and_json_forms_should_resolve_alike(void **state)
{
    struct policy *a = NULL, *b = NULL;
    struct err e;
    char *j1, *j2, *text;
    FILE *f;
    size_t len = 0;

    (void)state;
    if (policy_load_file("tests/policies/reference-10.2-custom.json", NULL, &a,
                         &e) ||
        policy_load_file("tests/policies/reference-10.2-custom.ini", NULL, &b,
                         &e))
        fail_msg("%s", e.msg);
    j1 = policy_write_json(&a->doc, &a->arena, &e);
    j2 = policy_write_json(&b->doc, &b->arena, &e);
    assert_non_null(j1);
    assert_non_null(j2);
    assert_string_equal(j1, j2);
    f = open_memstream(&text, &len);
    assert_non_null(f);
    policy_print_check(f, b, 1);
    fclose(f);
    assert_non_null(strstr(text, "\"weight\": 4"));
    free(text);
    policy_free(a);
    policy_free(b);
    (void)read_all;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ini_errors_should_name_the_line),
        cmocka_unit_test(ini_should_say_absent_vs_empty),
        cmocka_unit_test(ini_should_carry_every_argument_kind),
        cmocka_unit_test(json_ini_json_should_be_lossless),
        cmocka_unit_test(ini_and_json_forms_should_resolve_alike),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
