/*
 * policy_print.c: `check` output: the effective configuration after
 * defaults and mandatory additions, in run order, with weights, typed
 * arguments, the configured names behind each entry and the v1.22 plugins
 * each maps to. Text for people, JSON (--output json) for tools.
 */
#include "policy/policy.h"

#include <string.h>

#include "policy/arg_print.h"
#include "policy/policy_buf.h"

static const char *origin_text(unsigned o)
{
    if (o & POLICY_ORIGIN_FILE)
        return (o & POLICY_ORIGIN_MANDATORY) ? "file+mandatory" : "file";
    if (o & POLICY_ORIGIN_MANDATORY)
        return (o & POLICY_ORIGIN_DEFAULT) ? "default+mandatory" : "mandatory";
    return "default";
}

static const char *const ep_text[] = { "preFilter", "filter",  "preScore",
                                       "score",     "reserve", "preBind" };

static void plugins_text(struct strbuf *b,
                         const struct kpe_plugin_ref *const *r, size_t n,
                         bool json)
{
    size_t i, j, k;

    if (!n) {
        strbuf_add(b, json ? "[]" : "(none in v1.22: served by this extender)");
        return;
    }
    strbuf_add(b, json ? "[" : "");
    for (i = 0; i < n; i++) {
        if (json) {
            strbuf_add(b, i ? ", {\"name\": " : "{\"name\": ");
            quote_json(b, r[i]->name);
            strbuf_add(b, ", \"extensionPoints\": [");
        } else {
            strbuf_printf(b, "%s%s(", i ? " " : "", r[i]->name);
        }
        for (j = 0, k = 0; j < 6; j++) {
            if (!(r[i]->points & (1u << j)))
                continue;
            if (json)
                strbuf_printf(b, "%s\"%s\"", k++ ? ", " : "", ep_text[j]);
            else
                strbuf_printf(b, "%s%s", k++ ? "," : "", ep_text[j]);
        }
        strbuf_add(b, json ? "]}" : ")");
    }
    strbuf_add(b, json ? "]" : "");
}

/*
 * A key's typed arguments as "k=v k=v" (text) or a JSON object, through the
 * descriptor's schema: its resolved one, or for a plugin's own arguments
 * without one the schema they were written in.
 */
static void args_out(struct strbuf *b, const struct kpe_arg_schema *s,
                     const void *value, bool json)
{
    if (!s) {
        strbuf_add(b, json ? "{}" : "");
        return;
    }
    if (json)
        policy_arg_json(b, s, value);
    else
        policy_arg_text(b, s, value);
}

static void pred_args_out(struct strbuf *b, const struct policy_pred *pp,
                          bool json)
{
    args_out(b, pp->def->resolved ? pp->def->resolved : pp->def->args,
             pp->args.value, json);
}

static void prio_args_out(struct strbuf *b, const struct policy_prio *u,
                          bool json)
{
    args_out(b, u->def->resolved ? u->def->resolved : u->def->args,
             u->args.value, json);
}

static void names_out(struct strbuf *b, const char **v, size_t n, bool json)
{
    struct policy_strlist l = { v, n };

    policy_strlist_out(b, &l, json);
}

static const char *needs_names[] = {
    "podsOnNode", "allPods",        "services", "controllers", "pvs",
    "pvcs",       "storageClasses", "csiNodes", "namespaces",
};

/*
 * What serving p makes of the extender (policy_extender_role), in words:
 * which deployment shape it fits and what stays unsafe there.
 */
