/*
 * test_pred_volume_zone.c: NoVolumeZoneConflict (VolumeZone plugin),
 * ported from plugins/volumezone/volume_zone_test.go (v1.22).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "predicates/plugins.h"
#include "predicates/volume_zone.h"
#include "tests/support/vol_fixtures.h"

#define BETA_ZONE   "failure-domain.beta.kubernetes.io/zone"
#define BETA_REGION "failure-domain.beta.kubernetes.io/region"
#define GA_ZONE     "topology.kubernetes.io/zone"
#define GA_REGION   "topology.kubernetes.io/region"

#define POD(pvc)                                                               \
    "{'metadata':{'name':'pod_1','namespace':'default'},'spec':{'volumes':"    \
    "[{'name':'vol_1','persistentVolumeClaim':{'claimName':'" pvc "'}}]}}"
#define NODE(labels) "{'metadata':{'name':'host1','labels':{" labels "}}}"
#define PV(name, labels)                                                       \
    "{'kind':'PersistentVolume','metadata':{'name':'" name                     \
    "','labels':{" labels "}}}"
#define PVC(name, spec)                                                        \
    "{'kind':'PersistentVolumeClaim','metadata':{'name':'" name                \
    "','namespace':'default'},'spec':{" spec "}}"
#define BOUND(name, pv) PVC(name, "'volumeName':'" pv "'")

#define UNRES PRED_UNFIT_UNRESOLVABLE

/* The PV and PVC listers of TestSingleZone. */
static const char *const single_objs[] = {
    PV("Vol_1", "'" BETA_ZONE "':'us-west1-a'"),
    PV("Vol_2", "'" BETA_REGION "':'us-west1','uselessLabel':'none'"),
    PV("Vol_3", "'" BETA_REGION "':'us-west1'"),
    PV("Vol_Stable_1", "'" GA_ZONE "':'us-west1-a'"),
    PV("Vol_Stable_2", "'" GA_REGION "':'us-west1','uselessLabel':'none'"),
    BOUND("PVC_1", "Vol_1"),
    BOUND("PVC_2", "Vol_2"),
    BOUND("PVC_3", "Vol_3"),
    BOUND("PVC_4", "Vol_not_exist"),
    BOUND("PVC_Stable_1", "Vol_Stable_1"),
    BOUND("PVC_Stable_2", "Vol_Stable_2"),
    NULL,
};

