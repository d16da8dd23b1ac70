/*
 * taint_toleration.c: TaintTolerationPriority, the v1.22 score plugin
 * TaintToleration (plugins/tainttoleration, PreScore/Score/NormalizeScore):
 * the fewer PreferNoSchedule taints a node has that the pod does not
 * tolerate, the higher its score (the best get 100).
 */
#include "priorities/plugins.h"

#include <string.h>

#include "kube/model/labels.h"
#include "priorities/priorities.h"

#define PRIO_NAME_TAINT_TOLERATION "TaintTolerationPriority"

#define PREFER_NO_SCHEDULE "PreferNoSchedule"

/* PreScore state: the tolerations that can tolerate PreferNoSchedule. */
struct toleration_state {
    size_t n;
    struct kube_toleration *v;
};

/*
 * PreScore: getAllTolerationPreferNoSchedule, the pod's tolerations whose
 * effect is empty (all effects) or PreferNoSchedule, in order.
 */
int prio_taint_toleration_prescore(struct prio_cycle *cy, const void *args,
                                   void **state, struct err *e)
{
    const struct kube_pod *pod = cy->pod;
    struct toleration_state *s;
    size_t i;

    (void)args;
    s = arena_calloc(cy->arena, 1, sizeof(*s));
    if (s && pod->n_tolerations)
        s->v = arena_calloc(cy->arena, pod->n_tolerations, sizeof(*s->v));
    if (!s || (pod->n_tolerations && !s->v))
        return err_set(e, "TaintToleration: out of memory");
    for (i = 0; i < pod->n_tolerations; i++) {
        const char *effect = pod->tolerations[i].effect;

        if (!effect || !effect[0] || !strcmp(effect, PREFER_NO_SCHEDULE))
            s->v[s->n++] = pod->tolerations[i];
    }
    *state = s;
    return 0;
}

/* Score: the node's PreferNoSchedule taints no kept toleration tolerates. */
int prio_taint_toleration_score(const struct prio_cycle *cy, const void *args,
                                const void *state, const struct node_info *ni,
                                int64_t *score, struct err *e)
{
    const struct toleration_state *s = state;
    const struct kube_node *node = ni->node;
    int64_t n = 0;
    size_t i;

    (void)cy;
    (void)args;
    if (!s)
        return err_set(e, "TaintToleration: no PreScore state");
    for (i = 0; i < node->n_taints; i++) {
        const struct kube_taint *t = &node->taints[i];

        if (!t->effect || strcmp(t->effect, PREFER_NO_SCHEDULE))
            continue;
        if (!kube_tolerations_tolerate(s->v, s->n, t))
            n++;
    }
    *score = n;
    return 0;
}

/* NormalizeScore: DefaultNormalizeScore(100, reverse = true). */
int prio_taint_toleration_normalize(const struct prio_cycle *cy,
                                    const void *args, const void *state,
                                    int64_t *scores, struct err *e)
{
    (void)args;
    (void)state;
    (void)e;
    prio_normalize_default(scores, cy->n_nodes, PRIO_MAX_NODE_SCORE, true);
    return 0;
}

const struct prio_plugin prio_plugin_taint_toleration = {
    { "TaintToleration", KPE_EP_PRESCORE | KPE_EP_SCORE },
    prio_taint_toleration_prescore,
    prio_taint_toleration_score,
    prio_taint_toleration_normalize,
};

const struct prio_def prio_taint_toleration_priority = {
    .name = PRIO_NAME_TAINT_TOLERATION,
    .aliases = NULL,
    .flags = PRIO_DEFAULT,
    .default_weight = 1,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { &prio_plugin_taint_toleration },
    .own = NULL,
    .gate_off = NULL,
    .doc = "favours nodes with fewer PreferNoSchedule taints the pod does not "
           "tolerate",
};
