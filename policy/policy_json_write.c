/*
 * policy_json_write.c: a Policy document as canonical JSON (2-space
 * indentation, one entry per line, keys in v1 Policy order), the form
 * `convert --to json` prints and the INI round trip compares.
 */
#include "policy/policy.h"

#include "policy/arg_print.h"
#include "policy/policy_buf.h"

/* `"argument": {...}`: every member given, in api_order. */
static void w_args(struct strbuf *b, const struct kpe_args_written *w)
{
    size_t i;

    strbuf_add(b, ", \"argument\": {");
    for (i = 0; i < w->n; i++) {
        strbuf_printf(b, "%s\"%s\": ", i ? ", " : "", w->v[i].schema->key);
        policy_arg_json(b, w->v[i].schema, w->v[i].value);
    }
    strbuf_add(b, "}");
}

static void w_pred(struct strbuf *b, const struct policy_pred_entry *pe)
{
    strbuf_add(b, "    {\"name\": ");
    quote_json(b, pe->name ? pe->name : "");
    if (pe->has_argument)
        w_args(b, &pe->arg);
    strbuf_add(b, "}");
}

static void w_prio(struct strbuf *b, const struct policy_prio_entry *pe)
{
    strbuf_add(b, "    {\"name\": ");
    quote_json(b, pe->name ? pe->name : "");
    strbuf_printf(b, ", \"weight\": %lld", (long long)pe->weight);
    if (pe->has_argument)
        w_args(b, &pe->arg);
    strbuf_add(b, "}");
}

static void w_kv_str(struct strbuf *b, const char *key, const char *v,
                     const char **sep)
{
    if (!v || !*v)
        return;
    strbuf_printf(b, "%s\"%s\": ", *sep, key);
    quote_json(b, v);
    *sep = ", ";
}

static void w_ext(struct strbuf *b, const struct policy_extender *x)
{
    const char *sep = "";
    size_t i;

    strbuf_add(b, "    {");
    w_kv_str(b, "urlPrefix", x->url_prefix, &sep);
    w_kv_str(b, "filterVerb", x->filter_verb, &sep);
    w_kv_str(b, "preemptVerb", x->preempt_verb, &sep);
    w_kv_str(b, "prioritizeVerb", x->prioritize_verb, &sep);
    strbuf_printf(b, "%s\"weight\": %lld", sep, (long long)x->weight);
    sep = ", ";
    w_kv_str(b, "bindVerb", x->bind_verb, &sep);
    strbuf_printf(b, ", \"enableHttps\": %s",
                  x->enable_https ? "true" : "false");
    if (x->has_tls) {
        const char *tsep = "";

        strbuf_printf(b, ", \"tlsConfig\": {\"insecure\": %s",
                      x->tls.insecure ? "true" : "false");
        tsep = ", ";
        w_kv_str(b, "serverName", x->tls.server_name, &tsep);
        w_kv_str(b, "certFile", x->tls.cert_file, &tsep);
        w_kv_str(b, "keyFile", x->tls.key_file, &tsep);
        w_kv_str(b, "caFile", x->tls.ca_file, &tsep);
        w_kv_str(b, "certData", x->tls.cert_data, &tsep);
        w_kv_str(b, "keyData", x->tls.key_data, &tsep);
        w_kv_str(b, "caData", x->tls.ca_data, &tsep);
        strbuf_add(b, "}");
    }
    strbuf_printf(b, ", \"httpTimeout\": %lld", (long long)x->http_timeout_ns);
    strbuf_printf(b, ", \"nodeCacheCapable\": %s",
                  x->node_cache_capable ? "true" : "false");
    if (x->n_managed_resources) {
        strbuf_add(b, ", \"managedResources\": [");
        for (i = 0; i < x->n_managed_resources; i++) {
            strbuf_add(b, i ? ", {\"name\": " : "{\"name\": ");
            quote_json(b, x->managed_resources[i].name
                              ? x->managed_resources[i].name
                              : "");
            strbuf_printf(b, ", \"ignoredByScheduler\": %s}",
                          x->managed_resources[i].ignored_by_scheduler
                              ? "true"
                              : "false");
        }
        strbuf_add(b, "]");
    }
    strbuf_printf(b, ", \"ignorable\": %s}", x->ignorable ? "true" : "false");
}

char *policy_write_json(const struct policy_doc *d, struct arena *a,
                        struct err *e)
{
    struct strbuf b;
    char *out;
    size_t i;

    strbuf_init(&b, PBUF_MAX);
    strbuf_add(&b, "{\n  \"kind\": \"Policy\",\n  \"apiVersion\": ");
    quote_json(&b, d->api_version ? d->api_version : "v1");
    if (d->predicates_mode == POLICY_LIST_LISTED) {
        strbuf_add(&b, ",\n  \"predicates\": [");
        for (i = 0; i < d->n_preds; i++) {
            strbuf_add(&b, i ? ",\n" : "\n");
            w_pred(&b, &d->preds[i]);
        }
        strbuf_add(&b, d->n_preds ? "\n  ]" : "]");
    }
    if (d->priorities_mode == POLICY_LIST_LISTED) {
        strbuf_add(&b, ",\n  \"priorities\": [");
        for (i = 0; i < d->n_prios; i++) {
            strbuf_add(&b, i ? ",\n" : "\n");
            w_prio(&b, &d->prios[i]);
        }
        strbuf_add(&b, d->n_prios ? "\n  ]" : "]");
    }
    if (d->n_extenders) {
        strbuf_add(&b, ",\n  \"extenders\": [");
        for (i = 0; i < d->n_extenders; i++) {
            strbuf_add(&b, i ? ",\n" : "\n");
            w_ext(&b, &d->extenders[i]);
        }
        strbuf_add(&b, "\n  ]");
    }
    if (d->hard_pod_affinity_symmetric_weight)
        strbuf_printf(&b, ",\n  \"hardPodAffinitySymmetricWeight\": %d",
                      (int)d->hard_pod_affinity_symmetric_weight);
    if (d->always_check_all_predicates)
        strbuf_add(&b, ",\n  \"alwaysCheckAllPredicates\": true");
    strbuf_add(&b, "\n}\n");
    if (b.failed) {
        strbuf_free(&b);
        err_set(e, "out of memory writing JSON");
        return NULL;
    }
    out = arena_strdup(a, b.s);
    strbuf_free(&b);
    if (!out)
        err_set(e, "out of memory");
    return out;
}
