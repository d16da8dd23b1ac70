/*
 * policy_convert.c: the profile kube-scheduler v1.22 builds from a Policy
 * (legacy_registry.go producers + factory.go: plugins per extension point,
 * score weights, plugin args, PrioritySort / DefaultPreemption /
 * DefaultBinder), and that profile as a KubeSchedulerConfiguration
 * (v1beta2 for 1.22, v1 for 1.25+). Names no in-tree plugin of the target
 * provides go to an `extenders:` entry pointing at this server.
 */
#include "policy/policy.h"

#include <string.h>

#include "policy/policy_buf.h"

const char *const policy_ep_names[POLICY_EP_COUNT] = {
    "queueSort", "preFilter", "filter",  "postFilter", "preScore",
    "score",     "reserve",   "preBind", "bind",
};

static int add_plugin(struct arena *a, struct policy_profile *pr,
                      enum policy_ep ep, const char *name, int32_t weight,
                      struct err *e)
{
    struct policy_plugin *v;
    size_t i, n = pr->n_points[ep];

    for (i = 0; i < n; i++) {
        if (!strcmp(pr->points[ep][i].name, name))
            return 0; /* appendToPluginSet: first registration wins */
    }
    v = arena_calloc(a, n + 1, sizeof(*v));
    if (!v)
        return err_set(e, "out of memory");
    if (n)
        memcpy(v, pr->points[ep], n * sizeof(*v));
    v[n].name = name;
    v[n].weight = weight;
    pr->points[ep] = v;
    pr->n_points[ep] = n + 1;
    return 0;
}

static int add_ref(struct arena *a, struct policy_profile *pr,
                   const struct kpe_plugin_ref *r, int32_t weight,
                   struct err *e)
{
    static const struct {
        unsigned bit;
        enum policy_ep ep;
    } map[] = {
        { KPE_EP_PREFILTER, POLICY_EP_PRE_FILTER },
        { KPE_EP_FILTER, POLICY_EP_FILTER },
        { KPE_EP_PRESCORE, POLICY_EP_PRE_SCORE },
        { KPE_EP_SCORE, POLICY_EP_SCORE },
        { KPE_EP_RESERVE, POLICY_EP_RESERVE },
        { KPE_EP_PREBIND, POLICY_EP_PRE_BIND },
    };
    size_t i;

    for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if ((r->points & map[i].bit) &&
            add_plugin(a, pr, map[i].ep, r->name,
                       map[i].ep == POLICY_EP_SCORE ? weight : 0, e))
            return -1;
    }
    return 0;
}

int policy_build_profile(const struct policy *p, struct arena *a,
                         struct policy_profile *out, struct err *e)
{
    size_t i, j;

    memset(out, 0, sizeof(*out));
    if (add_plugin(a, out, POLICY_EP_QUEUE_SORT, "PrioritySort", 0, e))
        return -1;
    for (i = 0; i < p->n_preds; i++) {
        for (j = 0; j < KPE_MAX_PLUGINS && p->preds[i].def->plugins[j]; j++) {
            if (add_ref(a, out, &p->preds[i].def->plugins[j]->ref, 0, e))
                return -1;
        }
    }
    if (add_plugin(a, out, POLICY_EP_POST_FILTER, "DefaultPreemption", 0, e))
        return -1;
    for (i = 0; i < p->n_prios; i++) {
        const struct prio_plugin *r = p->prios[i].def->plugins[0];

        if (r && add_ref(a, out, &r->ref, p->prios[i].weight, e))
            return -1;
    }
    return add_plugin(a, out, POLICY_EP_BIND, "DefaultBinder", 0, e);
}

/* ---- KubeSchedulerConfiguration ---- */

