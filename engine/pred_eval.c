/*
 * pred_eval.c: predicate evaluation for one pod (see pred_eval.h), mirroring
 * framework/runtime/framework.go RunPreFilterPlugins / RunFilterPlugins.
 */
#include "engine/pred_eval.h"

#include <string.h>

#include "engine/plugin_call.h"
#include "kube/model/resources.h"
#include "policy/policy.h"

static bool planned(const struct pred_plan *plan,
                    const struct pred_plugin *impl)
{
    size_t i;

    for (i = 0; i < plan->n_steps; i++) {
        if (plan->steps[i].plugin == impl)
            return true;
    }
    return false;
}

static const char *report_name(const struct policy_pred *pp)
{
    return pp->n_names == 1 ? pp->names[0] : pp->def->name;
}

static int add_step(struct pred_plan *plan, const struct policy_pred *pp,
                    const struct pred_plugin *impl, struct err *e)
{
    if (planned(plan, impl))
        return 0;
    if (!impl->filter)
        return err_set(e,
                       "predicate %s: filter plugin %s has no filter "
                       "function",
                       pp->def->name, impl->ref.name);
    if (plan->n_steps == PRED_PLAN_MAX)
        return err_set(e, "too many filter plugins (limit %d)", PRED_PLAN_MAX);
    plan->steps[plan->n_steps].plugin = impl;
    plan->steps[plan->n_steps].pred = pp;
    plan->steps[plan->n_steps].report_name = report_name(pp);
    plan->n_steps++;
    return 0;
}

int pred_plan_build(const struct policy *p, struct pred_plan *plan,
                    struct err *e)
{
    size_t i, j;

    memset(plan, 0, sizeof(*plan));
    plan->policy = p;
    plan->always_check_all = p->always_check_all_predicates;
    for (i = 0; i < p->n_preds; i++) {
        const struct policy_pred *pp = &p->preds[i];
        const struct pred_plugin *const *refs = pp->def->plugins;

        if (!refs[0]) {
            if (!pp->def->own)
                return err_set(e, "predicate %s has no code", pp->def->name);
            if (add_step(plan, pp, pp->def->own, e) < 0)
                return -1;
            continue;
        }
        for (j = 0; j < KPE_MAX_PLUGINS && refs[j]; j++) {
            if (!(refs[j]->ref.points & KPE_EP_FILTER))
                continue;
            if (add_step(plan, pp, refs[j], e) < 0)
                return -1;
        }
    }
    return 0;
}

/* Append step's result to v as one failure entry (copying reasons). */
static int record(struct pred_eval *ev, const struct pred_plan_step *st,
                  const struct pred_result *r, struct pred_verdict *v,
                  struct err *e)
{
    struct arena *a = ev->cy.arena;
    struct pred_failure *f;
    size_t k;

    f = arena_alloc(a, (v->n_failures + 1) * sizeof(*f));
    if (!f)
        return err_set(e, "out of memory");
    if (v->n_failures)
        memcpy(f, v->failures, v->n_failures * sizeof(*f));
    v->failures = f;
    f = &v->failures[v->n_failures++];
    f->predicate = st->report_name;
    f->n_reasons = r->n_reasons;
    f->reasons =
        arena_alloc(a, (r->n_reasons ? r->n_reasons : 1) * sizeof(*f->reasons));
    if (!f->reasons)
        return err_set(e, "out of memory");
    for (k = 0; k < r->n_reasons; k++)
        f->reasons[k] = r->reasons[k];
    if (r->code > v->code)
        v->code = r->code;
    return 0;
}

static int internal_error(const struct pred_plan_step *st,
                          const struct pred_result *r, struct err *e)
{
    return err_set(e, "predicate %s (plugin %s): %s", st->report_name,
                   st->plugin->ref.name,
                   r->n_reasons ? r->reasons[0] : "internal error");
}

int pred_eval_begin(struct pred_eval *ev, const struct pred_plan *plan,
                    const struct kube_pod *pod, const struct cluster *c,
                    struct arena *a, struct err *e)
{
    size_t i;

    memset(ev, 0, sizeof(*ev));
    ev->plan = plan;
    if (plan->policy) {
        ev->cy.ignored_resources = plan->policy->ignored_resources;
        ev->cy.n_ignored_resources = plan->policy->n_ignored_resources;
    }
    ev->cy.pod = pod;
    ev->cy.cluster = c;
    ev->cy.arena = a;
    if (kube_pod_request(a, pod, &ev->cy.pod_request) < 0)
        return err_set(e, "out of memory");
    for (i = 0; i < plan->n_steps; i++) {
        const struct pred_plan_step *st = &plan->steps[i];
        struct pred_result r;
        enum pred_code code;

        if (!st->plugin->prefilter)
            continue;
        pred_result_init(&r, a);
        plugin_call_enter(st->plugin->ref.name, "prefilter", pod, NULL);
        code =
            st->plugin->prefilter(&ev->cy, &st->pred->args, &ev->states[i], &r);
        plugin_call_leave();
        if (code == PRED_ERROR)
            return internal_error(st, &r, e);
        if (code != PRED_FIT) {
            ev->rejected = true;
            return record(ev, st, &r, &ev->rejection, e);
        }
    }
    return 0;
}

int pred_eval_node(struct pred_eval *ev, const struct node_info *ni,
                   struct pred_verdict *v, struct err *e)
{
    const struct pred_plan *plan = ev->plan;
    size_t i;

    ev->stopped_at = plan->n_steps;
    if (ev->rejected) {
        *v = ev->rejection;
        return 0;
    }
    memset(v, 0, sizeof(*v));
    for (i = 0; i < plan->n_steps; i++) {
        const struct pred_plan_step *st = &plan->steps[i];
        struct pred_result r;
        enum pred_code code;

        pred_result_init(&r, ev->cy.arena);
        plugin_call_enter(st->plugin->ref.name, "filter", ev->cy.pod, ni);
        code =
            st->plugin->filter(&ev->cy, &st->pred->args, ev->states[i], ni, &r);
        plugin_call_leave();
        if (code == PRED_FIT)
            continue;
        if (code == PRED_ERROR)
            return internal_error(st, &r, e);
        if (record(ev, st, &r, v, e) < 0)
            return -1;
        if (!plan->always_check_all) {
            ev->stopped_at = i;
            break;
        }
    }
    return 0;
}
