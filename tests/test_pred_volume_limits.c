/*
 * test_pred_volume_limits.c: MaxEBSVolumeCount, MaxGCEPDVolumeCount,
 * MaxAzureDiskVolumeCount, MaxCinderVolumeCount (the non-CSI
 * nodevolumelimits plugins), ported from non_csi_test.go (v1.21/v1.22):
 * the shared conflict table runs once per provider, as upstream runs
 * TestEBSVolumeCountConflicts and its GCE/Azure/Cinder siblings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "predicates/plugins.h"
#include "predicates/volume_limits.h"
#include "tests/support/vol_fixtures.h"

struct provider {
    const char *plugin; /* pred_plugin name */
    const char *filter; /* @F@: upstream filterName */
    const char *source; /* @S@: pod/PV source key */
    const char *id_key; /* @I@ */
    const char *prov;   /* @P@: in-tree provisioner */
    const char *limit;  /* @K@: allocatable key */
};

static const struct provider providers[] = {
    { "EBSLimits", "EBS", "awsElasticBlockStore", "volumeID",
      "kubernetes.io/aws-ebs", "attachable-volumes-aws-ebs" },
    { "GCEPDLimits", "GCE", "gcePersistentDisk", "pdName",
      "kubernetes.io/gce-pd", "attachable-volumes-gce-pd" },
    { "AzureDiskLimits", "AzureDisk", "azureDisk", "diskName",
      "kubernetes.io/azure-disk", "attachable-volumes-azure-disk" },
    { "CinderLimits", "Cinder", "cinder", "volumeID", "kubernetes.io/cinder",
      "attachable-volumes-cinder" },
};

#define PVCV(n) "{'name':'" n "','persistentVolumeClaim':{'claimName':'" n "'}}"
#define ONE_VOL "{'name':'a','@S@':{'@I@':'ovp'}}"
#define TWO_VOL                                                                \
    "{'name':'a','@S@':{'@I@':'tvp1'}},{'name':'b','@S@':{'@I@':'tvp2'}}"
#define SPLIT_VOLS                                                             \
    "{'name':'a','hostPath':{'path':'/tmp'}},{'name':'b','@S@':{'@I@':'svp'}}"
#define NON_APPLICABLE      "{'name':'a','hostPath':{'path':'/tmp'}}"
#define EMPTY               ""
#define ONE_PVC             PVCV("some@F@Vol")
#define SPLIT_PVC           PVCV("someNon@F@Vol") "," PVCV("some@F@Vol")
#define DELETED_PVC         PVCV("deletedPVC")
#define TWO_DELETED_PVC     PVCV("deletedPVC") "," PVCV("anotherDeletedPVC")
#define DELETED_PV          PVCV("pvcWithDeletedPV")
#define ANOTHER_DELETED_PV  PVCV("anotherPVCWithDeletedPV")
#define UNBOUND_PVC         PVCV("unboundPVC")
#define ANOTHER_UNBOUND_PVC PVCV("anotherUnboundPVC")

#define CLAIM(name, vol, sc)                                                   \
    "{'kind':'PersistentVolumeClaim','metadata':{'name':'" name "'},"          \
    "'spec':{'volumeName':'" vol "','storageClassName':'" sc "'}}"

/* getFakePVCLister, getFakePVLister, getFakeStorageClassLister */
static const char *const listers[] = {
    CLAIM("some@F@Vol", "some@F@Vol", "@F@"),
    CLAIM("someNon@F@Vol", "someNon@F@Vol", "@F@"),
    CLAIM("pvcWithDeletedPV", "pvcWithDeletedPV", "@F@"),
    CLAIM("anotherPVCWithDeletedPV", "anotherPVCWithDeletedPV", "@F@"),
    CLAIM("unboundPVC", "", "@F@"),
    CLAIM("anotherUnboundPVC", "", "@F@"),
    CLAIM("unboundPVCWithDefaultSCPod", "", "standard-sc"),
    CLAIM("unboundPVCWithInvalidSCPod", "", "invalid-sc"),
    "{'kind':'PersistentVolume','metadata':{'name':'some@F@Vol'},"
    "'spec':{'@S@':{'@I@':'@F@Vol'}}}",
    "{'kind':'PersistentVolume','metadata':{'name':'someNon@F@Vol'},"
    "'spec':{}}",
    "{'kind':'StorageClass','metadata':{'name':'@F@'},'provisioner':'@P@'}",
    "{'kind':'StorageClass','metadata':{'name':'standard-sc'},"
    "'provisioner':'standard-sc'}",
    NULL,
};

#define MAX_EXISTING 4

