/*
 * cmd_simulate.c: `kube-policy-extender simulate --policy P --pod POD
 * [--pod MORE...] [--replicas N | --until-unschedulable]` on a cluster
 * (whatif/inputs.h): places the pods in order as the scheduler would,
 * each placement assumed before the next (whatif/place.h), and prints
 * where each lands and why the rest fail; with --until-unschedulable,
 * how many more replicas fit and what stops the next one.
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
#include "whatif/place.h"
#include "whatif/report.h"

#define SIM_MAX_PODS     64
#define SIM_MAX_REPLICAS 1000000L

struct sim_opts {
    const char *policy;
    const char *pods[SIM_MAX_PODS];
    size_t n_pods;
    long replicas;            /* 0: each pod once, under its own name */
    bool until;               /* --until-unschedulable */
    long max;                 /* --max-replicas */
    struct cli_whatif_opts c; /* the shared options */
};

static const struct cli_opt sim_opts_table[] = {
    { "policy", 0, "FILE", true, "the Policy (JSON, YAML or INI)" },
    { "pod", 0, "POD", true,
      "a file (a Pod, or a workload whose pod template is used) or a pod of "
      "the cluster (NS/NAME); repeat for more, in order" },
    { "replicas", 0, "N", false,
      "place N copies of each pod (NAME-0 ... NAME-N-1)" },
    { "until-unschedulable", 0, NULL, false,
      "place copies of the one pod until one fits nowhere: how many more "
      "fit, and what stops the next" },
    { "max-replicas", 0, "N", false,
      "stop --until-unschedulable after N (default: 1000000)" },
    { NULL, 0, NULL, false, NULL },
};

static const struct cli_opt *const sim_tables[] = {
    sim_opts_table,  cli_whatif_run_opts, cli_output_opts,
    cli_policy_opts, cli_inputs_opts,     NULL
};

const struct cli_spec cli_simulate_spec = {
    "simulate",
    "--policy POLICY --pod POD [--pod POD ...] [--replicas N | "
    "--until-unschedulable] [OPTIONS]",
    "Place pods one after another as the scheduler would under the Policy, "
    "each placement assumed before the next (resources, ports, affinity, "
    "spreading, volume limits), and print where each lands and why the "
    "others fail. The cluster is --cluster FILE(s) or the live cluster "
    "listed once.",
    NULL,
    false,
    sim_tables,
    "Exit status: 0 simulated, 1 error, 2 usage error.\n",
};

static int take(void *ctx, const char *a, const char *v)
{
    struct sim_opts *o = ctx;

    if (!strcmp(a, "--policy")) {
        o->policy = v;
    } else if (!strcmp(a, "--until-unschedulable")) {
        o->until = true;
    } else if (!strcmp(a, "--pod")) {
        if (o->n_pods == SIM_MAX_PODS) {
            fprintf(stderr, "simulate: at most %d --pod\n", SIM_MAX_PODS);
            return -1;
        }
        o->pods[o->n_pods++] = v;
    } else if (!strcmp(a, "--replicas")) {
        return cli_num_option("simulate", a, v, 1, SIM_MAX_REPLICAS,
                              &o->replicas);
    } else if (!strcmp(a, "--max-replicas")) {
        return cli_num_option("simulate", a, v, 1, SIM_MAX_REPLICAS, &o->max);
    } else if (cli_whatif_option("simulate", &o->c, a, v) < 0) {
        return -1;
    }
    return 0;
}

/* Returns 0, 1 for --help, or 2 for a usage error (printed). */
static int parse_args(int argc, char **argv, struct sim_opts *o)
{
    int rc;

    memset(o, 0, sizeof(*o));
    cli_whatif_defaults(&o->c);
    o->max = SIM_MAX_REPLICAS;
    rc = cli_opts_parse(&cli_simulate_spec, argc, argv, take, o);
    if (rc)
        return rc;
    if (o->until && (o->replicas || o->n_pods != 1))
        return cli_usage_error("simulate", "--until-unschedulable places "
                                           "copies of one --pod; it takes no "
                                           "--replicas");
    return 0;
}

/* The run's results, for the printers. */
struct sim_run {
    struct cluster c;
    struct whatif_placement *pl;
    size_t n, cap, placed;
    struct whatif_usage *before, *after;
    const struct kube_pod *first; /* the first pod asked */
};

static int push(struct sim_run *r, struct arena *a,
                const struct whatif_placement *p)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct whatif_placement *v = arena_alloc(a, cap * sizeof(*v));

        if (!v)
            return -1;
        if (r->n)
            memcpy(v, r->pl, r->n * sizeof(*v));
        r->pl = v;
        r->cap = cap;
    }
    r->pl[r->n++] = *p;
    r->placed += p->node != NULL;
    return 0;
}

