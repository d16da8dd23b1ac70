/*
 * topo_fixtures.c: node and pod specs for the topology tests.
 */
#include "tests/support/topo_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kube/model/resources.h"
#include "predicates/plugins.h"

#define SPEC_MAX 4096

/* Append printf output to buf (len used of SPEC_MAX). */
static void put(char *buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void put(char *buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf + *len, SPEC_MAX - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= SPEC_MAX - *len)
        fail_msg("topo fixture spec too long: %s", buf);
    *len += (size_t)n;
}

/* Split "key=value" into the labels object being written. */
static void put_label(char *buf, size_t *len, const char *tok, int *first)
{
    const char *eq = strchr(tok, '=');

    if (!eq)
        fail_msg("topo fixture: label \"%s\" has no '='", tok);
    put(buf, len, "%s\"%.*s\":\"%s\"", *first ? "" : ",", (int)(eq - tok), tok,
        eq + 1);
    *first = 0;
}

struct kube_node *tf_node(struct arena *a, const char *spec)
{
    char copy[SPEC_MAX], json[SPEC_MAX], *tok, *save = NULL;
    size_t len = 0;
    int first = 1;

    snprintf(copy, sizeof(copy), "%s", spec);
    tok = strtok_r(copy, " ", &save);
    assert_non_null(tok);
    put(json, &len, "{\"metadata\":{\"name\":\"%s\",\"labels\":{", tok);
    while ((tok = strtok_r(NULL, " ", &save)))
        put_label(json, &len, tok, &first);
    put(json, &len, "}}}");
    return fx_node(a, json);
}

struct kube_pod *tf_pod(struct arena *a, const char *spec,
                        const char *spec_json)
{
    char copy[SPEC_MAX], json[SPEC_MAX], *tok, *save = NULL;
    const char *name, *node, *ns = NULL;
    size_t len = 0;
    int first = 1, terminating = 0;

    snprintf(copy, sizeof(copy), "%s", spec);
    name = strtok_r(copy, " ", &save);
    node = strtok_r(NULL, " ", &save);
    assert_non_null(name);
    assert_non_null(node);
    put(json, &len, "{\"metadata\":{\"name\":\"%s\",\"labels\":{", name);
    while ((tok = strtok_r(NULL, " ", &save))) {
        if (!strncmp(tok, "ns:", 3))
            ns = tok + 3;
        else if (!strcmp(tok, "terminating"))
            terminating = 1;
        else
            put_label(json, &len, tok, &first);
    }
    put(json, &len, "}");
    if (ns)
        put(json, &len, ",\"namespace\":\"%s\"", ns);
    if (terminating)
        put(json, &len, ",\"deletionTimestamp\":\"2021-08-01T00:00:00Z\"");
    put(json, &len, "},\"spec\":{\"nodeName\":\"%s\"%s%s}}",
        strcmp(node, "-") ? node : "", spec_json ? "," : "",
        spec_json ? spec_json : "");
    return fx_pod(a, json);
}

void tf_add(struct fx_cluster *fc, const char *const *nodes,
            const char *const *pods)
{
    for (; nodes && *nodes; nodes++)
        fx_cluster_add_node(fc, tf_node(fc->a, *nodes));
    for (; pods && *pods; pods++)
        fx_cluster_add_pod(fc, tf_pod(fc->a, *pods, NULL));
}

enum pred_code tf_prefilter(const char *plugin, const struct kube_pod *pod,
                            const struct cluster *c, struct arena *a,
                            struct pred_cycle *cy, void **state,
                            struct pred_result *r)
{
    const struct pred_plugin *impl = pred_plugin_find(plugin);

    if (!impl || !impl->prefilter)
        fail_msg("tf_prefilter: plugin %s has no prefilter", plugin);
    memset(cy, 0, sizeof(*cy));
    cy->pod = pod;
    cy->cluster = c;
    cy->arena = a;
    assert_int_equal(kube_pod_request(a, pod, &cy->pod_request), 0);
    *state = NULL;
    pred_result_init(r, a);
    return impl->prefilter(cy, NULL, state, r);
}
