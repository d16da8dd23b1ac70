/*
 * score_fixtures.h: table runner for score plugin tests. A case gives the
 * incoming pod, the nodes (all feasible, in order) and the pods already
 * on them as JSON texts in which ' stands for " (so tables stay
 * readable), and the final score expected for each node.
 */
#ifndef TESTS_SUPPORT_SCORE_FIXTURES_H
#define TESTS_SUPPORT_SCORE_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "framework/semantics.h"
#include "kube/base/arena.h"

#define SFX_MAX 8

struct sfx_case {
    const char *name;
    const char *pod;            /* the pod being scheduled */
    const char *nodes[SFX_MAX]; /* NULL-terminated; F in this order */
    const char *pods[SFX_MAX];  /* existing pods (spec.nodeName set) */
    int64_t want[SFX_MAX];      /* final score of nodes[i] */
};

/* ---- JSON builders for the resource tables (upstream's makeNode etc.) ---- */

/* A node with allocatable cpu (e.g. "4000m") and memory (e.g. "10000"). */
#define SFX_NODE(name, cpu, mem)                                               \
    "{'metadata':{'name':'" name "'},'status':{'allocatable':{'cpu':'" cpu     \
    "','memory':'" mem "'}}}"
/* The same with more allocatable entries, a JSON fragment ("'a/b':'4'"). */
#define SFX_NODE_EXT(name, cpu, mem, ext)                                      \
    "{'metadata':{'name':'" name "'},'status':{'allocatable':{'cpu':'" cpu     \
    "','memory':'" mem "'," ext "}}}"
/* A container whose requests are the JSON fragment req ("'cpu':'1'"). */
#define SFX_CONTAINER(req) "{'name':'c','resources':{'requests':{" req "}}}"
/* A container requesting cpu and memory. */
#define SFX_REQ(cpu, mem) SFX_CONTAINER("'cpu':'" cpu "','memory':'" mem "'")
/* A pod on node ("" for the incoming pod) with the containers fragment. */
#define SFX_POD(name, node, containers)                                        \
    "{'metadata':{'name':'" name "'},'spec':{'nodeName':'" node                \
    "','containers':[" containers "]}}"

/* The pod specs the noderesources tests share (noResources, cpuOnly, ...). */
#define SFX_NO_RESOURCES(name, node) SFX_POD(name, node, "")
#define SFX_CPU_ONLY(name, node)                                               \
    SFX_POD(name, node, SFX_REQ("1000m", "0") "," SFX_REQ("2000m", "0"))
#define SFX_CPU_AND_MEMORY(name, node)                                         \
    SFX_POD(name, node, SFX_REQ("1000m", "2000") "," SFX_REQ("2000m", "3000"))
#define SFX_NON_ZERO_CONTAINER(name, node) SFX_POD(name, node, "{'name':'c'}")

/* s with every ' replaced by ", copied into a. */
const char *sfx_json(struct arena *a, const char *s);

/*
 * Run the score plugin `plugin` with args on case c through fx_run_score
 * (prescore, score, normalize); fail the test, naming the case, on any
 * difference in scores or error.
 */
void sfx_run(const char *plugin, const void *args, const struct sfx_case *c);

/* Run case c (its want is unused) and insist the plugin fails with want. */
void sfx_run_error(const char *plugin, const void *args,
                   const struct sfx_case *c, const char *want);

/* sfx_run for each of n cases. */
void sfx_run_table(const char *plugin, const void *args,
                   const struct sfx_case *cases, size_t n);

/* sfx_run_table evaluated as release sem (--semantics, issue 25). */
void sfx_run_table_as(enum kpe_semantics sem, const char *plugin,
                      const void *args, const struct sfx_case *cases, size_t n);

#endif