static void role_text(struct strbuf *b, const struct policy *p)
{
    struct policy_role r;
    size_t i;

    policy_extender_role(p, &r);
    strbuf_add(b, "\nServed by the extender (kube-policy-extender serve):\n");
    if (!r.sole) {
        strbuf_add(b, "  split shape: only names kube-scheduler lacks; "
                      "kube-scheduler keeps its in-tree\n"
                      "  predicates and priorities. prioritize answers in "
                      "proportion (--score-scale auto:\n"
                      "  scaled): answer x weight x 10 = the in-process "
                      "weighted score when the\n"
                      "  extender's weight is the sum of these priorities' "
                      "weights (convert --to\n"
                      "  scheduler-policy writes it).\n");
    } else {
        strbuf_add(b, "  sole decision: names kube-scheduler also has in-tree, "
                      "so kube-scheduler must\n"
                      "  leave the decision to the extender (predicates: [], "
                      "priorities: [] in its\n"
                      "  Policy); prioritize ranks (--score-scale auto: rank): "
                      "v1.22's best node gets 10\n"
                      "  and no other does. The safe default is the split "
                      "shape instead: convert\n"
                      "  --to scheduler-policy and --to extender-policy.\n");
    }
    if (!r.n_pod_dependent) {
        strbuf_add(b, "  Reads no pods on nodes: nothing it answers goes "
                      "stale during a burst.\n");
        return;
    }
    strbuf_add(b, "  Reads the pods on nodes:");
    for (i = 0; i < r.n_pod_dependent; i++)
        strbuf_printf(b, " %s", r.pod_dependent[i]);
    strbuf_add(b, "\n  UNSAFE unless the extender accounts for its own "
                  "decisions: kube-scheduler\n"
                  "  places the next pod of a burst before the watch shows "
                  "the last one bound.\n"
                  "  serve holds each pod on the node its answer leaves "
                  "kube-scheduler (one\n"
                  "  feasible node, or the single top score of a ranked "
                  "prioritize) until the\n"
                  "  watch shows it bound (--hold-timeout, live cluster "
                  "only). Still unsafe:\n"
                  "  kube-scheduler without prioritizeVerb, other scorers or "
                  "extenders beside it,\n"
                  "  --score-scale scaled or raw, --hold-timeout 0, and "
                  "several replicas of the\n"
                  "  extender (holds are per process).\n");
}

