/*
 * engine_preempt.c: the DefaultPreemption decision (engine_preempt.h),
 * after kube-scheduler v1.22's defaultpreemption preempt, FindCandidates,
 * PodEligibleToPreemptOthers, nodesWherePreemptionMightHelp,
 * dryRunPreemption and SelectCandidate. The dry run walks the nodes one
 * at a time (upstream runs them in parallel and keeps whichever finish
 * first), so the candidates are those of the walking order.
 */
#include "engine/engine_preempt.h"

#include <string.h>

/* The verdict the failed pass gave node index idx (PRED_FIT: none). */
static enum pred_code verdict_of(const struct eval_result *filtered, size_t idx)
{
    size_t i;

    for (i = 0; filtered && i < filtered->n_nodes; i++) {
        if (filtered->nodes[i].ni->index == idx)
            return filtered->nodes[i].verdict.code;
    }
    return PRED_FIT;
}

bool engine_preempt_eligible(const struct kube_pod *pod,
                             const struct cluster *cl,
                             const struct eval_result *filtered)
{
    const struct node_info *nn;
    int32_t prio = engine_pod_priority(pod);
    size_t i;

    if (pod->preemption_policy && !strcmp(pod->preemption_policy, "Never"))
        return false;
    if (!pod->nominated_node_name || !*pod->nominated_node_name)
        return true;
    nn = cluster_node(cl, pod->nominated_node_name);
    if (!nn)
        return true;
    /* The filters ruled the nominated node out for good: preempt again. */
    if (verdict_of(filtered, nn->index) == PRED_UNFIT_UNRESOLVABLE)
        return true;
    /* A lower-priority pod still terminating there: wait for it. */
    for (i = 0; i < nn->n_pods; i++) {
        if (nn->pods[i]->deleting && engine_pod_priority(nn->pods[i]) < prio)
            return false;
    }
    return true;
}

size_t engine_preempt_num_candidates(const struct engine_preemptor *pr,
                                     size_t n)
{
    size_t pct = pr->min_candidates_percent > 0
                     ? (size_t)pr->min_candidates_percent
                     : ENGINE_PREEMPT_MIN_CANDIDATES_PERCENT;
    size_t abs = pr->min_candidates_absolute > 0
                     ? (size_t)pr->min_candidates_absolute
                     : ENGINE_PREEMPT_MIN_CANDIDATES_ABSOLUTE;
    size_t k = n * pct / 100;

    if (k < abs)
        k = abs;
    return k > n ? n : k;
}

/*
 * nodesWherePreemptionMightHelp over cl's nodes in NodeTree order (the
 * snapshot's list): those the failed pass did not find
 * UnschedulableAndUnresolvable. *out from a; returns the count or -1.
 */
static long potential_nodes(const struct cluster *cl,
                            const struct eval_result *filtered, struct arena *a,
                            const struct node_info ***out)
{
    size_t *idx = arena_alloc(a, (cl->n_nodes + 1) * sizeof(*idx));
    enum pred_code *code = arena_calloc(a, cl->n_nodes + 1, sizeof(*code));
    size_t n, i, k = 0;

    *out = arena_alloc(a, (cl->n_nodes + 1) * sizeof(**out));
    if (!idx || !code || !*out)
        return -1;
    for (i = 0; filtered && i < filtered->n_nodes; i++)
        code[filtered->nodes[i].ni->index] = filtered->nodes[i].verdict.code;
    n = node_tree_list(&cl->tree, idx);
    for (i = 0; i < n && i < cl->n_nodes; i++) {
        if (code[idx[i]] != PRED_UNFIT_UNRESOLVABLE)
            (*out)[k++] = &cl->nodes[idx[i]];
    }
    return (long)k;
}

/* Keep a candidate found in the scratch arena: copy its pods to a. */
static int keep(struct arena *a, const struct engine_victims *v,
                struct engine_victims *slot)
{
    *slot = *v;
    slot->pods = arena_alloc(a, (v->n_pods + 1) * sizeof(*slot->pods));
    if (!slot->pods)
        return -1;
    memcpy(slot->pods, v->pods, v->n_pods * sizeof(*slot->pods));
    return 0;
}

/*
 * dryRunPreemption: candidates from pot[offset..] (wrapping), those
 * without PDB violations first in *out; stops once one of them is found
 * and want candidates are. Each list holds at most want. Returns the
 * count, or -1 with e set.
 */
static long dry_run(const struct engine_preemptor *pr,
                    const struct kube_pod *pod, const struct node_info **pot,
                    size_t n, size_t offset, struct arena *a,
                    struct engine_victims **out, struct err *e)
{
    size_t want = engine_preempt_num_candidates(pr, n), nv = 0, vv = 0, i;
    struct engine_victims *non = arena_alloc(a, (want + 1) * sizeof(*non));
    struct engine_victims *vio = arena_alloc(a, (want + 1) * sizeof(*vio));
    struct cluster view;

    if (!non || !vio || cluster_view_begin(a, pr->cl, &view) < 0)
        return err_set(e, "out of memory");
    for (i = 0; i < n && !(nv > 0 && nv + vv >= want); i++) {
        struct engine_victims v;
        struct arena scratch;
        int rc;

        arena_init(&scratch, 0);
        rc = engine_select_victims(pr, pod, &view, pot[(offset + i) % n],
                                   &scratch, &v, e);
        if (rc == 1) {
            if (!v.num_pdb_violations && nv < want)
                rc = keep(a, &v, &non[nv++]);
            else if (v.num_pdb_violations && vv < want)
                rc = keep(a, &v, &vio[vv++]);
            if (rc < 0)
                err_set(e, "out of memory");
        }
        arena_destroy(&scratch);
        if (rc < 0)
            return -1;
    }
    memcpy(&non[nv], vio, vv * sizeof(*vio));
    *out = non;
    return (long)(nv + vv);
}

long engine_preempt_candidates(const struct engine_preemptor *pr,
                               const struct kube_pod *pod,
                               const struct eval_result *filtered,
                               size_t offset, struct arena *a,
                               struct engine_victims **cands, struct err *e)
{
    const struct node_info **pot;
    long n = potential_nodes(pr->cl, filtered, a, &pot);

    *cands = NULL;
    if (n < 0)
        return err_set(e, "out of memory");
    if (n == 0)
        return 0;
    return dry_run(pr, pod, pot, (size_t)n, offset % (size_t)n, a, cands, e);
}

int engine_preempt(const struct engine_preemptor *pr,
                   const struct kube_pod *pod,
                   const struct eval_result *filtered, size_t offset,
                   struct arena *a, struct engine_victims *best,
                   const char **reason, struct err *e)
{
    struct engine_victims *cands;
    long k;

    memset(best, 0, sizeof(*best));
    if (reason)
        *reason = NULL;
    if (!engine_preempt_eligible(pod, pr->cl, filtered)) {
        if (reason)
            *reason = ENGINE_PREEMPT_NOT_ELIGIBLE;
        return 0;
    }
    k = engine_preempt_candidates(pr, pod, filtered, offset, a, &cands, e);
    if (k < 0)
        return -1;
    if (k == 0) {
        if (reason)
            *reason = cands ? ENGINE_PREEMPT_NO_CANDIDATES
                            : ENGINE_PREEMPT_NO_POTENTIAL;
        return 0;
    }
    *best = cands[engine_pick_one_node(cands, (size_t)k, pr->now)];
    return 1;
}
