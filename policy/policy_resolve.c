/*
 * policy_resolve.c: a validated Policy document to the effective policy,
 * as kube-scheduler v1.22's createFromPolicy and legacy_registry.go do it:
 * argument counts, name resolution (aliases, custom arguments), folding of
 * custom entries into one plugin, defaults for absent lists, mandatory
 * predicates, run order, key weights (last wins) and plugin weights.
 */
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/policy_buf.h"
#include "policy/policy_internal.h"
#include "priorities/requested_to_capacity_ratio.h"

#define MAX_ROWS 64

struct pred_slot {
    bool on;
    unsigned origin;
    struct pred_args args;
    struct policy_strlist names;
};

struct prio_slot {
    bool on;
    unsigned origin;
    int64_t weight;
    struct prio_args args;
    const struct policy_loc *arg_loc; /* the entry args came from, or NULL */
    struct policy_strlist names;
};

struct rctx {
    struct policy *p;
    struct err *e;
    struct pred_slot preds[MAX_ROWS];
    struct prio_slot prios[MAX_ROWS];
    bool node_label_args;  /* a NodeLabelArgs object exists (v1.22) */
    bool service_aff_args; /* a ServiceAffinityArgs object exists */
    bool rtcr_args;
    size_t *entry_key; /* per priority entry: row index, or SIZE_MAX */
};

static int push_name(struct rctx *c, struct policy_strlist *l, const char *name)
{
    size_t i;
    const char **v;

    for (i = 0; i < l->n; i++) {
        if (!strcmp(l->v[i], name))
            return 0;
    }
    v = arena_calloc(&c->p->arena, l->n + 1, sizeof(*v));
    if (!v)
        return err_set(c->e, "out of memory");
    if (l->n)
        memcpy(v, l->v, l->n * sizeof(*v));
    v[l->n++] = name;
    l->v = v;
    return 0;
}

static const char *at(struct rctx *c, const struct policy_loc *loc,
                      const char *field)
{
    return policy_loc_field(c->p, loc, field);
}

static bool row_allowed(struct rctx *c, unsigned legacy_flag, unsigned flags)
{
    return !(flags & legacy_flag) || (c->p->compat & POLICY_COMPAT_LEGACY);
}

/*
 * The legacy registry's texts for a name it lacks: v1.20.2's klog.Fatalf
 * ("Invalid configuration: Predicate type not found for"), returned
 * errors in lower case from v1.21 (#99671) (docs/VERSION-SEMANTICS.md D9).
 */
static const char *not_found_text(const struct rctx *c, bool pred)
{
    if (c->p->semantics < KPE_SEM_1_21)
        return pred ? "Invalid configuration: Predicate type not found"
                    : "Invalid configuration: Priority type not found";
    return pred ? "predicate type not found" : "priority type not found";
}

/* "predicate type not found" with a hint and a suggestion. */
static int pred_not_found(struct rctx *c, const struct policy_pred_entry *pe,
                          const char *name)
{
    const struct pred_def *d = pred_lookup(name);
    const char *sug;

    if (d && (d->flags & PRED_LEGACY))
        return err_set(c->e,
                       "%s: %s for \"%s\" (v1.22 "
                       "dropped it; load with `--compat legacy` to "
                       "accept policies written for older clusters)",
                       at(c, &pe->loc, "name"), not_found_text(c, true), name);
    sug = policy_suggest_predicate(name, c->p->compat);
    return err_set(c->e, "%s: %s for \"%s\"%s%s%s", at(c, &pe->loc, "name"),
                   not_found_text(c, true), name,
                   sug ? "; did you mean \"" : "", sug ? sug : "",
                   sug ? "\"?" : "");
}