/* Go's time.Duration.String(), with "us" for microseconds. */
static void go_duration(struct strbuf *b, int64_t d)
{
    uint64_t u = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
    char frac[32];
    int prec, k;
    uint64_t div = 1, f;

    if (d < 0)
        strbuf_add(b, "-");
    if (u == 0) {
        strbuf_add(b, "0s");
        return;
    }
    if (u < 1000000000ULL) {
        prec = u < 1000 ? 0 : u < 1000000 ? 3 : 6;
        for (k = 0; k < prec; k++)
            div *= 10;
    } else {
        prec = 9;
        div = 1000000000ULL;
    }
    f = u % div;
    snprintf(frac, sizeof(frac), "%0*llu", prec, (unsigned long long)f);
    for (k = prec; k > 0 && frac[k - 1] == '0'; k--)
        frac[k - 1] = '\0';
    if (u < 1000000000ULL) {
        strbuf_printf(b, "%llu", (unsigned long long)(u / div));
        if (f)
            strbuf_printf(b, ".%s", frac);
        strbuf_add(b, u < 1000 ? "ns" : u < 1000000 ? "us" : "ms");
        return;
    }
    {
        uint64_t s = u / div, m = s / 60, h = m / 60;

        if (h)
            strbuf_printf(b, "%lluh", (unsigned long long)h);
        if (m)
            strbuf_printf(b, "%llum", (unsigned long long)(m % 60));
        strbuf_printf(b, "%llu", (unsigned long long)(s % 60));
        if (f)
            strbuf_printf(b, ".%s", frac);
        strbuf_add(b, "s");
    }
}

/* Where each enabled unit goes in the target configuration. */
struct kctx {
    const struct policy *p;
    enum policy_ksc_version v;
    bool *pred_delegated;
    bool *prio_delegated;
    const struct policy_prio *fit_scoring; /* NodeResourcesFit strategy */
    int64_t delegated_weight;
    size_t n_pred_delegated, n_prio_delegated;
};

static bool removed_plugin(const char *name)
{
    /* v1.22 v1beta2 validation removedPluginsByVersion; gone in v1 too. */
    static const char *const removed[] = {
        "NodeLabel",
        "ServiceAffinity",
        "NodePreferAvoidPods",
        "NodeResourcesLeastAllocated",
        "NodeResourcesMostAllocated",
        "RequestedToCapacityRatio",
    };
    size_t i;

    for (i = 0; i < sizeof(removed) / sizeof(removed[0]); i++) {
        if (!strcmp(name, removed[i]))
            return true;
    }
    return false;
}

/* The resources and shape of a resource-scoring unit (fit_strategy). */
static const struct prio_resources_arg *scoring(const struct policy_prio *u)
{
    return u->def->fit_strategy ? u->args.value : NULL;
}

/* Can this resource-scoring unit become NodeResourcesFit's strategy? */
static bool fits_scoring(const struct policy_prio *u)
{
    const struct prio_resources_arg *r = scoring(u);
    size_t i;

    if (r && !r->rtcr)
        return true;
    if (!r || r->n_resources == 0)
        return false; /* legacy RTCR without resources scores 0 */
    for (i = 0; i < r->n_resources; i++) {
        if (r->resources[i].weight > 100)
            return false; /* scoringStrategy allows weights 1..100 */
    }
    return true;
}

static void classify(struct kctx *k)
{
    const struct policy *p = k->p;
    size_t i;

    for (i = 0; i < p->n_preds; i++) {
        const struct pred_plugin *ref = p->preds[i].def->plugins[0];
        const char *pl = ref ? ref->ref.name : NULL;

        k->pred_delegated[i] = !pl || removed_plugin(pl);
        k->n_pred_delegated += k->pred_delegated[i];
    }
    for (i = 0; i < p->n_prios; i++) {
        const struct policy_prio *u = &p->prios[i];
        const char *pl =
            u->def->plugins[0] ? u->def->plugins[0]->ref.name : NULL;
        bool del = !pl || removed_plugin(pl);

        if (pl && u->def->fit_strategy) {
            del = true;
            if (!k->fit_scoring && fits_scoring(u)) {
                k->fit_scoring = u;
                del = false;
            }
        }
        k->prio_delegated[i] = del;
        if (del) {
            k->n_prio_delegated++;
            k->delegated_weight += u->weight;
        }
    }
}

