/*
 * topo_fixtures.h: compact builders for the topology score plugin tests.
 * Nodes and simple pods are written as short specs instead of JSON:
 *
 *   nodes: "node-a:zone=zone1,kubernetes.io/hostname=node-a;node-b"
 *   pods:  "p-a1@node-a:foo=;ns1/p-a2@node-a:foo=;p-b1@node-b!:foo="
 *
 * Entries are separated by ';', labels by ','. A pod is [namespace/]name
 * @node, then '!' when it is terminating (deletionTimestamp set); a
 * leading '/' gives the empty namespace. A node entry starting with '{'
 * is a whole Node in JSON. Anything else (pods with
 * affinity, services, controllers) goes in as JSON documents.
 */
#ifndef TESTS_SUPPORT_PRIO_TOPO_FIXTURES_H
#define TESTS_SUPPORT_PRIO_TOPO_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "tests/support/pred_fixtures.h"

/* Add the nodes of spec (may be NULL or ""); names go to names[*n...]. */
void ptf_add_nodes(struct fx_cluster *fc, const char *spec, const char **names,
                   size_t *n);

/* Add the pods of spec (may be NULL or ""). */
void ptf_add_pods(struct fx_cluster *fc, const char *spec);

/* Add each JSON document of a NULL-terminated list (list may be NULL). */
void ptf_add_docs(struct fx_cluster *fc, const char *const *docs);

/* The JSON object text of a labels spec "k=v,k2=" (from fc's arena). */
const char *ptf_labels_json(struct arena *a, const char *spec);

/*
 * One scoring case: build the cluster from feasible nodes (F, in order),
 * failed nodes (in the cluster but not in F), simple pods, JSON
 * documents; run plugin with args for the pod JSON; compare with want[]
 * (one per feasible node). Prints each difference with the case name and
 * returns 1 when there was one, else 0 (errors fail the test at once).
 */
struct ptf_case {
    const char *name;
    const char *pod; /* JSON */
    const char *nodes;
    const char *failed;
    const char *pods;
    const char *docs[8]; /* JSON documents, NULL-terminated */
    int64_t want[8];
};

int ptf_run_case(const char *plugin, const void *args,
                 const struct ptf_case *tc);

/* The same evaluated as release sem (--semantics, issue 25). */
int ptf_run_case_as(enum kpe_semantics sem, const char *plugin,
                    const void *args, const struct ptf_case *tc);

#endif
