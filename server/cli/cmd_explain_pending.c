/*
 * cmd_explain_pending.c: `explain --all-pending`: one line per pending
 * pod of a scheduler name: the FitError summary the Policy gives it on
 * every node ("0/N nodes are available: ..."), the predicate that
 * rejected the most nodes, and, on a live cluster, whether
 * kube-scheduler's latest FailedScheduling event for it agrees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_fit_error.h"
#include "engine/evaluate.h"
#include "kube/base/json_writer.h"
#include "server/cli/cli_whatif.h"
#include "policy/policy.h"
#include "whatif/inputs.h"
#include "whatif/place.h"
#include "whatif/replay.h"
#include "whatif/why.h"

#define DEFAULT_SCHEDULER "default-scheduler"

/* One pending pod's line. */
struct pending {
    const struct kube_pod *pod;
    const char *summary; /* NULL: some node fits */
    size_t feasible;
    const char *top;
    size_t top_count;
    const struct whatif_event *ev;
    bool agree;
};

static int judge(const struct eval_plans *plans, const struct cluster *c,
                 const struct node_info *const *nodes,
                 const struct whatif_events *evs, struct arena *a,
                 struct pending *pd, struct err *e)
{
    struct arena scratch;
    struct eval_result r;
    const char *s = NULL, *top;
    int rc = -1;

    arena_init(&scratch, 0);
    if (evaluate_pod(plans, pd->pod, c, nodes, c->n_nodes, EVAL_FILTER,
                     &scratch, &r, e) < 0) {
        err_prefix(e, "pod %s/%s: ", pd->pod->namespace, pd->pod->name);
        goto out;
    }
    pd->feasible = r.n_feasible;
    if (!r.n_feasible)
        s = c->n_nodes ? engine_fit_error(&scratch, &r)
                       : "no nodes available to schedule pods";
    top = whatif_top_predicate(&r, &pd->top_count);
    pd->summary = s ? arena_strdup(a, s) : NULL;
    pd->top = top ? arena_strdup(a, top) : NULL;
    if ((s && !pd->summary) || (top && !pd->top)) {
        err_set(e, "out of memory");
        goto out;
    }
    pd->ev = evs ? whatif_events_for(evs, pd->pod) : NULL;
    pd->agree =
        pd->ev && whatif_fit_messages_agree(pd->summary, pd->ev->message);
    rc = 0;
out:
    arena_destroy(&scratch);
    return rc;
}

static void text_line(const struct pending *pd, bool live, struct arena *a)
{
    printf("%s: ", cli_pod_ref(a, pd->pod));
    if (pd->summary)
        printf("%s", pd->summary);
    else
        printf("fits %zu node(s) now under this Policy", pd->feasible);
    if (pd->top)
        printf(" [most rejections: %s, %zu node(s)]", pd->top, pd->top_count);
    if (live)
        printf(" (kube-scheduler: %s%s)",
               !pd->ev     ? "no FailedScheduling event"
               : pd->agree ? "agrees"
                           : "differs: ",
               pd->ev && !pd->agree ? pd->ev->message : "");
    printf("\n");
}

static int print_json(const struct pending *v, size_t n, const char *sched,
                      size_t n_nodes, struct arena *a)
{
    struct jsonw w;
    size_t i;

    jsonw_init(&w, 2);
    jsonw_begin_object(&w);
    jsonw_key(&w, "schedulerName");
    jsonw_string(&w, sched);
    jsonw_key(&w, "nodes");
    jsonw_int(&w, (int64_t)n_nodes);
    jsonw_key(&w, "pods");
    jsonw_begin_array(&w);
    for (i = 0; i < n; i++) {
        jsonw_begin_object(&w);
        jsonw_key(&w, "pod");
        jsonw_string(&w, cli_pod_ref(a, v[i].pod));
        jsonw_key(&w, "summary");
        jsonw_string(&w, v[i].summary);
        jsonw_key(&w, "feasible");
        jsonw_int(&w, (int64_t)v[i].feasible);
        jsonw_key(&w, "topPredicate");
        jsonw_string(&w, v[i].top);
        jsonw_key(&w, "topPredicateNodes");
        jsonw_int(&w, (int64_t)v[i].top_count);
        jsonw_key(&w, "event");
        jsonw_string(&w, v[i].ev ? v[i].ev->message : NULL);
        jsonw_key(&w, "agree");
        if (v[i].ev)
            jsonw_bool(&w, v[i].agree);
        else
            jsonw_null(&w);
        jsonw_end_object(&w);
    }
    jsonw_end_array(&w);
    jsonw_end_object(&w);
    return cli_json_print(&w);
}

int cli_explain_pending(const struct policy *p, const struct whatif_inputs *in,
                        const struct kube_objects *objs, const char *sched,
                        bool json, struct arena *a, struct err *e)
{
    struct eval_plans plans;
    struct whatif_events evs;
    struct cluster c;
    const struct kube_pod **pods;
    const struct node_info **nodes;
    struct pending *v;
    size_t n, i;
    int rc = -1;

    sched = sched ? sched : DEFAULT_SCHEDULER;
    if (eval_plans_build(p, &plans, e) < 0)
        return -1;
    if (in->client &&
        whatif_events_list(in->client, NULL, NULL, a, &evs, e) < 0)
        return -1;
    if (whatif_pods_to_place(objs, false, sched, a, &pods, &n) < 0)
        return err_set(e, "out of memory");
    if (cluster_build(&c, objs, e) < 0)
        return -1;
    nodes = arena_calloc(a, c.n_nodes ? c.n_nodes : 1, sizeof(*nodes));
    v = arena_calloc(a, n ? n : 1, sizeof(*v));
    if (!nodes || !v) {
        err_set(e, "out of memory");
        goto out;
    }
    for (i = 0; i < c.n_nodes; i++)
        nodes[i] = &c.nodes[i];
    for (i = 0; i < n; i++) {
        v[i].pod = pods[i];
        if (judge(&plans, &c, nodes, in->client ? &evs : NULL, a, &v[i], e) < 0)
            goto out;
    }
    if (json) {
        if (print_json(v, n, sched, c.n_nodes, a) < 0) {
            err_set(e, "out of memory writing JSON");
            goto out;
        }
    } else {
        printf("%zu pending pod(s) of %s on %zu node(s) of %s\n%s", n, sched,
               c.n_nodes, in->source, n ? "\n" : "");
        for (i = 0; i < n; i++)
            text_line(&v[i], in->client != NULL, a);
    }
    rc = 0;
out:
    cluster_free(&c);
    return rc;
}
