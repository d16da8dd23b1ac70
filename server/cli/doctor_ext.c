/*
 * doctor_ext.c: the wiring doctor's look at each extender entry of
 * kube-scheduler's file (doctor_internal.h). The transport follows
 * kube-scheduler's makeTransport (pkg/scheduler/core/extender.go, v1.20):
 * tlsConfig is used whatever enableHTTPS says, enableHTTPS without a CA
 * turns verification off, and the scheme is the urlPrefix's own; each call
 * goes to the urlPrefix without its trailing '/' plus "/" and the verb
 * (HTTPExtender.send). A prioritizeVerb needs a positive weight
 * (validateExtenders, pkg/scheduler/apis/config/validation, v1.20). Every
 * entry is taken to be this server.
 */
#include "server/cli/doctor_internal.h"

#include <string.h>

/* The path of an http(s) URL, without trailing '/' (length in *n). */
static const char *url_path(const char *url, size_t *n)
{
    const char *host = strstr(url, "://"), *p;

    host = host ? host + 3 : url;
    p = strchr(host, '/');
    if (!p)
        p = host + strlen(host);
    *n = strlen(p);
    while (*n && p[*n - 1] == '/')
        (*n)--;
    return p;
}

static void check_url(struct doctor *d, size_t i,
                      const struct policy_extender *x, bool *https)
{
    const char *want = d->o->url_prefix ? d->o->url_prefix : "", *path;
    size_t n, wn = strlen(want);

    *https = !strncmp(x->url_prefix, "https://", 8);
    if (!*x->url_prefix) {
        doctor_problem(d,
                       "extenders[%zu].urlPrefix: empty: kube-scheduler "
                       "has nowhere to call",
                       i);
        return;
    }
    if (!*https && strncmp(x->url_prefix, "http://", 7)) {
        doctor_problem(d,
                       "extenders[%zu].urlPrefix: \"%s\": expected http:// "
                       "or https://",
                       i, x->url_prefix);
        return;
    }
    while (wn && want[wn - 1] == '/')
        wn--;
    path = url_path(x->url_prefix, &n);
    if (n != wn || strncmp(path, want, n))
        doctor_problem(d,
                       "extenders[%zu].urlPrefix: kube-scheduler posts to "
                       "%.*s/<verb>, serve answers %.*s/<verb> (serve "
                       "--url-prefix \"%.*s\"; check --url-prefix says "
                       "which serve runs with)",
                       i, (int)n, path, (int)wn, want, (int)n, path);
}

static void check_verb(struct doctor *d, size_t i, const char *key,
                       const char *verb, const char *ours)
{
    if (*verb && strcmp(verb, ours))
        doctor_problem(d,
                       "extenders[%zu].%s: \"%s\": serve answers only POST "
                       "<urlPrefix>/%s; this call gets 404",
                       i, key, verb, ours);
}

static void check_weight(struct doctor *d, size_t i,
                         const struct policy_extender *x)
{
    struct policy_role r;
    int64_t sum;

    if (!*x->prioritize_verb)
        return;
    if (x->weight <= 0) {
        doctor_problem(d,
                       "extenders[%zu].weight: %lld: a prioritizeVerb needs "
                       "a positive weight",
                       i, (long long)x->weight);
        return;
    }
    policy_extender_role(d->served, &r);
    sum = policy_extender_weight(d->served);
    if (r.sole || sum <= 0)
        return;
    /* The split shape: answer x weight x 10 = the in-process score. */
    if (x->weight != sum)
        doctor_problem(d,
                       "extenders[%zu].weight: %lld, but the served "
                       "priorities' weights sum to %lld: in the split shape "
                       "the answer x weight x 10 equals their in-process "
                       "score only with weight %lld",
                       i, (long long)x->weight, (long long)sum, (long long)sum);
}