static int resolve_pred_entry(struct rctx *c,
                              const struct policy_pred_entry *pe)
{
    const char *name = pe->name ? pe->name : "";
    const struct pred_def *d = pred_lookup(name);
    struct pred_slot *s;
    const void *arg; /* the argument with its defaults (kpe_args_effective) */
    int n_args = 0;

    if (pe->has_argument) {
        n_args = (int)pe->arg.n;
        if (n_args != 1 && c->p->semantics < KPE_SEM_1_21)
            return err_set(c->e,
                           "%s: Exactly 1 predicate argument is required, "
                           "numArgs: %d, Predicate: %s",
                           at(c, &pe->loc, "argument"), n_args, name);
        if (n_args != 1)
            return err_set(c->e,
                           "%s: exactly 1 predicate argument is required, "
                           "numArgs: %d, predicate {%s <argument>}",
                           at(c, &pe->loc, "argument"), n_args, name);
    }
    if (d && !row_allowed(c, PRED_LEGACY, d->flags))
        d = NULL;
    if (d && (d->flags & PRED_CUSTOM_ONLY) && pe->has_argument)
        return err_set(c->e,
                       "%s: \"%s\" is v1.22's internal key: v1.22 drops this "
                       "entry's argument and then fails to start; give the "
                       "entry a name of its own (e.g. \"My%s\")",
                       at(c, &pe->loc, "name"), name, name);
    if (d && (d->flags & PRED_EXTENSION) && d->args && pe->has_argument &&
        !kpe_args_get(&pe->arg, d->args))
        return err_set(c->e, "%s: %s takes a %s argument",
                       at(c, &pe->loc, "argument"), name, d->args->key);
    if (d && pe->has_argument && !((d->flags & PRED_EXTENSION) && d->args))
        policy_warn(c->p,
                    "%s: argument ignored: \"%s\" is a registered predicate "
                    "(v1.22 ignores its argument too)",
                    at(c, &pe->loc, "argument"), name);
    if (!d) {
        if (!pe->has_argument)
            return pred_not_found(c, pe, name);
        d = pred_for_arg(pe->arg.v[0].schema);
        if (!d)
            return pred_not_found(c, pe, name);
        if (d == &pred_check_service_affinity)
            c->service_aff_args = true;
        if (d == &pred_check_node_label_presence)
            c->node_label_args = true;
    }
    s = &c->preds[pred_index(d)];
    s->on = true;
    s->origin |= POLICY_ORIGIN_FILE;
    if (d->parse_args &&
        (kpe_args_effective(&pe->arg, d->args, &c->p->arena, &arg, c->e) ||
         d->parse_args(arg, &c->p->arena, &s->args, c->e))) {
        err_prefix(c->e, "%s: ", at(c, &pe->loc, "argument"));
        return -1;
    }
    return push_name(c, &s->names, name);
}

static int resolve_predicates(struct rctx *c)
{
    const struct policy_doc *d = &c->p->doc;
    size_t n, i;
    const struct pred_def *const *rows = pred_registry(&n);

    if (d->predicates_mode == POLICY_LIST_DEFAULT) {
        for (i = 0; i < n; i++) {
            if (rows[i]->flags & PRED_DEFAULT) {
                c->preds[i].on = true;
                c->preds[i].origin |= POLICY_ORIGIN_DEFAULT;
            }
        }
    } else {
        for (i = 0; i < d->n_preds; i++) {
            if (resolve_pred_entry(c, &d->preds[i]))
                return -1;
        }
    }
    for (i = 0; i < n; i++) {
        if (rows[i]->flags & PRED_MANDATORY) {
            c->preds[i].on = true;
            c->preds[i].origin |= POLICY_ORIGIN_MANDATORY;
        }
    }
    return 0;
}

static int prio_not_found(struct rctx *c, const struct policy_prio_entry *pe,
                          const char *name)
{
    const struct prio_def *d = prio_lookup(name);
    const char *sug;

    if (d && (d->flags & PRIO_LEGACY))
        return err_set(c->e,
                       "%s: %s for \"%s\" (v1.22 "
                       "dropped it; load with `--compat legacy` to "
                       "accept policies written for older clusters)",
                       at(c, &pe->loc, "name"), not_found_text(c, false), name);
    if (!strcmp(name, PRIO_NAME_RTCR_POLICY))
        return err_set(c->e,
                       "%s: %s for \"%s\" (it needs a "
                       "requestedToCapacityRatioArguments argument)",
                       at(c, &pe->loc, "name"), not_found_text(c, false), name);
    sug = policy_suggest_priority(name, c->p->compat);
    return err_set(c->e, "%s: %s for \"%s\"%s%s%s", at(c, &pe->loc, "name"),
                   not_found_text(c, false), name,
                   sug ? "; did you mean \"" : "", sug ? sug : "",
                   sug ? "\"?" : "");
}