static void y_plugins(struct strbuf *b, struct kctx *k,
                      const struct policy_profile *pr)
{
    size_t ep, i;

    strbuf_add(b, "    plugins:\n");
    if (k->v == POLICY_KSC_V1)
        strbuf_add(b, "      multiPoint:\n        disabled:\n"
                      "        - name: \"*\"\n");
    for (ep = 0; ep < POLICY_EP_COUNT; ep++) {
        size_t shown = 0;

        strbuf_printf(b, "      %s:\n", policy_ep_names[ep]);
        strbuf_add(b, "        disabled:\n        - name: \"*\"\n");
        for (i = 0; i < pr->n_points[ep]; i++) {
            const struct policy_plugin *pl = &pr->points[ep][i];
            const char *name = pl->name;

            if (!strcmp(name, "NodeResourcesLeastAllocated") ||
                !strcmp(name, "NodeResourcesMostAllocated") ||
                !strcmp(name, "RequestedToCapacityRatio")) {
                if (!k->fit_scoring ||
                    strcmp(k->fit_scoring->def->plugins[0]->ref.name, name))
                    continue;
                name = "NodeResourcesFit";
            } else if (removed_plugin(name)) {
                continue;
            }
            strbuf_add(b, shown++ ? "" : "        enabled:\n");
            strbuf_printf(b, "        - name: %s\n", name);
            if (ep == POLICY_EP_SCORE)
                strbuf_printf(b, "          weight: %d\n", (int)pl->weight);
        }
    }
}

static bool profile_has(const struct policy_profile *pr, const char *name)
{
    size_t ep, i;

    for (ep = 0; ep < POLICY_EP_COUNT; ep++) {
        for (i = 0; i < pr->n_points[ep]; i++) {
            if (!strcmp(pr->points[ep][i].name, name))
                return true;
        }
    }
    return false;
}

/* The first unit that runs the v1.22 score plugin `plugin`, or NULL. */
static const struct policy_prio *find_unit(const struct policy *p,
                                           const char *plugin)
{
    size_t i;

    for (i = 0; i < p->n_prios; i++) {
        const struct prio_plugin *pl = p->prios[i].def->plugins[0];

        if (pl && !strcmp(pl->ref.name, plugin))
            return &p->prios[i];
    }
    return NULL;
}

static void y_fit_args(struct strbuf *b, const struct kctx *k)
{
    const struct policy_prio *u = k->fit_scoring;
    const struct prio_resources_arg *r = u ? scoring(u) : NULL;
    size_t i;

    strbuf_add(b, "    - name: NodeResourcesFit\n      args:\n");
    if (!r) {
        strbuf_add(b, "        {}\n");
        return;
    }
    strbuf_printf(b, "        scoringStrategy:\n          type: %s\n",
                  u->def->fit_strategy);
    strbuf_add(b, "          resources:\n");
    for (i = 0; i < r->n_resources; i++) {
        strbuf_add(b, "          - name: ");
        quote_yaml(b, r->resources[i].name);
        strbuf_printf(b, "\n            weight: %lld\n",
                      (long long)r->resources[i].weight);
    }
    if (r->rtcr) {
        strbuf_add(b, "          requestedToCapacityRatio:\n"
                      "            shape:\n");
        for (i = 0; i < r->n_shape; i++)
            strbuf_printf(b,
                          "            - utilization: %d\n"
                          "              score: %d\n",
                          (int)r->shape[i].utilization, (int)r->shape[i].score);
    }
}