static void text_out(struct strbuf *b, const struct policy *p)
{
    size_t i;

    strbuf_printf(b,
                  "Policy %s: valid (%s, apiVersion %s, compat %s, "
                  "semantics %s)\n",
                  p->source,
                  p->doc.ini    ? "INI"
                  : p->doc.yaml ? "YAML"
                                : "JSON",
                  p->doc.api_version ? p->doc.api_version : "v1",
                  (p->compat & POLICY_COMPAT_LEGACY) ? "legacy" : "none",
                  kpe_semantics_name(p->semantics));
    strbuf_printf(b, "\nPredicates, in run order (%s):\n",
                  p->doc.predicates_mode == POLICY_LIST_DEFAULT
                      ? "\"predicates\" absent: the v1.22 default set"
                      : "as listed, plus the mandatory ones");
    for (i = 0; i < p->n_preds; i++) {
        const struct policy_pred *pp = &p->preds[i];
        const struct kpe_plugin_ref *refs[KPE_MAX_PLUGINS];

        strbuf_printf(b, "  %2zu. %s [%s]", i + 1, pp->def->name,
                      origin_text(pp->origin));
        if (pp->n_names &&
            (pp->n_names > 1 || strcmp(pp->names[0], pp->def->name))) {
            strbuf_add(b, " from ");
            names_out(b, pp->names, pp->n_names, false);
        }
        strbuf_add(b, "\n      v1.22: ");
        plugins_text(b, refs, pred_def_refs(pp->def, refs), false);
        if (pp->def->args) {
            strbuf_add(b, "\n      args: ");
            pred_args_out(b, pp, false);
        }
        strbuf_add(b, "\n");
    }
    strbuf_printf(b, "\nPriorities, as v1.22 scores (%s):\n",
                  p->doc.priorities_mode == POLICY_LIST_DEFAULT
                      ? "\"priorities\" absent: the v1.22 default set"
                      : "as listed");
    if (!p->n_prios)
        strbuf_add(b, "  (none: every feasible node scores the same)\n");
    for (i = 0; i < p->n_prios; i++) {
        const struct policy_prio *u = &p->prios[i];
        const struct kpe_plugin_ref *refs[KPE_MAX_PLUGINS];

        strbuf_printf(b, "  %s%s%s weight %d [%s]", u->def->name,
                      u->n_keys > 1 ? "+" : "",
                      u->n_keys > 1 ? u->keys[1]->name : "", (int)u->weight,
                      origin_text(u->origin));
        if (u->n_names &&
            (u->n_names > 1 || strcmp(u->names[0], u->def->name))) {
            strbuf_add(b, " from ");
            names_out(b, u->names, u->n_names, false);
        }
        strbuf_add(b, "\n      v1.22: ");
        plugins_text(b, refs, prio_def_refs(u->def, refs), false);
        if (u->def->resolved || u->def->args) {
            strbuf_add(b, "\n      args: ");
            prio_args_out(b, u, false);
        }
        strbuf_add(b, "\n");
    }
    if (p->n_entries) {
        strbuf_add(b, "\nConfigured priority entries:\n");
        for (i = 0; i < p->n_entries; i++) {
            const struct policy_prio_entry_ref *r = &p->entries[i];

            strbuf_printf(b, "  %s weight %lld -> ", r->name,
                          (long long)r->weight);
            if (!r->prio)
                strbuf_add(b, "dropped (v1.22 skips EqualPriority)\n");
            else
                strbuf_printf(b, "%s (plugin weight %d)%s\n", r->def->name,
                              (int)r->prio->weight,
                              r->overridden ? ", weight replaced by a later "
                                              "entry of the same key"
                                            : "");
        }
    }
    strbuf_add(b, "\nExtenders, in call order:\n");
    if (!p->n_extenders)
        strbuf_add(b, "  (none)\n");
    for (i = 0; i < p->n_extenders; i++) {
        const struct policy_extender *x = p->extenders[i];

        strbuf_printf(b,
                      "  %s filter=%s prioritize=%s weight=%lld bind=%s "
                      "preempt=%s%s\n",
                      x->url_prefix, x->filter_verb ? x->filter_verb : "",
                      x->prioritize_verb ? x->prioritize_verb : "",
                      (long long)x->weight, x->bind_verb ? x->bind_verb : "",
                      x->preempt_verb ? x->preempt_verb : "",
                      x->ignorable ? " ignorable" : "");
    }
    strbuf_printf(b,
                  "\nhardPodAffinitySymmetricWeight: %d (effective %d)\n"
                  "alwaysCheckAllPredicates: %s\nCluster data needed:",
                  (int)p->doc.hard_pod_affinity_symmetric_weight,
                  (int)p->hard_pod_affinity_weight,
                  p->always_check_all_predicates ? "true" : "false");
    for (i = 0; i < 9; i++) {
        if (p->needs & (1u << i))
            strbuf_printf(b, " %s", needs_names[i]);
    }
    strbuf_add(b, p->needs ? "\n" : " nodes only\n");
    role_text(b, p);
}

