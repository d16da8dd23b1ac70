/*
 * pred_fixtures.c: test builders for predicates and priorities.
 */
#include "tests/support/pred_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kube/parse/parse.h"
#include "kube/model/resources.h"
#include "predicates/plugins.h"
#include "priorities/plugins.h"
#include "policy/policy.h"
#include "predicates/plugins.h"
#include "priorities/plugins.h"

struct kube_pod *fx_pod(struct arena *a, const char *json)
{
    struct kube_pod *p = arena_calloc(a, 1, sizeof(*p));
    struct err e;

    assert_non_null(p);
    if (kube_parse_pod(a, json, strlen(json), p, &e) < 0)
        fail_msg("fx_pod: %s\n%s", e.msg, json);
    return p;
}

struct kube_node *fx_node(struct arena *a, const char *json)
{
    struct kube_node *n = arena_calloc(a, 1, sizeof(*n));
    struct err e;

    assert_non_null(n);
    if (kube_parse_node(a, json, strlen(json), n, &e) < 0)
        fail_msg("fx_node: %s\n%s", e.msg, json);
    return n;
}

void fx_cluster_init(struct fx_cluster *fc, struct arena *a)
{
    memset(fc, 0, sizeof(*fc));
    fc->a = a;
}

void fx_cluster_add(struct fx_cluster *fc, const char *json)
{
    struct err e;

    assert_false(fc->built);
    if (kube_parse_document(fc->a, json, strlen(json), &fc->objs, &e) < 0)
        fail_msg("fx_cluster_add: %s\n%s", e.msg, json);
}

/* Append one pointer to an arena-grown array of n pointers. */
static void *append(struct arena *a, void *arr, size_t n, void *item)
{
    void **na = arena_alloc(a, (n + 1) * sizeof(void *));

    assert_non_null(na);
    if (n)
        memcpy(na, arr, n * sizeof(void *));
    na[n] = item;
    return na;
}

void fx_cluster_add_node(struct fx_cluster *fc, struct kube_node *n)
{
    fc->objs.nodes = append(fc->a, fc->objs.nodes, fc->objs.n_nodes++, n);
}

void fx_cluster_add_pod(struct fx_cluster *fc, struct kube_pod *p)
{
    fc->objs.pods = append(fc->a, fc->objs.pods, fc->objs.n_pods++, p);
}

void fx_cluster_build(struct fx_cluster *fc)
{
    struct err e;

    if (cluster_build(&fc->c, &fc->objs, &e) < 0)
        fail_msg("fx_cluster_build: %s", e.msg);
    fc->built = 1;
}

void fx_cluster_free(struct fx_cluster *fc)
{
    if (fc->built)
        cluster_free(&fc->c);
    fc->built = 0;
}

bool fx_without_pre_state;

enum pred_code fx_run_filter(const char *plugin, const void *args,
                             const struct policy *policy,
                             const struct kube_pod *pod,
                             const struct cluster *c, const char *node,
                             struct arena *a, struct pred_result *r)
{
    const struct pred_plugin *impl = pred_plugin_find(plugin);
    const struct node_info *ni = cluster_node(c, node);
    struct pred_cycle cy;
    void *state = NULL;
    enum pred_code code;

    if (!impl || !impl->filter)
        fail_msg("fx_run_filter: no implementation of plugin %s", plugin);
    if (!ni)
        fail_msg("fx_run_filter: no node %s in the cluster", node);
    memset(&cy, 0, sizeof(cy));
    if (policy) {
        cy.ignored_resources = policy->ignored_resources;
        cy.n_ignored_resources = policy->n_ignored_resources;
        cy.semantics = policy->semantics;
    }
    cy.pod = pod;
    cy.cluster = c;
    cy.arena = a;
    assert_int_equal(kube_pod_request(a, pod, &cy.pod_request), 0);
    pred_result_init(r, a);
    if (impl->prefilter && !fx_without_pre_state) {
        code = impl->prefilter(&cy, args, &state, r);
        if (code != PRED_FIT)
            return code;
    }
    pred_result_init(r, a);
    return impl->filter(&cy, args, state, ni, r);
}

const char *fx_reasons(struct arena *a, const struct pred_result *r)
{
    size_t i, len = 1;
    char *s;

    for (i = 0; i < r->n_reasons; i++)
        len += strlen(r->reasons[i]) + 1;
    s = arena_alloc(a, len);
    assert_non_null(s);
    s[0] = '\0';
    for (i = 0; i < r->n_reasons; i++) {
        if (i)
            strcat(s, "|");
        strcat(s, r->reasons[i]);
    }
    return s;
}

int fx_run_score(const char *plugin, const void *args,
                 const struct kube_pod *pod, const struct cluster *c,
                 const char *const *nodes, size_t n, struct arena *a,
                 int64_t *scores, struct err *e)
{
    return fx_run_score_as(KPE_SEM_DEFAULT, plugin, args, pod, c, nodes, n, a,
                           scores, e);
}

int fx_run_score_as(enum kpe_semantics sem, const char *plugin,
                    const void *args, const struct kube_pod *pod,
                    const struct cluster *c, const char *const *nodes, size_t n,
                    struct arena *a, int64_t *scores, struct err *e)
{
    const struct prio_plugin *impl = prio_plugin_find(plugin);
    const struct node_info **list;
    struct prio_cycle cy;
    void *state = NULL;
    size_t i;

    if (!impl || !impl->score)
        fail_msg("fx_run_score: no implementation of plugin %s", plugin);
    list = arena_alloc(a, (n ? n : 1) * sizeof(*list));
    assert_non_null(list);
    for (i = 0; i < n; i++) {
        list[i] = cluster_node(c, nodes[i]);
        if (!list[i])
            fail_msg("fx_run_score: no node %s in the cluster", nodes[i]);
    }
    memset(&cy, 0, sizeof(cy));
    cy.pod = pod;
    cy.cluster = c;
    cy.arena = a;
    cy.n_nodes = n;
    cy.nodes = list;
    cy.semantics = sem;
    if (impl->prescore && !fx_without_pre_state &&
        impl->prescore(&cy, args, &state, e) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        if (impl->score(&cy, args, state, list[i], &scores[i], e) < 0)
            return -1;
    }
    if (impl->normalize && impl->normalize(&cy, args, state, scores, e) < 0)
        return -1;
    return 0;
}
