/*
 * pod_topology_spread.h: the PreScore state of PodTopologySpread scoring
 * (plugins/podtopologyspread/scoring.go preScoreState), visible so tests
 * can check it as upstream's TestPreScoreStateEmptyNodes does.
 */
#ifndef PRIORITIES_POD_TOPOLOGY_SPREAD_H
#define PRIORITIES_POD_TOPOLOGY_SPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/model/types.h"
#include "kube/cluster/topology_counts.h"
#include "framework/args.h"
#include "priorities/priorities.h"

#define PRIO_LABEL_HOSTNAME "kubernetes.io/hostname"
#define PRIO_LABEL_ZONE     "topology.kubernetes.io/zone"

struct prio_spread_constraint {
    int32_t max_skew;
    const char *key;
    const struct kube_label_selector *selector; /* NULL: matches nothing */
    bool hostname; /* key is kubernetes.io/hostname: counted per node */
    size_t size;   /* topology size the weight was taken from */
    double weight; /* log(size + 2) */
};

struct prio_spread_state {
    size_t n;
    struct prio_spread_constraint *c;
    bool require_all;         /* nodes must carry every key */
    unsigned char *ignored;   /* by cluster node index: not scored */
    size_t n_ignored;         /* ignored nodes of F */
    struct topo_counts pairs; /* (key, value) -> matching pod count */
};

/* For list: the defaulting both spread priorities get. */
extern const struct kpe_arg_schema prio_spread_defaulting_values;
/* check: the typed arguments of both spread priorities. */
extern const struct kpe_arg_schema prio_spread_resolved;

/* The spread priorities' finish: defaultingType System or List. */
prio_finish_fn prio_spread_finish;

#endif
