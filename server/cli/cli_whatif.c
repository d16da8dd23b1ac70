/*
 * cli_whatif.c: output shared by simulate and diff (cli_whatif.h).
 */
#include "server/cli/cli_whatif.h"

#include <stdlib.h>
#include <string.h>

#include "server/cli/cli.h"

void cli_whatif_defaults(struct cli_whatif_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->seed = 1;
    o->load.warnings = stderr;
}

const struct cli_opt cli_whatif_run_opts[] = {
    { "seed", 0, "N", false,
      "seed of the choice among equally good nodes (default: 1)" },
    { "percentage-of-nodes-to-score", 0, "P", false,
      "as kube-scheduler's (default: 0, adaptive; 100: every node)" },
    { "report", 0, "FILE.html", false,
      "also write a self-contained HTML report" },
    { NULL, 0, NULL, false, NULL },
};

int cli_num_option(const char *cmd, const char *opt, const char *v, long lo,
                   long hi, long *out)
{
    char *end;
    long n = strtol(v, &end, 10);

    if (end == v || *end || n < lo || n > hi) {
        fprintf(stderr,
                "%s: %s: expected an integer from %ld to %ld, got \"%s\"\n",
                cmd, opt, lo, hi, v);
        return -1;
    }
    *out = n;
    return 0;
}

/* The options that are not the cluster inputs; 1, 0 or -1 as below. */
static int run_option(const char *cmd, struct cli_whatif_opts *o, const char *a,
                      const char *v)
{
    long n;

    if (!strcmp(a, "--seed")) {
        if (cli_num_option(cmd, a, v, 0, 0x7fffffffffffffffL, &n) < 0)
            return -1;
        o->seed = (uint64_t)n;
    } else if (!strcmp(a, "--percentage-of-nodes-to-score")) {
        if (cli_num_option(cmd, a, v, 0, 100, &n) < 0)
            return -1;
        o->percentage = (int)n;
    } else if (!strcmp(a, "--output")) {
        if (cli_output_value(cmd, v, &o->json) < 0)
            return -1;
    } else if (!strcmp(a, "--report")) {
        o->report = v;
    } else {
        return 0;
    }
    return 1;
}

int cli_whatif_option(const char *cmd, struct cli_whatif_opts *o, const char *a,
                      const char *v)
{
    struct err e;
    int rc = run_option(cmd, o, a, v);

    if (rc)
        return rc;
    rc = whatif_inputs_option(&o->in, a, v, &e);
    if (rc < 0)
        fprintf(stderr, "%s: %s\n", cmd, e.msg);
    if (rc)
        return rc;
    return cli_policy_take(cmd, &o->load, a, v);
}

const char *cli_pod_ref(struct arena *a, const struct kube_pod *p)
{
    return arena_sprintf(a, "%s/%s", p->namespace, p->name);
}

void cli_json_placement(struct jsonw *w, struct arena *a,
                        const struct whatif_placement *pl)
{
    jsonw_begin_object(w);
    jsonw_key(w, "pod");
    jsonw_string(w, cli_pod_ref(a, pl->pod));
    jsonw_key(w, "node");
    jsonw_string(w, pl->node);
    jsonw_key(w, "message");
    jsonw_string(w, pl->message);
    jsonw_key(w, "topPredicate");
    jsonw_string(w, pl->top_predicate);
    jsonw_key(w, "topPredicateNodes");
    jsonw_int(w, (int64_t)pl->top_count);
    jsonw_end_object(w);
}

static void json_req(struct jsonw *w, int64_t cpu, int64_t mem, int64_t pods)
{
    jsonw_begin_object(w);
    jsonw_key(w, "cpu");
    jsonw_int(w, cpu);
    jsonw_key(w, "memory");
    jsonw_int(w, mem);
    jsonw_key(w, "pods");
    jsonw_int(w, pods);
    jsonw_end_object(w);
}

void cli_json_usage(struct jsonw *w, const struct cluster *c,
                    const char *const *names,
                    const struct whatif_usage *const *u, size_t n_states)
{
    size_t i, k;

    jsonw_key(w, "nodes");
    jsonw_begin_array(w);
    for (i = 0; i < c->n_nodes; i++) {
        const struct kube_resources *al = &c->nodes[i].node->allocatable;

        jsonw_begin_object(w);
        jsonw_key(w, "name");
        jsonw_string(w, c->nodes[i].node->name);
        jsonw_key(w, "allocatable");
        json_req(w, al->milli_cpu, al->memory, al->pods);
        for (k = 0; k < n_states; k++) {
            jsonw_key(w, names[k]);
            json_req(w, u[k][i].cpu, u[k][i].memory, u[k][i].pods);
        }
        jsonw_end_object(w);
    }
    jsonw_end_array(w);
}

static int pct(int64_t used, int64_t of)
{
    return of > 0 ? (int)(used * 100 / of) : 0;
}

void cli_text_usage(FILE *f, const struct cluster *c,
                    const struct whatif_usage *u0,
                    const struct whatif_usage *u1, const char *h0,
                    const char *h1, bool all)
{
    size_t i, width = 4, shown = 0;

    for (i = 0; i < c->n_nodes; i++) {
        size_t l = strlen(c->nodes[i].node->name);

        if (l > width)
            width = l;
    }
    for (i = 0; i < c->n_nodes; i++) {
        const struct kube_resources *al = &c->nodes[i].node->allocatable;

        if (!all && !memcmp(&u0[i], &u1[i], sizeof(u0[i])))
            continue;
        if (!shown++)
            fprintf(f, "%-*s  %-15s  %-15s  %s  (%s -> %s)\n", (int)width,
                    "NODE", "CPU", "MEMORY", "PODS", h0, h1);
        fprintf(
            f, "%-*s  %3d%% -> %3d%%    %3d%% -> %3d%%    %lld -> %lld/%lld\n",
            (int)width, c->nodes[i].node->name, pct(u0[i].cpu, al->milli_cpu),
            pct(u1[i].cpu, al->milli_cpu), pct(u0[i].memory, al->memory),
            pct(u1[i].memory, al->memory), (long long)u0[i].pods,
            (long long)u1[i].pods, (long long)al->pods);
    }
    if (!shown)
        fprintf(f, "(no node's requests changed)\n");
}

int cli_json_print(struct jsonw *w)
{
    char *out = jsonw_take(w, NULL);

    if (!out)
        return -1;
    printf("%s\n", out);
    free(out);
    return 0;
}