static void y_plugin_config(struct strbuf *b, const struct kctx *k,
                            const struct policy_profile *pr)
{
    const struct policy_prio *su = find_unit(k->p, "PodTopologySpread");
    const struct prio_spread_arg *spread = su ? su->args.value : NULL;
    /* Only the priority carries the Policy's value; else v1beta2's 1. */
    const struct policy_prio *iu = find_unit(k->p, "InterPodAffinity");
    const struct prio_inter_pod_arg *inter = iu ? iu->args.value : NULL;

    strbuf_add(b, "    pluginConfig:\n"
                  "    - name: DefaultPreemption\n      args:\n"
                  "        minCandidateNodesPercentage: 10\n"
                  "        minCandidateNodesAbsolute: 100\n");
    if (profile_has(pr, "InterPodAffinity"))
        strbuf_printf(b,
                      "    - name: InterPodAffinity\n      args:\n"
                      "        hardPodAffinityWeight: %d\n",
                      inter ? (int)inter->hard_pod_affinity_weight : 1);
    if (profile_has(pr, "NodeResourcesBalancedAllocation"))
        strbuf_add(b, "    - name: NodeResourcesBalancedAllocation\n"
                      "      args:\n        resources:\n"
                      "        - name: cpu\n          weight: 1\n"
                      "        - name: memory\n          weight: 1\n");
    if (profile_has(pr, "NodeResourcesFit") || k->fit_scoring)
        y_fit_args(b, k);
    if (profile_has(pr, "PodTopologySpread"))
        strbuf_printf(b,
                      "    - name: PodTopologySpread\n      args:\n"
                      "        defaultingType: %s\n",
                      spread && spread->defaulting == PRIO_SPREAD_LIST
                          ? "List"
                          : "System");
    if (profile_has(pr, "VolumeBinding"))
        strbuf_add(b, "    - name: VolumeBinding\n      args:\n"
                      "        bindTimeoutSeconds: 600\n");
}

static void y_kv(struct strbuf *b, const char *indent, const char *key,
                 const char *v)
{
    if (!v || !*v)
        return;
    strbuf_printf(b, "%s%s: ", indent, key);
    quote_yaml(b, v);
    strbuf_add(b, "\n");
}

static void y_policy_extender(struct strbuf *b, const struct policy_extender *x)
{
    size_t i;

    strbuf_add(b, "- urlPrefix: ");
    quote_yaml(b, x->url_prefix);
    strbuf_add(b, "\n");
    y_kv(b, "  ", "filterVerb", x->filter_verb);
    y_kv(b, "  ", "preemptVerb", x->preempt_verb);
    y_kv(b, "  ", "prioritizeVerb", x->prioritize_verb);
    y_kv(b, "  ", "bindVerb", x->bind_verb);
    strbuf_printf(b, "  weight: %lld\n", (long long)x->weight);
    strbuf_printf(b, "  enableHTTPS: %s\n", x->enable_https ? "true" : "false");
    if (x->has_tls) {
        strbuf_printf(b, "  tlsConfig:\n    insecure: %s\n",
                      x->tls.insecure ? "true" : "false");
        y_kv(b, "    ", "serverName", x->tls.server_name);
        y_kv(b, "    ", "certFile", x->tls.cert_file);
        y_kv(b, "    ", "keyFile", x->tls.key_file);
        y_kv(b, "    ", "caFile", x->tls.ca_file);
        y_kv(b, "    ", "certData", x->tls.cert_data);
        y_kv(b, "    ", "keyData", x->tls.key_data);
        y_kv(b, "    ", "caData", x->tls.ca_data);
    }
    if (x->http_timeout_ns) {
        strbuf_add(b, "  httpTimeout: ");
        go_duration(b, x->http_timeout_ns);
        strbuf_add(b, "\n");
    }
    strbuf_printf(b, "  nodeCacheCapable: %s\n",
                  x->node_cache_capable ? "true" : "false");
    if (x->n_managed_resources) {
        strbuf_add(b, "  managedResources:\n");
        for (i = 0; i < x->n_managed_resources; i++) {
            strbuf_add(b, "  - name: ");
            quote_yaml(b, x->managed_resources[i].name);
            strbuf_printf(b, "\n    ignoredByScheduler: %s\n",
                          x->managed_resources[i].ignored_by_scheduler
                              ? "true"
                              : "false");
        }
    }
    strbuf_printf(b, "  ignorable: %s\n", x->ignorable ? "true" : "false");
}

