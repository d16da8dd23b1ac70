/*
 * cmd_diff.c: `kube-policy-extender diff --policy A (--policy B |
 * --config KSC [--profile NAME]) [--replay]` on a cluster
 * (whatif/inputs.h): the same pods placed under two policies, each run
 * its own placement sequence with the same seed (whatif/replay.h); prints
 * the pods that land differently and each node's requests under A and B.
 * Exit 1 when any placement differs, so a Policy change can gate CI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/evaluate.h"
#include "kube/base/json_writer.h"
#include "policy/policy.h"
#include "server/cli/cli.h"
#include "server/cli/cli_whatif.h"
#include "whatif/inputs.h"
#include "whatif/replay.h"
#include "whatif/report.h"
#include "whatif/side.h"

struct diff_opts {
    const char *policies[2];
    size_t n_policies;
    const char *config; /* --config: B is this KubeSchedulerConfiguration */
    const char *profile;
    const char *extender_policy; /* what B's extender serves */
    const char *sched;           /* --scheduler-name: which pending pods */
    bool replay;
    struct cli_whatif_opts c; /* the shared options */
};

static const struct cli_opt diff_opts_table[] = {
    { "policy", 0, "FILE", true,
      "a Policy (JSON, YAML or INI); give two (A and B), or one and "
      "--config" },
    { "config", 0, "FILE", false,
      "B is a KubeSchedulerConfiguration profile (v1beta1 or v1beta2, YAML "
      "or JSON)" },
    { "profile", 0, "NAME", false,
      "its profile of this schedulerName (default: the first)" },
    { "extender-policy", 0, "FILE", false,
      "B calls an extender (the split shape): the Policy it serves, run "
      "in-process beside B's own plugins" },
    { "replay", 0, NULL, false,
      "place every pod of the snapshot from empty nodes, in creation order "
      "(default: re-place the pending pods, in queue order)" },
    { "scheduler-name", 0, "NAME", false,
      "only the pending pods of this scheduler (default: all)" },
    { NULL, 0, NULL, false, NULL },
};

static const struct cli_opt *const diff_tables[] = {
    diff_opts_table, cli_whatif_run_opts, cli_output_opts,
    cli_policy_opts, cli_inputs_opts,     NULL
};

const struct cli_spec cli_diff_spec = {
    "diff",
    "--policy A (--policy B | --config KSC.yaml [--profile NAME]) "
    "[OPTIONS]",
    "Place the same pods under two policies and report the pods that land "
    "differently and each node's requests under A and B. Exit status 1 "
    "when any placement differs (gate a Policy change in CI), 0 when none "
    "does.",
    NULL,
    false,
    diff_tables,
    "Exit status: 0 no difference, 1 a difference or an error, 2 usage "
    "error.\n",
};

static int take(void *ctx, const char *a, const char *v)
{
    struct diff_opts *o = ctx;

    if (!strcmp(a, "--replay")) {
        o->replay = true;
    } else if (!strcmp(a, "--policy")) {
        if (o->n_policies == 2) {
            fprintf(stderr, "diff: at most two --policy\n");
            return -1;
        }
        o->policies[o->n_policies++] = v;
    } else if (!strcmp(a, "--config")) {
        o->config = v;
    } else if (!strcmp(a, "--profile")) {
        o->profile = v;
    } else if (!strcmp(a, "--extender-policy")) {
        o->extender_policy = v;
    } else if (!strcmp(a, "--scheduler-name")) {
        o->sched = v;
    } else if (cli_whatif_option("diff", &o->c, a, v) < 0) {
        return -1;
    }
    return 0;
}

/* Returns 0, 1 for --help, or 2 for a usage error (printed). */
static int parse_args(int argc, char **argv, struct diff_opts *o)
{
    int rc;

    memset(o, 0, sizeof(*o));
    cli_whatif_defaults(&o->c);
    rc = cli_opts_parse(&cli_diff_spec, argc, argv, take, o);
    if (rc)
        return rc;
    if (o->n_policies + (o->config != NULL) != 2 || !o->n_policies)
        return cli_usage_error("diff", "give two --policy, or one --policy "
                                       "and --config");
    if (o->profile && !o->config)
        return cli_usage_error("diff", "--profile names a profile of "
                                       "--config");
    return 0;
}

/* Both sides and what they did. */
struct diff_sides {
    struct policy *p[2];
    struct eval_plans plans[2];
    struct whatif_run r[2];
    const struct kube_pod **pods;
    size_t n_pods, n_diff;
};

static bool differs(const struct whatif_placement *a,
                    const struct whatif_placement *b)
{
    if (!a->node || !b->node)
        return a->node != b->node;
    return strcmp(a->node, b->node) != 0;
}

static void print_text(const struct diff_opts *o, const struct diff_sides *d,
                       struct arena *a)
{
    size_t i, w = 3, wa = 1;

