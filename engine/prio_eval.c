/*
 * prio_eval.c: scoring for one pod (see prio_eval.h), mirroring
 * framework/runtime/framework.go RunScorePlugins and
 * core/generic_scheduler.go prioritizeNodes.
 */
#include "engine/prio_eval.h"

#include <string.h>

#include "engine/plugin_call.h"
#include "engine/prescore_cache.h"
#include "policy/policy.h"

static const struct prio_plugin *plugin_of(const struct policy *p,
                                           const struct policy_prio *pp)
{
    if (!pp->def->plugins[0])
        return pp->def->own;
    /* With the gate off v1.22 maps SelectorSpreadPriority to SelectorSpread. */
    if ((p->gates & POLICY_GATE_DEFAULT_POD_TOPOLOGY_SPREAD_OFF) &&
        pp->def->gate_off)
        return pp->def->gate_off;
    return pp->def->plugins[0];
}

static int add_name(struct prio_plan *plan, const char *name, int step)
{
    if (plan->n_names == sizeof(plan->names) / sizeof(plan->names[0]))
        return -1;
    plan->names[plan->n_names].name = name;
    plan->names[plan->n_names].step = step;
    plan->n_names++;
    return 0;
}

static int step_of(const struct prio_plan *plan, const struct policy_prio *pp)
{
    size_t i;

    for (i = 0; i < plan->n_steps; i++) {
        if (plan->steps[i].prio == pp)
            return (int)i;
    }
    return -1;
}

int prio_plan_build(const struct policy *p, struct prio_plan *plan,
                    struct err *e)
{
    size_t i, k;

    memset(plan, 0, sizeof(*plan));
    plan->policy = p;
    if (p->n_prios > PRIO_PLAN_MAX)
        return err_set(e, "too many score plugins (limit %d)", PRIO_PLAN_MAX);
    for (i = 0; i < p->n_prios; i++) {
        const struct prio_plugin *impl = plugin_of(p, &p->prios[i]);

        if (!impl || !impl->score)
            return err_set(e, "priority %s: no score function",
                           p->prios[i].def->name);
        plan->steps[plan->n_steps].plugin = impl;
        plan->steps[plan->n_steps].prio = &p->prios[i];
        plan->n_steps++;
    }
    if (p->n_entries) {
        for (i = 0; i < p->n_entries; i++) {
            const struct policy_prio_entry_ref *r = &p->entries[i];

            if (add_name(plan, r->name, r->prio ? step_of(plan, r->prio) : -1))
                return err_set(e, "too many priority entries");
        }
        return 0;
    }
    /* The default set: report each key, folded ones under their plugin. */
    for (i = 0; i < plan->n_steps; i++) {
        const struct policy_prio *pp = plan->steps[i].prio;

        for (k = 0; k < pp->n_keys; k++) {
            if (add_name(plan, pp->keys[k]->name, (int)i))
                return err_set(e, "too many priority entries");
        }
    }
    return 0;
}

/* Step s's PreScore into *state: taken from pc, or run (and kept there
 * when prescore_cache_keeps allows). */
static int prescore(const struct prio_plan_step *st, size_t s,
                    struct prio_cycle *cy, struct prescore_cache *pc,
                    void **state, struct err *e)
{
    const char *name = st->plugin->ref.name;
    struct prio_cycle kept = *cy;
    bool keep = pc && prescore_cache_keeps(st->plugin, cy->pod);
    int rc;

    if (keep && pc->have[s]) {
        *state = pc->states[s];
        return 0;
    }
    if (keep)
        kept.arena = &pc->a; /* the state outlives this decision */
    plugin_call_enter(name, "prescore", cy->pod, NULL);
    rc = st->plugin->prescore(keep ? &kept : cy, &st->prio->args, state, e);
    plugin_call_leave();
    if (rc < 0)
        return err_prefix(e, "plugin \"%s\": ", name);
    if (keep) {
        pc->states[s] = *state;
        pc->have[s] = true;
    }
    return 0;
}

static int run_step(const struct prio_plan_step *st, size_t s,
                    struct prio_cycle *cy, struct prescore_cache *pc,
                    int64_t *scores, struct err *e)
{
    const char *name = st->plugin->ref.name;
    const void *args = &st->prio->args;
    void *state = NULL;
    size_t i;
    int rc;

    if (st->plugin->prescore && prescore(st, s, cy, pc, &state, e) < 0)
        return -1;
    for (i = 0; i < cy->n_nodes; i++) {
        plugin_call_enter(name, "score", cy->pod, cy->nodes[i]);
        rc = st->plugin->score(cy, args, state, cy->nodes[i], &scores[i], e);
        plugin_call_leave();
        if (rc < 0)
            return err_prefix(e, "plugin \"%s\": ", name);
    }
    if (st->plugin->normalize) {
        plugin_call_enter(name, "normalize", cy->pod, NULL);
        rc = st->plugin->normalize(cy, args, state, scores, e);
        plugin_call_leave();
        if (rc < 0)
            return err_prefix(e, "plugin \"%s\": ", name);
    }
    for (i = 0; i < cy->n_nodes; i++) {
        if (scores[i] < 0 || scores[i] > PRIO_MAX_NODE_SCORE)
            return err_set(e,
                           "plugin \"%s\" returns an invalid score %lld, it "
                           "should in the range of [0, 100] after "
                           "normalizing",
                           name, (long long)scores[i]);
    }
    return 0;
}

int prio_eval(const struct prio_plan *plan, const struct kube_pod *pod,
              const struct cluster *c, const struct node_info *const *nodes,
              size_t n, struct arena *a, struct prio_result *out, struct err *e)
{
    return prio_eval_cached(plan, pod, c, nodes, n, NULL, a, out, e);
}

int prio_eval_cached(const struct prio_plan *plan, const struct kube_pod *pod,
                     const struct cluster *c,
                     const struct node_info *const *nodes, size_t n,
                     struct prescore_cache *pc, struct arena *a,
                     struct prio_result *out, struct err *e)
{
    struct prio_cycle cy;
    size_t s, i;

    memset(out, 0, sizeof(*out));
    out->n_nodes = n;
    out->n_steps = plan->n_steps;
    out->scores = arena_calloc(a, plan->n_steps * n + 1, sizeof(int64_t));
    out->totals = arena_calloc(a, n ? n : 1, sizeof(int64_t));
    if (!out->scores || !out->totals)
        return err_set(e, "out of memory scoring %zu nodes", n);
    memset(&cy, 0, sizeof(cy));
    cy.pod = pod;
    cy.cluster = c;
    cy.arena = a;
    cy.n_nodes = n;
    cy.nodes = nodes;
    if (pc && pc->plan != plan) {
        prescore_cache_clear(pc);
        pc->plan = plan;
    }
    for (s = 0; s < plan->n_steps; s++) {
        int64_t *sc = &out->scores[s * n];
        int64_t w = plan->steps[s].prio->weight;

        if (run_step(&plan->steps[s], s, &cy, pc, sc, e) < 0)
            return -1;
        for (i = 0; i < n; i++)
            out->totals[i] += sc[i] * w;
    }
    return 0;
}
