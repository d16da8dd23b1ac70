/*
 * ksc_scores.c: a profile's score plugins as Policy priorities (the score
 * half of ksc_read.c): each plugin to the priority whose v1.22 plugin it
 * is, with its weight; NodeResourcesFit's scoringStrategy (v1beta2) and
 * v1beta1's NodeResourcesLeastAllocated, NodeResourcesMostAllocated and
 * RequestedToCapacityRatio to Least/MostRequestedPriority and
 * RequestedToCapacityRatioPriority; PodTopologySpread's defaulting to
 * SelectorSpreadPriority (System) or EvenPodsSpreadPriority (List).
 * Default score plugins: v1beta1 after v1.20's algorithmprovider
 * getDefaultConfig, v1beta2 after v1.22's (NodeResourcesFit scoring in
 * place of the removed NodeResourcesLeastAllocated).
 */
#include "policy/ksc_read_internal.h"

#include <string.h>

#include "policy/policy.h"

static const struct plugin_w default_scores_v1beta1[] = {
    { "NodeResourcesBalancedAllocation", 1, NULL },
    { "ImageLocality", 1, NULL },
    { "InterPodAffinity", 1, NULL },
    { "NodeResourcesLeastAllocated", 1, NULL },
    { "NodeAffinity", 1, NULL },
    { "NodePreferAvoidPods", 10000, NULL },
    { "PodTopologySpread", 2, NULL },
    { "TaintToleration", 1, NULL },
    { NULL, 0, NULL },
};

static const struct plugin_w default_scores_v1beta2[] = {
    { "NodeResourcesBalancedAllocation", 1, NULL },
    { "ImageLocality", 1, NULL },
    { "InterPodAffinity", 1, NULL },
    { "NodeResourcesFit", 1, NULL },
    { "NodeAffinity", 1, NULL },
    { "PodTopologySpread", 2, NULL },
    { "TaintToleration", 1, NULL },
    { NULL, 0, NULL },
};

/* What the reader carries: the tree, where it is, what it writes. */
/* ---- scores ---- */

static void prio(struct kctx *k, const char *name, int64_t weight)
{
    jsonw_begin_object(k->w);
    jsonw_key(k->w, "name");
    jsonw_string(k->w, name);
    jsonw_key(k->w, "weight");
    jsonw_int(k->w, weight > 0 ? weight : 1); /* the framework: 0 -> 1 */
    jsonw_end_object(k->w);
}

/* RequestedToCapacityRatioPriority with shape and resources as given. */
static int rtcr(struct kctx *k, const struct plugin_w *p, const cJSON *shape,
                const cJSON *res)
{
    const cJSON *it;

    if (!cJSON_IsArray(shape))
        return err_set(k->e, "%s: RequestedToCapacityRatio needs a shape",
                       p->where);
    jsonw_begin_object(k->w);
    jsonw_key(k->w, "name");
    jsonw_string(k->w, "RequestedToCapacityRatioPriority");
    jsonw_key(k->w, "weight");
    jsonw_int(k->w, p->weight > 0 ? p->weight : 1);
    jsonw_key(k->w, "argument");
    jsonw_begin_object(k->w);
    jsonw_key(k->w, "requestedToCapacityRatioArguments");
    jsonw_begin_object(k->w);
    jsonw_key(k->w, "shape");
    jsonw_begin_array(k->w);
    for (it = shape->child; it; it = it->next) {
        const cJSON *u = ksc_get(it, "utilization"), *s = ksc_get(it, "score");

        jsonw_begin_object(k->w);
        jsonw_key(k->w, "utilization");
        jsonw_int(k->w, cJSON_IsNumber(u) ? (int64_t)u->valuedouble : 0);
        jsonw_key(k->w, "score");
        jsonw_int(k->w, cJSON_IsNumber(s) ? (int64_t)s->valuedouble : 0);
        jsonw_end_object(k->w);
    }
    jsonw_end_array(k->w);
    jsonw_key(k->w, "resources");
    jsonw_begin_array(k->w);
    for (it = cJSON_IsArray(res) ? res->child : NULL; it; it = it->next) {
        const cJSON *w = ksc_get(it, "weight");

        jsonw_begin_object(k->w);
        jsonw_key(k->w, "name");
        jsonw_string(k->w, ksc_str(it, "name") ? ksc_str(it, "name") : "");
        jsonw_key(k->w, "weight");
        jsonw_int(k->w, cJSON_IsNumber(w) ? (int64_t)w->valuedouble : 1);
        jsonw_end_object(k->w);
    }
    if (!cJSON_IsArray(res)) {
        jsonw_begin_object(k->w);
        jsonw_key(k->w, "name");
        jsonw_string(k->w, "cpu");
        jsonw_key(k->w, "weight");
        jsonw_int(k->w, 1);
        jsonw_end_object(k->w);
        jsonw_begin_object(k->w);
        jsonw_key(k->w, "name");
        jsonw_string(k->w, "memory");
        jsonw_key(k->w, "weight");
        jsonw_int(k->w, 1);
        jsonw_end_object(k->w);
    }
    jsonw_end_array(k->w);
    jsonw_end_object(k->w);
    jsonw_end_object(k->w);
    jsonw_end_object(k->w);
    return 0;
}

static int no_weights(struct kctx *k, const struct plugin_w *p)
{
    return err_set(k->e,
                   "%s: %s with resources other than cpu=1, memory=1 has no "
                   "Policy equivalent",
                   p->where, p->name);
}

