/*
 * test_pred_volume_binding.c: CheckVolumeBinding (VolumeBinding plugin),
 * ported from plugins/volumebinding/volume_binding_test.go TestVolumeBinding
 * and the decidable FindPodVolumes rows of binder_test.go (v1.21/v1.22).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "predicates/plugins.h"
#include "predicates/volume_binding.h"
#include "tests/support/vol_fixtures.h"

#define UNRES PRED_UNFIT_UNRESOLVABLE
#define HOST  "kubernetes.io/hostname"

#define NODE(name, labels)                                                     \
    "{'metadata':{'name':'" name "','labels':{'" HOST "':'" name "'" labels    \
    "}}}"
#define VOL(claim)                                                             \
    "{'name':'" claim "','persistentVolumeClaim':{'claimName':'" claim "'}}"
#define POD(vols)                                                              \
    "{'metadata':{'name':'pod-a','namespace':'default'},'spec':{'volumes':"    \
    "[" vols "]}}"
/* makePVC(name, boundPV, class): bound claims carry bind-completed. */
#define PVC(name, bound, cls, extra)                                           \
    "{'kind':'PersistentVolumeClaim','metadata':{'name':'" name                \
    "','namespace':'default'" extra "},'spec':{'storageClassName':'" cls "'"   \
    ",'volumeName':'" bound "'"
#define ANN_BOUND                ",'annotations':{'pv.kubernetes.io/bind-completed':'yes'}"
#define BOUND_PVC(name, pv, cls) PVC(name, pv, cls, ANN_BOUND) "}}"
#define UNBOUND_PVC(name, cls)   PVC(name, "", cls, "") "}}"
#define SIZED_PVC(name, cls, size)                                             \
    PVC(name, "", cls, "")                                                     \
    ",'resources':{'requests':{'storage':'" size "'}}}}"
/* makePV(name, class): Available. */
#define PV(name, cls, spec)                                                    \
    "{'kind':'PersistentVolume','metadata':{'name':'" name "'},'spec':{"       \
    "'storageClassName':'" cls "'" spec "},'status':{'phase':'Available'}}"
#define AFFINITY(key, val)                                                     \
    ",'nodeAffinity':{'required':{'nodeSelectorTerms':[{'matchExpressions':"   \
    "[{'key':'" key "','operator':'In','values':['" val "']}]}]}}"
#define CAP(size) ",'capacity':{'storage':'" size "'}"

static const char *const classes[] = {
    "{'kind':'StorageClass','metadata':{'name':'immediate-sc'},"
    "'volumeBindingMode':'Immediate'}",
    "{'kind':'StorageClass','metadata':{'name':'wait-sc'},"
    "'volumeBindingMode':'WaitForFirstConsumer'}",
    "{'kind':'StorageClass','metadata':{'name':'wait-hdd-sc'},"
    "'volumeBindingMode':'WaitForFirstConsumer'}",
    "{'kind':'StorageClass','metadata':{'name':'wait-prov'},"
    "'volumeBindingMode':'WaitForFirstConsumer',"
    "'provisioner':'test-provisioner'}",
    "{'kind':'StorageClass','metadata':{'name':'no-prov'},"
    "'volumeBindingMode':'WaitForFirstConsumer',"
    "'provisioner':'kubernetes.io/no-provisioner'}",
    "{'kind':'StorageClass','metadata':{'name':'topo-mismatch'},"
    "'volumeBindingMode':'WaitForFirstConsumer','provisioner':'test-prov',"
    "'allowedTopologies':[{'matchLabelExpressions':[{'key':'zone',"
    "'values':['zone-b']}]}]}",
    "{'kind':'StorageClass','metadata':{'name':'no-mode'},"
    "'provisioner':'test-provisioner'}",
    NULL,
};

#define CLOSE_PVS                                                              \
    PV("pv-a-0", "wait-sc", CAP("200Gi") AFFINITY(HOST, "node-a")),            \
        PV("pv-a-1", "wait-sc", CAP("200Gi") AFFINITY(HOST, "node-a")),        \
        PV("pv-b-0", "wait-sc", CAP("100Gi") AFFINITY(HOST, "node-b")),        \
        PV("pv-b-1", "wait-sc", CAP("100Gi") AFFINITY(HOST, "node-b"))

