/*
 * rdma_aware.c: our CustomPriorityPolicy (alias RdmaAwarePriority), no
 * v1.22 counterpart: pods that communicate heavily (label key
 * highComm.podLabel, default "high-comm") prefer RDMA nodes (label
 * highComm.nodeLabel equal to highComm.nodeLabelValue, default
 * node.kubernetes.io/rdma-enabled = "true"); all other pods prefer to
 * leave those nodes free. The framework applies the argument's defaults.
 */
#include <string.h>

#include "priorities/priorities.h"

#define NAME  "CustomPriorityPolicy"
#define ALIAS "RdmaAwarePriority"

/* Its argument: "highComm", the predicate's fields and defaults
 * (high_comm_arg.h); an entry without one runs with the defaults. */
static const struct kpe_arg_schema schema = KPE_HIGH_COMM_SCHEMA("highComm");

/* What the score needs of the pod, found once per pod: args is a struct
 * prio_args whose value is the highComm value (NULL: the defaults). */
static void resolve(const void *args, const struct kube_pod *pod,
                    struct kpe_high_comm_pod *st)
{
    const struct prio_args *pa = args;

    kpe_high_comm_pod(&schema, pa ? pa->value : NULL, pod, st);
}

/* The pod's label is read once, not once per node. */
static int prescore(struct prio_cycle *cy, const void *args, void **state,
                    struct err *e)
{
    struct kpe_high_comm_pod *st = arena_alloc(cy->arena, sizeof(*st));

    if (!st)
        return err_set(e, "out of memory");
    resolve(args, cy->pod, st);
    *state = st;
    return 0;
}

/*
 * Score: 100 when the pod's kind (high-comm or not) matches the node's
 * (RDMA or not), else 0. Only the pod label's key matters; the node label
 * must equal the value exactly. No normalisation. Without a PreScore
 * state (a caller that skipped it), the pod is read here.
 */
static int score(const struct prio_cycle *cy, const void *args,
                 const void *state, const struct node_info *ni, int64_t *out,
                 struct err *e)
{
    const struct kpe_high_comm_pod *st = state;
    struct kpe_high_comm_pod own;
    const char *have;
    bool rdma;

    (void)e;
    if (!st) {
        resolve(args, cy->pod, &own);
        st = &own;
    }
    have = node_info_label(ni, st->arg.node_label);
    rdma = have && !strcmp(have, st->arg.node_label_value);
    *out = st->high_comm == rdma ? PRIO_MAX_NODE_SCORE : 0;
    return 0;
}

static const struct prio_plugin plugin = {
    { NAME, 0 },
    prescore,
    score,
    NULL,
};

/* highComm (defaults applied): checked, equal across entries. */
static int parse_args(const void *written, struct arena *a,
                      struct prio_args *out, struct err *e)
{
    (void)a;
    return kpe_high_comm_check(schema.key, written, &out->value, e);
}

/* The typed arguments, as check shows them: {"highComm": {...}}. */
static const struct kpe_arg_field resolved_fields[] = {
    { .name = "highComm", .type = KPE_ARG_OBJECT, .elem = &schema },
};

static const struct kpe_arg_schema resolved = {
    .key = "highComm",
    .fields = KPE_ARG_FIELDS(resolved_fields),
};

const struct prio_def prio_custom_priority_policy = {
    .name = NAME,
    .aliases = (const char *const[]){ ALIAS, NULL },
    .flags = PRIO_EXTENSION,
    .args = &schema,
    .resolved = &resolved,
    .parse_args = parse_args,
    .own = &plugin,
    .doc =
        "seed 003: high-comm pods score RDMA nodes 10, other pods score them 0",
};