/* The row a custom name runs: the one whose argument it gives. */
static const struct prio_def *custom_prio_row(struct rctx *c,
                                              const struct kpe_args_written *a)
{
    const struct prio_def *d = prio_for_arg(a->v[0].schema);

    if (d == &prio_service_affinity)
        c->service_aff_args = true;
    if (d == &prio_node_label)
        c->node_label_args = true;
    if (d == &prio_requested_to_capacity_ratio)
        c->rtcr_args = true;
    return d;
}

static int resolve_prio_entry(struct rctx *c, size_t idx)
{
    const struct policy_prio_entry *pe = &c->p->doc.prios[idx];
    const char *name = pe->name ? pe->name : "";
    const struct prio_def *d;
    struct prio_slot *s;
    const void *arg; /* the argument with its defaults (kpe_args_effective) */
    int n_args;

    c->entry_key[idx] = SIZE_MAX;
    if (!strcmp(name, prio_equal_priority.name))
        return 0; /* v1.22 skips it before resolution */
    if (pe->has_argument) {
        n_args = (int)pe->arg.n;
        if (n_args != 1 && c->p->semantics < KPE_SEM_1_21)
            return err_set(c->e,
                           "%s: Exactly 1 priority argument is required, "
                           "numArgs: %d, Priority: %s",
                           at(c, &pe->loc, "argument"), n_args, name);
        if (n_args != 1)
            return err_set(c->e,
                           "%s: exactly 1 priority argument is required, "
                           "numArgs: %d, priority {%s %lld <argument>}",
                           at(c, &pe->loc, "argument"), n_args, name,
                           (long long)pe->weight);
    }
    d = prio_lookup(name);
    if (d && !row_allowed(c, PRIO_LEGACY, d->flags))
        d = NULL;
    if (d && (d->flags & PRIO_CUSTOM_ONLY) && pe->has_argument)
        return err_set(c->e,
                       "%s: \"%s\" is v1.22's internal key: v1.22 drops this "
                       "entry's argument and then crashes or fails to start; "
                       "give the entry a name of its own (e.g. \"My%s\")",
                       at(c, &pe->loc, "name"), name, name);
    if (d && (d->flags & PRIO_EXTENSION) && d->args && pe->has_argument &&
        !kpe_args_get(&pe->arg, d->args))
        return err_set(c->e, "%s: %s takes a %s argument",
                       at(c, &pe->loc, "argument"), name, d->args->key);
    if (d && pe->has_argument && !((d->flags & PRIO_EXTENSION) && d->args))
        policy_warn(c->p,
                    "%s: argument ignored: \"%s\" is a registered priority "
                    "(v1.22 ignores its argument too)",
                    at(c, &pe->loc, "argument"), name);
    if (!d) {
        if (!pe->has_argument)
            return prio_not_found(c, pe, name);
        d = custom_prio_row(c, &pe->arg);
        if (!d)
            return prio_not_found(c, pe, name);
    }
    s = &c->prios[prio_index(d)];
    s->on = true;
    s->origin |= POLICY_ORIGIN_FILE;
    s->weight = pe->weight; /* map assignment: the last entry wins */
    if (d->parse_args &&
        (kpe_args_effective(&pe->arg, d->args, &c->p->arena, &arg, c->e) ||
         d->parse_args(arg, &c->p->arena, &s->args, c->e))) {
        err_prefix(c->e, "%s: ", at(c, &pe->loc, "argument"));
        return -1;
    }
    if (d->parse_args)
        s->arg_loc = &pe->loc;
    c->entry_key[idx] = prio_index(d);
    return push_name(c, &s->names, name);
}

static int resolve_priorities(struct rctx *c)
{
    const struct policy_doc *d = &c->p->doc;
    size_t n, i;
    const struct prio_def *const *rows = prio_registry(&n);

    if (d->priorities_mode == POLICY_LIST_DEFAULT) {
        for (i = 0; i < n; i++) {
            if (rows[i]->flags & PRIO_DEFAULT) {
                c->prios[i].on = true;
                c->prios[i].origin = POLICY_ORIGIN_DEFAULT;
                c->prios[i].weight = rows[i]->default_weight;
            }
        }
        return 0;
    }
    c->entry_key = arena_calloc(&c->p->arena, d->n_prios ? d->n_prios : 1,
                                sizeof(*c->entry_key));
    if (!c->entry_key)
        return err_set(c->e, "out of memory");
    for (i = 0; i < d->n_prios; i++) {
        if (resolve_prio_entry(c, i))
            return -1;
    }
    return 0;
}

