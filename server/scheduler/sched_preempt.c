/*
 * sched_preempt.c: preemption's side effects in the standalone scheduler
 * (sched_preempt.h), after kube-scheduler v1.22's defaultpreemption
 * preempt / PrepareCandidate / getLowerPriorityNominatedPods and
 * util.DeletePod / ClearNominatedNodeName.
 */
#include "server/scheduler/sched_preempt.h"

#include <string.h>
#include <time.h>

#include "engine/engine_preempt.h"
#include "engine/engine_select.h"
#include "server/common/log.h"
#include "server/scheduler/sched_events.h"
#include "server/scheduler/sched_nominate.h"

static int ref_of(struct arena *a, const struct kube_pod *p,
                  struct sched_pod_ref *r)
{
    r->ns = arena_strdup(a, p->namespace ? p->namespace : "default");
    r->name = arena_strdup(a, p->name ? p->name : "");
    r->uid = p->uid ? arena_strdup(a, p->uid) : NULL;
    return r->ns && r->name && (!p->uid || r->uid) ? 0 : -1;
}

int sched_preempt_decide(struct scheduler *s, const struct eval_plans *plans,
                         const struct kube_pod *pod, const struct cluster *cl,
                         const struct eval_result *filtered,
                         const struct engine_nominees *noms, struct arena *a,
                         struct sched_preemption *out, struct err *e)
{
    struct engine_preemptor pr = {
        .plan = &plans->pred,
        .cl = cl,
        .pdbs =
            cl->objs ? (const struct kube_pdb *const *)cl->objs->pdbs : NULL,
        .n_pdbs = cl->objs ? cl->objs->n_pdbs : 0,
        .nominees = noms,
        .now = (int64_t)time(NULL)
    };
    struct engine_victims best;
    const char *why = NULL;
    size_t i, k = 0, n_nom;
    int rc;

    memset(out, 0, sizeof(*out));
    metrics_counter_add(s->preemption_attempts, 1);
    rc = engine_preempt(&pr, pod, filtered,
                        (size_t)engine_rng_next(&s->placer.rng), a, &best, &why,
                        e);
    if (rc <= 0) {
        if (rc == 0 && why) {
            LOG_V(5, "pod %s/%s: no preemption: %s", pod->namespace, pod->name,
                  why);
            /* Upstream returns ErrNoNodesAvailable first on no nodes. */
            out->clear_own = !strcmp(why, ENGINE_PREEMPT_NO_POTENTIAL) &&
                             cl->n_nodes && pod->nominated_node_name &&
                             *pod->nominated_node_name;
        }
        return rc;
    }
    out->node = arena_strdup(a, best.node->node->name);
    out->victims = arena_calloc(a, best.n_pods + 1, sizeof(*out->victims));
    n_nom = noms ? noms->n : 0;
    out->clear = arena_calloc(a, n_nom + 1, sizeof(*out->clear));
    if (!out->node || !out->victims || !out->clear)
        return err_set(e, "out of memory");
    for (i = 0; i < best.n_pods; i++) {
        if (ref_of(a, best.pods[i], &out->victims[i]) < 0)
            return err_set(e, "out of memory");
    }
    out->n_victims = best.n_pods;
    for (i = 0; i < n_nom; i++) {
        const struct engine_nominee *x = &noms->nom[i];

        if (x->node && !strcmp(x->node, out->node) &&
            engine_pod_priority(x->pod) < engine_pod_priority(pod) &&
            ref_of(a, x->pod, &out->clear[k++]) < 0)
            return err_set(e, "out of memory");
    }
    out->n_clear = k;
    return 0;
}

/* ClearNominatedNodeName of one pod (not critical: only logged). */
static void clear_nomination(struct scheduler *s, const struct sched_pod_ref *r)
{
    struct err e = { "" };

    if (kube_client_patch_pod_status(s->client, r->ns, r->name,
                                     "{\"status\":{\"nominatedNodeName\":"
                                     "null}}",
                                     &e) < 0)
        LOG_ERROR("Cannot clear 'NominatedNodeName' field of pod %s/%s: %s",
                  r->ns, r->name, e.msg);
}

const char *sched_preempt_execute(struct scheduler *s, const char *key,
                                  struct sched_pod *sp,
                                  const struct sched_preemption *p,
                                  struct err *e)
{
    struct sched_pod_ref own = { sp->pod.namespace, sp->pod.name, NULL };
    char msg[1024];
    size_t i;

    if (!p->node) {
        if (p->clear_own)
            clear_nomination(s, &own);
        return NULL;
    }
    snprintf(msg, sizeof(msg), "Preempted by %s/%s on node %s",
             sp->pod.namespace, sp->pod.name, p->node);
    for (i = 0; i < p->n_victims; i++) {
        const struct sched_pod_ref *v = &p->victims[i];
        struct kube_pod vp = { .name = v->name,
                               .namespace = v->ns,
                               .uid = v->uid };
        int rc = kube_client_delete_pod(s->client, v->ns, v->name, v->uid, e);

        if (rc < 0 && rc != KUBE_CLIENT_GONE) {
            LOG_ERROR("Error preempting pod %s/%s: %s", v->ns, v->name, e->msg);
            return NULL;
        }
        sched_event_post(s, &vp, "Normal", "Preempted", msg);
    }
    metrics_histogram_observe(s->preemption_victims, (double)p->n_victims);
    LOG_INFO("pod %s/%s nominated to node %s: %zu victim(s) preempted",
             sp->pod.namespace, sp->pod.name, p->node, p->n_victims);
    pthread_mutex_lock(&s->lock);
    for (i = 0; i < p->n_clear; i++) {
        char k[512];

        snprintf(k, sizeof(k), "%s/%s", p->clear[i].ns, p->clear[i].name);
        sched_nominate_drop(s, k);
    }
    if (sched_nominate_set(s, key, sp, p->node, false) < 0)
        LOG_ERROR("pod %s: out of memory nominating it", key);
    pthread_mutex_unlock(&s->lock);
    for (i = 0; i < p->n_clear; i++)
        clear_nomination(s, &p->clear[i]);
    return p->node;
}