/* Place every pod asked (or copies until one fails); 0 or -1 with e. */
static int place_all(struct sim_opts *o, const struct kube_objects *objs,
                     struct whatif_sim *s, struct sim_run *r, struct arena *a,
                     struct err *e)
{
    size_t i;
    long k, n;

    for (i = 0; i < o->n_pods; i++) {
        const struct kube_pod *pod;
        bool from_file;

        if (whatif_inputs_pod(&o->c.in, o->pods[i], objs, a, &pod, &from_file,
                              e) < 0)
            return -1;
        if (!r->first)
            r->first = pod;
        n = o->until ? o->max : o->replicas ? o->replicas : 1;
        for (k = 0; k < n; k++) {
            struct whatif_placement p;
            const struct kube_pod *q = o->until || o->replicas
                                           ? whatif_replica(a, pod, (size_t)k)
                                           : pod;

            if (!q)
                return err_set(e, "out of memory");
            if (whatif_place(s, q, &p, e) < 0)
                return -1;
            if (push(r, a, &p) < 0)
                return err_set(e, "out of memory");
            if (o->until && !p.node)
                break;
        }
    }
    return 0;
}

static void print_text(const struct sim_opts *o, const struct sim_run *r,
                       struct arena *a)
{
    size_t i, width = 3;

    printf("Simulating on %zu node(s) of %s, seed %llu\n\n", r->c.n_nodes,
           o->c.in.source, (unsigned long long)o->c.seed);
    if (o->until) {
        const struct whatif_placement *last = &r->pl[r->n - 1];

        if (last->node)
            printf("%zu more replica(s) of %s fit (stopped at "
                   "--max-replicas)\n",
                   r->placed, cli_pod_ref(a, r->first));
        else
            printf("%zu more replica(s) of %s fit; the next: %s\n", r->placed,
                   cli_pod_ref(a, r->first), last->message);
        if (!last->node && last->top_predicate)
            printf("Most rejections: %s (%zu node(s))\n", last->top_predicate,
                   last->top_count);
        printf("\n");
    } else {
        for (i = 0; i < r->n; i++) {
            size_t l = strlen(cli_pod_ref(a, r->pl[i].pod));

            if (l > width)
                width = l;
        }
        printf("%-*s  %s\n", (int)width, "POD", "NODE / WHY NOT");
        for (i = 0; i < r->n; i++)
            printf("%-*s  %s\n", (int)width, cli_pod_ref(a, r->pl[i].pod),
                   r->pl[i].node ? r->pl[i].node : r->pl[i].message);
        printf("\nPlaced %zu of %zu pod(s); %zu unschedulable.\n\n", r->placed,
               r->n, r->n - r->placed);
    }
    cli_text_usage(stdout, &r->c, r->before, r->after, "before", "after",
                   false);
}

static int print_json(const struct sim_opts *o, const struct sim_run *r,
                      struct arena *a)
{
    static const char *const names[] = { "before", "after" };
    const struct whatif_usage *u[] = { r->before, r->after };
    struct jsonw w;
    size_t i;

    jsonw_init(&w, 2);
    jsonw_begin_object(&w);
    jsonw_key(&w, "source");
    jsonw_string(&w, o->c.in.source);
    jsonw_key(&w, "seed");
    jsonw_int(&w, (int64_t)o->c.seed);
    jsonw_key(&w, "placements");
    jsonw_begin_array(&w);
    for (i = 0; i < r->n; i++)
        cli_json_placement(&w, a, &r->pl[i]);
    jsonw_end_array(&w);
    jsonw_key(&w, "placed");
    jsonw_int(&w, (int64_t)r->placed);
    jsonw_key(&w, "unschedulable");
    jsonw_int(&w, (int64_t)(r->n - r->placed));
    if (o->until) {
        const struct whatif_placement *last = &r->pl[r->n - 1];

        jsonw_key(&w, "untilUnschedulable");
        jsonw_begin_object(&w);
        jsonw_key(&w, "fit");
        jsonw_int(&w, (int64_t)r->placed);
        jsonw_key(&w, "next");
        jsonw_string(&w, last->message);
        jsonw_end_object(&w);
    }
    cli_json_usage(&w, &r->c, names, u, 2);
    jsonw_end_object(&w);
    return cli_json_print(&w);
}

/* The first pod's scores on the cluster as it was (for the report). */
static int first_scores(struct sim_opts *o, const struct kube_objects *objs,
                        const struct eval_plans *plans, struct sim_run *r,
                        struct arena *a, struct eval_result *out, struct err *e)
{
    const struct node_info **nodes =
        arena_calloc(a, r->c.n_nodes ? r->c.n_nodes : 1, sizeof(*nodes));
    const struct kube_pod *pod;
    struct kube_pod *ask;
    bool from_file;
    size_t i;