/* The file location of the first entry named `name`, for messages. */
static const char *first_pred_at(struct rctx *c, const char *name)
{
    size_t i;

    for (i = 0; i < c->p->doc.n_preds; i++) {
        const struct policy_pred_entry *pe = &c->p->doc.preds[i];

        if (pe->name && !strcmp(pe->name, name))
            return at(c, &pe->loc, "name");
    }
    return "predicates";
}

static const char *first_prio_at(struct rctx *c, const char *name)
{
    size_t i;

    for (i = 0; i < c->p->doc.n_prios; i++) {
        const struct policy_prio_entry *pe = &c->p->doc.prios[i];

        if (pe->name && !strcmp(pe->name, name))
            return at(c, &pe->loc, "name");
    }
    return "priorities";
}

/*
 * Internal keys named without a custom argument: v1.22 runs the plugin
 * with the args some other entry produced, and crashes or fails to start
 * when there are none. We refuse the second case.
 */
static int check_internal_keys(struct rctx *c)
{
    const struct pred_def *nl = &pred_check_node_label_presence;
    const struct pred_def *sa = &pred_check_service_affinity;
    const struct prio_def *pnl = &prio_node_label;
    const struct prio_def *psa = &prio_service_affinity;
    const struct prio_def *prt = &prio_requested_to_capacity_ratio;
    const char *why = "v1.22 would build its plugin without arguments and "
                      "fail to start; use a custom name with an argument";

    if (c->preds[pred_index(nl)].on && !c->node_label_args)
        return err_set(c->e,
                       "%s: predicate \"%s\" has no labelsPresence "
                       "argument anywhere in the policy: %s",
                       first_pred_at(c, nl->name), nl->name, why);
    if (c->preds[pred_index(sa)].on && !c->service_aff_args)
        return err_set(c->e,
                       "%s: predicate \"%s\" has no serviceAffinity "
                       "argument anywhere in the policy: %s",
                       first_pred_at(c, sa->name), sa->name, why);
    if (c->prios[prio_index(pnl)].on && !c->node_label_args)
        return err_set(c->e,
                       "%s: priority \"%s\" has no labelPreference "
                       "argument anywhere in the policy: %s",
                       first_prio_at(c, pnl->name), pnl->name, why);
    if (c->prios[prio_index(psa)].on && !c->service_aff_args)
        return err_set(c->e,
                       "%s: priority \"%s\" has no serviceAntiAffinity "
                       "argument anywhere in the policy: %s",
                       first_prio_at(c, psa->name), psa->name, why);
    if (c->prios[prio_index(prt)].on && !c->rtcr_args)
        return err_set(c->e,
                       "%s: priority \"%s\" has no "
                       "requestedToCapacityRatioArguments argument: %s",
                       first_prio_at(c, prt->name), prt->name, why);
    return 0;
}

/* validateNoConflict of ValidateNodeLabelArgs (index j of the last match). */
static void label_conflicts(struct strbuf *b, size_t *n,
                            const struct policy_strlist *present,
                            const struct policy_strlist *absent,
                            const char *ppath, const char *apath)
{
    size_t i, j;

    for (i = 0; i < absent->n; i++) {
        size_t hit = SIZE_MAX;

        for (j = 0; j < present->n; j++) {
            if (!strcmp(present->v[j], absent->v[i]))
                hit = j;
        }
        if (hit == SIZE_MAX)
            continue;
        strbuf_add(b, (*n)++ ? ", " : "");
        strbuf_printf(b, "%s[%zu]: Invalid value: ", ppath, hit);
        quote_go(b, absent->v[i]);
        strbuf_printf(b, ": conflict with %s[%zu]", apath, i);
    }
}

/* "[a b]": Go's %+v of a []string. */
static void go_list(struct strbuf *b, const struct policy_strlist *l)
{
    size_t i;

    strbuf_add(b, "[");
    for (i = 0; i < l->n; i++)
        strbuf_printf(b, "%s%s", i ? " " : "", l->v[i]);
    strbuf_add(b, "]");
}

