/*
 * test_leader.c: Lease leader election (server/scheduler/leader.c): the
 * tryAcquireOrRenew decision against client-go v0.22's table, the
 * observed-time rule that ignores the holder's clock, the timing checks,
 * Go durations, and the Lease JSON both ways.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/scheduler/leader.h"

static const struct leader_config cfg = {
    "kube-system", "my-scheduler", "me_1", 15, 10, 2
};

static struct leader_record rec(const char *holder, const char *renew,
                                int transitions)
{
    struct leader_record r;

    memset(&r, 0, sizeof(r));
    r.exists = holder != NULL;
    snprintf(r.holder, sizeof(r.holder), "%s", holder ? holder : "");
    snprintf(r.renew_time, sizeof(r.renew_time), "%s", renew);
    snprintf(r.acquire_time, sizeof(r.acquire_time), "acq-%s", renew);
    snprintf(r.resource_version, sizeof(r.resource_version), "rv-%s", renew);
    r.lease_duration_s = 15;
    r.transitions = transitions;
    return r;
}

/* Ported from TestTryAcquireOrRenew (client-go v0.22
 * tools/leaderelection/leaderelection_test.go), Lease lock rows. The
 * observed record and time stand for what the candidate saw before. */
static const struct {
    const char *name;
    const char *cur_holder; /* NULL: no Lease */
    const char *cur_renew;
    const char *obs_holder; /* "" with obs_renew "": never observed */
    const char *obs_renew;
    double obs_time, now;
    enum leader_action want;
    int want_transitions;
    bool want_keeps_acquire;
} decide_cases[] = {
    { "acquire from no object", NULL, "", "", "", 0, 100, LEADER_CREATE, 0,
      false },
    { "acquire from unled object", "", "t1", "", "", 0, 100, LEADER_UPDATE, 4,
      false },
    { "acquire from led, unacked object (first sight counts as now)", "bing",
      "t1", "", "", 0, 100, LEADER_WAIT, 0, false },
    { "acquire from led object observed long ago", "bing", "t1", "bing", "t1",
      80, 100, LEADER_UPDATE, 4, false },
    { "don't acquire from led, acked object", "bing", "t1", "bing", "t1", 90,
      100, LEADER_WAIT, 0, false },
    { "a renewal restarts the wait (the holder's clock is not read)", "bing",
      "t2", "bing", "t1", 50, 100, LEADER_WAIT, 0, false },
    { "renew already acquired object", "me_1", "t1", "me_1", "t1", 99, 100,
      LEADER_UPDATE, 3, true },
    { "a leader renews even past its own lease duration", "me_1", "t1", "me_1",
      "t1", 10, 100, LEADER_UPDATE, 3, true },
    { "a leader that sees another holder waits", "bing", "t9", "me_1", "t1", 99,
      100, LEADER_WAIT, 0, false },
};

static void decide_should_follow_client_go(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(decide_cases) / sizeof(decide_cases[0]); i++) {
        struct leader_record cur, out;
        struct leader_observed obs;
        enum leader_action got;

        cur = rec(decide_cases[i].cur_holder, decide_cases[i].cur_renew, 3);
        memset(&obs, 0, sizeof(obs));
        if (decide_cases[i].obs_renew[0]) {
            obs.rec =
                rec(decide_cases[i].obs_holder, decide_cases[i].obs_renew, 3);
            obs.time = decide_cases[i].obs_time;
        }
        got = leader_decide(&cfg, &cur, &obs, decide_cases[i].now, "NOW", &out);
        if (got != decide_cases[i].want)
            fail_msg("%s: action %d, want %d", decide_cases[i].name, (int)got,
                     (int)decide_cases[i].want);
        if (got == LEADER_WAIT)
            continue;
        if (strcmp(out.holder, "me_1") || strcmp(out.renew_time, "NOW") ||
            out.lease_duration_s != 15)
            fail_msg("%s: wrote holder %s renew %s duration %d",
                     decide_cases[i].name, out.holder, out.renew_time,
                     out.lease_duration_s);
        if (got == LEADER_CREATE)
            continue;
        if (out.transitions != decide_cases[i].want_transitions)
            fail_msg("%s: transitions %d, want %d", decide_cases[i].name,
                     out.transitions, decide_cases[i].want_transitions);
        if (strcmp(out.acquire_time, decide_cases[i].want_keeps_acquire
                                         ? cur.acquire_time
                                         : "NOW"))
            fail_msg("%s: acquireTime %s", decide_cases[i].name,
                     out.acquire_time);
        if (strcmp(out.resource_version, cur.resource_version))
            fail_msg("%s: update without the read resourceVersion (%s)",
                     decide_cases[i].name, out.resource_version);
    }
}

