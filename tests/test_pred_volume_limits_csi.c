/*
 * test_pred_volume_limits_csi.c: MaxCSIVolumeCountPred (NodeVolumeLimits
 * plugin), ported from plugins/nodevolumelimits/csi_test.go TestCSILimits
 * (v1.21/v1.22 rows; the fake listers are rebuilt as JSON objects).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kube/base/arena.h"
#include "predicates/plugins.h"
#include "predicates/volume_limits.h"
#include "tests/support/vol_fixtures.h"

#define NODE_NAME "node-for-max-pd-test-1"
#define EBS       "ebs.csi.aws.com"
#define GCE       "pd.csi.storage.gke.io"
#define INTREE    "kubernetes.io/aws-ebs"
#define HOSTPATH  "kubernetes.io/hostpath"

#define PVCV(n) "{'name':'v','persistentVolumeClaim':{'claimName':'" n "'}}"
#define POD(name, vols)                                                        \
    "{'kind':'Pod','metadata':{'name':'" name "'},'spec':{'nodeName':'@N@',"   \
    "'volumes':[" vols "]}}"

#define RUNNING    POD("running", PVCV("csi-" EBS "-3"))
#define PENDING    POD("pending", PVCV("csi-4"))
#define UNBOUND2   POD("unbound2", PVCV("csi-4"))
#define MISSING_PV POD("missingpv", PVCV("csi-6"))
#define NO_SC      POD("nosc", PVCV("csi-5"))
#define GCE_TWO    POD("gcetwo", PVCV("csi-" GCE "-1") "," PVCV("csi-" GCE "-2"))
#define INTREE_ONE POD("intreeone", PVCV("csi-" INTREE "-0"))
#define INTREE_TWO                                                             \
    POD("intreetwo", PVCV("csi-" INTREE "-1") "," PVCV("csi-" INTREE "-2"))
#define EBS_ONE      POD("ebsone", PVCV("csi-" EBS "-0"))
#define EBS_TWO      POD("ebstwo", PVCV("csi-" EBS "-1") "," PVCV("csi-" EBS "-2"))
#define HOSTPATH_ONE POD("hostpathone", PVCV("csi-" HOSTPATH "-0"))
#define INLINE_EBS                                                             \
    POD("inline", "{'name':'i','awsElasticBlockStore':{'volumeID':"            \
                  "'aws-inline1'}}")
#define CM_SECRET                                                              \
    POD("cm", "{'name':'c','configMap':{'name':'c'}},"                         \
              "{'name':'s','secret':{'secretName':'s'}}")
#define PVC_CM_SECRET                                                          \
    POD("pvccm",                                                               \
        "{'name':'c','configMap':{'name':'c'}},"                               \
        "{'name':'s','secret':{'secretName':'s'}}," PVCV("csi-" EBS "-0"))
#define EPHEMERAL                                                              \
    "{'kind':'Pod','metadata':{'name':'abc','namespace':'test','uid':"         \
    "'12345'},'spec':{'nodeName':'@N@','volumes':[{'name':'xyz',"              \
    "'ephemeral':{}}]}}"
#define EPHEMERAL_TWO                                                          \
    "{'kind':'Pod','metadata':{'name':'abc','namespace':'test','uid':"         \
    "'12345II'},'spec':{'nodeName':'@N@','volumes':[{'name':'x',"              \
    "'ephemeral':{}},{'name':'y','ephemeral':{}}]}}"
#define ECLAIM(name, owner_uid)                                                \
    "{'kind':'PersistentVolumeClaim','metadata':{'name':'" name "',"           \
    "'namespace':'test','ownerReferences':[{'apiVersion':'v1','kind':'Pod',"   \
    "'name':'abc','uid':'" owner_uid "','controller':true}]},"                 \
    "'spec':{'storageClassName':'csi-sc'}}"
#define CONFLICTING                                                            \
    "{'kind':'PersistentVolumeClaim','metadata':{'name':'abc-xyz',"            \
    "'namespace':'test'},'spec':{'storageClassName':'csi-sc'}}"

enum limit_source { NONE, ON_NODE, ON_CSINODE, BOTH, CSINODE_NO_LIMIT };

struct csi_case {
    const char *name;
    const char *new_pod;
    const char *existing[4];
    const char *extra_claims[2];
    int max_vols;
    const char *drivers[2];
    enum limit_source source;
    bool migration;
    enum pred_code want;
    const char *reason;
};

#define MAX PRED_REASON_MAX_VOLUME_COUNT
#define LOOKUP_ERR                                                             \
    "looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" not found"

/* TestCSILimits */
static const struct csi_case cases[] = {
    { "fits when node volume limit >= new pods CSI volume",
      EBS_ONE,
      { RUNNING, EBS_TWO },
      { NULL },
      4,
      { EBS },
      ON_CSINODE,
      false,
      PRED_FIT,
      NULL },
    { "doesn't when node volume limit <= pods CSI volume",
      EBS_ONE,
      { RUNNING, EBS_TWO },
      { NULL },
      2,
      { EBS },
      ON_CSINODE,
      false,
      PRED_UNFIT,
      MAX },
    { "should when driver does not support volume limits",
      EBS_ONE,
      { RUNNING, EBS_TWO },
      { NULL },
      2,
      { EBS },
      CSINODE_NO_LIMIT,
      false,
      PRED_FIT,
      NULL },
    { "count pending PVCs towards volume limit <= pods CSI volume",
      EBS_ONE,
      { PENDING, EBS_TWO },
      { NULL },
      2,
      { EBS },
      ON_CSINODE,
      false,
      PRED_UNFIT,
      MAX },
    { "count multiple pending pvcs towards volume limit >= pods CSI volume",
      EBS_ONE,
      { PENDING, UNBOUND2, EBS_TWO },
      { NULL },
      4,
      { EBS },
      ON_CSINODE,
      false,
      PRED_FIT,
      NULL },
    { "should count PVCs with invalid PV name but valid SC",
      EBS_ONE,
      { MISSING_PV, EBS_TWO },
      { NULL },
      2,
      { EBS },
      ON_CSINODE,
      false,
      PRED_UNFIT,
      MAX },
    { "don't count pvcs with missing SC towards volume limit",
      EBS_ONE,
      { RUNNING, NO_SC },
      { NULL },
      2,
      { EBS },
      ON_CSINODE,
      false,
      PRED_FIT,
      NULL },
    { "count pvcs with the same type towards volume limit",
      EBS_ONE,
      { GCE_TWO, EBS_TWO },
      { NULL },
      2,
      { EBS, GCE },
      ON_CSINODE,
      false,
      PRED_UNFIT,
      MAX },
    { "don't count pvcs with different type towards volume limit",
      GCE_TWO,
      { EBS_TWO, RUNNING },
      { NULL },
      2,
      { EBS, GCE },
      ON_CSINODE,
      false,
      PRED_FIT,
      NULL },
    { "should count in-tree volumes if migration is enabled",
      INTREE_ONE,
      { INTREE_TWO },
      { NULL },
      2,
      { INTREE, EBS },
      ON_CSINODE,
      true,
      PRED_UNFIT,
      MAX },
    { "should not count in-tree volume if migration is disabled",
      INTREE_ONE,
      { INTREE_TWO },
      { NULL },
      2,
      { INTREE, EBS },
      ON_CSINODE,
      false,
      PRED_FIT,
      NULL },
    { "nil csi node",
      INLINE_EBS,
      { INTREE_TWO },
      { NULL },
      0,
      { INTREE, EBS },
      NONE,
      true,
      PRED_FIT,
      NULL },
    { "should count unbound in-tree volumes if migration is enabled",
      PENDING,
      { INTREE_TWO },
      { NULL },
      2,
      { INTREE, EBS },
      ON_CSINODE,
      true,
      PRED_UNFIT,
      MAX },
    { "should not count unbound in-tree volume if migration is disabled",
      PENDING,
      { INTREE_TWO },
      { NULL },
      2,
      { INTREE, EBS },
      ON_CSINODE,
      false,
      PRED_FIT,
      NULL },
    { "should not limit pod if volume used does not report limits",
      INTREE_ONE,
      { INTREE_TWO },
      { NULL },
      2,
      { INTREE, EBS },
      CSINODE_NO_LIMIT,
      true,
      PRED_FIT,
      NULL },
    { "should not count non-migratable in-tree volumes",
      HOSTPATH_ONE,
      { EBS_TWO },
      { NULL },
      2,
      { HOSTPATH, EBS },
      ON_CSINODE,
      true,
      PRED_FIT,
      NULL },
    { "should count in-tree and csi volumes if migration is enabled (when "
      "scheduling in-tree volumes)",
      INTREE_ONE,
      { EBS_TWO },
      { NULL },
      2,
      { INTREE, EBS },
      ON_CSINODE,
      true,
      PRED_UNFIT,
      MAX },
    { "should count in-tree and csi volumes if migration is enabled (when "
      "scheduling csi volumes)",
      EBS_ONE,
      { INTREE_TWO },
      { NULL },
      2,
      { INTREE, EBS },
      ON_CSINODE,
      true,
      PRED_UNFIT,
      MAX },
    { "should not count in-tree and count csi volumes if migration is "
      "disabled (when scheduling csi volumes)",
      EBS_ONE,
      { INTREE_TWO },
      { NULL },
      2,
      { INTREE, EBS },
      ON_CSINODE,
      false,
      PRED_FIT,
      NULL },
    { "ephemeral volume missing",
      EPHEMERAL,
      { NULL },
      { NULL },
      0,
      { EBS },
      CSINODE_NO_LIMIT,
      false,
      PRED_ERROR,
      LOOKUP_ERR },
    { "ephemeral volume not owned",
      EPHEMERAL,
      { NULL },
      { CONFLICTING },
      0,
      { EBS },
      CSINODE_NO_LIMIT,
      false,
      PRED_ERROR,
      "PVC test/abc-xyz is not owned by pod" },
    { "ephemeral volume unbound",
      EPHEMERAL,
      { NULL },
      { ECLAIM("abc-xyz", "12345") },
      0,
      { EBS },
      CSINODE_NO_LIMIT,
      false,
      PRED_FIT,
      NULL },
    { "ephemeral doesn't when node volume limit <= pods CSI volume",
      EPHEMERAL,
      { RUNNING, EBS_TWO },
      { ECLAIM("abc-xyz", "12345") },
      2,
      { EBS },
      ON_CSINODE,
      false,
      PRED_UNFIT,
      MAX },
    { "ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
      EBS_ONE,
      { RUNNING, EPHEMERAL_TWO },
      { ECLAIM("abc-x", "12345II"), ECLAIM("abc-y", "12345II") },
      2,
      { EBS },
      ON_CSINODE,
      false,
      PRED_UNFIT,
      MAX },
    { "persistent doesn't when node volume limit <= pods ephemeral CSI "
      "volume + persistent volume",
      EBS_ONE,
      { RUNNING, EPHEMERAL, EBS_TWO },
      { ECLAIM("abc-xyz", "12345") },
      3,
      { EBS },
      ON_CSINODE,
      false,
      PRED_UNFIT,
      MAX },
    { "persistent okay when node volume limit > pods ephemeral CSI volume + "
      "persistent volume",
      EBS_ONE,
      { RUNNING, EPHEMERAL, EBS_TWO },
      { ECLAIM("abc-xyz", "12345") },
      5,
      { EBS },
      ON_CSINODE,
      false,
      PRED_FIT,
      NULL },
    { "skip Filter when the pod only uses secrets and configmaps",
      CM_SECRET,
      { NULL },
      { NULL },
      2,
      { EBS },
      ON_CSINODE,
      false,
      PRED_FIT,
      NULL },
    { "don't skip Filter when the pod has pvcs",
      PVC_CM_SECRET,
      { NULL },
      { NULL },
      2,
      { EBS },
      ON_CSINODE,
      false,
      PRED_FIT,
      NULL },
    /* Not upstream rows: where the limits come from. */
    { "limit from node allocatable",
      EBS_ONE,
      { RUNNING, EBS_TWO },
      { NULL },
      2,
      { EBS },
      ON_NODE,
      false,
      PRED_UNFIT,
      MAX },
    { "limit from node allocatable, room left",
      EBS_ONE,
      { RUNNING, EBS_TWO },
      { NULL },
      4,
      { EBS },
      ON_NODE,
      false,
      PRED_FIT,
      NULL },
    { "no limits at all",
      EBS_ONE,
      { RUNNING, EBS_TWO },
      { NULL },
      0,
      { EBS },
      NONE,
      false,
      PRED_FIT,
      NULL },
};