/* NodeResourcesFit's scoringStrategy (v1beta2). */
static int fit_score(struct kctx *k, const struct plugin_w *p)
{
    const cJSON *st =
        ksc_get(ksc_plugin_args(k, "NodeResourcesFit"), "scoringStrategy");
    const char *type = ksc_str(st, "type");
    const cJSON *res = ksc_get(st, "resources");

    if (!type || !strcmp(type, "LeastAllocated") ||
        !strcmp(type, "MostAllocated")) {
        if (!ksc_default_resources(res))
            return no_weights(k, p);
        prio(k,
             type && !strcmp(type, "MostAllocated")
                 ? prio_most_requested_priority.name
                 : prio_least_requested_priority.name,
             p->weight);
        return 0;
    }
    if (!strcmp(type, "RequestedToCapacityRatio"))
        return rtcr(k, p,
                    ksc_get(ksc_get(st, "requestedToCapacityRatio"), "shape"),
                    res);
    return err_set(k->e,
                   "%s: NodeResourcesFit scoringStrategy type \"%s\": expected "
                   "LeastAllocated, MostAllocated or RequestedToCapacityRatio",
                   p->where, type);
}

static int spread_score(struct kctx *k, const struct plugin_w *p)
{
    const cJSON *args = ksc_plugin_args(k, "PodTopologySpread");
    const char *type = ksc_str(args, "defaultingType");
    const cJSON *dc = ksc_get(args, "defaultConstraints");

    if (type && !strcmp(type, "List")) {
        if (cJSON_IsArray(dc) && dc->child)
            return err_set(k->e,
                           "%s: PodTopologySpread defaultConstraints have no "
                           "Policy equivalent",
                           p->where);
        prio(k, prio_even_pods_spread_priority.name, p->weight);
        return 0;
    }
    if (type && strcmp(type, "System"))
        return err_set(k->e,
                       "%s: PodTopologySpread defaultingType \"%s\": expected "
                       "System or List",
                       p->where, type);
    /* System defaulting: v1.22 builds it from SelectorSpreadPriority. */
    prio(k, prio_selector_spread_priority.name, p->weight);
    return 0;
}

/* The Policy priority whose v1.22 plugin is score plugin name. */
static const struct prio_def *prio_for_plugin(const char *name)
{
    const unsigned skip = PRIO_LEGACY | PRIO_EXTENSION | PRIO_CUSTOM_ONLY |
                          PRIO_SKIPPED | PRIO_PLUGIN;
    const struct prio_def *const *rows;
    size_t n, i;

    rows = prio_registry(&n);
    for (i = 0; i < n; i++) {
        const struct kpe_plugin_ref *refs[KPE_MAX_PLUGINS];

        if ((rows[i]->flags & skip) || prio_def_refs(rows[i], refs) < 1)
            continue;
        if ((refs[0]->points & KPE_EP_SCORE) && !strcmp(refs[0]->name, name))
            return rows[i];
    }
    return NULL;
}

static int score_one(struct kctx *k, const struct plugin_w *p)
{
    const cJSON *args = ksc_plugin_args(k, p->name);
    const struct prio_def *d;
    bool least = !strcmp(p->name, "NodeResourcesLeastAllocated");

    if (!strcmp(p->name, "NodeResourcesFit") && k->v == KSC_V1BETA2)
        return fit_score(k, p);
    if (!strcmp(p->name, "PodTopologySpread"))
        return spread_score(k, p);
    if (!strcmp(p->name, "InterPodAffinity")) {
        const cJSON *h = ksc_get(args, "hardPodAffinityWeight");

        if (cJSON_IsNumber(h))
            k->hard_weight = (int64_t)h->valuedouble;
    }
    if (k->v == KSC_V1BETA1 && !strcmp(p->name, "RequestedToCapacityRatio"))
        return rtcr(k, p, ksc_get(args, "shape"), ksc_get(args, "resources"));
    if (least || !strcmp(p->name, "NodeResourcesMostAllocated") ||
        !strcmp(p->name, "NodeResourcesBalancedAllocation")) {
        if (!ksc_default_resources(ksc_get(args, "resources")))
            return no_weights(k, p);
    }
    if (!strcmp(p->name, "SelectorSpread"))
        return err_set(k->e,
                       "%s: SelectorSpread runs only with the "
                       "DefaultPodTopologySpread gate off: load the Policy "
                       "with --feature-gates DefaultPodTopologySpread=false "
                       "instead",
                       p->where);
    d = prio_for_plugin(p->name);
    if (!d)
        return err_set(k->e,
                       "%s: score plugin \"%s\" has no Policy priority in "
                       "this project%s",
                       p->where, p->name,
                       k->v == KSC_V1BETA2 ? " (or is not in v1beta2)" : "");
    prio(k, d->name, p->weight);
    return 0;
}

int ksc_write_scores(struct kctx *k)
{
    struct pset s;
    size_t i;

    if (ksc_point_set(k, "score",
                      k->v == KSC_V1BETA1 ? default_scores_v1beta1
                                          : default_scores_v1beta2,
                      &s) < 0)
        return -1;
    jsonw_key(k->w, "priorities");
    jsonw_begin_array(k->w);
    for (i = 0; i < s.n; i++) {
        if (score_one(k, &s.v[i]) < 0)
            return -1;
    }
    jsonw_end_array(k->w);
    return 0;
}
