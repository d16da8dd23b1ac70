/*
 * test_prio_node_prefer_avoid_pods.c: NodePreferAvoidPodsPriority
 * (NodePreferAvoidPods).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/support/score_fixtures.h"

#define PLUGIN "NodePreferAvoidPods"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

/* A node whose preferAvoidPods annotation is the JSON text a (\' for "). */
#define NODE(name, a)                                                          \
    "{'metadata':{'name':'" name "','annotations':{"                           \
    "'scheduler.alpha.kubernetes.io/preferAvoidPods':'" a "'}}}"
#define PLAIN_NODE(name) "{'metadata':{'name':'" name "'}}"
#define AVOID(entries)   "{\\'preferAvoidPods\\':[" entries "]}"
#define ENTRY(kind, uid)                                                       \
    "{\\'podSignature\\':{\\'podController\\':{\\'apiVersion\\':\\'v1\\',"     \
    "\\'kind\\':\\'" kind "\\',\\'name\\':\\'foo\\',\\'uid\\':\\'" uid         \
    "\\',\\'controller\\':true}},\\'reason\\':\\'some reason\\',"              \
    "\\'message\\':\\'some message\\'}"

#define ANNOTATIONS1 AVOID(ENTRY("ReplicationController", "abcdef123456"))
#define ANNOTATIONS2 AVOID(ENTRY("ReplicaSet", "qwert12345"))

#define POD(owner)                                                             \
    "{'metadata':{'name':'p','namespace':'default','ownerReferences':[" owner  \
    "]}}"
#define OWNER(kind, uid, controller)                                           \
    "{'apiVersion':'v1','kind':'" kind "','name':'foo','uid':'" uid            \
    "'" controller "}"
#define CONTROLLER ",'controller':true"

#define TEST_NODES                                                             \
    {                                                                          \
        NODE("machine1", ANNOTATIONS1), NODE("machine2", ANNOTATIONS2),        \
            PLAIN_NODE("machine3")                                             \
    }

/* TestNodePreferAvoidPods (plugins/nodepreferavoidpods) */
static const struct sfx_case upstream[] = {
    { "pod managed by ReplicationController should avoid a node, this node "
      "get lowest priority score",
      POD(OWNER("ReplicationController", "abcdef123456", CONTROLLER)),
      TEST_NODES,
      { NULL },
      { 0, 100, 100 } },
    { "ownership by random controller should be ignored",
      POD(OWNER("RandomController", "abcdef123456", CONTROLLER)),
      TEST_NODES,
      { NULL },
      { 100, 100, 100 } },
    { "owner without Controller field set should be ignored",
      POD(OWNER("ReplicationController", "abcdef123456", "")),
      TEST_NODES,
      { NULL },
      { 100, 100, 100 } },
    { "pod managed by ReplicaSet should avoid a node, this node get lowest "
      "priority score",
      POD(OWNER("ReplicaSet", "qwert12345", CONTROLLER)),
      TEST_NODES,
      { NULL },
      { 100, 0, 100 } },
};

#define RS_POD POD(OWNER("ReplicaSet", "u1", CONTROLLER))

/* Ours: Go's decoding of the annotation (errors mean "nothing to avoid"). */
static const struct sfx_case ours[] = {
    { "kind and uid decide; apiVersion and name are not compared",
      RS_POD,
      { NODE("n1", AVOID("{\\'podSignature\\':{\\'podController\\':{"
                         "\\'apiVersion\\':\\'apps/v1\\',\\'kind\\':"
                         "\\'ReplicaSet\\',\\'name\\':\\'other\\',\\'uid\\':"
                         "\\'u1\\'}}}")),
        NODE("n2", AVOID(ENTRY("ReplicaSet", "u2"))),
        NODE("n3", AVOID(ENTRY("ReplicationController", "u1"))) },
      { NULL },
      { 0, 100, 100 } },
    { "field names match case-insensitively, as encoding/json does",
      RS_POD,
      { NODE("n1", "{\\'PREFERAVOIDPODS\\':[{\\'podsignature\\':{"
                   "\\'PodController\\':{\\'Kind\\':\\'ReplicaSet\\',"
                   "\\'UID\\':\\'u1\\'}}}]}") },
      { NULL },
      { 0 } },
    { "invalid JSON, a wrong type anywhere, or a bad evictionTime: 100",
      RS_POD,
      { NODE("n1", "{\\'preferAvoidPods\\':["),
        NODE("n2", AVOID("{\\'reason\\':7}," ENTRY("ReplicaSet", "u1"))),
        NODE("n3", AVOID("{\\'evictionTime\\':\\'yesterday\\',"
                         "\\'podSignature\\':{\\'podController\\':{"
                         "\\'kind\\':\\'ReplicaSet\\',\\'uid\\':\\'u1\\'}}}")),
        NODE("n4", "[]"), NODE("n5", "{\\'preferAvoidPods\\':{}}") },
      { NULL },
      { 100, 100, 100, 100, 100 } },
    { "null fields, unknown keys and RFC 3339 times are accepted; entries "
      "without a podController are skipped (v1.22 would dereference nil)",
      RS_POD,
      { NODE("n1", AVOID("{\\'podSignature\\':{\\'podController\\':null}},"
                         "null,{\\'evictionTime\\':\\'2021-02-28T10:00:00."
                         "5+01:00\\',\\'extra\\':[1,{}],\\'reason\\':null,"
                         "\\'podSignature\\':{\\'podController\\':{"
                         "\\'kind\\':\\'ReplicaSet\\',\\'uid\\':\\'u1\\',"
                         "\\'controller\\':null}}}")),
        NODE("n2", "null"), NODE("n3", "") },
      { NULL },
      { 0, 100, 100 } },
    { "February 29th only in a leap year",
      RS_POD,
      { NODE("n1", AVOID("{\\'evictionTime\\':\\'2024-02-29T00:00:00Z\\',"
                         "\\'podSignature\\':{\\'podController\\':{"
                         "\\'kind\\':\\'ReplicaSet\\',\\'uid\\':\\'u1\\'}}}")),
        NODE("n2",
             AVOID("{\\'evictionTime\\':\\'2023-02-29T00:00:00Z\\',"
                   "\\'podSignature\\':{\\'podController\\':{"
                   "\\'kind\\':\\'ReplicaSet\\',\\'uid\\':\\'u1\\'}}}")) },
      { NULL },
      { 0, 100 } },
};

static void prefer_avoid_pods_should_match_upstream_table(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, upstream, N(upstream));
}

static void prefer_avoid_pods_should_decode_annotation_as_go(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, ours, N(ours));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prefer_avoid_pods_should_match_upstream_table),
        cmocka_unit_test(prefer_avoid_pods_should_decode_annotation_as_go),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
