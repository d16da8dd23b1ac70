/*
 * topo_fixtures.h: short specs for the topology tests (PodTopologySpread,
 * InterPodAffinity), in the spirit of upstream's st.MakeNode()/MakePod()
 * wrappers. A node spec is "name key=value ..."; a pod spec is
 * "name node key=value ... [ns:NAMESPACE] [terminating]" where node "-"
 * leaves the pod unassigned. Objects come from the test arena.
 */
#ifndef TESTS_SUPPORT_TOPO_FIXTURES_H
#define TESTS_SUPPORT_TOPO_FIXTURES_H

#include "kube/base/arena.h"
#include "kube/model/types.h"
#include "predicates/framework.h"
#include "tests/support/pred_fixtures.h"

/* Parse a node spec. */
struct kube_node *tf_node(struct arena *a, const char *spec);

/*
 * Parse a pod spec; spec_json, when not NULL, is extra members of "spec"
 * (e.g. "\"affinity\":{...}") written after nodeName.
 */
struct kube_pod *tf_pod(struct arena *a, const char *spec,
                        const char *spec_json);

/*
 * Add NULL-terminated lists of node and pod specs to fc (pods without
 * extra spec members).
 */
void tf_add(struct fx_cluster *fc, const char *const *nodes,
            const char *const *pods);

/*
 * Run plugin's prefilter for pod on fc's cluster as the evaluator does,
 * with a cycle whose scratch is a. Returns the code; *state and r get the
 * results.
 */
enum pred_code tf_prefilter(const char *plugin, const struct kube_pod *pod,
                            const struct cluster *c, struct arena *a,
                            struct pred_cycle *cy, void **state,
                            struct pred_result *r);

#endif
