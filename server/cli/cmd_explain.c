/*
 * cmd_explain.c: `kube-policy-extender explain --policy P (--cluster
 * C.json... | --kubeconfig K) --pod POD [--output json|text] [--compat
 * legacy]`: the policy author's what-if tool. Evaluates the pod on every
 * node of the cluster (files or one live list, whatif/inputs.h), in input
 * order, and prints why each node fails or how it scores, and which node
 * would be selected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cluster/cluster.h"
#include "kube/base/json_writer.h"
#include "kube/parse/parse.h"
#include "kube/cluster/snapshot_file.h"
#include "policy/policy.h"
#include "server/cli/cli.h"
#include "engine/evaluate.h"
#include "engine/engine_fit_error.h"
#include "server/cli/cli_whatif.h"
#include "whatif/inputs.h"
#include "whatif/why.h"

struct explain_opts {
    const char *policy;
    const char *pod;
    bool all_pending;
    const char *sched; /* --scheduler-name of --all-pending */
    struct whatif_inputs in;
    int json;
    struct policy_load_opts load;
};

static const struct cli_opt explain_opts_table[] = {
    { "policy", 0, "FILE", true, "the Policy (JSON, YAML or INI)" },
    { "pod", 0, "POD", false,
      "the pod to place (this or --all-pending): a file (a Pod, or a "
      "Deployment, ReplicaSet, StatefulSet, Job or DaemonSet whose pod "
      "template is used), or a pod of the cluster: NS/NAME, pod/NAME, NAME" },
    { "all-pending", 0, NULL, false,
      "instead of --pod: one line per pending pod (its summary, the "
      "predicate that rejected most nodes, kube-scheduler's event)" },
    { "scheduler-name", 0, "NAME", false,
      "the pods of --all-pending (default: default-scheduler)" },
    { NULL, 0, NULL, false, NULL },
};

static const struct cli_opt *const explain_tables[] = {
    explain_opts_table, cli_output_opts, cli_policy_opts, cli_inputs_opts, NULL
};

const struct cli_spec cli_explain_spec = {
    "explain",
    "--policy POLICY (--pod POD | --all-pending) [OPTIONS]",
    "Evaluate one pod against every node of a cluster (a snapshot, or the "
    "live cluster listed once) under a Policy, as kube-scheduler v1.22 "
    "would: which predicates fail on each node and why, each priority's "
    "score (0..100, unweighted), the weighted total, and the node that "
    "would be selected.",
    NULL,
    false,
    explain_tables,
    "Exit status: 0 evaluated, 1 error, 2 usage error.\n",
};

static int explain_take(void *ctx, const char *a, const char *v)
{
    struct explain_opts *o = ctx;
    struct err e;
    int rc;

    if (!strcmp(a, "--all-pending")) {
        o->all_pending = true;
    } else if (!strcmp(a, "--policy")) {
        o->policy = v;
    } else if (!strcmp(a, "--pod")) {
        o->pod = v;
    } else if (!strcmp(a, "--scheduler-name")) {
        o->sched = v;
    } else if (!strcmp(a, "--output")) {
        bool json;

        if (cli_output_value("explain", v, &json) < 0)
            return -1;
        o->json = json;
    } else if ((rc = whatif_inputs_option(&o->in, a, v, &e)) != 0) {
        if (rc < 0) {
            fprintf(stderr, "explain: %s\n", e.msg);
            return -1;
        }
    } else if (cli_policy_take("explain", &o->load, a, v) < 0) {
        return -1;
    }
    return 0;
}

/* Returns 0, 1 for --help, or 2 for a usage error (printed). */
static int parse_args(int argc, char **argv, struct explain_opts *o)
{
    int rc;

    memset(o, 0, sizeof(*o));
    o->load.warnings = stderr;
    rc = cli_opts_parse(&cli_explain_spec, argc, argv, explain_take, o);
    if (rc)
        return rc;
    if (!o->pod == !o->all_pending)
        return cli_usage_error("explain", "give --pod POD or --all-pending");
    if (o->sched && !o->all_pending)
        return cli_usage_error("explain", "--scheduler-name chooses the pods "
                                          "of --all-pending");
    return 0;
}

static const char *pod_ref(struct arena *a, const struct kube_pod *p)
{
    return arena_sprintf(a, "%s/%s", p->namespace, p->name);
}

/*
 * What v1.22 would tell the pod when no node fits: FitError.Error()
 * ("0/N nodes are available: ..."), or ErrNoNodesAvailable without nodes.
 * NULL when some node fits (or out of memory).
 */
static const char *fit_summary(struct arena *a, const struct eval_result *r)
{
    if (r->n_feasible > 0)
        return NULL;
    if (r->n_nodes == 0)
        return "no nodes available to schedule pods";
    return engine_fit_error(a, r);
}

/*
 * v1.22's prioritizeNodes gives every feasible node a score of 1 when the
 * profile has no score plugin and there is no extender (EqualPriority is
 * dropped from a Policy, so a Policy listing only it lands here).
 */