struct limit_case {
    const char *name;
    const char *new_pod; /* volumes */
    const char *existing[MAX_EXISTING];
    int max_vols; /* node allocatable; -1: none */
    bool fits;
};

/* TestEBSVolumeCountConflicts (and the GCE/Azure/Cinder tables) */
static const struct limit_case cases[] = {
    { "fits when node capacity >= new pod's volumes",
      ONE_VOL,
      { TWO_VOL, ONE_VOL },
      4,
      true },
    { "doesn't fit when node capacity < new pod's volumes",
      TWO_VOL,
      { ONE_VOL },
      2,
      false },
    { "new pod's count ignores non-applicable volumes",
      SPLIT_VOLS,
      { TWO_VOL },
      3,
      true },
    { "existing pods' counts ignore non-applicable volumes",
      TWO_VOL,
      { SPLIT_VOLS, NON_APPLICABLE, EMPTY },
      3,
      true },
    { "new pod's count considers PVCs backed by the volumes",
      ONE_PVC,
      { SPLIT_VOLS, NON_APPLICABLE, EMPTY },
      3,
      true },
    { "new pod's count ignores PVCs not backed by the volumes",
      SPLIT_PVC,
      { SPLIT_VOLS, ONE_VOL },
      3,
      true },
    { "existing pods' counts considers PVCs backed by the volumes",
      TWO_VOL,
      { ONE_VOL, ONE_PVC },
      3,
      false },
    { "already-mounted volumes are always ok to allow",
      TWO_VOL,
      { ONE_VOL, TWO_VOL, ONE_PVC },
      4,
      true },
    { "the same volumes are not counted multiple times",
      SPLIT_VOLS,
      { ONE_VOL, ONE_VOL, ONE_PVC },
      3,
      true },
    { "missing PVC of an existing pod is not counted",
      ONE_PVC,
      { ONE_VOL, DELETED_PVC },
      2,
      true },
    { "missing PVC is not counted towards the PV limit",
      ONE_PVC,
      { ONE_VOL, TWO_DELETED_PVC },
      2,
      true },
    { "pod with missing PV is counted towards the PV limit",
      ONE_PVC,
      { ONE_VOL, DELETED_PV },
      2,
      false },
    { "pod with missing PV is counted towards the PV limit (room)",
      ONE_PVC,
      { ONE_VOL, DELETED_PV },
      3,
      true },
    { "pod with missing PV is counted once",
      DELETED_PV,
      { ONE_VOL, DELETED_PV },
      2,
      true },
    { "two pods missing different PVs are counted twice",
      ANOTHER_DELETED_PV,
      { ONE_VOL, DELETED_PV },
      2,
      false },
    { "pod with unbound PVC is counted towards the PV limit",
      ONE_PVC,
      { ONE_VOL, UNBOUND_PVC },
      2,
      false },
    { "pod with unbound PVC is counted towards the PV limit (room)",
      ONE_PVC,
      { ONE_VOL, UNBOUND_PVC },
      3,
      true },
    { "the same unbound PVC in multiple pods is counted once",
      ONE_PVC,
      { ONE_VOL, UNBOUND_PVC, UNBOUND_PVC },
      3,
      true },
    { "the same unbound PVC in the new pod is not counted again",
      UNBOUND_PVC,
      { ONE_VOL, UNBOUND_PVC },
      2,
      true },
    { "two different unbound PVCs are counted as two volumes",
      ANOTHER_UNBOUND_PVC,
      { ONE_VOL, UNBOUND_PVC },
      2,
      false },
    /* Not upstream rows: the provisioner test of unbound claims. */
    { "unbound PVC of another provisioner is not counted",
      ONE_PVC,
      { ONE_VOL, PVCV("unboundPVCWithDefaultSCPod") },
      2,
      true },
    { "unbound PVC of a missing class is not counted",
      ONE_PVC,
      { ONE_VOL, PVCV("unboundPVCWithInvalidSCPod") },
      2,
      true },
};

/* t with the provider's tokens substituted; memory from a. */
static const char *subst(struct arena *a, const char *t,
                         const struct provider *p)
{
    const char *tok[] = { "@F@", "@S@", "@I@", "@P@", "@K@" };
    const char *val[] = { p->filter, p->source, p->id_key, p->prov, p->limit };
    char *out = arena_alloc(a, strlen(t) * 8 + 1);
    char *o = out;
    size_t k;

    assert_non_null(out);
    while (*t) {
        for (k = 0; k < 5; k++) {
            if (!strncmp(t, tok[k], 3))
                break;
        }
        if (k < 5) {
            o = stpcpy(o, val[k]);
            t += 3;
        } else {
            *o++ = *t++;
        }
    }
    *o = '\0';
    return out;
}