    printf("A: %s\nB: %s\n", d->p[0]->source, d->p[1]->source);
    printf("%zu %s pod(s) on %zu node(s) of %s, seed %llu\n\n", d->n_pods,
           o->replay ? "replayed" : "pending", d->r[0].c.n_nodes,
           o->c.in.source, (unsigned long long)o->c.seed);
    for (i = 0; i < d->n_pods; i++) {
        const struct whatif_placement *pa = &d->r[0].pl[i];

        if (!differs(pa, &d->r[1].pl[i]))
            continue;
        if (strlen(cli_pod_ref(a, pa->pod)) > w)
            w = strlen(cli_pod_ref(a, pa->pod));
        if (pa->node && strlen(pa->node) > wa)
            wa = strlen(pa->node);
    }
    if (wa < 15)
        wa = 15;
    if (d->n_diff)
        printf("%-*s  %-*s  %s\n", (int)w, "POD", (int)wa, "A", "B");
    for (i = 0; i < d->n_pods; i++) {
        const struct whatif_placement *pa = &d->r[0].pl[i],
                                      *pb = &d->r[1].pl[i];

        if (differs(pa, pb))
            printf("%-*s  %-*s  %s\n", (int)w, cli_pod_ref(a, pa->pod), (int)wa,
                   pa->node ? pa->node : "(unschedulable)",
                   pb->node ? pb->node : "(unschedulable)");
    }
    if (d->n_diff)
        printf("\n%zu of %zu pod(s) land differently.\n\n", d->n_diff,
               d->n_pods);
    else
        printf("No difference: every pod lands on the same node under A and "
               "B.\n\n");
    cli_text_usage(stdout, &d->r[0].c, d->r[0].after, d->r[1].after, "A", "B",
                   false);
}

static int print_json(const struct diff_opts *o, const struct diff_sides *d,
                      struct arena *a)
{
    static const char *const names[] = { "before", "a", "b" };
    const struct whatif_usage *u[] = { d->r[0].before, d->r[0].after,
                                       d->r[1].after };
    struct jsonw w;
    size_t i;

    jsonw_init(&w, 2);
    jsonw_begin_object(&w);
    jsonw_key(&w, "a");
    jsonw_string(&w, d->p[0]->source);
    jsonw_key(&w, "b");
    jsonw_string(&w, d->p[1]->source);
    jsonw_key(&w, "source");
    jsonw_string(&w, o->c.in.source);
    jsonw_key(&w, "mode");
    jsonw_string(&w, o->replay ? "replay" : "pending");
    jsonw_key(&w, "seed");
    jsonw_int(&w, (int64_t)o->c.seed);
    jsonw_key(&w, "pods");
    jsonw_int(&w, (int64_t)d->n_pods);
    jsonw_key(&w, "differences");
    jsonw_int(&w, (int64_t)d->n_diff);
    jsonw_key(&w, "placements");
    jsonw_begin_array(&w);
    for (i = 0; i < d->n_pods; i++) {
        const struct whatif_placement *pa = &d->r[0].pl[i],
                                      *pb = &d->r[1].pl[i];

        jsonw_begin_object(&w);
        jsonw_key(&w, "pod");
        jsonw_string(&w, cli_pod_ref(a, pa->pod));
        jsonw_key(&w, "a");
        jsonw_string(&w, pa->node);
        jsonw_key(&w, "b");
        jsonw_string(&w, pb->node);
        jsonw_key(&w, "differs");
        jsonw_bool(&w, differs(pa, pb));
        jsonw_key(&w, "aMessage");
        jsonw_string(&w, pa->message);
        jsonw_key(&w, "bMessage");
        jsonw_string(&w, pb->message);
        jsonw_end_object(&w);
    }
    jsonw_end_array(&w);
    cli_json_usage(&w, &d->r[0].c, names, u, 3);
    jsonw_end_object(&w);
    return cli_json_print(&w);
}

static int load_sides(struct diff_opts *o, struct diff_sides *d, struct err *e)
{
    struct whatif_side b = { o->config ? NULL : o->policies[1], o->config,
                             o->profile, o->extender_policy };

    if (policy_load_file(o->policies[0], &o->c.load, &d->p[0], e) < 0 ||
        whatif_side_load(&b, &o->c.load, &d->p[1], e) < 0)
        return -1;
    if (eval_plans_build(d->p[0], &d->plans[0], e) < 0 ||
        eval_plans_build(d->p[1], &d->plans[1], e) < 0)
        return -1;
    return 0;
}

/* The report's scores: pod under A on the starting cluster (built in c). */
static int start_scores(const struct diff_opts *o, const struct diff_sides *d,
                        const struct kube_objects *objs,
                        const struct kube_pod *pod, struct cluster *c,
                        struct arena *a, struct eval_result *out, struct err *e)
{
    struct kube_objects nodes_only = *objs;
    const struct node_info **nodes;
    struct kube_pod *ask = arena_alloc(a, sizeof(*ask));
    size_t i;

