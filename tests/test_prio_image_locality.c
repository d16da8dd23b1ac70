/*
 * test_prio_image_locality.c: ImageLocalityPriority (ImageLocality).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/support/score_fixtures.h"

#define PLUGIN "ImageLocality"
#define N(a)   (sizeof(a) / sizeof((a)[0]))

#define C(image) "{'name':'c','image':'" image "'}"
#define POD(containers)                                                        \
    "{'metadata':{'name':'p'},'spec':{'containers':[" containers "]}}"
#define NODE(name, images)                                                     \
    "{'metadata':{'name':'" name "'},'status':{'images':[" images "]}}"
#define IMAGE(names, size) "{'names':[" names "],'sizeBytes':" size "}"

/* sizes in bytes: n * mb */
#define MB10   "10485760"
#define MB20   "20971520"
#define MB30   "31457280"
#define MB40   "41943040"
#define MB250  "262144000"
#define MB300  "314572800"
#define MB600  "629145600"
#define MB900  "943718400"
#define MB1000 "1048576000"
#define MB2000 "2097152000"
#define MB4000 "4194304000"

#define TEST40250    POD(C("gcr.io/40") "," C("gcr.io/250"))
#define TEST40300    POD(C("gcr.io/40") "," C("gcr.io/300"))
#define TEST_MIN_MAX POD(C("gcr.io/10") "," C("gcr.io/4000"))
#define TEST300600900                                                          \
    POD(C("gcr.io/300") "," C("gcr.io/600") "," C("gcr.io/900"))
#define TEST3040 POD(C("gcr.io/30") "," C("gcr.io/40"))

#define NODE403002000(name)                                                    \
    NODE(name, IMAGE("'gcr.io/40:latest','gcr.io/40:v1','gcr.io/40:v1'",       \
                     MB40) "," IMAGE("'gcr.io/300:latest','gcr.io/300:v1'",    \
                                     MB300) "," IMAGE("'gcr.io/2000:latest'",  \
                                                      MB2000))
#define NODE25010(name)                                                        \
    NODE(name, IMAGE("'gcr.io/250:latest'", MB250) "," IMAGE(                  \
                   "'gcr.io/10:latest','gcr.io/10:v1'", MB10))
#define NODE60040900(name)                                                     \
    NODE(name, IMAGE("'gcr.io/600:latest'", MB600) "," IMAGE(                  \
                   "'gcr.io/40:latest'",                                       \
                   MB40) "," IMAGE("'gcr.io/900:latest'", MB900))
#define NODE300600900(name)                                                    \
    NODE(name, IMAGE("'gcr.io/300:latest'", MB300) "," IMAGE(                  \
                   "'gcr.io/600:latest'",                                      \
                   MB600) "," IMAGE("'gcr.io/900:latest'", MB900))
#define NODE400030(name)                                                       \
    NODE(name, IMAGE("'gcr.io/4000:latest'",                                   \
                     MB4000) "," IMAGE("'gcr.io/30:latest'", MB30))
#define NODE203040(name)                                                       \
    NODE(name, IMAGE("'gcr.io/20:latest'", MB20) "," IMAGE(                    \
                   "'gcr.io/30:latest'", MB30) "," IMAGE("'gcr.io/40:latest'", \
                                                         MB40))
#define NO_IMAGES(name) "{'metadata':{'name':'" name "'}}"

/* TestImageLocalityPriority (plugins/imagelocality/image_locality_test.go) */
static const struct sfx_case upstream[] = {
    { "two images spread on two nodes, prefer the larger image one",
      TEST40250,
      { NODE403002000("node1"), NODE25010("node2") },
      { NULL },
      { 0, 5 } },
    { "two images on one node, prefer this node",
      TEST40300,
      { NODE403002000("node1"), NODE25010("node2") },
      { NULL },
      { 7, 0 } },
    { "if exceed limit, use limit",
      TEST_MIN_MAX,
      { NODE400030("node1"), NODE25010("node2") },
      { NULL },
      { 100, 0 } },
    { "if exceed limit, use limit (with node which has no images present)",
      TEST_MIN_MAX,
      { NODE400030("node1"), NODE25010("node2"), NO_IMAGES("node3") },
      { NULL },
      { 66, 0, 0 } },
    { "pod with multiple large images, node2 is preferred",
      TEST300600900,
      { NODE60040900("node1"), NODE300600900("node2"), NO_IMAGES("node3") },
      { NULL },
      { 32, 36, 0 } },
    { "pod with multiple small images",
      TEST3040,
      { NODE203040("node1"), NODE400030("node2") },
      { NULL },
      { 1, 0 } },
};

#define DIGEST                                                                 \
    "root@sha256:"                                                             \
    "4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2"
#define ONE(image, name)                                                       \
    {                                                                          \
        "normalizedImageName: " image, POD(C(image)),                          \
            { NODE("n1", IMAGE("'" name "'", MB1000)) }, { NULL },             \
        {                                                                      \
            100                                                                \
        }                                                                      \
    }

/*
 * TestNormalizedImageName, through the score (a 1000 MiB image on the only
 * node scores 100 when the names match), and v1.22 specifics.
 */
static const struct sfx_case ours[] = {
    ONE("root", "root:latest"),
    ONE("gcr.io:5000/root", "gcr.io:5000/root:latest"),
    ONE("root:tag", "root:tag"),
    ONE(DIGEST, DIGEST),
    { "no registry normalisation: nginx is not docker.io/library/nginx",
      POD(C("nginx")),
      { NODE("n1", IMAGE("'docker.io/library/nginx:latest'", MB1000)) },
      { NULL },
      { 0 } },
    { "v1.22 ignores init containers (later upstream scores node1 6)",
      "{'metadata':{'name':'p'},'spec':{'containers':[" C(
          "gcr.io/30") "],'initContainers':[" C("gcr.io/300") "]}}",
      { NODE403002000("node1"), NODE203040("node2") },
      { NULL },
      { 0, 0 } },
    { "the spread counts every node of the cluster (priorities.md 3.12)",
      POD(C("img") "," C("absent")),
      { NODE("n1", IMAGE("'img:latest'", "524288000")),
        NODE("n2", IMAGE("'img:latest'", "524288000")),
        NODE("n3", IMAGE("'img:latest'", "524288000")), NO_IMAGES("n4"),
        NO_IMAGES("n5"), NO_IMAGES("n6"), NO_IMAGES("n7"), NO_IMAGES("n8") },
      { NULL },
      /* 500 MiB x 3/8 = 196608000; 100 x (196608000 - 23 MiB) / (2000 MiB -
       * 23 MiB) = 8 */
      { 8, 8, 8, 0, 0, 0, 0, 0 } },
};

static void image_locality_should_match_upstream_table(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, upstream, N(upstream));
}

static void image_locality_should_normalize_names_as_v1_22(void **state)
{
    (void)state;
    sfx_run_table(PLUGIN, NULL, ours, N(ours));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(image_locality_should_match_upstream_table),
        cmocka_unit_test(image_locality_should_normalize_names_as_v1_22),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