#define POD_FMT                                                                \
    "{'kind':'Pod','metadata':{'name':'%s','namespace':'default'},"            \
    "'spec':{'nodeName':'%s','volumes':[%s]}}"

/* Run one case for one provider with the given node JSON template. */
static void run_case(const struct provider *p, const char *name,
                     const char *new_vols, const char *const *existing,
                     size_t n_existing, const char *node_extra,
                     enum pred_code want, const char *reasons)
{
    struct arena a;
    struct vf_case c;
    const char *extra[VF_MAX_OBJS];
    size_t i, n = 0;

    arena_init(&a, 0);
    memset(&c, 0, sizeof(c));
    for (i = 0; listers[i]; i++)
        extra[n++] = subst(&a, listers[i], p);
    extra[n] = NULL;
    for (i = 0; i < n_existing; i++)
        c.objs[i] = arena_sprintf(&a, POD_FMT, arena_sprintf(&a, "e%zu", i),
                                  "node", subst(&a, existing[i], p));
    c.name = arena_sprintf(&a, "%s: %s", p->filter, name);
    c.pod = arena_sprintf(&a, POD_FMT, "new", "", subst(&a, new_vols, p));
    c.node = subst(&a, node_extra, p);
    c.want = want;
    c.want_reasons = reasons;
    vf_run(p->plugin, &c, extra);
    arena_destroy(&a);
}

static void limits_should_match_conflict_tables(void **state)
{
    size_t i, j, k;

    (void)state;
    for (i = 0; i < sizeof(providers) / sizeof(providers[0]); i++) {
        for (j = 0; j < sizeof(cases) / sizeof(cases[0]); j++) {
            const struct limit_case *lc = &cases[j];
            char node[256];

            for (k = 0; k < MAX_EXISTING && lc->existing[k]; k++)
                ;
            snprintf(node, sizeof(node),
                     "{'metadata':{'name':'node'},'status':{'allocatable':"
                     "{'@K@':'%d'}}}",
                     lc->max_vols);
            run_case(&providers[i], lc->name, lc->new_pod, lc->existing, k,
                     node, lc->fits ? PRED_FIT : PRED_UNFIT,
                     lc->fits ? NULL : PRED_REASON_MAX_VOLUME_COUNT);
        }
    }
}

/* n inline volumes of the provider named <prefix>0..; memory from a. */
static const char *inline_vols(struct arena *a, const char *prefix, int n)
{
    char *s = arena_alloc(a, (size_t)n * 64 + 1);
    char *o = s;
    int i;

    assert_non_null(s);
    *o = '\0';
    for (i = 0; i < n; i++)
        o += sprintf(o, "%s{'name':'v%d','@S@':{'@I@':'%s%d'}}", i ? "," : "",
                     i, prefix, i);
    return s;
}

/* existing volumes on a node without allocatable, plus one new volume. */
static void check_default(const struct provider *p, const char *node,
                          int existing, bool fits, const char *what)
{
    struct arena a;
    const char *ex[1];

    arena_init(&a, 0);
    ex[0] = inline_vols(&a, "old", existing);
    run_case(p, what, "{'name':'n','@S@':{'@I@':'new'}}", ex, 1, node,
             fits ? PRED_FIT : PRED_UNFIT,
             fits ? NULL : PRED_REASON_MAX_VOLUME_COUNT);
    arena_destroy(&a);
}

#define PLAIN_NODE "{'metadata':{'name':'node'}}"
#define TYPED_NODE(t)                                                          \
    "{'metadata':{'name':'node','labels':{"                                    \
    "'node.kubernetes.io/instance-type':'" t "'}}}"

/* getMaxVolumeFunc defaults: EBS 39, GCE PD 16, Azure Disk 16, Cinder 256 */
static void limits_should_use_provider_defaults(void **state)
{
    static const int defaults[] = { 39, 16, 16, 256 };
    size_t i;

    (void)state;
    unsetenv("KUBE_MAX_PD_VOLS");
    for (i = 0; i < 4; i++) {
        check_default(&providers[i], PLAIN_NODE, defaults[i] - 1, true,
                      "default limit reached");
        check_default(&providers[i], PLAIN_NODE, defaults[i], false,
                      "default limit exceeded");
    }
}