    if (!ask)
        return err_set(e, "out of memory");
    *ask = *pod;
    ask->node_name = "";
    if (o->replay) {
        nodes_only.n_pods = 0;
        nodes_only.pods = NULL;
    }
    if (cluster_build(c, &nodes_only, e) < 0)
        return -1;
    nodes = arena_calloc(a, c->n_nodes ? c->n_nodes : 1, sizeof(*nodes));
    if (!nodes)
        return err_set(e, "out of memory");
    for (i = 0; i < c->n_nodes; i++)
        nodes[i] = &c->nodes[i];
    return evaluate_pod(&d->plans[0], ask, c, nodes, c->n_nodes,
                        EVAL_FILTER | EVAL_SCORE, a, out, e);
}

static int write_report(const struct diff_opts *o, const struct diff_sides *d,
                        const struct kube_objects *objs, struct arena *a,
                        struct err *e)
{
    static const char *const states[] = { "before", "a", "b" };
    static const char *const columns[] = { "a", "b" };
    const struct whatif_usage *u[] = { d->r[0].before, d->r[0].after,
                                       d->r[1].after };
    struct whatif_report_row *rows =
        arena_calloc(a, d->n_diff ? d->n_diff : 1, sizeof(*rows));
    struct whatif_report rep = { 0 };
    const struct kube_pod *show = d->n_pods ? d->pods[0] : NULL;
    struct eval_result scores;
    struct cluster c;
    size_t i, k = 0;
    int rc;

    if (!rows)
        return err_set(e, "out of memory");
    for (i = 0; i < d->n_pods; i++) {
        const struct whatif_placement *pa = &d->r[0].pl[i],
                                      *pb = &d->r[1].pl[i];

        if (!differs(pa, pb))
            continue;
        if (!k)
            show = pa->pod;
        rows[k].pod = cli_pod_ref(a, pa->pod);
        rows[k].node[0] = pa->node;
        rows[k].node[1] = pb->node;
        rows[k++].message = pa->message ? pa->message : pb->message;
    }
    rep.title = "diff";
    rep.detail =
        arena_sprintf(a,
                      "A: %s; B: %s; %zu of %zu %s pod(s) land "
                      "differently on %zu node(s) of %s, seed %llu",
                      d->p[0]->source, d->p[1]->source, d->n_diff, d->n_pods,
                      o->replay ? "replayed" : "pending", d->r[0].c.n_nodes,
                      o->c.in.source, (unsigned long long)o->c.seed);
    rep.c = &d->r[0].c;
    rep.states = states;
    rep.usage = u;
    rep.n_states = 3;
    rep.columns = columns;
    rep.n_columns = 2;
    rep.rows = rows;
    rep.n_rows = k;
    rep.rows_title = "Pods that land differently";
    memset(&c, 0, sizeof(c));
    if (show) {
        if (start_scores(o, d, objs, show, &c, a, &scores, e) < 0) {
            cluster_free(&c);
            return -1;
        }
        rep.score_pod = cli_pod_ref(a, show);
        rep.scores = &scores;
        rep.plan = &d->plans[0].prio;
    }
    rc = whatif_report_write(o->c.report, &rep, e);
    cluster_free(&c);
    return rc;
}

/* Returns 0 no difference, 1 differences, -1 error (e set). */
static int run(struct diff_opts *o, struct arena *a, struct err *e)
{
    struct kube_objects objs = { 0 };
    struct diff_sides d;
    size_t i, k;
    int rc = -1;

    memset(&d, 0, sizeof(d));
    if (load_sides(o, &d, e) < 0 ||
        whatif_inputs_load(&o->c.in, d.p[0]->needs | d.p[1]->needs, a, &objs,
                           e) < 0)
        goto out;
    if (whatif_pods_to_place(&objs, o->replay, o->sched, a, &d.pods,
                             &d.n_pods) < 0) {
        err_set(e, "out of memory");
        goto out;
    }
    for (k = 0; k < 2; k++) {
        if (whatif_run_pods(&d.plans[k], &objs, o->replay,
                            (const struct kube_pod *const *)d.pods, d.n_pods,
                            o->c.percentage, o->c.seed, a, &d.r[k], e) < 0) {
            err_prefix(e, "%s: ", k ? "B" : "A");
            goto out;
        }
    }
    for (i = 0; i < d.n_pods; i++)
        d.n_diff += differs(&d.r[0].pl[i], &d.r[1].pl[i]);
    if (o->c.json) {
        if (print_json(o, &d, a) < 0) {
            err_set(e, "out of memory writing JSON");
            goto out;
        }
    } else {
        print_text(o, &d, a);
    }
    if (o->c.report && write_report(o, &d, &objs, a, e) < 0)
        goto out;
    rc = d.n_diff ? 1 : 0;
out:
    for (k = 0; k < 2; k++) {
        cluster_free(&d.r[k].c);
        policy_free(d.p[k]);
    }
    return rc;
}

int cli_diff(int argc, char **argv)
{
    struct diff_opts o;
    struct arena a;
    struct err e;
    int rc = parse_args(argc, argv, &o);

    if (rc)
        return rc == 1 ? 0 : 2;
    arena_init(&a, 0);
    rc = run(&o, &a, &e);
    if (rc < 0)
        fprintf(stderr, "diff: %s\n", e.msg);
    whatif_inputs_free(&o.c.in);
    arena_destroy(&a);
    return rc < 0 ? 1 : rc;
}
