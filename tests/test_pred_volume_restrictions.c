/*
 * test_pred_volume_restrictions.c: NoDiskConflict (VolumeRestrictions),
 * ported from plugins/volumerestrictions/volume_restrictions_test.go
 * (v1.22), plus the read-only, pool and monitor rules of B.7.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "predicates/plugins.h"
#include "predicates/volume_restrictions.h"
#include "tests/support/pred_fixtures.h"

#define GCE(pd, ro)                                                            \
    "{\"name\":\"v\",\"gcePersistentDisk\":{\"pdName\":\"" pd                  \
    "\",\"readOnly\":" ro "}}"
#define EBS(id, ro)                                                            \
    "{\"name\":\"v\",\"awsElasticBlockStore\":{\"volumeID\":\"" id             \
    "\",\"readOnly\":" ro "}}"
#define RBD(mons, pool, image, ro)                                             \
    "{\"name\":\"v\",\"rbd\":{\"monitors\":[" mons "]" pool                    \
    ",\"image\":\"" image "\",\"fsType\":\"ext4\",\"readOnly\":" ro "}}"
#define POOL(p) ",\"pool\":\"" p "\""
#define ISCSI(iqn, ro)                                                         \
    "{\"name\":\"v\",\"iscsi\":{\"targetPortal\":\"127.0.0.1:3260\","          \
    "\"iqn\":\"" iqn "\",\"fsType\":\"ext4\",\"lun\":0,\"readOnly\":" ro "}}"
#define IQN1 "iqn.2016-12.server:storage.target01"
#define IQN2 "iqn.2017-12.server:storage.target01"

struct disk_case {
    const char *name;
    const char *volumes;  /* the pod's volumes; NULL: none */
    const char *existing; /* volumes of the pod on the node; NULL: no pod */
    enum pred_code want;
};

/* TestGCEDiskConflicts (volume_restrictions_test.go) */
static const struct disk_case gce[] = {
    { "nothing", NULL, NULL, PRED_FIT },
    { "one state", NULL, GCE("foo", "false"), PRED_FIT },
    { "same state", GCE("foo", "false"), GCE("foo", "false"), PRED_UNFIT },
    { "different state", GCE("bar", "false"), GCE("foo", "false"), PRED_FIT },
};

/* TestAWSDiskConflicts */
static const struct disk_case aws[] = {
    { "nothing", NULL, NULL, PRED_FIT },
    { "one state", NULL, EBS("foo", "false"), PRED_FIT },
    { "same state", EBS("foo", "false"), EBS("foo", "false"), PRED_UNFIT },
    { "different state", EBS("bar", "false"), EBS("foo", "false"), PRED_FIT },
};

/* TestRBDDiskConflicts */
static const struct disk_case rbd[] = {
    { "nothing", NULL, NULL, PRED_FIT },
    { "one state", NULL, RBD("\"a\",\"b\"", POOL("foo"), "bar", "false"),
      PRED_FIT },
    { "same state", RBD("\"a\",\"b\"", POOL("foo"), "bar", "false"),
      RBD("\"a\",\"b\"", POOL("foo"), "bar", "false"), PRED_UNFIT },
    { "different state", RBD("\"c\",\"d\"", POOL("foo"), "bar", "false"),
      RBD("\"a\",\"b\"", POOL("foo"), "bar", "false"), PRED_FIT },
};

/* TestISCSIDiskConflicts */
static const struct disk_case iscsi[] = {
    { "nothing", NULL, NULL, PRED_FIT },
    { "one state", NULL, ISCSI(IQN1, "false"), PRED_FIT },
    { "same state", ISCSI(IQN1, "false"), ISCSI(IQN1, "false"), PRED_UNFIT },
    { "different state", ISCSI(IQN2, "false"), ISCSI(IQN1, "false"), PRED_FIT },
};