/*
 * v1.20.2's validateNoConflict (validation_pluginargs.go, called by
 * ValidateNodeLabelArgs for the required pair, then the preferred one):
 * the first absent label also present, as one sentence. 1 when found.
 */
static int label_conflict_v120(struct strbuf *b,
                               const struct policy_strlist *present,
                               const struct policy_strlist *absent)
{
    size_t i, j;

    for (i = 0; i < absent->n; i++)
        for (j = 0; j < present->n; j++) {
            if (strcmp(present->v[j], absent->v[i]))
                continue;
            strbuf_add(b, "detecting at least one label (e.g., ");
            quote_go(b, absent->v[i]);
            strbuf_add(b, ") that exist in both the present(");
            go_list(b, present);
            strbuf_add(b, ") and absent(");
            go_list(b, absent);
            strbuf_add(b, ") label list");
            return 1;
        }
    return 0;
}

static int check_node_label_args(struct rctx *c)
{
    const struct pred_slot *ps =
        &c->preds[pred_index(&pred_check_node_label_presence)];
    const struct prio_slot *rs = &c->prios[prio_index(&prio_node_label)];
    const struct kpe_label_lists *pl = ps->on ? ps->args.value : NULL;
    const struct kpe_label_lists *rl = rs->on ? rs->args.value : NULL;
    const struct kpe_label_lists empty = { { NULL, 0 }, { NULL, 0 } };
    struct strbuf b;
    size_t n = 0;
    int rc = 0;

    if (!ps->on && !rs->on)
        return 0;
    strbuf_init(&b, PBUF_MAX);
    pl = pl ? pl : &empty;
    rl = rl ? rl : &empty;
    if (c->p->semantics < KPE_SEM_1_22) { /* D4; 1.21 believed as 1.20 */
        n = (size_t)(label_conflict_v120(&b, &pl->present, &pl->absent) ||
                     label_conflict_v120(&b, &rl->present, &rl->absent));
    } else {
        label_conflicts(&b, &n, &pl->present, &pl->absent, "presentLabels",
                        "absentLabels");
        label_conflicts(&b, &n, &rl->present, &rl->absent,
                        "presentLabelsPreference", "absentLabelsPreference");
    }
    if (n)
        rc =
            err_set(c->e, n > 1 ? "NodeLabel args: [%s]" : "NodeLabel args: %s",
                    b.s ? b.s : "");
    strbuf_free(&b);
    return rc;
}

/* v1.22 needs NodeResourcesFit args to push ignoredByScheduler names. */
static int check_ignored_resources(struct rctx *c)
{
    const struct policy_doc *d = &c->p->doc;
    bool fit = c->preds[pred_index(&pred_general_predicates)].on ||
               c->preds[pred_index(&pred_pod_fits_resources)].on;
    size_t i, j;

    for (i = 0; i < d->n_extenders && !fit; i++) {
        for (j = 0; j < d->extenders[i].n_managed_resources; j++) {
            if (d->extenders[i].managed_resources[j].ignored_by_scheduler)
                return err_set(
                    c->e,
                    "extenders[%zu].managedResources[%zu].ignoredByScheduler: "
                    "can't find NodeResourcesFitArgs in plugin config (v1.22 "
                    "refuses ignoredByScheduler when neither GeneralPredicates "
                    "nor PodFitsResources is enabled)",
                    i, j);
        }
    }
    return 0;
}

static int build_preds(struct rctx *c)
{
    size_t n, i, k = 0;
    const struct pred_def *const *rows = pred_registry(&n);
    struct policy *p = c->p;

    p->preds = arena_calloc(&p->arena, n, sizeof(*p->preds));
    if (!p->preds)
        return err_set(c->e, "out of memory");
    for (i = 0; i < n; i++) {
        struct policy_pred *pp;

        if (!c->preds[i].on)
            continue;
        pp = &p->preds[k++];
        pp->def = rows[i];
        pp->args = c->preds[i].args;
        pp->names = c->preds[i].names.v;
        pp->n_names = c->preds[i].names.n;
        pp->origin = c->preds[i].origin;
        p->needs |= rows[i]->needs;
    }
    p->n_preds = k;
    return 0;
}

