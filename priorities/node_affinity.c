/*
 * node_affinity.c: NodeAffinityPriority, the v1.22 score plugin
 * NodeAffinity (plugins/nodeaffinity, PreScore/Score/NormalizeScore): the
 * sum of the weights of the pod's preferred node affinity terms that the
 * node matches, scaled so the best node gets 100.
 */
#include "priorities/plugins.h"

#include <stdio.h>

#include "kube/model/labels.h"
#include "priorities/priorities.h"

#define PRIO_NAME_NODE_AFFINITY "NodeAffinityPriority"

/* PreScore state: the pod's usable preferred terms (weight and content). */
struct affinity_state {
    size_t n;
    const struct kube_preferred_term **terms;
};

/* Skipped by NewPreferredSchedulingTerms before parsing: never an error. */
static bool term_skipped(const struct kube_preferred_term *t)
{
    return t->weight == 0 || (t->term.n_exprs == 0 && t->term.n_fields == 0);
}

/*
 * The parse errors of the pod's preferred terms, as the aggregate upstream
 * returns them: "[i].<path>: <reason>", several joined as "[e1, e2]". Only
 * the first problem of each term is known (kube/model/node_selector.c).
 */
static int term_errors(const struct kube_pod *pod, struct err *e)
{
    const struct kube_affinity *af = &pod->affinity;
    char buf[ERR_MSG_MAX];
    size_t i, len = 0, bad = 0;

    buf[0] = '\0';
    for (i = 0; i < af->n_node_preferred; i++) {
        const struct kube_preferred_term *t = &af->node_preferred[i];
        int n;

        if (term_skipped(t) || !t->term.invalid)
            continue;
        n = snprintf(buf + len, sizeof(buf) - len, "%s[%zu].%s",
                     bad ? ", " : "", i, t->term.invalid);
        bad++;
        if (n < 0 || (size_t)n >= sizeof(buf) - len)
            break; /* cut: the message is full */
        len += (size_t)n;
    }
    if (bad == 1)
        return err_set(e, "%s", buf);
    return err_set(e, "[%s]", buf);
}

/*
 * PreScore: keep the pod's preferred terms with a weight and a content; a
 * term that does not parse fails the pod (framework.AsStatus). The state
 * is NULL when nothing is preferred (every node then scores 0).
 */
int prio_node_affinity_prescore(struct prio_cycle *cy, const void *args,
                                void **state, struct err *e)
{
    const struct kube_affinity *af = &cy->pod->affinity;
    struct affinity_state *s;
    size_t i;

    (void)args;
    *state = NULL;
    for (i = 0; i < af->n_node_preferred; i++) {
        if (!term_skipped(&af->node_preferred[i]) &&
            af->node_preferred[i].term.invalid)
            return term_errors(cy->pod, e);
    }
    if (af->n_node_preferred == 0)
        return 0;
    s = arena_alloc(cy->arena, sizeof(*s));
    if (s)
        s->terms =
            arena_calloc(cy->arena, af->n_node_preferred, sizeof(*s->terms));
    if (!s || !s->terms)
        return err_set(e, "NodeAffinity: out of memory");
    s->n = 0;
    for (i = 0; i < af->n_node_preferred; i++) {
        if (!term_skipped(&af->node_preferred[i]))
            s->terms[s->n++] = &af->node_preferred[i];
    }
    *state = s;
    return 0;
}

/* Score: Σ weight of the kept terms matching the node's labels and name. */
int prio_node_affinity_score(const struct prio_cycle *cy, const void *args,
                             const void *state, const struct node_info *ni,
                             int64_t *score, struct err *e)
{
    const struct affinity_state *s = state;
    int64_t sum = 0;
    size_t i;

    (void)cy;
    (void)args;
    (void)e;
    for (i = 0; s && i < s->n; i++) {
        if (kube_node_selector_term_matches(&s->terms[i]->term,
                                            &ni->node->labels, ni->node->name))
            sum += s->terms[i]->weight;
    }
    *score = sum;
    return 0;
}

/* NormalizeScore: DefaultNormalizeScore(100, reverse = false). */
int prio_node_affinity_normalize(const struct prio_cycle *cy, const void *args,
                                 const void *state, int64_t *scores,
                                 struct err *e)
{
    (void)args;
    (void)state;
    (void)e;
    prio_normalize_default(scores, cy->n_nodes, PRIO_MAX_NODE_SCORE, false);
    return 0;
}

const struct prio_plugin prio_plugin_node_affinity = {
    { "NodeAffinity", KPE_EP_PRESCORE | KPE_EP_SCORE },
    prio_node_affinity_prescore,
    prio_node_affinity_score,
    prio_node_affinity_normalize,
};

const struct prio_def prio_node_affinity_priority = {
    .name = PRIO_NAME_NODE_AFFINITY,
    .aliases = NULL,
    .flags = PRIO_DEFAULT,
    .default_weight = 1,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { &prio_plugin_node_affinity },
    .own = NULL,
    .gate_off = NULL,
    .doc = "favours nodes by the pod's preferred node affinity weights",
};