/* getFakeCSIPVLister + getFakeCSIPVCLister for one driver. */
static void add_driver_objects(struct arena *a, const char *d,
                               const char **objs, size_t *n)
{
    int j;

    for (j = 0; j < 4; j++) {
        const char *name = arena_sprintf(a, "csi-%s-%d", d, j);
        const char *src;

        if (!strcmp(d, INTREE))
            src = arena_sprintf(a, "'awsElasticBlockStore':{'volumeID':'%s'}",
                                name);
        else if (!strcmp(d, HOSTPATH))
            src = "'hostPath':{'path':'/tmp'}";
        else
            src = arena_sprintf(a, "'csi':{'driver':'%s','volumeHandle':'%s'}",
                                d, name);
        objs[(*n)++] = arena_sprintf(a,
                                     "{'kind':'PersistentVolume','metadata':"
                                     "{'name':'%s'},'spec':{%s}}",
                                     name, src);
        objs[(*n)++] = arena_sprintf(a,
                                     "{'kind':'PersistentVolumeClaim',"
                                     "'metadata':{'name':'%s'},'spec':"
                                     "{'volumeName':'%s'}}",
                                     name, name);
    }
}

/* getNodeWithPodAndVolumeLimits: the CSINode (or NULL) and the node. */
static const char *csinode_json(struct arena *a, const struct csi_case *c)
{
    const char *drivers = "";
    size_t i;

    if (c->source != ON_CSINODE && c->source != BOTH &&
        c->source != CSINODE_NO_LIMIT)
        return NULL;
    for (i = 0; i < 2 && c->drivers[i]; i++) {
        const char *alloc =
            c->source == CSINODE_NO_LIMIT
                ? ""
                : arena_sprintf(a, ",'allocatable':{'count':%d}", c->max_vols);

        drivers = arena_sprintf(a, "%s%s{'name':'%s','nodeID':'%s'%s}", drivers,
                                i ? "," : "", c->drivers[i], NODE_NAME, alloc);
    }
    return arena_sprintf(a,
                         "{'kind':'CSINode','metadata':{'name':'%s',"
                         "'annotations':{'storage.alpha.kubernetes.io/"
                         "migrated-plugins':'%s'}},'spec':{'drivers':[%s]}}",
                         NODE_NAME, INTREE, drivers);
}