/* The plugin weight v1.22 computes for one key. */
static int unit_weight(struct rctx *c, const struct prio_def *d,
                       const struct prio_slot *s, int32_t *out)
{
    int64_t w = (int32_t)s->weight, count = 1;

    if ((d->flags & PRIO_WEIGHT_LABELS) && d->weight_count) {
        count = d->weight_count(&s->args);
        if (w * count > INT32_MAX)
            return err_set(c->e,
                           "%s: weight %lld x %lld custom entries = %lld is "
                           "above 2147483647: v1.22 would wrap the plugin "
                           "weight; use a smaller weight",
                           first_prio_at(c, s->names.n ? s->names.v[0] : ""),
                           (long long)w, (long long)count,
                           (long long)(w * count));
    }
    w *= count;
    *out = w == 0 ? 1 : (int32_t)w; /* the framework turns 0 into 1 */
    return 0;
}

/* SelectorSpreadPriority's key, names and needs join the unit u. */
static int fold_selector_spread(struct rctx *c, struct policy_prio *u,
                                const struct prio_def *sel)
{
    const struct prio_slot *ss = &c->prios[prio_index(sel)];
    size_t j;

    u->keys[u->n_keys++] = sel;
    u->origin |= ss->origin;
    c->p->needs |= sel->needs;
    for (j = 0; j < ss->names.n; j++) {
        struct policy_strlist l = { u->names, u->n_names };

        if (push_name(c, &l, ss->names.v[j]))
            return -1;
        u->names = l.v;
        u->n_names = l.n;
    }
    return 0;
}

static int build_prios(struct rctx *c)
{
    size_t n, i, k = 0;
    const struct prio_def *const *rows = prio_registry(&n);
    const struct prio_def *sel = &prio_selector_spread_priority;
    const struct prio_def *even = &prio_even_pods_spread_priority;
    struct policy *p = c->p;
    bool sel_on = c->prios[prio_index(sel)].on;
    /* DefaultPodTopologySpread on (v1.22's default): SelectorSpreadPriority
     * is PodTopologySpread with System defaulting, folded with
     * EvenPodsSpreadPriority. Off: SelectorSpread is a plugin of its own
     * and EvenPodsSpreadPriority's PodTopologySpread defaults to List. */
    bool fold = !(p->gates & POLICY_GATE_DEFAULT_POD_TOPOLOGY_SPREAD_OFF);
    const struct prio_policy_facts facts = { p->hard_pod_affinity_weight,
                                             fold && sel_on, p->semantics };

    p->prios = arena_calloc(&p->arena, n, sizeof(*p->prios));
    if (!p->prios)
        return err_set(c->e, "out of memory");
    for (i = 0; i < n; i++) {
        struct prio_slot *s = &c->prios[i];
        struct policy_prio *u;

        if (!s->on || (fold && rows[i] == sel && c->prios[prio_index(even)].on))
            continue;
        u = &p->prios[k++];
        u->def = rows[i];
        u->keys[u->n_keys++] = rows[i];
        u->key_weight = s->weight;
        u->args = s->args;
        u->names = s->names.v;
        u->n_names = s->names.n;
        u->origin = s->origin;
        p->needs |= rows[i]->needs;
        if (unit_weight(c, rows[i], s, &u->weight))
            return -1;
        if (rows[i]->finish &&
            rows[i]->finish(&u->args, &facts, &p->arena, c->e)) {
            if (s->arg_loc)
                err_prefix(c->e, "%s: ", at(c, s->arg_loc, "argument"));
            return -1;
        }
        /* EvenPodsSpreadPriority sorts first: its weight is kept even when
         * SelectorSpreadPriority also maps here (9.3 quirk); the System
         * defaulting of SelectorSpreadPriority wins (facts). */
        if (fold && rows[i] == even && sel_on &&
            fold_selector_spread(c, u, sel) < 0)
            return -1;
    }
    p->n_prios = k;
    return 0;
}