static void check_tls(struct doctor *d, size_t i,
                      const struct policy_extender *x, bool https)
{
    const struct policy_tls *t = &x->tls;
    bool ca = (t->ca_file && *t->ca_file) || (t->ca_data && *t->ca_data);
    bool cert =
        (t->cert_file && *t->cert_file) || (t->cert_data && *t->cert_data);

    if (!https && x->enable_https)
        doctor_problem(d,
                       "extenders[%zu].enableHTTPS: true, but the urlPrefix "
                       "is http://: kube-scheduler calls in plain HTTP (the "
                       "scheme is the urlPrefix's)",
                       i);
    if (!https && x->has_tls)
        doctor_problem(d,
                       "extenders[%zu].tlsConfig: unused: the urlPrefix is "
                       "http://",
                       i);
    if (https && x->enable_https && !ca && !t->insecure)
        doctor_problem(d,
                       "extenders[%zu].tlsConfig: no caFile or caData: with "
                       "enableHTTPS kube-scheduler then does not verify "
                       "serve's certificate (insecure)",
                       i);
    if (https && t->insecure)
        doctor_problem(d,
                       "extenders[%zu].tlsConfig.insecure: true: serve's "
                       "certificate is not verified",
                       i);
    if (https && !x->enable_https && !ca)
        doctor_note(d,
                    "extenders[%zu]: https:// without enableHTTPS or a CA: "
                    "serve's certificate must chain to the system roots",
                    i);
    if (https)
        doctor_note(d,
                    "extenders[%zu]: serve must run with --tls-cert-file "
                    "and --tls-key-file%s",
                    i,
                    cert ? ", and --tls-client-ca-file (the CA of the "
                           "client certificate) to require it"
                         : "");
}

static void check_cache(struct doctor *d, size_t i,
                        const struct policy_extender *x)
{
    if (x->node_cache_capable)
        doctor_note(d,
                    "extenders[%zu].nodeCacheCapable: true: kube-scheduler "
                    "sends node names only, so serve needs its own cluster "
                    "state: run it with --cluster FILE, --kubeconfig (or "
                    "--master) or in-cluster; without one every call fails",
                    i);
    else if (d->served->needs & (KPE_NEED_PODS_ON_NODE | KPE_NEED_ALL_PODS))
        doctor_note(d,
                    "extenders[%zu].nodeCacheCapable: false: full Node "
                    "objects are sent, but the served policy reads the "
                    "pods on nodes: serve needs --cluster or --kubeconfig "
                    "for them",
                    i);
}

static void check_ignorable(struct doctor *d, size_t i,
                            const struct policy_extender *x)
{
    const char *first = NULL;

    if (x->ignorable && *x->filter_verb &&
        doctor_served_preds(d->served, &first))
        doctor_problem(d,
                       "extenders[%zu].ignorable: true: when serve is "
                       "unreachable kube-scheduler schedules without the "
                       "served predicates (%s, ...)",
                       i, first);
}

void doctor_extenders(struct doctor *d)
{
    const struct policy_doc *s = &d->sched->doc;
    bool filter = false, prioritize = false;
    const char *first = NULL;
    size_t i, np = doctor_served_preds(d->served, &first);

    if (!s->n_extenders) {
        doctor_problem(d, "extenders: none: kube-scheduler never calls this "
                          "server");
        return;
    }
    for (i = 0; i < s->n_extenders; i++) {
        struct policy_extender c = s->extenders[i];
        const struct policy_extender *x = &c;
        bool https;

        c.url_prefix = c.url_prefix ? c.url_prefix : "";
        c.filter_verb = c.filter_verb ? c.filter_verb : "";
        c.prioritize_verb = c.prioritize_verb ? c.prioritize_verb : "";
        c.preempt_verb = c.preempt_verb ? c.preempt_verb : "";
        c.bind_verb = c.bind_verb ? c.bind_verb : "";

        check_url(d, i, x, &https);
        check_verb(d, i, "filterVerb", x->filter_verb, "filter");
        check_verb(d, i, "prioritizeVerb", x->prioritize_verb, "prioritize");
        check_verb(d, i, "preemptVerb", x->preempt_verb, "preempt");
        check_verb(d, i, "bindVerb", x->bind_verb, "bind");
        if (*x->filter_verb && !*x->preempt_verb)
            doctor_problem(d,
                           "extenders[%zu].preemptVerb: empty while "
                           "filterVerb is set: kube-scheduler's preemption "
                           "then picks victims on nodes the extender's "
                           "filters refuse",
                           i);
        if (*x->bind_verb)
            doctor_note(d,
                        "extenders[%zu].bindVerb: serve binds through the "
                        "API server: it needs --kubeconfig (or in-cluster) "
                        "and create on pods/binding",
                        i);
        check_weight(d, i, x);
        check_tls(d, i, x, https);
        check_cache(d, i, x);
        check_ignorable(d, i, x);
        filter = filter || *x->filter_verb;
        prioritize = prioritize || *x->prioritize_verb;
    }
    if (np && !filter)
        doctor_problem(d,
                       "extenders: no filterVerb: the served predicates "
                       "(%s, ...) are never evaluated",
                       first);
    if (d->served->n_prios && !prioritize)
        doctor_problem(d,
                       "extenders: no prioritizeVerb: the served priorities "
                       "(%s, ...) never score",
                       d->served->prios[0].def->name);
}