/* getMaxEBSVolume: "^[cmr]5.*|t3|z1d" selects 25 (Nitro), else 39. */
static void ebs_limit_should_follow_the_instance_type_regex(void **state)
{
    static const struct {
        const char *node;
        int limit;
    } rows[] = {
        { TYPED_NODE("m5.large"), 25 },
        { TYPED_NODE("c5d.xlarge"), 25 },
        { TYPED_NODE("t3.medium"), 25 },
        { TYPED_NODE("a1-z1d"), 25 },
        { TYPED_NODE("xm5.large"), 39 },
        { TYPED_NODE("m4.large"), 39 },
        { "{'metadata':{'name':'node','labels':{"
          "'beta.kubernetes.io/instance-type':'r5.large'}}}",
          25 },
    };
    size_t i;

    (void)state;
    unsetenv("KUBE_MAX_PD_VOLS");
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        check_default(&providers[0], rows[i].node, rows[i].limit - 1, true,
                      rows[i].node);
        check_default(&providers[0], rows[i].node, rows[i].limit, false,
                      rows[i].node);
    }
}

/* TestGetMaxVols: a positive KUBE_MAX_PD_VOLS replaces the default;
 * node allocatable still wins over it. */
static void limits_should_read_kube_max_pd_vols(void **state)
{
    (void)state;
    setenv("KUBE_MAX_PD_VOLS", "5", 1);
    check_default(&providers[1], PLAIN_NODE, 4, true, "env 5, 4 used");
    check_default(&providers[1], PLAIN_NODE, 5, false, "env 5, 5 used");
    check_default(&providers[0], TYPED_NODE("m5.large"), 5, false,
                  "env beats the instance type");
    check_default(&providers[1],
                  "{'metadata':{'name':'node'},'status':{'allocatable':"
                  "{'attachable-volumes-gce-pd':'8'}}}",
                  7, true, "allocatable beats env");
    setenv("KUBE_MAX_PD_VOLS", "-2", 1);
    check_default(&providers[1], PLAIN_NODE, 15, true, "env -2: default");
    check_default(&providers[1], PLAIN_NODE, 16, false, "env -2: default");
    setenv("KUBE_MAX_PD_VOLS", "4x", 1);
    check_default(&providers[1], PLAIN_NODE, 15, true, "env 4x: default");
    unsetenv("KUBE_MAX_PD_VOLS");
}

#define CSINODE(ann)                                                           \
    "{'kind':'CSINode','metadata':{'name':'node','annotations':{"              \
    "'storage.alpha.kubernetes.io/migrated-plugins':'" ann "'}}}"
#define TIGHT_NODE                                                             \
    "{'metadata':{'name':'node'},'status':{'allocatable':{'@K@':'1'}}}"

/* Run "two volumes on a node allowing one" with a CSINode object, as
 * release sem. */
static void check_migrated_as(enum kpe_semantics sem, const struct provider *p,
                              const char *csinode, bool skipped,
                              const char *what)
{
    struct arena a;

    arena_init(&a, 0);
    {
        struct vf_case c;
        const char *extra[2] = { csinode, NULL };

        memset(&c, 0, sizeof(c));
        c.name = what;
        c.objs[0] = subst(&a,
                          "{'kind':'Pod','metadata':{'name':'e0'},'spec':{"
                          "'nodeName':'node','volumes':[" ONE_VOL "]}}",
                          p);
        c.pod = subst(&a,
                      "{'metadata':{'name':'p'},'spec':{'volumes':["
                      "{'name':'n','@S@':{'@I@':'new'}}]}}",
                      p);
        c.node = subst(&a, TIGHT_NODE, p);
        c.want = skipped ? PRED_FIT : PRED_UNFIT;
        c.want_reasons = skipped ? NULL : PRED_REASON_MAX_VOLUME_COUNT;
        vf_run_as(sem, p->plugin, &c, extra);
    }
    arena_destroy(&a);
}

static void check_migrated(const struct provider *p, const char *csinode,
                           bool skipped, const char *what)
{
    check_migrated_as(KPE_SEM_DEFAULT, p, csinode, skipped, what);
}

/* non_csi.go IsMigrated with v1.22's default gates: only OpenStack (Cinder)
 * migration is on; KPE_FEATURE_GATES turns the others on. */