static void apply_no_score_rule(const struct policy *p,
                                const struct prio_plan *plan,
                                struct eval_result *r)
{
    size_t i;

    if (!r->scored || plan->n_steps > 0 || p->n_extenders > 0)
        return;
    for (i = 0; i < r->n_feasible; i++)
        r->prio.totals[i] = 1;
}

static void json_node(struct jsonw *w, const struct eval_result *r,
                      const struct prio_plan *plan, size_t i)
{
    const struct eval_node *en = &r->nodes[i];
    size_t f, k;

    jsonw_begin_object(w);
    jsonw_key(w, "name");
    jsonw_string(w, en->ni->node->name);
    jsonw_key(w, "feasible");
    jsonw_bool(w, en->feasible);
    jsonw_key(w, "failures");
    jsonw_begin_array(w);
    for (f = 0; f < en->verdict.n_failures; f++) {
        const struct pred_failure *pf = &en->verdict.failures[f];

        jsonw_begin_object(w);
        jsonw_key(w, "predicate");
        jsonw_string(w, pf->predicate);
        jsonw_key(w, "reasons");
        jsonw_begin_array(w);
        for (k = 0; k < pf->n_reasons; k++)
            jsonw_string(w, pf->reasons[k]);
        jsonw_end_array(w);
        jsonw_end_object(w);
    }
    jsonw_end_array(w);
    jsonw_key(w, "scores");
    jsonw_begin_object(w);
    if (en->feasible_index >= 0 && r->scored) {
        for (k = 0; k < plan->n_names; k++) {
            int s = plan->names[k].step;

            if (s < 0)
                continue;
            jsonw_key(w, plan->names[k].name);
            jsonw_int(w, r->prio.scores[(size_t)s * r->prio.n_nodes +
                                        (size_t)en->feasible_index]);
        }
    }
    jsonw_end_object(w);
    jsonw_key(w, "total");
    jsonw_int(w, en->feasible_index >= 0 && r->scored
                     ? r->prio.totals[en->feasible_index]
                     : 0);
    jsonw_end_object(w);
}

/* kube-scheduler's word on a pending pod, when there is one to ask. */
struct why {
    bool asked; /* live, and the pod is pending */
    const struct whatif_event *ev;
    bool agree;
};

static void json_why(struct jsonw *w, const struct why *y)
{
    jsonw_key(w, "event");
    if (y->ev) {
        jsonw_begin_object(w);
        jsonw_key(w, "message");
        jsonw_string(w, y->ev->message);
        jsonw_key(w, "time");
        jsonw_string(w, y->ev->time);
        jsonw_end_object(w);
    } else {
        jsonw_null(w);
    }
    jsonw_key(w, "agree");
    if (y->ev)
        jsonw_bool(w, y->agree);
    else
        jsonw_null(w);
}

static int print_json(struct arena *a, const struct kube_pod *pod,
                      const struct eval_result *r, const struct prio_plan *plan,
                      const struct why *y, enum kpe_semantics sem)
{
    struct jsonw w;
    char *out;
    size_t i;

    jsonw_init(&w, 2);
    jsonw_begin_object(&w);
    jsonw_key(&w, "pod");
    jsonw_string(&w, pod_ref(a, pod));
    jsonw_key(&w, "semantics");
    jsonw_string(&w, kpe_semantics_name(sem));
    jsonw_key(&w, "nodes");
    jsonw_begin_array(&w);
    for (i = 0; i < r->n_nodes; i++)
        json_node(&w, r, plan, i);
    jsonw_end_array(&w);
    jsonw_key(&w, "summary");
    if (fit_summary(a, r))
        jsonw_string(&w, fit_summary(a, r));
    else
        jsonw_null(&w);
    jsonw_key(&w, "selected");
    if (r->selected >= 0)
        jsonw_string(&w, r->nodes[r->selected].ni->node->name);
    else
        jsonw_null(&w);
    json_why(&w, y);
    jsonw_end_object(&w);
    out = jsonw_take(&w, NULL);
    if (!out)
        return -1;
    printf("%s\n", out);
    free(out);
    return 0;
}

static void print_text(struct arena *a, const struct kube_pod *pod,
                       const struct eval_result *r,
                       const struct prio_plan *plan, const struct why *y,
                       enum kpe_semantics sem)
{
    size_t i, k, f, width = 4;