/* Ours: the read-only, pool and monitor rules (predicates.md B.7). */
static const struct disk_case rules[] = {
    { "gce both read-only share the disk", GCE("foo", "true"),
      GCE("foo", "true"), PRED_FIT },
    { "gce one writer conflicts", GCE("foo", "true"), GCE("foo", "false"),
      PRED_UNFIT },
    { "ebs read-only still conflicts", EBS("foo", "true"), EBS("foo", "true"),
      PRED_UNFIT },
    { "iscsi both read-only share the target", ISCSI(IQN1, "true"),
      ISCSI(IQN1, "true"), PRED_FIT },
    { "iscsi one writer conflicts", ISCSI(IQN1, "false"), ISCSI(IQN1, "true"),
      PRED_UNFIT },
    { "rbd one shared monitor is enough",
      RBD("\"x\",\"b\"", POOL("foo"), "bar", "false"),
      RBD("\"a\",\"b\"", POOL("foo"), "bar", "false"), PRED_UNFIT },
    { "rbd other pool does not conflict",
      RBD("\"a\"", POOL("foo"), "bar", "false"),
      RBD("\"a\"", POOL("baz"), "bar", "false"), PRED_FIT },
    { "rbd other image does not conflict",
      RBD("\"a\"", POOL("foo"), "bar", "false"),
      RBD("\"a\"", POOL("foo"), "qux", "false"), PRED_FIT },
    { "rbd both read-only share the image",
      RBD("\"a\"", POOL("foo"), "bar", "true"),
      RBD("\"a\"", POOL("foo"), "bar", "true"), PRED_FIT },
    { "rbd pool defaults to rbd", RBD("\"a\"", "", "bar", "false"),
      RBD("\"a\"", POOL("rbd"), "bar", "false"), PRED_UNFIT },
    { "same id on different kinds does not conflict", GCE("foo", "false"),
      EBS("foo", "false"), PRED_FIT },
    { "claims are not resolved",
      "{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"c\"}}",
      "{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"c\"}}",
      PRED_FIT },
    { "any conflicting volume among several",
      GCE("bar", "false") "," EBS("foo", "false"),
      GCE("foo", "false") "," EBS("foo", "false"), PRED_UNFIT },
};

/* A pod with the given volumes, JSON in buf. */
static const char *pod_json(char *buf, size_t n, const char *name,
                            const char *node, const char *volumes)
{
    snprintf(buf, n,
             "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"nodeName\":\"%s\","
             "\"volumes\":[%s]}}",
             name, node, volumes ? volumes : "");
    return buf;
}

static void run_table(const char *table, const struct disk_case *cases,
                      size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        char buf[1024];
        struct arena a;
        struct fx_cluster fc;
        struct pred_result r;
        const struct kube_pod *pod;
        enum pred_code got;
        const char *want_reason =
            cases[i].want == PRED_FIT ? "" : PRED_REASON_DISK_CONFLICT;

        arena_init(&a, 0);
        fx_cluster_init(&fc, &a);
        fx_cluster_add_node(&fc,
                            fx_node(&a, "{\"metadata\":{\"name\":\"n\"}}"));
        if (cases[i].existing)
            fx_cluster_add_pod(&fc,
                               fx_pod(&a, pod_json(buf, sizeof(buf), "e", "n",
                                                   cases[i].existing)));
        fx_cluster_build(&fc);
        pod = fx_pod(&a, pod_json(buf, sizeof(buf), "p", "", cases[i].volumes));
        got = fx_run_filter("VolumeRestrictions", NULL, NULL, pod, &fc.c, "n",
                            &a, &r);
        if (got != cases[i].want)
            fail_msg("%s %s: code %d, want %d", table, cases[i].name, got,
                     cases[i].want);
        if (strcmp(fx_reasons(&a, &r), want_reason))
            fail_msg("%s %s: reasons \"%s\"", table, cases[i].name,
                     fx_reasons(&a, &r));
        fx_cluster_free(&fc);
        arena_destroy(&a);
    }
}

#define RUN(t) run_table(#t, t, sizeof(t) / sizeof((t)[0]))

static void disk_conflict_should_match_upstream_gce_table(void **state)
{
    (void)state;
    RUN(gce);
}

static void disk_conflict_should_match_upstream_aws_table(void **state)
{
    (void)state;
    RUN(aws);
}

static void disk_conflict_should_match_upstream_rbd_table(void **state)
{
    (void)state;
    RUN(rbd);
}

static void disk_conflict_should_match_upstream_iscsi_table(void **state)
{
    (void)state;
    RUN(iscsi);
}

static void disk_conflict_should_follow_read_only_and_rbd_rules(void **state)
{
    (void)state;
    RUN(rules);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(disk_conflict_should_match_upstream_gce_table),
        cmocka_unit_test(disk_conflict_should_match_upstream_aws_table),
        cmocka_unit_test(disk_conflict_should_match_upstream_rbd_table),
        cmocka_unit_test(disk_conflict_should_match_upstream_iscsi_table),
        cmocka_unit_test(disk_conflict_should_follow_read_only_and_rbd_rules),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