static void json_out(struct strbuf *b, const struct policy *p)
{
    struct policy_role role;
    size_t i, k;

    strbuf_add(b, "{\n  \"source\": ");
    quote_json(b, p->source);
    strbuf_printf(
        b,
        ",\n  \"valid\": true,\n  \"format\": \"%s\",\n"
        "  \"compat\": \"%s\",\n  \"semantics\": \"%s\",\n  "
        "\"predicatesMode\": \"%s\",\n"
        "  \"prioritiesMode\": \"%s\",\n  \"predicates\": [",
        p->doc.ini    ? "ini"
        : p->doc.yaml ? "yaml"
                      : "json",
        (p->compat & POLICY_COMPAT_LEGACY) ? "legacy" : "none",
        kpe_semantics_name(p->semantics),
        p->doc.predicates_mode == POLICY_LIST_DEFAULT ? "default" : "listed",
        p->doc.priorities_mode == POLICY_LIST_DEFAULT ? "default" : "listed");
    for (i = 0; i < p->n_preds; i++) {
        const struct policy_pred *pp = &p->preds[i];
        const struct kpe_plugin_ref *refs[KPE_MAX_PLUGINS];

        strbuf_add(b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
        quote_json(b, pp->def->name);
        strbuf_printf(b, ", \"origin\": \"%s\", \"configuredNames\": ",
                      origin_text(pp->origin));
        names_out(b, pp->names, pp->n_names, true);
        strbuf_add(b, ", \"v122Plugins\": ");
        plugins_text(b, refs, pred_def_refs(pp->def, refs), true);
        strbuf_add(b, ", \"args\": ");
        pred_args_out(b, pp, true);
        strbuf_add(b, "}");
    }
    strbuf_add(b, "\n  ],\n  \"priorities\": [");
    for (i = 0; i < p->n_prios; i++) {
        const struct policy_prio *u = &p->prios[i];
        const struct kpe_plugin_ref *refs[KPE_MAX_PLUGINS];

        strbuf_add(b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
        quote_json(b, u->def->name);
        strbuf_add(b, ", \"keys\": [");
        for (k = 0; k < u->n_keys; k++) {
            strbuf_add(b, k ? ", " : "");
            quote_json(b, u->keys[k]->name);
        }
        strbuf_printf(b,
                      "], \"weight\": %d, \"origin\": \"%s\", "
                      "\"configuredNames\": ",
                      (int)u->weight, origin_text(u->origin));
        names_out(b, u->names, u->n_names, true);
        strbuf_add(b, ", \"v122Plugins\": ");
        plugins_text(b, refs, prio_def_refs(u->def, refs), true);
        strbuf_add(b, ", \"args\": ");
        prio_args_out(b, u, true);
        strbuf_add(b, "}");
    }
    strbuf_add(b, "\n  ],\n  \"priorityEntries\": [");
    for (i = 0; i < p->n_entries; i++) {
        const struct policy_prio_entry_ref *r = &p->entries[i];

        strbuf_add(b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
        quote_json(b, r->name);
        strbuf_printf(b, ", \"weight\": %lld, \"key\": ", (long long)r->weight);
        quote_json(b, r->def ? r->def->name : "");
        strbuf_printf(b, ", \"dropped\": %s, \"overridden\": %s}",
                      r->prio ? "false" : "true",
                      r->overridden ? "true" : "false");
    }
    strbuf_add(b, "\n  ],\n  \"extenders\": [");
    for (i = 0; i < p->n_extenders; i++) {
        strbuf_add(b, i ? ", " : "");
        quote_json(b, p->extenders[i]->url_prefix);
    }
    strbuf_printf(b,
                  "],\n  \"hardPodAffinitySymmetricWeight\": %d,\n"
                  "  \"effectiveHardPodAffinityWeight\": %d,\n"
                  "  \"alwaysCheckAllPredicates\": %s,\n  \"clusterData\": [",
                  (int)p->doc.hard_pod_affinity_symmetric_weight,
                  (int)p->hard_pod_affinity_weight,
                  p->always_check_all_predicates ? "true" : "false");
    for (i = 0, k = 0; i < 9; i++) {
        if (p->needs & (1u << i))
            strbuf_printf(b, "%s\"%s\"", k++ ? ", " : "", needs_names[i]);
    }
    policy_extender_role(p, &role);
    strbuf_printf(b,
                  "],\n  \"extenderRole\": {\"shape\": \"%s\", "
                  "\"podDependent\": [",
                  role.sole ? "sole" : "split");
    for (i = 0; i < role.n_pod_dependent; i++) {
        strbuf_add(b, i ? ", " : "");
        quote_json(b, role.pod_dependent[i]);
    }
    strbuf_add(b, "]},\n  \"warnings\": [");
    for (i = 0; i < p->n_warnings; i++) {
        strbuf_add(b, i ? ", " : "");
        quote_json(b, p->warnings[i]);
    }
    strbuf_add(b, "]\n}\n");
}

int policy_print_check(FILE *f, const struct policy *p, int json)
{
    struct strbuf b;
    int rc = 0;

    strbuf_init(&b, PBUF_MAX);
    if (json)
        json_out(&b, p);
    else
        text_out(&b, p);
    if (b.failed || !b.s || fputs(b.s, f) < 0)
        rc = -1;
    strbuf_free(&b);
    return rc;
}