static void y_extenders(struct strbuf *b, const struct kctx *k, const char *url)
{
    const struct policy *p = k->p;
    size_t i;
    bool any = k->n_pred_delegated || k->n_prio_delegated;

    if (!any && !p->doc.n_extenders)
        return;
    strbuf_add(b, "extenders:\n");
    if (any) {
        strbuf_add(b, "# This server evaluates what the target's in-tree "
                      "plugins cannot:\n");
        if (k->n_pred_delegated) {
            strbuf_add(b, "#   filter:");
            for (i = 0; i < p->n_preds; i++) {
                if (k->pred_delegated[i])
                    strbuf_printf(b, " %s", p->preds[i].def->name);
            }
            strbuf_add(b, "\n");
        }
        if (k->n_prio_delegated) {
            strbuf_add(b, "#   prioritize (weight = sum of their weights):");
            for (i = 0; i < p->n_prios; i++) {
                if (k->prio_delegated[i])
                    strbuf_printf(b, " %s(%d)", p->prios[i].def->name,
                                  (int)p->prios[i].weight);
            }
            strbuf_add(b, "\n");
        }
        strbuf_add(b, "- urlPrefix: ");
        quote_yaml(b, url);
        strbuf_add(b, "\n");
        if (k->n_pred_delegated)
            strbuf_add(b, "  filterVerb: filter\n");
        if (k->n_prio_delegated)
            strbuf_printf(b, "  prioritizeVerb: prioritize\n  weight: %lld\n",
                          (long long)k->delegated_weight);
        strbuf_add(b, "  enableHTTPS: false\n  nodeCacheCapable: true\n"
                      "  httpTimeout: 5s\n  ignorable: false\n");
    }
    for (i = 0; i < p->n_extenders; i++)
        y_policy_extender(b, p->extenders[i]);
}

int policy_write_ksc(FILE *f, const struct policy *p, enum policy_ksc_version v,
                     const char *extender_url, struct err *e)
{
    struct arena a;
    struct policy_profile pr;
    struct kctx k;
    struct strbuf b;
    int rc = -1;

    memset(&k, 0, sizeof(k));
    k.p = p;
    k.v = v;
    arena_init(&a, 0);
    strbuf_init(&b, PBUF_MAX);
    k.pred_delegated = arena_calloc(&a, p->n_preds + 1, sizeof(bool));
    k.prio_delegated = arena_calloc(&a, p->n_prios + 1, sizeof(bool));
    if (!k.pred_delegated || !k.prio_delegated) {
        err_set(e, "out of memory");
        goto out;
    }
    if (policy_build_profile(p, &a, &pr, e))
        goto out;
    classify(&k);
    strbuf_printf(&b,
                  "# KubeSchedulerConfiguration equivalent to the Policy %s,\n"
                  "# as kube-scheduler v1.22 builds it "
                  "(generated by kube-policy-extender convert).\n",
                  p->source);
    if (p->always_check_all_predicates)
        strbuf_add(&b, "# alwaysCheckAllPredicates: true has no "
                       "KubeSchedulerConfiguration equivalent.\n");
    strbuf_printf(&b,
                  "apiVersion: kubescheduler.config.k8s.io/%s\n"
                  "kind: KubeSchedulerConfiguration\n"
                  "profiles:\n  - schedulerName: default-scheduler\n",
                  v == POLICY_KSC_V1 ? "v1" : "v1beta2");
    y_plugins(&b, &k, &pr);
    y_plugin_config(&b, &k, &pr);
    y_extenders(&b, &k, extender_url ? extender_url : "http://127.0.0.1:8888");
    if (b.failed) {
        err_set(e, "out of memory");
        goto out;
    }
    if (fputs(b.s, f) < 0) {
        err_set(e, "write error");
        goto out;
    }
    rc = 0;
out:
    strbuf_free(&b);
    arena_destroy(&a);
    return rc;
}