static const char *node_json(struct arena *a, const struct csi_case *c)
{
    const char *alloc = "";
    size_t i;

    for (i = 0; i < 2 && c->drivers[i]; i++) {
        if (c->source != ON_NODE && c->source != BOTH)
            break;
        alloc = arena_sprintf(a, "%s%s'attachable-volumes-csi-%s':'%d'", alloc,
                              i ? "," : "", c->drivers[i], c->max_vols);
    }
    return arena_sprintf(a,
                         "{'metadata':{'name':'%s'},'status':{'allocatable':"
                         "{%s}}}",
                         NODE_NAME, alloc);
}

/* s with every @N@ replaced by node (memory from a). */
static const char *with_node(struct arena *a, const char *s, const char *node)
{
    const char *at = strstr(s, "@N@");

    if (!at)
        return s;
    return arena_sprintf(a, "%.*s%s%s", (int)(at - s), s, node, at + 3);
}

static void run_case(const struct csi_case *c)
{
    const char *extra[VF_MAX_OBJS];
    struct vf_case vc;
    struct arena a;
    size_t i, n = 0, k = 0;

    arena_init(&a, 0);
    memset(&vc, 0, sizeof(vc));
    for (i = 0; i < 2 && c->drivers[i]; i++)
        add_driver_objects(&a, c->drivers[i], extra, &n);
    extra[n++] = "{'kind':'PersistentVolumeClaim','metadata':{'name':'csi-4'},"
                 "'spec':{'storageClassName':'csi-sc'}}";
    extra[n++] = "{'kind':'PersistentVolumeClaim','metadata':{'name':'csi-5'},"
                 "'spec':{}}";
    extra[n++] = "{'kind':'PersistentVolumeClaim','metadata':{'name':'csi-6'},"
                 "'spec':{'storageClassName':'csi-sc','volumeName':"
                 "'missing-in-action'}}";
    extra[n++] = arena_sprintf(&a,
                               "{'kind':'StorageClass','metadata':{'name':"
                               "'csi-sc'},'provisioner':'%s'}",
                               c->drivers[0]);
    extra[n] = NULL;
    for (i = 0; i < 4 && c->existing[i]; i++)
        vc.objs[k++] = with_node(&a, c->existing[i], NODE_NAME);
    for (i = 0; i < 2 && c->extra_claims[i]; i++)
        vc.objs[k++] = c->extra_claims[i];
    if (csinode_json(&a, c))
        vc.objs[k++] = csinode_json(&a, c);
    vc.name = c->name;
    vc.pod = with_node(&a, c->new_pod, "");
    vc.node = node_json(&a, c);
    vc.want = c->want;
    vc.want_reasons = c->reason;
    if (c->migration)
        setenv("KPE_FEATURE_GATES", "CSIMigration=true,CSIMigrationAWS=true",
               1);
    else
        unsetenv("KPE_FEATURE_GATES");
    vf_run("NodeVolumeLimits", &vc, extra);
    unsetenv("KPE_FEATURE_GATES");
    arena_destroy(&a);
}