/* The configured priority entries by their own names (for explain). */
static int build_entries(struct rctx *c)
{
    struct policy *p = c->p;
    const struct policy_doc *d = &p->doc;
    size_t n, i, j, u;
    const struct prio_def *const *rows = prio_registry(&n);

    if (d->priorities_mode == POLICY_LIST_DEFAULT || d->n_prios == 0)
        return 0;
    p->entries = arena_calloc(&p->arena, d->n_prios, sizeof(*p->entries));
    if (!p->entries)
        return err_set(c->e, "out of memory");
    for (i = 0; i < d->n_prios; i++) {
        struct policy_prio_entry_ref *r = &p->entries[i];
        size_t key = c->entry_key[i];

        r->name = d->prios[i].name ? d->prios[i].name : "";
        r->weight = d->prios[i].weight;
        if (key == SIZE_MAX) {
            r->def = &prio_equal_priority;
            continue;
        }
        r->def = rows[key];
        for (u = 0; u < p->n_prios && !r->prio; u++) {
            for (j = 0; j < p->prios[u].n_keys; j++) {
                if (p->prios[u].keys[j] == r->def)
                    r->prio = &p->prios[u];
            }
        }
        for (j = i + 1; j < d->n_prios; j++) {
            if (c->entry_key[j] == key &&
                d->prios[i].weight != d->prios[j].weight)
                r->overridden = true;
        }
    }
    p->n_entries = d->n_prios;
    return 0;
}

/* v1.22 calls non-ignorable extenders first, then the ignorable ones. */
static int order_extenders(struct rctx *c)
{
    struct policy *p = c->p;
    const struct policy_doc *d = &p->doc;
    size_t i, k = 0;
    int pass;

    if (!d->n_extenders)
        return 0;
    p->extenders =
        arena_calloc(&p->arena, d->n_extenders, sizeof(*p->extenders));
    if (!p->extenders)
        return err_set(c->e, "out of memory");
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < d->n_extenders; i++) {
            if (d->extenders[i].ignorable == (pass == 1))
                p->extenders[k++] = &d->extenders[i];
        }
    }
    p->n_extenders = k;
    return 0;
}

/*
 * NodeResourcesFit's IgnoredResources: the extenders' managedResources
 * with ignoredByScheduler set (v1.22 createFromPolicy), listed once here
 * so the plugin reads a list, not the Policy.
 */
static int collect_ignored_resources(struct rctx *c)
{
    struct policy *p = c->p;
    const struct policy_doc *d = &p->doc;
    const char **names;
    size_t i, j, n = 0;

    for (i = 0; i < d->n_extenders; i++)
        n += d->extenders[i].n_managed_resources;
    if (!n)
        return 0;
    names = arena_calloc(&p->arena, n, sizeof(*names));
    if (!names)
        return err_set(c->e, "out of memory");
    for (i = 0; i < d->n_extenders; i++) {
        const struct policy_extender *x = &d->extenders[i];

        for (j = 0; j < x->n_managed_resources; j++) {
            if (x->managed_resources[j].ignored_by_scheduler)
                names[p->n_ignored_resources++] = x->managed_resources[j].name;
        }
    }
    p->ignored_resources = names;
    return 0;
}

int policy_resolve(struct policy *p, struct err *e)
{
    struct rctx *c = calloc(1, sizeof(*c));
    size_t n1, n2;
    int rc;

    pred_registry(&n1);
    prio_registry(&n2);
    if (!c || n1 > MAX_ROWS || n2 > MAX_ROWS) {
        free(c);
        return err_set(e, "out of memory");
    }
    c->p = p;
    c->e = e;
    p->hard_pod_affinity_weight =
        p->doc.hard_pod_affinity_symmetric_weight
            ? p->doc.hard_pod_affinity_symmetric_weight
            : 1;
    p->always_check_all_predicates = p->doc.always_check_all_predicates;
    rc = resolve_predicates(c);
    if (!rc)
        rc = resolve_priorities(c);
    if (!rc)
        rc = check_internal_keys(c);
    if (!rc)
        rc = check_node_label_args(c);
    if (!rc)
        rc = check_ignored_resources(c);
    if (!rc)
        rc = build_preds(c);
    if (!rc)
        rc = build_prios(c);
    if (!rc)
        rc = build_entries(c);
    if (!rc)
        rc = order_extenders(c);
    if (!rc)
        rc = collect_ignored_resources(c);
    free(c);
    return rc;
}
