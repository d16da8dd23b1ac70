/*
 * policy_split.c: one Policy as the two files of the split deployment for
 * kube-scheduler v1.13-v1.22 (--policy-config-file): kube-scheduler keeps
 * every predicate and priority its legacy registry knows (it accounts for
 * the pods it has assumed, so nothing it evaluates is stale during a
 * burst), and calls this server only for the names it lacks (the seeds'
 * custom ones, the compat names). The extender's weight is the sum of the
 * weights of the priorities it serves, so that its 0..10 answer x weight x
 * 10 equals their in-process weighted score (see ext_scale_score).
 *
 * Also the role a served Policy gives the extender (policy_extender_role),
 * which `serve` and `check` report and the prioritize verb scores by.
 */
#include "policy/policy.h"

#include <string.h>

/* kube-scheduler v1.22's legacy registry knows the name (no alias needed). */
static bool pred_in_tree(const struct pred_def *d)
{
    return d && d->plugins[0];
}

static bool prio_in_tree(const struct prio_def *d)
{
    return d && d->plugins[0];
}

/* The key a predicate entry resolved to: custom names (an argument's
 * labelsPresence, serviceAffinity) through the resolved policy. */
static const struct pred_def *entry_pred(const struct policy *p,
                                         const char *name)
{
    size_t i, k;

    for (i = 0; i < p->n_preds; i++) {
        for (k = 0; k < p->preds[i].n_names; k++) {
            if (!strcmp(p->preds[i].names[k], name))
                return p->preds[i].def;
        }
    }
    return pred_lookup(name);
}

static const struct prio_def *entry_prio(const struct policy *p,
                                         const char *name)
{
    size_t i;

    for (i = 0; i < p->n_entries; i++) {
        if (!strcmp(p->entries[i].name, name))
            return p->entries[i].def;
    }
    return prio_lookup(name);
}

int64_t policy_extender_weight(const struct policy *p)
{
    int64_t weight = 0;
    size_t i;

    /* The resolved weights (of duplicates, the last entry wins). */
    for (i = 0; i < p->n_prios; i++) {
        if (!prio_in_tree(p->prios[i].def))
            weight += p->prios[i].weight;
    }
    return weight;
}

int policy_split(const struct policy *p, struct arena *a,
                 const struct policy_split_opts *o, struct policy_doc *sched,
                 struct policy_doc *ext, int64_t *ext_weight, struct err *e)
{
    const struct policy_doc *d = &p->doc;
    struct policy_extender *x;
    size_t i;
    int64_t weight = 0;

    *sched = *d;
    *ext = *d;
    sched->preds = arena_calloc(a, d->n_preds + 1, sizeof(*sched->preds));
    ext->preds = arena_calloc(a, d->n_preds + 1, sizeof(*ext->preds));
    sched->prios = arena_calloc(a, d->n_prios + 1, sizeof(*sched->prios));
    ext->prios = arena_calloc(a, d->n_prios + 1, sizeof(*ext->prios));
    x = arena_calloc(a, d->n_extenders + 1, sizeof(*x));
    if (!sched->preds || !ext->preds || !sched->prios || !ext->prios || !x)
        return err_set(e, "out of memory");
    sched->n_preds = ext->n_preds = 0;
    sched->n_prios = ext->n_prios = 0;
    for (i = 0; i < d->n_preds; i++) {
        const struct pred_def *def = entry_pred(p, d->preds[i].name);

        if (pred_in_tree(def))
            sched->preds[sched->n_preds++] = d->preds[i];
        else
            ext->preds[ext->n_preds++] = d->preds[i];
    }
    /* Defaults (absent): kube-scheduler applies its own; none delegated. */
    ext->predicates_mode = POLICY_LIST_LISTED;
    for (i = 0; i < d->n_prios; i++) {
        const struct prio_def *def = entry_prio(p, d->prios[i].name);

        if (prio_in_tree(def))
            sched->prios[sched->n_prios++] = d->prios[i];
        else
            ext->prios[ext->n_prios++] = d->prios[i];
    }
    weight = policy_extender_weight(p);
    ext->priorities_mode = POLICY_LIST_LISTED;
    /* The extender's own document has no extenders; kube-scheduler's keeps
     * the ones the Policy had, then ours. */
    ext->extenders = NULL;
    ext->n_extenders = 0;
    if (d->n_extenders)
        memcpy(x, d->extenders, d->n_extenders * sizeof(*x));
    sched->extenders = x;
    sched->n_extenders = d->n_extenders;
    if (ext->n_preds || ext->n_prios) {
        struct policy_extender *ours = &x[sched->n_extenders++];

        memset(ours, 0, sizeof(*ours));
        ours->url_prefix = o->url;
        ours->filter_verb = ext->n_preds ? "filter" : "";
        /* Preemption must keep to the extender's filters. */
        ours->preempt_verb = ext->n_preds ? "preempt" : "";
        ours->prioritize_verb = ext->n_prios ? "prioritize" : "";
        ours->bind_verb = "";
        ours->weight = weight > 0 ? weight : 1;
        ours->http_timeout_ns = o->http_timeout_ns;
        ours->node_cache_capable = o->node_cache_capable;
        ours->ignorable = false;
    }
    *ext_weight = weight;
    return 0;
}

void policy_extender_role(const struct policy *p, struct policy_role *r)
{
    size_t i;

    memset(r, 0, sizeof(*r));
    for (i = 0; i < p->n_preds; i++) {
        const struct policy_pred *u = &p->preds[i];

        /* The mandatory predicates are added to every Policy. */
        if (pred_in_tree(u->def) && u->origin != POLICY_ORIGIN_MANDATORY)
            r->n_in_tree++;
        if ((u->def->needs & (KPE_NEED_PODS_ON_NODE | KPE_NEED_ALL_PODS)) &&
            r->n_pod_dependent < POLICY_ROLE_MAX_NAMES)
            r->pod_dependent[r->n_pod_dependent++] = u->def->name;
    }
    for (i = 0; i < p->n_prios; i++) {
        const struct policy_prio *u = &p->prios[i];

        if (prio_in_tree(u->def))
            r->n_in_tree++;
        if ((u->def->needs & (KPE_NEED_PODS_ON_NODE | KPE_NEED_ALL_PODS)) &&
            r->n_pod_dependent < POLICY_ROLE_MAX_NAMES)
            r->pod_dependent[r->n_pod_dependent++] = u->def->name;
    }
    r->sole = r->n_in_tree > 0;
}