    for (i = 0; i < r->n_nodes; i++) {
        size_t l = strlen(r->nodes[i].ni->node->name);

        if (l > width)
            width = l;
    }
    printf("Pod %s on %zu node(s), %zu feasible", pod_ref(a, pod), r->n_nodes,
           r->n_feasible);
    if (sem != KPE_SEM_DEFAULT)
        printf(" (as kube-scheduler %s)", kpe_semantics_name(sem));
    printf("\n\n");
    printf("%-*s  %-8s  %8s  %s\n", (int)width, "NODE", "FEASIBLE", "TOTAL",
           "WHY / SCORES");
    for (i = 0; i < r->n_nodes; i++) {
        const struct eval_node *en = &r->nodes[i];
        const char *sep = "";

        if (!en->feasible) {
            printf("%-*s  %-8s  %8s  ", (int)width, en->ni->node->name, "no",
                   "-");
            for (f = 0; f < en->verdict.n_failures; f++) {
                const struct pred_failure *pf = &en->verdict.failures[f];

                printf("%s%s: ", sep, pf->predicate);
                for (k = 0; k < pf->n_reasons; k++)
                    printf("%s%s", k ? ", " : "", pf->reasons[k]);
                sep = "; ";
            }
            printf("\n");
            continue;
        }
        printf("%-*s  %-8s  %8lld  ", (int)width, en->ni->node->name, "yes",
               r->scored ? (long long)r->prio.totals[en->feasible_index] : 0LL);
        for (k = 0; r->scored && k < plan->n_names; k++) {
            int s = plan->names[k].step;

            if (s < 0)
                continue;
            printf("%s%s=%lld", sep, plan->names[k].name,
                   (long long)r->prio.scores[(size_t)s * r->prio.n_nodes +
                                             (size_t)en->feasible_index]);
            sep = " ";
        }
        printf("\n");
    }
    if (fit_summary(a, r))
        printf("\n%s\n", fit_summary(a, r));
    printf("\nSelected: %s\n", r->selected >= 0
                                   ? r->nodes[r->selected].ni->node->name
                                   : "(none: no feasible node)");
    if (!y->asked)
        return;
    if (!y->ev) {
        printf("\nkube-scheduler: no FailedScheduling event for this pod\n");
        return;
    }
    printf("\nkube-scheduler (FailedScheduling, %s): %s\n", y->ev->time,
           y->ev->message);
    printf("Agreement: %s\n",
           y->agree ? "yes, the same nodes fail for the same reasons"
                    : "NO: kube-scheduler's message differs from ours");
}

/* Ask the API server about a pending pod named by reference. */
static int ask_why(struct explain_opts *o, const struct kube_pod *pod,
                   bool from_file, const struct eval_result *r, struct arena *a,
                   struct why *y, struct err *e)
{
    struct whatif_events ev;

    memset(y, 0, sizeof(*y));
    if (!o->in.client || from_file || pod->node_name[0])
        return 0;
    y->asked = true;
    if (whatif_events_list(o->in.client, pod->namespace, pod->name, a, &ev, e) <
        0)
        return -1;
    y->ev = whatif_events_for(&ev, pod);
    y->agree =
        y->ev && whatif_fit_messages_agree(fit_summary(a, r), y->ev->message);
    return 0;
}

static int run(struct explain_opts *o, struct arena *a, struct err *e)
{
    struct policy *p = NULL;
    struct kube_objects objs = { 0 };
    struct cluster c;
    const struct kube_pod *pod;
    struct eval_plans plans;
    struct eval_result r;
    const struct node_info **nodes;
    size_t i;
    bool from_file;
    struct why y;
    int rc = -1;

    if (policy_load_file(o->policy, &o->load, &p, e) < 0)
        return -1;
    if (whatif_inputs_load(&o->in, p->needs, a, &objs, e) < 0)
        goto out_policy;
    if (o->all_pending) {
        rc = cli_explain_pending(p, &o->in, &objs, o->sched, o->json, a, e);
        goto out_policy;
    }
    if (whatif_inputs_pod(&o->in, o->pod, &objs, a, &pod, &from_file, e) < 0)
        goto out_policy;
    if (cluster_build(&c, &objs, e) < 0)
        goto out_policy;
    nodes = arena_calloc(a, c.n_nodes ? c.n_nodes : 1, sizeof(*nodes));
    if (!nodes) {
        err_set(e, "out of memory");
        goto out_cluster;
    }
    for (i = 0; i < c.n_nodes; i++)
        nodes[i] = &c.nodes[i];
    if (eval_plans_build(p, &plans, e) < 0 ||
        evaluate_pod(&plans, pod, &c, nodes, c.n_nodes,
                     EVAL_FILTER | EVAL_SCORE, a, &r, e) < 0)
        goto out_cluster;
    apply_no_score_rule(p, &plans.prio, &r);
    if (ask_why(o, pod, from_file, &r, a, &y, e) < 0)
        goto out_cluster;
    if (o->json) {
        if (print_json(a, pod, &r, &plans.prio, &y, p->semantics) < 0) {
            err_set(e, "out of memory writing JSON");
            goto out_cluster;
        }
    } else {
        print_text(a, pod, &r, &plans.prio, &y, p->semantics);
    }
    rc = 0;
out_cluster:
    cluster_free(&c);
out_policy:
    policy_free(p);
    return rc;
}

int cli_explain(int argc, char **argv)
{
    struct explain_opts o;
    struct arena a;
    struct err e;
    int rc = parse_args(argc, argv, &o);

    if (rc)
        return rc == 1 ? 0 : 2;
    arena_init(&a, 0);
    rc = run(&o, &a, &e) < 0 ? 1 : 0;
    if (rc)
        fprintf(stderr, "explain: %s\n", e.msg);
    whatif_inputs_free(&o.in);
    arena_destroy(&a);
    return rc;
}