/* Two candidates: the second waits for lease_duration after the first's
 * last renewal it saw, then takes over with one more transition. */
static void decide_should_fail_over_after_the_lease_runs_out(void **state)
{
    struct leader_observed a = { 0 }, b = { 0 };
    struct leader_config cb = cfg;
    struct leader_record lease = { 0 }, out;
    double t;

    (void)state;
    cb.identity = "other_2";
    assert_int_equal(leader_decide(&cfg, &lease, &a, 0, "T0", &out),
                     LEADER_CREATE);
    lease = out;
    a.rec = lease;
    a.time = 0;
    for (t = 0; t < 14.9; t += 2) {
        assert_int_equal(leader_decide(&cb, &lease, &b, t, "X", &out),
                         LEADER_WAIT);
    }
    /* The leader stops renewing at t=0; b first saw it at t=0. */
    assert_int_equal(leader_decide(&cb, &lease, &b, 15.5, "T15", &out),
                     LEADER_UPDATE);
    assert_string_equal(out.holder, "other_2");
    assert_int_equal(out.transitions, 1);
}

static void config_check_should_enforce_client_go_ordering(void **state)
{
    static const struct {
        const char *name;
        double lease, renew, retry;
        bool ok;
    } cases[] = {
        { "kube-scheduler defaults", 15, 10, 2, true },
        { "short test timings", 2, 1.5, 0.5, true },
        { "lease not above renew", 10, 10, 2, false },
        { "renew not above retry * 1.2", 15, 2.4, 2, false },
        { "zero retry", 15, 10, 0, false },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct leader_config c = cfg;
        struct err e = { "" };
        int rc;

        c.lease_duration = cases[i].lease;
        c.renew_deadline = cases[i].renew;
        c.retry_period = cases[i].retry;
        rc = leader_config_check(&c, &e);
        if ((rc == 0) != cases[i].ok)
            fail_msg("%s: rc %d (%s)", cases[i].name, rc, e.msg);
        if (!cases[i].ok && !strstr(e.msg, "leader election"))
            fail_msg("%s: message %s", cases[i].name, e.msg);
    }
}

static void duration_should_parse_go_syntax(void **state)
{
    static const struct {
        const char *in;
        int ok;
        double want;
    } cases[] = {
        { "15s", 1, 15 },   { "500ms", 1, 0.5 }, { "1m30s", 1, 90 },
        { "1.5s", 1, 1.5 }, { "2h", 1, 7200 },   { "0", 1, 0 },
        { "15", 0, 0 },     { "", 0, 0 },        { "s", 0, 0 },
        { "-1s", 0, 0 },    { "3x", 0, 0 },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double got = -1;
        int rc = leader_parse_duration(cases[i].in, &got);

        if ((rc == 0) != cases[i].ok || (rc == 0 && got != cases[i].want))
            fail_msg("\"%s\": rc %d value %g", cases[i].in, rc, got);
    }
}

static void lease_json_should_round_trip(void **state)
{
    struct leader_record r = rec("me_1", "2024-01-01T00:00:00.000000Z", 7),
                         back;
    struct err e = { "" };
    char *json;

    (void)state;
    json = leader_record_json(&cfg, &r);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"apiVersion\":\"coordination.k8s.io/v1\""));
    assert_non_null(strstr(json, "\"namespace\":\"kube-system\""));
    assert_int_equal(leader_record_parse(json, strlen(json), &back, &e), 0);
    assert_string_equal(back.holder, "me_1");
    assert_string_equal(back.renew_time, r.renew_time);
    assert_string_equal(back.acquire_time, r.acquire_time);
    assert_string_equal(back.resource_version, r.resource_version);
    assert_int_equal(back.transitions, 7);
    assert_int_equal(back.lease_duration_s, 15);
    free(json);
    assert_int_equal(leader_record_parse("[1]", 3, &back, &e), -1);
    assert_non_null(strstr(e.msg, "lease"));
}

static void identity_should_be_hostname_underscore_uuid(void **state)
{
    char a[300], b[300];
    const char *u;

    (void)state;
    leader_identity(a, sizeof(a));
    leader_identity(b, sizeof(b));
    u = strrchr(a, '_');
    assert_non_null(u);
    assert_int_equal(strlen(u + 1), 36);
    assert_int_equal(u[15], '4'); /* version nibble */
    assert_string_not_equal(a, b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decide_should_follow_client_go),
        cmocka_unit_test(decide_should_fail_over_after_the_lease_runs_out),
        cmocka_unit_test(config_check_should_enforce_client_go_ordering),
        cmocka_unit_test(duration_should_parse_go_syntax),
        cmocka_unit_test(lease_json_should_round_trip),
        cmocka_unit_test(identity_should_be_hostname_underscore_uuid),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