    if (!nodes || !(ask = arena_alloc(a, sizeof(*ask))))
        return err_set(e, "out of memory");
    if (whatif_inputs_pod(&o->c.in, o->pods[0], objs, a, &pod, &from_file, e) <
        0)
        return -1;
    *ask = *pod;
    ask->node_name = "";
    for (i = 0; i < r->c.n_nodes; i++)
        nodes[i] = &r->c.nodes[i];
    r->first = ask;
    return evaluate_pod(plans, ask, &r->c, nodes, r->c.n_nodes,
                        EVAL_FILTER | EVAL_SCORE, a, out, e);
}

static int write_report(const struct sim_opts *o, const struct sim_run *r,
                        const struct eval_result *scores,
                        const struct eval_plans *plans, struct arena *a,
                        struct err *e)
{
    static const char *const states[] = { "before", "after" };
    static const char *const columns[] = { "node" };
    const struct whatif_usage *u[] = { r->before, r->after };
    struct whatif_report_row *rows =
        arena_calloc(a, r->n ? r->n : 1, sizeof(*rows));
    struct whatif_report rep = { 0 };
    size_t i;

    if (!rows)
        return err_set(e, "out of memory");
    for (i = 0; i < r->n; i++) {
        rows[i].pod = cli_pod_ref(a, r->pl[i].pod);
        rows[i].node[0] = r->pl[i].node;
        rows[i].message = r->pl[i].message;
    }
    rep.title = "simulate";
    rep.detail = arena_sprintf(a,
                               "%zu of %zu pod(s) placed on %zu node(s) of "
                               "%s, seed %llu",
                               r->placed, r->n, r->c.n_nodes, o->c.in.source,
                               (unsigned long long)o->c.seed);
    rep.c = &r->c;
    rep.states = states;
    rep.usage = u;
    rep.n_states = 2;
    rep.columns = columns;
    rep.n_columns = 1;
    rep.rows = rows;
    rep.n_rows = r->n;
    rep.rows_title = "Placements";
    rep.score_pod = cli_pod_ref(a, r->first);
    rep.scores = scores;
    rep.plan = &plans->prio;
    return whatif_report_write(o->c.report, &rep, e);
}

static int run(struct sim_opts *o, struct arena *a, struct err *e)
{
    struct eval_result scores;
    struct policy *p = NULL;
    struct kube_objects objs = { 0 };
    struct eval_plans plans;
    struct whatif_sim s;
    struct sim_run r;
    int rc = -1;

    memset(&r, 0, sizeof(r));
    if (policy_load_file(o->policy, &o->c.load, &p, e) < 0)
        return -1;
    if (whatif_inputs_load(&o->c.in, p->needs, a, &objs, e) < 0 ||
        eval_plans_build(p, &plans, e) < 0 || cluster_build(&r.c, &objs, e) < 0)
        goto out_policy;
    whatif_sim_init(&s, &plans, &r.c, o->c.percentage, o->c.seed, a);
    r.before = whatif_usage_take(&r.c, a);
    if (!r.before) {
        err_set(e, "out of memory");
        goto out;
    }
    if (o->c.report && first_scores(o, &objs, &plans, &r, a, &scores, e) < 0)
        goto out;
    r.first = NULL;
    if (place_all(o, &objs, &s, &r, a, e) < 0)
        goto out;
    r.after = whatif_usage_take(&r.c, a);
    if (!r.after) {
        err_set(e, "out of memory");
        goto out;
    }
    if (o->c.json) {
        if (print_json(o, &r, a) < 0) {
            err_set(e, "out of memory writing JSON");
            goto out;
        }
    } else {
        print_text(o, &r, a);
    }
    if (o->c.report && write_report(o, &r, &scores, &plans, a, e) < 0)
        goto out;
    rc = 0;
out:
    whatif_sim_free(&s);
    cluster_free(&r.c);
out_policy:
    policy_free(p);
    return rc;
}

int cli_simulate(int argc, char **argv)
{
    struct sim_opts o;
    struct arena a;
    struct err e;
    int rc = parse_args(argc, argv, &o);

    if (rc)
        return rc == 1 ? 0 : 2;
    arena_init(&a, 0);
    rc = run(&o, &a, &e) < 0 ? 1 : 0;
    if (rc)
        fprintf(stderr, "simulate: %s\n", e.msg);
    whatif_inputs_free(&o.c.in);
    arena_destroy(&a);
    return rc;
}