/* TestVolumeBinding (filter outcomes; scores belong to priorities). */
static const struct vf_case binding_cases[] = {
    { "pod has not pvcs",
      "{'metadata':{'name':'pod-a'}}",
      NODE("node-a", ""),
      { NULL },
      PRED_FIT,
      NULL },
    { "all bound",
      POD(VOL("pvc-a")),
      NODE("node-a", ""),
      { BOUND_PVC("pvc-a", "pv-a", "wait-sc"), PV("pv-a", "wait-sc", ""),
        NULL },
      PRED_FIT,
      NULL },
    { "PVC does not exist",
      POD(VOL("pvc-a")),
      NODE("node-a", ""),
      { NULL },
      UNRES,
      "persistentvolumeclaim \"pvc-a\" not found" },
    { "Part of PVCs do not exist",
      POD(VOL("pvc-a") "," VOL("pvc-b")),
      NODE("node-a", ""),
      { BOUND_PVC("pvc-a", "pv-a", "wait-sc"), NULL },
      UNRES,
      "persistentvolumeclaim \"pvc-b\" not found" },
    { "immediate claims not bound",
      POD(VOL("pvc-a")),
      NODE("node-a", ""),
      { UNBOUND_PVC("pvc-a", "immediate-sc"), NULL },
      UNRES,
      PRED_REASON_UNBOUND_IMMEDIATE },
    { "unbound claims no matches",
      POD(VOL("pvc-a")),
      NODE("node-a", ""),
      { UNBOUND_PVC("pvc-a", "wait-sc"), NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "bound and unbound unsatisfied",
      POD(VOL("pvc-a") "," VOL("pvc-b")),
      NODE("node-a", ",'foo':'barbar'"),
      { BOUND_PVC("pvc-a", "pv-a", "wait-sc"), UNBOUND_PVC("pvc-b", "wait-sc"),
        PV("pv-a", "wait-sc", AFFINITY("foo", "bar")), NULL },
      UNRES,
      PRED_REASON_NODE_CONFLICT "|" PRED_REASON_BIND_CONFLICT },
    { "pv not found",
      POD(VOL("pvc-a")),
      NODE("node-a", ""),
      { BOUND_PVC("pvc-a", "pv-a", "wait-sc"), NULL },
      UNRES,
      PRED_REASON_PV_NOT_EXIST },
    { "local volumes with close capacity are preferred: node-a",
      POD(VOL("pvc-a")),
      NODE("node-a", ""),
      { SIZED_PVC("pvc-a", "wait-sc", "50Gi"), CLOSE_PVS, NULL },
      PRED_FIT,
      NULL },
    { "local volumes with close capacity are preferred: node-b",
      POD(VOL("pvc-a")),
      NODE("node-b", ""),
      { SIZED_PVC("pvc-a", "wait-sc", "50Gi"), CLOSE_PVS, NULL },
      PRED_FIT,
      NULL },
    { "local volumes with close capacity are preferred: node-c",
      POD(VOL("pvc-a")),
      NODE("node-c", ""),
      { SIZED_PVC("pvc-a", "wait-sc", "50Gi"), CLOSE_PVS, NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "multiple pvcs: node-b",
      POD(VOL("pvc-0") "," VOL("pvc-1")),
      NODE("node-b", ""),
      { SIZED_PVC("pvc-0", "wait-sc", "50Gi"),
        SIZED_PVC("pvc-1", "wait-hdd-sc", "100Gi"), CLOSE_PVS,
        PV("pv-b-2", "wait-hdd-sc", CAP("100Gi") AFFINITY(HOST, "node-b")),
        NULL },
      PRED_FIT,
      NULL },
    { "multiple pvcs: node-c",
      POD(VOL("pvc-0") "," VOL("pvc-1")),
      NODE("node-c", ""),
      { SIZED_PVC("pvc-0", "wait-sc", "50Gi"),
        SIZED_PVC("pvc-1", "wait-hdd-sc", "100Gi"), CLOSE_PVS, NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
};

#define N1 "node1"
#define PV1(name, cls, size, extra)                                            \
    PV(name, cls, CAP(size) AFFINITY("nodeKey", "node1") extra)
#define PV2(name, cls, size)                                                   \
    PV(name, cls, CAP(size) AFFINITY("nodeKey", "node2"))
#define NODE1 NODE(N1, ",'nodeKey':'node1'")
#define ANN_SELECTED(node)                                                     \
    ",'annotations':{'volume.kubernetes.io/selected-node':'" node "'}"

/*
 * TestFindPodVolumesWithoutProvisioning, TestFindPodVolumesWithProvisioning
 * (binder_test.go): the rows whose outcome a filter can observe. Prebound
 * and immediate claims are rejected by PreFilter here, as in the plugin.
 */
static const struct vf_case binder_cases[] = {
    { "no-volumes",
      "{'metadata':{'name':'pod-a'}}",
      NODE1,
      { NULL },
      PRED_FIT,
      NULL },
    { "no-pvcs",
      POD("{'name':'v','emptyDir':{}}"),
      NODE1,
      { NULL },
      PRED_FIT,
      NULL },
    { "unbound-pvc,pv-same-node",
      POD(VOL("pvc-1")),
      NODE1,
      { SIZED_PVC("pvc-1", "no-prov", "1G"), PV1("pv-1a", "no-prov", "5G", ""),
        PV2("pv-2", "no-prov", "1G"), NULL },
      PRED_FIT,
      NULL },
    { "unbound-pvc,pv-different-node",
      POD(VOL("pvc-1")),
      NODE1,
      { SIZED_PVC("pvc-1", "no-prov", "1G"), PV2("pv-2", "no-prov", "1G"),
        NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "two-unbound-pvcs",
      POD(VOL("pvc-1") "," VOL("pvc-2")),
      NODE1,
      { SIZED_PVC("pvc-1", "no-prov", "1G"),
        SIZED_PVC("pvc-2", "no-prov", "5G"), PV1("pv-1a", "no-prov", "5G", ""),
        PV1("pv-1b", "no-prov", "10G", ""), NULL },
      PRED_FIT,
      NULL },
    { "two-unbound-pvcs,partial-match",
      POD(VOL("pvc-1") "," VOL("pvc-2")),
      NODE1,
      { SIZED_PVC("pvc-1", "no-prov", "1G"),
        SIZED_PVC("pvc-2", "no-prov", "5G"), PV1("pv-1a", "no-prov", "5G", ""),
        NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "one-bound,one-unbound",
      POD(VOL("pvc-b") "," VOL("pvc-1")),
      NODE1,
      { BOUND_PVC("pvc-b", "pv-bound", "no-prov"),
        SIZED_PVC("pvc-1", "no-prov", "1G"), PV1("pv-bound", "other", "1G", ""),
        PV1("pv-1a", "no-prov", "5G", ""), NULL },
      PRED_FIT,
      NULL },
    { "one-bound,one-unbound,no-match",
      POD(VOL("pvc-b") "," VOL("pvc-1")),
      NODE1,
      { BOUND_PVC("pvc-b", "pv-bound", "no-prov"),
        SIZED_PVC("pvc-1", "no-prov", "1G"), PV1("pv-bound", "other", "1G", ""),
        PV2("pv-2", "no-prov", "1G"), NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "one-prebound,one-unbound",
      POD(VOL("pvc-p") "," VOL("pvc-1")),
      NODE1,
      { PVC("pvc-p", "pv-1a", "no-prov", "") "}}",
        SIZED_PVC("pvc-1", "no-prov", "1G"), PV1("pv-1a", "no-prov", "5G", ""),
        NULL },
      UNRES,
      PRED_REASON_UNBOUND_IMMEDIATE },
    { "immediate-bound-pvc",
      POD(VOL("pvc-i")),
      NODE1,
      { BOUND_PVC("pvc-i", "pv-bound", "immediate-sc"),
        PV1("pv-bound", "immediate-sc", "1G", ""), NULL },
      PRED_FIT,
      NULL },
    { "immediate-bound-pvc-wrong-node",
      POD(VOL("pvc-i")),
      NODE1,
      { BOUND_PVC("pvc-i", "pv-2", "immediate-sc"),
        PV2("pv-2", "immediate-sc", "1G"), NULL },
      UNRES,
      PRED_REASON_NODE_CONFLICT },
    { "immediate-unbound-pvc",
      POD(VOL("pvc-i")),
      NODE1,
      { UNBOUND_PVC("pvc-i", "immediate-sc"), NULL },
      UNRES,
      PRED_REASON_UNBOUND_IMMEDIATE },
    { "immediate-unbound-pvc,delayed-mode-bound",
      POD(VOL("pvc-i") "," VOL("pvc-b")),
      NODE1,
      { UNBOUND_PVC("pvc-i", "immediate-sc"),
        BOUND_PVC("pvc-b", "pv-bound", "no-prov"),
        PV1("pv-bound", "no-prov", "1G", ""), NULL },
      UNRES,
      PRED_REASON_UNBOUND_IMMEDIATE },
    { "immediate-unbound-pvc,delayed-mode-unbound",
      POD(VOL("pvc-i") "," VOL("pvc-1")),
      NODE1,
      { UNBOUND_PVC("pvc-i", "immediate-sc"),
        SIZED_PVC("pvc-1", "no-prov", "1G"), NULL },
      UNRES,
      PRED_REASON_UNBOUND_IMMEDIATE },
    { "one-provisioned",
      POD(VOL("pvc-1")),
      NODE1,
      { SIZED_PVC("pvc-1", "wait-prov", "1G"), NULL },
      PRED_FIT,
      NULL },
    { "two-unbound-pvcs,one-matched,one-provisioned",
      POD(VOL("pvc-1") "," VOL("pvc-2")),
      NODE1,
      { SIZED_PVC("pvc-1", "no-prov", "1G"),
        SIZED_PVC("pvc-2", "wait-prov", "1G"),
        PV1("pv-1a", "no-prov", "5G", ""), NULL },
      PRED_FIT,
      NULL },
    { "one-bound,one-provisioned",
      POD(VOL("pvc-b") "," VOL("pvc-2")),
      NODE1,
      { BOUND_PVC("pvc-b", "pv-bound", "no-prov"),
        SIZED_PVC("pvc-2", "wait-prov", "1G"),
        PV1("pv-bound", "no-prov", "1G", ""), NULL },
      PRED_FIT,
      NULL },
    { "one-binding,one-selected-node",
      POD(VOL("pvc-1") "," VOL("pvc-s")),
      NODE1,
      { SIZED_PVC("pvc-1", "no-prov", "1G"),
        PVC("pvc-s", "", "wait-prov", ANN_SELECTED("node1")) "}}",
        PV1("pv-1a", "no-prov", "5G", ""), NULL },
      PRED_FIT,
      NULL },
    { "selected-node-mismatch",
      POD(VOL("pvc-s")),
      NODE1,
      { PVC("pvc-s", "", "wait-prov", ANN_SELECTED("node2")) "}}", NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "invalid-provisioner",
      POD(VOL("pvc-1")),
      NODE1,
      { SIZED_PVC("pvc-1", "no-prov", "1G"), NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "volume-topology-unsatisfied",
      POD(VOL("pvc-1")),
      NODE(N1, ",'zone':'zone-a'"),
      { SIZED_PVC("pvc-1", "topo-mismatch", "1G"), NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "volume-topology-satisfied",
      POD(VOL("pvc-1")),
      NODE(N1, ",'zone':'zone-b'"),
      { SIZED_PVC("pvc-1", "topo-mismatch", "1G"), NULL },
      PRED_FIT,
      NULL },
};

/* Not upstream rows: the FindMatchingVolume rules one at a time. */
static const struct vf_case match_cases[] = {
    { "smallest fit leaves the big PV for the big claim",
      POD(VOL("pvc-1") "," VOL("pvc-8")),
      NODE1,
      { SIZED_PVC("pvc-1", "no-prov", "1G"),
        SIZED_PVC("pvc-8", "no-prov", "8G"), PV1("pv-10", "no-prov", "10G", ""),
        PV1("pv-5", "no-prov", "5G", ""), NULL },
      PRED_FIT,
      NULL },
    { "capacity below request",
      POD(VOL("pvc-8")),
      NODE1,
      { SIZED_PVC("pvc-8", "no-prov", "8G"), PV1("pv-5", "no-prov", "5G", ""),
        NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "access modes not offered",
      POD(VOL("pvc-1")),
      NODE1,
      { PVC("pvc-1", "", "no-prov", "") ",'accessModes':['ReadWriteMany']}}",
        PV1("pv-1a", "no-prov", "5G", ",'accessModes':['ReadWriteOnce']"),
        NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "volume mode mismatch",
      POD(VOL("pvc-1")),
      NODE1,
      { PVC("pvc-1", "", "no-prov", "") ",'volumeMode':'Block'}}",
        PV1("pv-1a", "no-prov", "5G", ""), NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "selector mismatch",
      POD(VOL("pvc-1")),
      NODE1,
      { PVC("pvc-1", "", "no-prov",
            "") ",'selector':{'matchLabels':{'tier':'gold'}}}}",
        PV1("pv-1a", "no-prov", "5G", ""), NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "pv claimed by another claim",
      POD(VOL("pvc-1")),
      NODE1,
      { SIZED_PVC("pvc-1", "no-prov", "1G"),
        PV1("pv-1a", "no-prov", "5G",
            ",'claimRef':{'namespace':'default','name':'other'}"),
        NULL },
      UNRES,
      PRED_REASON_BIND_CONFLICT },
    { "pv pre-bound to the claim",
      POD(VOL("pvc-1")),
      NODE1,
      { SIZED_PVC("pvc-1", "no-prov", "1G"),
        "{'kind':'PersistentVolume','metadata':{'name':'pv-pre'},'spec':{"
        "'storageClassName':'no-prov','capacity':{'storage':'5G'},"
        "'claimRef':{'namespace':'default','name':'pvc-1'}},"
        "'status':{'phase':'Bound'}}",
        NULL },
      PRED_FIT,
      NULL },
    { "class without binding mode is an error",
      POD(VOL("pvc-1")),
      NODE1,
      { UNBOUND_PVC("pvc-1", "no-mode"), NULL },
      PRED_ERROR,
      "VolumeBindingMode not set for StorageClass \"no-mode\"" },
    { "claim being deleted",
      POD(VOL("pvc-d")),
      NODE1,
      { PVC("pvc-d", "", "no-prov",
            ",'deletionTimestamp':'2021-08-01T00:00:00Z'") "}}",
        NULL },
      UNRES,
      "persistentvolumeclaim \"pvc-d\" is being deleted" },
    { "ephemeral claim of another owner",
      "{'metadata':{'name':'pod-a','namespace':'default','uid':'u1'},"
      "'spec':{'volumes':[{'name':'e','ephemeral':{}}]}}",
      NODE1,
      { UNBOUND_PVC("pod-a-e", "no-prov"), NULL },
      UNRES,
      "persistentvolumeclaim \"pod-a-e\" was not created for the pod" },
    { "ephemeral claim of the pod",
      "{'metadata':{'name':'pod-a','namespace':'default','uid':'u1'},"
      "'spec':{'volumes':[{'name':'e','ephemeral':{}}]}}",
      NODE1,
      { PVC("pod-a-e", "", "wait-prov",
            ",'ownerReferences':[{'apiVersion':'v1','kind':'Pod','name':"
            "'pod-a','uid':'u1','controller':true}]") "}}",
        NULL },
      PRED_FIT,
      NULL },
};

#define N(t) (sizeof(t) / sizeof(t[0]))

static void volume_binding_should_match_upstream_table(void **state)
{
    (void)state;
    vf_run_table("VolumeBinding", binding_cases, N(binding_cases), classes);
}

static void volume_binding_should_match_binder_rows(void **state)
{
    (void)state;
    vf_run_table("VolumeBinding", binder_cases, N(binder_cases), classes);
}

static void volume_binding_should_apply_matching_rules(void **state)
{
    (void)state;
    vf_run_table("VolumeBinding", match_cases, N(match_cases), classes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(volume_binding_should_match_upstream_table),
        cmocka_unit_test(volume_binding_should_match_binder_rows),
        cmocka_unit_test(volume_binding_should_apply_matching_rules),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