static void csi_limits_should_match_upstream_table(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_case(&cases[i]);
}

#define LONG_DRIVER "example.com/a-very-long-csi-driver-name-for-testing.io"
#define LONG_KEY                                                               \
    "attachable-volumes-csi-example.com/a-very-longaf2aeb9c2f5ad861"
#define LONG_PV(i)                                                             \
    "{'kind':'PersistentVolume','metadata':{'name':'lv" i "'},'spec':{'csi':"  \
    "{'driver':'" LONG_DRIVER "','volumeHandle':'h" i "'}}}",                  \
        "{'kind':'PersistentVolumeClaim','metadata':{'name':'lc" i "'},"       \
        "'spec':{'volumeName':'lv" i "'}}"

/* GetCSIAttachLimitKey shortens long driver names with a SHA-1 suffix. */
static const struct vf_case long_cases[] = {
    { "hashed key limit reached",
      "{'metadata':{'name':'p'},'spec':{'volumes':[" PVCV("lc1") "]}}",
      "{'metadata':{'name':'n'},'status':{'allocatable':{'" LONG_KEY "':'1'}}}",
      { "{'kind':'Pod','metadata':{'name':'e'},'spec':{'nodeName':'n',"
        "'volumes':[" PVCV("lc0") "]}}",
        NULL },
      PRED_UNFIT,
      MAX },
    { "hashed key limit not reached",
      "{'metadata':{'name':'p'},'spec':{'volumes':[" PVCV("lc1") "]}}",
      "{'metadata':{'name':'n'},'status':{'allocatable':{'" LONG_KEY "':'2'}}}",
      { "{'kind':'Pod','metadata':{'name':'e'},'spec':{'nodeName':'n',"
        "'volumes':[" PVCV("lc0") "]}}",
        NULL },
      PRED_FIT,
      NULL },
    { "CSINode count wins over node allocatable",
      "{'metadata':{'name':'p'},'spec':{'volumes':[" PVCV("lc1") "]}}",
      "{'metadata':{'name':'n'},'status':{'allocatable':{'" LONG_KEY "':'2'}}}",
      { "{'kind':'Pod','metadata':{'name':'e'},'spec':{'nodeName':'n',"
        "'volumes':[" PVCV("lc0") "]}}",
        "{'kind':'CSINode','metadata':{'name':'n'},'spec':{'drivers':[{"
        "'name':'" LONG_DRIVER "','allocatable':{'count':1}}]}}",
        NULL },
      PRED_UNFIT,
      MAX },
};

static void csi_limits_should_hash_long_driver_names(void **state)
{
    const char *const extra[] = { LONG_PV("0"), LONG_PV("1"), NULL };

    (void)state;
    vf_run_table("NodeVolumeLimits", long_cases,
                 sizeof(long_cases) / sizeof(long_cases[0]), extra);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csi_limits_should_match_upstream_table),
        cmocka_unit_test(csi_limits_should_hash_long_driver_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