static void limits_should_defer_migrated_plugins_to_csi(void **state)
{
    (void)state;
    unsetenv("KPE_FEATURE_GATES");
    check_migrated(&providers[3], CSINODE("kubernetes.io/cinder"), true,
                   "cinder migrated");
    check_migrated(&providers[3], CSINODE("kubernetes.io/aws-ebs"), false,
                   "cinder not listed");
    check_migrated(&providers[0], CSINODE("kubernetes.io/aws-ebs"), false,
                   "ebs listed, gate off");
    setenv("KPE_FEATURE_GATES", "CSIMigrationAWS=true", 1);
    check_migrated(&providers[0],
                   CSINODE("kubernetes.io/gce-pd,kubernetes.io/aws-ebs"), true,
                   "ebs listed, gate on");
    setenv("KPE_FEATURE_GATES", "CSIMigrationAWS=true,CSIMigration=false", 1);
    check_migrated(&providers[0], CSINODE("kubernetes.io/aws-ebs"), false,
                   "ebs listed, CSIMigration off");
    setenv("KPE_FEATURE_GATES", "CSIMigrationOpenStack=false", 1);
    check_migrated(&providers[3], CSINODE("kubernetes.io/cinder"), false,
                   "cinder gate off");
    unsetenv("KPE_FEATURE_GATES");
    /* D11: CSIMigrationOpenStack is beta and off in v1.20.2
     * (pkg/features/kube_features.go), on from v1.21.0 (#98538) */
    check_migrated_as(KPE_SEM_1_20, &providers[3],
                      CSINODE("kubernetes.io/cinder"), false,
                      "cinder listed, 1.20: gate off by default");
    check_migrated_as(KPE_SEM_1_21, &providers[3],
                      CSINODE("kubernetes.io/cinder"), true,
                      "cinder listed, 1.21: gate on by default");
    setenv("KPE_FEATURE_GATES", "CSIMigrationOpenStack=true", 1);
    check_migrated_as(KPE_SEM_1_20, &providers[3],
                      CSINODE("kubernetes.io/cinder"), true,
                      "cinder listed, 1.20 with the gate turned on");
    unsetenv("KPE_FEATURE_GATES");
}

#define EPOD                                                                   \
    "{'metadata':{'name':'abc','namespace':'test','uid':'12345'},"             \
    "'spec':{'volumes':[{'name':'xyz','ephemeral':{}}]}}"
#define ECLAIM(owner)                                                          \
    "{'kind':'PersistentVolumeClaim','metadata':{'name':'abc-xyz',"            \
    "'namespace':'test'" owner "},'spec':{'storageClassName':'EBS'}}"
#define OWNED                                                                  \
    ",'ownerReferences':[{'apiVersion':'v1','kind':'Pod','name':'abc',"        \
    "'uid':'12345','controller':true}]"
#define EBS_NODE(n)                                                            \
    "{'metadata':{'name':'node'},'status':{'allocatable':{"                    \
    "'attachable-volumes-aws-ebs':'" n "'}}}"
#define EBS_SC                                                                 \
    "{'kind':'StorageClass','metadata':{'name':'EBS'},"                        \
    "'provisioner':'kubernetes.io/aws-ebs'}"

/* TestEphemeralLimits, plus the errors filterVolumes reports. */
static const struct vf_case error_cases[] = {
    { "volume missing",
      EPOD,
      EBS_NODE("1"),
      { NULL },
      PRED_ERROR,
      "looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" "
      "not found" },
    { "volume not owned",
      EPOD,
      EBS_NODE("1"),
      { ECLAIM(""), NULL },
      PRED_ERROR,
      "PVC test/abc-xyz is not owned by pod" },
    { "volume unbound, allowed",
      EPOD,
      EBS_NODE("1"),
      { ECLAIM(OWNED), NULL },
      PRED_FIT,
      NULL },
    { "volume unbound, exceeds limit",
      EPOD,
      EBS_NODE("0"),
      { ECLAIM(OWNED), NULL },
      PRED_UNFIT,
      PRED_REASON_MAX_VOLUME_COUNT },
    { "claim without a name",
      "{'metadata':{'name':'p'},'spec':{'volumes':[{'name':'v',"
      "'persistentVolumeClaim':{'claimName':''}}]}}",
      EBS_NODE("1"),
      { NULL },
      PRED_ERROR,
      "PersistentVolumeClaim had no name" },
    { "pod without volumes",
      "{'metadata':{'name':'p'}}",
      EBS_NODE("0"),
      { NULL },
      PRED_FIT,
      NULL },
};

static void limits_should_report_claim_errors(void **state)
{
    const char *const extra[] = { EBS_SC, NULL };

    (void)state;
    vf_run_table("EBSLimits", error_cases,
                 sizeof(error_cases) / sizeof(error_cases[0]), extra);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(limits_should_match_conflict_tables),
        cmocka_unit_test(limits_should_use_provider_defaults),
        cmocka_unit_test(ebs_limit_should_follow_the_instance_type_regex),
        cmocka_unit_test(limits_should_read_kube_max_pd_vols),
        cmocka_unit_test(limits_should_defer_migrated_plugins_to_csi),
        cmocka_unit_test(limits_should_report_claim_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
