/*
 * test_sched_nominate.c: the standalone scheduler's nominator
 * (server/scheduler/sched_nominate.h), after kube-scheduler v1.22's
 * PodNominator: AddNominatedPod replaces, UpdateNominatedPod keeps an
 * in-memory nomination the watch has not caught up with and drops one the
 * pod's status cleared, DeleteNominatedPodIfExists forgets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "server/scheduler/sched_nominate.h"
#include "server/scheduler/scheduler.h"

static struct sched_pod *pod(const char *nominated)
{
    char text[512];
    struct err e;
    uint64_t hash;
    cJSON *j;
    struct sched_pod *sp;

    snprintf(text, sizeof(text),
             "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\","
             "\"uid\":\"u\"},\"spec\":{\"priority\":7,\"containers\":[]},"
             "\"status\":{%s%s%s}}",
             nominated ? "\"nominatedNodeName\":\"" : "",
             nominated ? nominated : "", nominated ? "\"" : "");
    j = cJSON_Parse(text);
    sp = sched_pod_decode(j, &hash, &e);
    cJSON_Delete(j);
    if (!sp)
        fail_msg("%s", e.msg);
    return sp;
}

/* The node key's pod is nominated to in a snapshot, or NULL. */
static const char *nominated_node(struct scheduler *s, char *buf, size_t sz)
{
    struct engine_nominee *out;
    struct sched_pod **refs;
    size_t n = sched_nominate_snapshot(s, &out, &refs);
    const char *r = NULL;

    assert_true(n <= 1);
    if (n) {
        assert_int_equal(out[0].pod->priority, 7);
        snprintf(buf, sz, "%s", out[0].node);
        r = buf;
    }
    sched_nominate_release(out, refs, n);
    return r;
}

static void nominator_should_follow_preemptions_and_the_watch(void **state)
{
    static struct scheduler s; /* only the nominator's fields are used */
    struct sched_pod *sp = pod(NULL), *upd;
    char buf[64];

    (void)state;
    memset(&s, 0, sizeof(s));
    assert_null(nominated_node(&s, buf, sizeof(buf)));
    /* Our preemption nominates it (AddNominatedPod)... */
    assert_int_equal(sched_nominate_set(&s, "default/p", sp, "node-a", false),
                     0);
    assert_string_equal(nominated_node(&s, buf, sizeof(buf)), "node-a");
    /* ...an update from before our status patch keeps it... */
    upd = pod(NULL);
    sched_nominate_on_pod(&s, "default/p", upd);
    sched_pod_release(upd);
    assert_string_equal(nominated_node(&s, buf, sizeof(buf)), "node-a");
    /* ...the status takes over (another node, as the API says)... */
    upd = pod("node-b");
    sched_nominate_on_pod(&s, "default/p", upd);
    sched_pod_release(upd);
    assert_string_equal(nominated_node(&s, buf, sizeof(buf)), "node-b");
    /* ...and a status cleared by someone drops it. */
    upd = pod(NULL);
    sched_nominate_on_pod(&s, "default/p", upd);
    sched_pod_release(upd);
    assert_null(nominated_node(&s, buf, sizeof(buf)));
    /* Bound or deleted: forgotten. */
    assert_int_equal(sched_nominate_set(&s, "default/p", sp, "node-a", false),
                     0);
    sched_nominate_drop(&s, "default/p");
    sched_nominate_drop(&s, "default/p");
    assert_null(nominated_node(&s, buf, sizeof(buf)));
    assert_int_equal(sched_nominate_set(&s, "default/p", sp, "node-c", false),
                     0);
    sched_nominate_free(&s);
    assert_int_equal(s.n_noms, 0);
    sched_pod_release(sp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nominator_should_follow_preemptions_and_the_watch),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