/* TestSingleZone */
static const struct vf_case single_cases[] = {
    { "pod without volume",
      "{'metadata':{'name':'pod_1','namespace':'default'}}",
      NODE("'" BETA_ZONE "':'us-west1-a'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "node without labels", POD("PVC_1"), NODE(""), { NULL }, PRED_FIT, NULL },
    { "beta zone label matched",
      POD("PVC_1"),
      NODE("'" BETA_ZONE "':'us-west1-a','uselessLabel':'none'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "beta region label matched",
      POD("PVC_2"),
      NODE("'" BETA_REGION "':'us-west1','uselessLabel':'none'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "beta region label doesn't match",
      POD("PVC_2"),
      NODE("'" BETA_REGION "':'no_us-west1','uselessLabel':'none'"),
      { NULL },
      UNRES,
      PRED_REASON_VOLUME_ZONE },
    { "beta zone label doesn't match",
      POD("PVC_1"),
      NODE("'" BETA_ZONE "':'no_us-west1-a','uselessLabel':'none'"),
      { NULL },
      UNRES,
      PRED_REASON_VOLUME_ZONE },
    { "zone label matched",
      POD("PVC_Stable_1"),
      NODE("'" GA_ZONE "':'us-west1-a','uselessLabel':'none'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "region label matched",
      POD("PVC_Stable_2"),
      NODE("'" GA_REGION "':'us-west1','uselessLabel':'none'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "region label doesn't match",
      POD("PVC_Stable_2"),
      NODE("'" GA_REGION "':'no_us-west1','uselessLabel':'none'"),
      { NULL },
      UNRES,
      PRED_REASON_VOLUME_ZONE },
    { "zone label doesn't match",
      POD("PVC_Stable_1"),
      NODE("'" GA_ZONE "':'no_us-west1-a','uselessLabel':'none'"),
      { NULL },
      UNRES,
      PRED_REASON_VOLUME_ZONE },
    /* Not upstream rows: predicates.md B.17 edge cases. */
    { "pv with ga zone, node with only the beta zone",
      POD("PVC_Stable_1"),
      NODE("'" BETA_ZONE "':'us-west1-a'"),
      { NULL },
      UNRES,
      PRED_REASON_VOLUME_ZONE },
    { "bound pv missing",
      POD("PVC_4"),
      NODE("'" BETA_ZONE "':'us-west1-a'"),
      { NULL },
      UNRES,
      "persistentvolume \"Vol_not_exist\" not found" },
    { "claim missing",
      POD("PVC_9"),
      NODE("'" BETA_ZONE "':'us-west1-a'"),
      { NULL },
      UNRES,
      "persistentvolumeclaim \"PVC_9\" not found" },
    { "claim without name",
      POD(""),
      NODE("'" BETA_ZONE "':'us-west1-a'"),
      { NULL },
      UNRES,
      "PersistentVolumeClaim had no name" },
    { "unparsable pv label is ignored",
      POD("PVC_X"),
      NODE("'" BETA_ZONE "':'us-west1-b'"),
      { PV("Vol_X", "'" BETA_ZONE "':'us-west1-a__'"), BOUND("PVC_X", "Vol_X"),
        NULL },
      PRED_FIT,
      NULL },
};

static const char *const multi_objs[] = {
    PV("Vol_1", "'" BETA_ZONE "':'us-west1-a'"),
    PV("Vol_2", "'" BETA_ZONE "':'us-west1-b','uselessLabel':'none'"),
    PV("Vol_3", "'" BETA_ZONE "':'us-west1-c__us-west1-a'"),
    PV("Vol_Stable_1", "'" GA_ZONE "':'us-west1-a'"),
    PV("Vol_Stable_2", "'" GA_ZONE "':'us-west1-c__us-west1-a'"),
    BOUND("PVC_1", "Vol_1"),
    BOUND("PVC_2", "Vol_2"),
    BOUND("PVC_3", "Vol_3"),
    BOUND("PVC_4", "Vol_not_exist"),
    BOUND("PVC_Stable_1", "Vol_Stable_1"),
    BOUND("PVC_Stable_2", "Vol_Stable_2"),
    NULL,
};

/* TestMultiZone */
static const struct vf_case multi_cases[] = {
    { "node without labels", POD("PVC_3"), NODE(""), { NULL }, PRED_FIT, NULL },
    { "beta zone label matched",
      POD("PVC_3"),
      NODE("'" BETA_ZONE "':'us-west1-a','uselessLabel':'none'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "beta zone label doesn't match",
      POD("PVC_1"),
      NODE("'" BETA_ZONE "':'us-west1-b','uselessLabel':'none'"),
      { NULL },
      UNRES,
      PRED_REASON_VOLUME_ZONE },
    { "zone label matched",
      POD("PVC_Stable_2"),
      NODE("'" GA_ZONE "':'us-west1-a','uselessLabel':'none'"),
      { NULL },
      PRED_FIT,
      NULL },
    { "zone label doesn't match",
      POD("PVC_Stable_1"),
      NODE("'" GA_ZONE "':'us-west1-b','uselessLabel':'none'"),
      { NULL },
      UNRES,
      PRED_REASON_VOLUME_ZONE },
};

static const char *const binding_objs[] = {
    "{'kind':'StorageClass','metadata':{'name':'Class_Immediate'}}",
    "{'kind':'StorageClass','metadata':{'name':'Class_Wait'},"
    "'volumeBindingMode':'WaitForFirstConsumer'}",
    PV("Vol_1", "'" BETA_ZONE "':'us-west1-a'"),
    BOUND("PVC_1", "Vol_1"),
    PVC("PVC_NoSC", "'storageClassName':'Class_0'"),
    PVC("PVC_EmptySC", ""),
    PVC("PVC_WaitSC", "'storageClassName':'Class_Wait'"),
    PVC("PVC_ImmediateSC", "'storageClassName':'Class_Immediate'"),
    NULL,
};

#define TEST_NODE NODE("'" BETA_ZONE "':'us-west1-a','uselessLabel':'none'")

/*
 * TestWithBinding. Upstream's fake lister says `storageclasses...`; the
 * real v1.22 lister (and so we) says `storageclass.storage.k8s.io`.
 */
static const struct vf_case binding_cases[] = {
    { "label zone failure domain matched",
      POD("PVC_1"),
      TEST_NODE,
      { NULL },
      PRED_FIT,
      NULL },
    { "unbound volume empty storage class",
      POD("PVC_EmptySC"),
      TEST_NODE,
      { NULL },
      UNRES,
      "PersistentVolumeClaim had no pv name and storageClass name" },
    { "unbound volume no storage class",
      POD("PVC_NoSC"),
      TEST_NODE,
      { NULL },
      UNRES,
      "storageclass.storage.k8s.io \"Class_0\" not found" },
    { "unbound volume immediate binding mode",
      POD("PVC_ImmediateSC"),
      TEST_NODE,
      { NULL },
      UNRES,
      "VolumeBindingMode not set for StorageClass \"Class_Immediate\"" },
    { "unbound volume wait binding mode",
      POD("PVC_WaitSC"),
      TEST_NODE,
      { NULL },
      PRED_FIT,
      NULL },
    /* Not upstream: a class that does say Immediate. */
    { "unbound volume explicit immediate mode",
      POD("PVC_Imm2"),
      TEST_NODE,
      { "{'kind':'StorageClass','metadata':{'name':'Class_Imm2'},"
        "'volumeBindingMode':'Immediate'}",
        PVC("PVC_Imm2", "'storageClassName':'Class_Imm2'"), NULL },
      UNRES,
      "PersistentVolume had no name" },
};

#define N(t) (sizeof(t) / sizeof(t[0]))

static void volume_zone_should_match_single_zone_table(void **state)
{
    (void)state;
    vf_run_table("VolumeZone", single_cases, N(single_cases), single_objs);
}

static void volume_zone_should_match_multi_zone_table(void **state)
{
    (void)state;
    vf_run_table("VolumeZone", multi_cases, N(multi_cases), multi_objs);
}

static void volume_zone_should_handle_unbound_claims(void **state)
{
    (void)state;
    vf_run_table("VolumeZone", binding_cases, N(binding_cases), binding_objs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(volume_zone_should_match_single_zone_table),
        cmocka_unit_test(volume_zone_should_match_multi_zone_table),
        cmocka_unit_test(volume_zone_should_handle_unbound_claims),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
