/*
 * cli_whatif.h: what simulate and diff print alike: a placement (text
 * and JSON), nodes' utilisation before and after, the options both take.
 */
#ifndef SERVER_CLI_CLI_WHATIF_H
#define SERVER_CLI_CLI_WHATIF_H

#include <stdbool.h>
#include <stdio.h>

#include "kube/base/json_writer.h"
#include "server/cli/cli_opts.h"
#include "kube/cluster/cluster.h"
#include "policy/policy.h"
#include "whatif/inputs.h"
#include "whatif/place.h"

/* The options simulate and diff share. */
struct cli_whatif_opts {
    uint64_t seed;      /* --seed [1] */
    int percentage;     /* --percentage-of-nodes-to-score [0: adaptive] */
    bool json;          /* --output json */
    const char *report; /* --report FILE.html */
    struct whatif_inputs in;
    struct policy_load_opts load; /* --compat, --format, --feature-gates */
};

/* Defaults of the shared options. */
void cli_whatif_defaults(struct cli_whatif_opts *o);

/*
 * Option a with value v when it is a shared one (the cluster inputs, the
 * policy load options included). Returns 1 when taken, 0 when not ours,
 * -1 on a bad value (printed as "CMD: ...").
 */
int cli_whatif_option(const char *cmd, struct cli_whatif_opts *o, const char *a,
                      const char *v);

/* The shared options that are not the cluster inputs nor the Policy
 * load options: --seed, --percentage-of-nodes-to-score, --report. */
extern const struct cli_opt cli_whatif_run_opts[];

/* A whole number from lo to hi into *out; -1 (printed) otherwise. */
int cli_num_option(const char *cmd, const char *opt, const char *v, long lo,
                   long hi, long *out);

/* "NS/NAME" of a pod, from a. */
const char *cli_pod_ref(struct arena *a, const struct kube_pod *p);

/* {"pod", "node", "message", "topPredicate", "topPredicateNodes"}. */
void cli_json_placement(struct jsonw *w, struct arena *a,
                        const struct whatif_placement *pl);

/*
 * "nodes": [{"name", "allocatable": {"cpu", "memory", "pods"}, and one
 * object per state ("before", "after" or the given names) with the same
 * three requests}], CPU in millicores, memory in bytes. u[k][i] is node
 * i of c under state k.
 */
void cli_json_usage(struct jsonw *w, const struct cluster *c,
                    const char *const *names,
                    const struct whatif_usage *const *u, size_t n_states);

/*
 * A table of the nodes whose requests differ between u0 and u1 (all
 * nodes when all is set): CPU, memory and pods as "before -> after" of
 * allocatable.
 */
void cli_text_usage(FILE *f, const struct cluster *c,
                    const struct whatif_usage *u0,
                    const struct whatif_usage *u1, const char *h0,
                    const char *h1, bool all);

/*
 * explain --all-pending on objs (cmd_explain_pending.c): the pending pods
 * of scheduler sched (NULL: default-scheduler), printed as text or JSON.
 * 0, or -1 with e set.
 */
struct policy;
struct whatif_inputs;
int cli_explain_pending(const struct policy *p, const struct whatif_inputs *in,
                        const struct kube_objects *objs, const char *sched,
                        bool json, struct arena *a, struct err *e);

/* Print a jsonw document to stdout; -1 when out of memory. */
int cli_json_print(struct jsonw *w);

#endif
