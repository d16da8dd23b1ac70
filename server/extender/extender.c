/*
 * extender.c: the scheduler-extender verbs (filter, prioritize) as
 * kube-scheduler v1.13–v1.22+ call them (pkg/scheduler/extender.go,
 * staging/src/k8s.io/kube-scheduler/extender/v1/types.go). Request keys
 * are read case-insensitively (Go's decoder; pre-1.16 schedulers send
 * lower case), answers use the Go field names. Logical errors are HTTP 200
 * with Error set, because kube-scheduler discards other statuses' bodies.
 */
#include "server/extender/extender.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/base/hash.h"
#include "kube/base/json_dups.h"
#include "kube/base/json_parse.h"
#include "kube/base/json_scan.h"
#include "kube/base/json_walk.h"
#include "kube/base/json_writer.h"
#include "kube/parse/parse.h"
#include "policy/policy.h"
#include "server/common/log.h"
#include "engine/engine_select.h"

/*
 * A struct field as Go's decoder fills it (kube/base/json_dups.h): every
 * key equal to its name ignoring case, the last one winning, objects
 * merged ("NodeNames" then "nodenames": the latter). The tree is ours
 * (the request's arena): merging rearranges it.
 */
static const cJSON *member(struct arena *a, const cJSON *obj, const char *key)
{
    return json_member_go(a, (cJSON *)obj, key);
}

struct node_span_ctx {
    struct json_span *spans;
    size_t n;
};

static int keep_span(void *arg, size_t i, struct json_span el)
{
    struct node_span_ctx *c = arg;

    if (i < c->n)
        c->spans[i] = el;
    return 0;
}

/*
 * Spans of Nodes.items[*] in the raw body, for echoing them verbatim. The
 * answer must stay valid JSON, so a node holding bytes that are not UTF-8
 * (the parser read them as U+FFFD) is refused rather than echoed.
 */
static int find_node_spans(const char *body, size_t len, struct ext_args *x,
                           struct err *e)
{
    struct json_span root = json_scan_value(body, len, 0), nodes, items;
    struct node_span_ctx c = { x->node_spans, x->n_nodes };
    size_t i, bad, seen = 0;

    if (json_scan_member(body, len, root, "Nodes", &nodes) &&
        json_scan_member(body, len, nodes, "items", &items))
        seen = json_scan_array(body, len, items, keep_span, &c);
    /* The spans are the last Nodes' items; merged duplicate Nodes objects
     * (Go fills one NodeList from both) may hold others: those nodes
     * could not be echoed as they were evaluated. */
    if (seen != x->n_nodes)
        return err_set(e,
                       "Nodes: %zu items decoded but %zu in the last \"Nodes\" "
                       "member: duplicate Nodes keys that merge cannot be "
                       "echoed",
                       x->n_nodes, seen);
    for (i = 0; i < x->n_nodes; i++) {
        const struct json_span *sp = &x->node_spans[i];

        if (sp->end <= sp->start)
            continue;
        bad = json_utf8_invalid_at(body + sp->start, sp->end - sp->start);
        if (bad < sp->end - sp->start)
            return err_set(e,
                           "Nodes.items[%zu]: invalid UTF-8 at byte %zu of "
                           "the body",
                           i, sp->start + bad);
    }
    return 0;
}

/*
 * A node name is a DNS-1123 subdomain (the API server refuses others), so
 * printable ASCII: anything else (a control byte, U+FFFD from invalid
 * UTF-8) would only reach the answer as a name no node has.
 */
static int check_node_name(bool in_nodes, size_t index, const char *name,
                           struct err *e)
{
    char q[160];
    size_t i;

    for (i = 0; name[i]; i++) {
        unsigned char c = (unsigned char)name[i];

        if (c < 0x21 || c > 0x7e)
            return err_set(e,
                           "%s[%zu]%s: invalid node name %s: byte %zu "
                           "(0x%02x) is not allowed in a DNS-1123 subdomain",
                           in_nodes ? "Nodes.items" : "NodeNames", index,
                           in_nodes ? ".metadata.name" : "",
                           err_quote(q, sizeof(q), name, 120), i, c);
    }
    return 0;
}

static int decode_nodes(struct arena *a, const cJSON *nodes, struct ext_args *x,
                        struct err *e)
{
    const cJSON *items = member(a, nodes, "items"), *it;
    size_t i = 0;

    if (!cJSON_IsObject(nodes))
        return err_set(e, "Nodes: expected a NodeList object or null");
    if (cJSON_IsNull(items) || !items)
        return 0;
    if (!cJSON_IsArray(items))
        return err_set(e, "Nodes.items: expected an array");
    x->n_nodes = (size_t)cJSON_GetArraySize(items);
    x->nodes = arena_calloc(a, x->n_nodes + 1, sizeof(*x->nodes));
    x->node_spans = arena_calloc(a, x->n_nodes + 1, sizeof(*x->node_spans));
    if (!x->nodes || !x->node_spans)
        return err_set(e, "out of memory decoding %zu nodes", x->n_nodes);
    cJSON_ArrayForEach(it, items)
    {
        char path[48];

        snprintf(path, sizeof(path), "Nodes.items[%zu]", i);
        if (kube_node_from_cjson(a, it, path, &x->nodes[i], e) < 0)
            return -1;
        if (x->nodes[i].name && check_node_name(true, i, x->nodes[i].name, e))
            return -1;
        i++;
    }
    return 0;
}

static int decode_names(struct arena *a, const cJSON *names, struct ext_args *x,
                        struct err *e)
{
    const cJSON *it;
    size_t i = 0;

    if (!cJSON_IsArray(names))
        return err_set(e, "NodeNames: expected an array of strings or null");
    x->n_names = (size_t)cJSON_GetArraySize(names);
    x->names = arena_calloc(a, x->n_names + 1, sizeof(*x->names));
    if (!x->names)
        return err_set(e, "out of memory");
    cJSON_ArrayForEach(it, names)
    {
        if (!cJSON_IsString(it))
            return err_set(e, "NodeNames[%zu]: expected a string", i);
        if (check_node_name(false, i, it->valuestring, e) < 0)
            return -1;
        x->names[i++] = it->valuestring;
    }
    return 0;
}

int ext_decode_args(struct arena *a, const char *body, size_t len,
                    bool want_spans, struct ext_args *x, struct err *e)
{
    cJSON *root = NULL;
    const cJSON *pod, *nodes, *names;

    memset(x, 0, sizeof(*x));
    if (json_arena_parse(a, body, len, JSON_ARENA_NO_NUL | JSON_ARENA_GO_KEYS,
                         &root, e) < 0)
        return err_prefix(e, "request body: ");
    if (!cJSON_IsObject(root))
        return err_set(e, "request body: expected an ExtenderArgs object");
    pod = member(a, root, "Pod");
    if (!pod || cJSON_IsNull(pod))
        return err_set(e, "Pod: missing: the request names no pod");
    if (kube_pod_from_cjson(a, pod, "Pod", &x->pod, e) < 0)
        return -1;
    nodes = member(a, root, "Nodes");
    names = member(a, root, "NodeNames");
    if (nodes && !cJSON_IsNull(nodes)) {
        x->has_nodes = true;
        if (decode_nodes(a, nodes, x, e) < 0)
            return -1;
        if (want_spans && find_node_spans(body, len, x, e) < 0)
            return -1;
    }
    if (names && !cJSON_IsNull(names)) {
        x->has_names = true;
        if (decode_names(a, names, x, e) < 0)
            return -1;
    }
    return 0;
}

/*
 * The node_info each request node is evaluated on: with node names, the
 * cached one; with node objects, the request's object carrying the
 * cached node's pods and sums (a node unknown to the cache has none).
 * Unknown names leave a NULL entry.
 */
static const struct node_info **resolve_nodes(struct arena *a,
                                              const struct cluster *c,
                                              const struct ext_args *x,
                                              size_t *n)
{
    const struct node_info **out;
    size_t i;

    *n = x->has_names && !x->has_nodes ? x->n_names : x->n_nodes;
    out = arena_calloc(a, *n + 1, sizeof(*out));
    if (!out)
        return NULL;
    for (i = 0; i < *n; i++) {
        struct node_info *ni;
        const struct node_info *cached;

        if (!x->has_nodes) {
            out[i] = cluster_node(c, x->names[i]);
            continue;
        }
        ni = arena_calloc(a, 1, sizeof(*ni));
        if (!ni)
            return NULL;
        cached = cluster_node(c, x->nodes[i].name);
        if (cached)
            *ni = *cached;
        node_info_set_node(ni, &x->nodes[i]);
        out[i] = ni;
    }
    return out;
}

/* All reasons of a verdict as one string, as FailedNodes carries them. */
static const char *join_reasons(struct arena *a, const struct pred_verdict *v)
{
    size_t len = 1, f, k;
    char *s;

    for (f = 0; f < v->n_failures; f++) {
        for (k = 0; k < v->failures[f].n_reasons; k++)
            len += strlen(v->failures[f].reasons[k]) + 2;
    }
    s = arena_alloc(a, len);
    if (!s)
        return "node(s) didn't fit";
    s[0] = '\0';
    for (f = 0; f < v->n_failures; f++) {
        for (k = 0; k < v->failures[f].n_reasons; k++) {
            if (s[0])
                strcat(s, ", ");
            strcat(s, v->failures[f].reasons[k]);
        }
    }
    return s[0] ? s : "node(s) didn't fit";
}

static void write_failed(struct jsonw *w, struct arena *a,
                         const struct eval_result *r, const char *const *names,
                         bool unresolvable_only, const char *missing)
{
    size_t i;

    jsonw_begin_object(w);
    for (i = 0; i < r->n_nodes; i++) {
        const struct eval_node *en = &r->nodes[i];

        if (!en->ni) {
            /* A name the cache does not know: preemption cannot help. */
            jsonw_key(w, names[i]);
            jsonw_string(w, missing);
            continue;
        }
        if (en->feasible)
            continue;
        /* Unresolvable rejections go in both maps: schedulers before
         * v1.20 read only FailedNodes; later ones let the unresolvable
         * map win. */
        if (unresolvable_only && en->verdict.code != PRED_UNFIT_UNRESOLVABLE)
            continue;
        jsonw_key(w, en->ni->node->name);
        jsonw_string(w, join_reasons(a, &en->verdict));
    }
    jsonw_end_object(w);
}

#define EXT_MISSING_NODE "node(s) not found in the extender's cluster cache"

/*
 * Evaluate nodes that may include unknown (NULL) entries: those are left
 * infeasible with ni NULL.
 */
static int evaluate_known(const struct eval_plans *plans,
                          const struct cluster *cl, const struct kube_pod *pod,
                          const struct node_info **nodes, size_t n,
                          unsigned what, struct arena *a, struct eval_result *r,
                          struct err *e)
{
    const struct node_info **known;
    struct eval_result sub;
    size_t i, k = 0;

    known = arena_calloc(a, n + 1, sizeof(*known));
    if (!known)
        return err_set(e, "out of memory");
    for (i = 0; i < n; i++) {
        if (nodes[i])
            known[k++] = nodes[i];
    }
    if (evaluate_pod(plans, pod, cl, known, k, what, a, &sub, e) < 0)
        return -1;
    if (k == n) {
        *r = sub;
        return 0;
    }
    /* Re-expand to the request's order, with holes for unknown names. */
    *r = sub;
    r->selected = -1;
    r->n_nodes = n;
    r->nodes = arena_calloc(a, n + 1, sizeof(*r->nodes));
    if (!r->nodes)
        return err_set(e, "out of memory");
    for (i = 0, k = 0; i < n; i++) {
        if (nodes[i])
            r->nodes[i] = sub.nodes[k++];
        else
            r->nodes[i].feasible_index = -1;
    }
    return 0;
}

/* Count nodes and each predicate's rejections into stats. */
static void collect_stats(const struct eval_result *r, struct ext_stats *stats)
{
    size_t i, f, k;

    for (i = 0; i < r->n_nodes; i++) {
        const struct eval_node *en = &r->nodes[i];

        if (!en->ni)
            continue;
        stats->nodes++;
        if (en->feasible) {
            stats->feasible++;
            continue;
        }
        for (f = 0; f < en->verdict.n_failures; f++) {
            const char *name = en->verdict.failures[f].predicate;

            for (k = 0; k < stats->n_preds; k++) {
                if (stats->preds[k].predicate == name ||
                    !strcmp(stats->preds[k].predicate, name))
                    break;
            }
            if (k == stats->n_preds) {
                if (k == EXT_STATS_MAX_PREDICATES)
                    continue;
                stats->preds[k].predicate = name;
                stats->preds[k].failures = 0;
                stats->n_preds++;
            }
            stats->preds[k].failures++;
        }
    }
}

/* The decoded pod outlives the verb's frame in the request arena. */
static const struct kube_pod *arena_pod_copy(struct arena *a,
                                             const struct kube_pod *pod)
{
    struct kube_pod *c = arena_alloc(a, sizeof(*c));

    if (c)
        *c = *pod;
    return c;
}

/* The one feasible node's name, or NULL. */
static const char *only_feasible(const struct eval_result *r,
                                 const struct ext_args *x)
{
    const char *name = NULL;
    size_t i;

    for (i = 0; i < r->n_nodes; i++) {
        if (!r->nodes[i].ni || !r->nodes[i].feasible)
            continue;
        if (name)
            return NULL;
        name = x->has_nodes ? x->nodes[i].name : x->names[i];
    }
    return name;
}

char *ext_filter(const struct eval_plans *plans, const struct cluster *cl,
                 struct arena *a, const char *body, size_t len, size_t *out_len,
                 struct ext_stats *stats, struct ext_decision *dec)
{
    struct ext_args x;
    struct eval_result r;
    const struct node_info **nodes;
    struct jsonw w;
    struct err e = { "" };
    size_t n = 0, i;

    jsonw_init(&w, 0);
    w.out.charge = a; /* the answer counts against the request's memory */
    if (ext_decode_args(a, body, len, true, &x, &e) < 0)
        goto fail;
    if (!x.has_nodes && !x.has_names) {
        err_set(&e, "Nodes and NodeNames are both null: nothing to filter");
        goto fail;
    }
    nodes = resolve_nodes(a, cl, &x, &n);
    if (!nodes ||
        evaluate_known(plans, cl, &x.pod, nodes, n, EVAL_FILTER, a, &r, &e) < 0)
        goto fail;
    if (stats)
        collect_stats(&r, stats);
    if (dec) {
        dec->pod = arena_pod_copy(a, &x.pod);
        dec->node = only_feasible(&r, &x);
        dec->n_nodes = n;
        dec->n_feasible = r.n_feasible;
    }
    jsonw_begin_object(&w);
    jsonw_key(&w, "Nodes");
    if (x.has_nodes) {
        jsonw_begin_object(&w);
        jsonw_key(&w, "metadata");
        jsonw_raw(&w, "{}", 2);
        jsonw_key(&w, "items");
        jsonw_begin_array(&w);
        for (i = 0; i < n; i++) {
            const struct json_span *sp = &x.node_spans[i];

            if (r.nodes[i].feasible)
                jsonw_raw(&w, body + sp->start, sp->end - sp->start);
        }
        jsonw_end_array(&w);
        jsonw_end_object(&w);
    } else {
        jsonw_null(&w);
    }
    jsonw_key(&w, "NodeNames");
    if (x.has_nodes) {
        jsonw_null(&w);
    } else {
        jsonw_begin_array(&w);
        for (i = 0; i < n; i++) {
            if (r.nodes[i].ni && r.nodes[i].feasible)
                jsonw_string(&w, x.names[i]);
        }
        jsonw_end_array(&w);
    }
    jsonw_key(&w, "FailedNodes");
    write_failed(&w, a, &r, x.names, false, EXT_MISSING_NODE);
    jsonw_key(&w, "FailedAndUnresolvableNodes");
    write_failed(&w, a, &r, x.names, true, EXT_MISSING_NODE);
    jsonw_key(&w, "Error");
    jsonw_string(&w, "");
    jsonw_end_object(&w);
    return jsonw_take(&w, out_len);
fail:
    jsonw_free(&w);
    return ext_filter_error(e.msg, out_len);
}

char *ext_filter_error(const char *msg, size_t *out_len)
{
    struct jsonw w;

    jsonw_init(&w, 0);
    jsonw_begin_object(&w);
    jsonw_key(&w, "Nodes");
    jsonw_null(&w);
    jsonw_key(&w, "NodeNames");
    jsonw_null(&w);
    jsonw_key(&w, "FailedNodes");
    jsonw_null(&w);
    jsonw_key(&w, "FailedAndUnresolvableNodes");
    jsonw_null(&w);
    jsonw_key(&w, "Error");
    jsonw_string(&w, msg);
    jsonw_end_object(&w);
    return jsonw_take(&w, out_len);
}

int64_t ext_scale_score(int64_t total, int64_t sum_weights)
{
    if (sum_weights <= 0)
        return 0;
    return total * PRIO_MAX_EXTENDER_SCORE /
           (PRIO_MAX_NODE_SCORE * sum_weights);
}

int64_t ext_rank_score(int64_t total, int64_t lo, int64_t hi)
{
    int64_t s;

    if (total >= hi)
        return PRIO_MAX_EXTENDER_SCORE;
    if (total <= lo)
        return 0;
    s = (int64_t)((__int128)(total - lo) * PRIO_MAX_EXTENDER_SCORE / (hi - lo));
    return s < PRIO_MAX_EXTENDER_SCORE ? s : PRIO_MAX_EXTENDER_SCORE - 1;
}

/* The sum of the score plugins' weights: a node's highest total / 100. */
static int64_t sum_weights(const struct prio_plan *plan)
{
    int64_t w = 0;
    size_t i;

    for (i = 0; i < plan->n_steps; i++)
        w += plan->steps[i].prio->weight;
    return w;
}

/* Per-thread state of the random choice among equally good nodes. */
static uint64_t *tie_rng(void)
{
    static _Thread_local uint64_t rng;

    if (!rng) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
              (uint64_t)(uintptr_t)&rng;
        rng |= 1;
    }
    return &rng;
}

char *ext_prioritize_empty(size_t *out_len)
{
    char *out = malloc(3);

    if (out)
        memcpy(out, "[]", 3);
    *out_len = out ? 2 : 0;
    return out;
}

char *ext_prioritize(const struct eval_plans *plans, const struct cluster *cl,
                     struct arena *a, const char *body, size_t len,
                     const struct ext_prio_opts *o, size_t *out_len,
                     struct ext_decision *dec, struct err *e)
{
    struct ext_args x;
    struct eval_result r;
    const struct node_info **nodes;
    struct jsonw w;
    size_t n = 0, i;
    int64_t weights = sum_weights(&plans->prio), lo = 0, hi = 0;
    int top = -1; /* feasible index of the single top node */
    enum ext_score_mode mode = o->mode;

    if (ext_decode_args(a, body, len, false, &x, e) < 0)
        return NULL;
    nodes = resolve_nodes(a, cl, &x, &n);
    if (!nodes) {
        err_set(e, "out of memory");
        return NULL;
    }
    if (evaluate_known(plans, cl, &x.pod, nodes, n, EVAL_SCORE, a, &r, e) < 0)
        return NULL;
    /* No priorities: nothing to add to kube-scheduler's scores, unless
     * the answer must single out the node to hold (then one gets 10). */
    if (!plans->prio.n_steps && !o->single_top)
        mode = EXT_SCORE_PROPORTIONAL;
    if (mode == EXT_SCORE_RANK && r.n_feasible) {
        lo = hi = r.prio.totals[0];
        for (i = 1; i < r.n_feasible; i++) {
            lo = r.prio.totals[i] < lo ? r.prio.totals[i] : lo;
            hi = r.prio.totals[i] > hi ? r.prio.totals[i] : hi;
        }
        if (o->single_top)
            top =
                (int)engine_select_host(r.prio.totals, r.n_feasible, tie_rng());
    }
    if (dec) {
        dec->pod = arena_pod_copy(a, &x.pod);
        dec->node = NULL;
        dec->n_nodes = n;
        dec->n_feasible = r.n_feasible;
    }
    jsonw_init(&w, 0);
    w.out.charge = a; /* the answer counts against the request's memory */
    jsonw_begin_array(&w);
    for (i = 0; i < n; i++) {
        int fi = r.nodes[i].feasible_index;
        const char *name = x.has_nodes ? x.nodes[i].name : x.names[i];
        int64_t score = 0;

        if (fi >= 0) {
            int64_t t = r.prio.totals[fi];

            switch (mode) {
            case EXT_SCORE_RAW:
                score = t;
                break;
            case EXT_SCORE_PROPORTIONAL:
                score = ext_scale_score(t, weights);
                break;
            case EXT_SCORE_RANK:
                score = ext_rank_score(t, lo, hi);
                if (top >= 0 && score == PRIO_MAX_EXTENDER_SCORE && fi != top)
                    score = PRIO_MAX_EXTENDER_SCORE - 1;
                if (fi == top && dec)
                    dec->node = name;
                break;
            }
        }
        jsonw_begin_object(&w);
        jsonw_key(&w, "Host");
        jsonw_string(&w, name);
        jsonw_key(&w, "Score");
        jsonw_int(&w, score);
        jsonw_end_object(&w);
    }
    jsonw_end_array(&w);
    return jsonw_take(&w, out_len);
}

/* One preemption candidate: a node and the victims' UIDs. */
struct ext_victims {
    const char *node;
    size_t n_uids;
    const char **uids;
    int64_t num_pdb_violations;
};

/* Victims of one candidate: full pods (uid from metadata) or MetaPods. */
static int decode_victims(struct arena *a, const cJSON *v, bool meta,
                          struct ext_victims *out, struct err *e)
{
    const cJSON *pods = member(a, v, "Pods"),
                *pdb = member(a, v, "NumPDBViolations");
    const cJSON *it;
    size_t i = 0;

    if (!cJSON_IsObject(v))
        return err_set(e, "%s: expected an object", out->node);
    if (pdb && cJSON_IsNumber(pdb)) {
        struct jw w;

        /* An int64 in Go: a number out of its range is an error. */
        jw_init(&w, a, e, out->node);
        jw_push(&w, "NumPDBViolations");
        if (jw_as_int64(&w, pdb, &out->num_pdb_violations) < 0)
            return -1;
    }
    if (!pods || cJSON_IsNull(pods))
        return 0;
    if (!cJSON_IsArray(pods))
        return err_set(e, "%s.Pods: expected an array", out->node);
    out->uids = arena_calloc(a, (size_t)cJSON_GetArraySize(pods) + 1,
                             sizeof(*out->uids));
    if (!out->uids)
        return err_set(e, "out of memory");
    cJSON_ArrayForEach(it, pods)
    {
        const cJSON *uid =
            meta ? member(a, it, "UID")
                 : cJSON_GetObjectItemCaseSensitive(
                       cJSON_GetObjectItemCaseSensitive(it, "metadata"), "uid");

        if (!cJSON_IsString(uid) || !*uid->valuestring)
            return err_set(e, "%s.Pods[%zu]: a victim without a UID", out->node,
                           i);
        out->uids[i++] = uid->valuestring;
    }
    out->n_uids = i;
    return 0;
}

/*
 * A node named twice in the victims maps root.key (every member naming
 * that field), both times with an object: Go's decoder gives the map
 * entry a fresh value each time (the last one wins), where the tree's
 * duplicate resolution, made for struct fields, would merge the two.
 * Refused rather than answered for another set of victims.
 */
static int victims_twice(struct arena *a, const cJSON *root, const char *key,
                         struct err *e)
{
    const cJSON *m, *v;
    const cJSON **slots;
    size_t n = 0, cap = 1, i;
    char q[160];

    for (m = root->child; m; m = m->next) {
        if (cJSON_IsObject(m) &&
            json_key_names_field(m->string, strlen(m->string), key))
            for (v = m->child; v; v = v->next)
                n++;
    }
    while (cap < n * 2)
        cap <<= 1;
    slots = n ? arena_calloc(a, cap, sizeof(*slots)) : NULL;
    if (n && !slots)
        return err_set(e, "out of memory");
    for (m = root->child; m; m = m->next) {
        if (!cJSON_IsObject(m) ||
            !json_key_names_field(m->string, strlen(m->string), key))
            continue;
        for (v = m->child; v; v = v->next) {
            i = (size_t)kube_fnv_str(KUBE_FNV_OFFSET, v->string) & (cap - 1);
            while (slots[i] && strcmp(slots[i]->string, v->string))
                i = (i + 1) & (cap - 1);
            if (slots[i] && cJSON_IsObject(slots[i]) && cJSON_IsObject(v))
                return err_set(e,
                               "%s: node %s named twice: the victims of "
                               "which one?",
                               key, err_quote(q, sizeof(q), v->string, 120));
            slots[i] = v;
        }
    }
    return 0;
}

static int decode_candidates(struct arena *a, const cJSON *root,
                             struct ext_victims **out, size_t *n, struct err *e)
{
    const cJSON *full = member(a, root, "NodeNameToVictims");
    const cJSON *meta = member(a, root, "NodeNameToMetaVictims");
    const cJSON *map = meta && !cJSON_IsNull(meta) ? meta : full, *it;
    bool is_meta = map == meta;
    size_t i = 0;

    *n = 0;
    if (!map || cJSON_IsNull(map))
        return 0;
    if (!cJSON_IsObject(map))
        return err_set(e, "%s: expected an object of node name to victims",
                       is_meta ? "NodeNameToMetaVictims" : "NodeNameToVictims");
    *out = arena_calloc(a, (size_t)cJSON_GetArraySize(map) + 1, sizeof(**out));
    if (!*out)
        return err_set(e, "out of memory");
    cJSON_ArrayForEach(it, map)
    {
        (*out)[i].node = it->string;
        if (decode_victims(a, it, is_meta, &(*out)[i], e) < 0)
            return err_prefix(e, "%s.",
                              is_meta ? "NodeNameToMetaVictims"
                                      : "NodeNameToVictims");
        i++;
    }
    *n = i;
    return 0;
}

/* Does the pod pass the predicates on cv.node once its victims are gone? */
static int fits_without(const struct eval_plans *plans,
                        const struct cluster *cl, const struct kube_pod *pod,
                        const struct ext_victims *cv, struct arena *a,
                        bool *fits, struct err *e)
{
    struct cluster view;
    const struct node_info *ni;
    struct eval_result r;
    int rc;

    *fits = false;
    rc =
        cluster_view_without_pods(a, cl, cv->node, cv->uids, cv->n_uids, &view);
    if (rc < 0)
        return err_set(e, "out of memory");
    if (rc == 0)
        return 0; /* a node we do not know cannot be vouched for */
    ni = cluster_node(&view, cv->node);
    if (evaluate_pod(plans, pod, &view, &ni, 1, EVAL_FILTER, a, &r, e) < 0)
        return -1;
    *fits = r.nodes[0].feasible;
    return 0;
}

char *ext_preempt(const struct eval_plans *plans, const struct cluster *cl,
                  struct arena *a, const char *body, size_t len,
                  size_t *out_len, struct err *e)
{
    cJSON *root = NULL;
    const cJSON *podj;
    struct kube_pod pod;
    struct ext_victims *cands = NULL;
    struct jsonw w;
    size_t n = 0, i, k;

    /* Duplicate keys resolved below, once the victims maps are checked. */
    if (json_arena_parse(a, body, len, JSON_ARENA_NO_NUL, &root, e) < 0) {
        err_prefix(e, "request body: ");
        return NULL;
    }
    if (!cJSON_IsObject(root)) {
        err_set(e, "request body: expected an ExtenderPreemptionArgs object");
        return NULL;
    }
    if (victims_twice(a, root, "NodeNameToVictims", e) < 0 ||
        victims_twice(a, root, "NodeNameToMetaVictims", e) < 0)
        return NULL;
    json_dups_resolve_tree(a, root);
    podj = member(a, root, "Pod");
    if (!podj || cJSON_IsNull(podj)) {
        err_set(e, "Pod: missing: the request names no pod");
        return NULL;
    }
    if (kube_pod_from_cjson(a, podj, "Pod", &pod, e) < 0 ||
        decode_candidates(a, root, &cands, &n, e) < 0)
        return NULL;
    jsonw_init(&w, 0);
    w.out.charge = a; /* the answer counts against the request's memory */
    jsonw_begin_object(&w);
    jsonw_key(&w, "NodeNameToMetaVictims");
    jsonw_begin_object(&w);
    for (i = 0; i < n; i++) {
        bool fits;

        /* Never offer a node whose preemption evicts nothing. */
        if (!cands[i].n_uids)
            continue;
        if (fits_without(plans, cl, &pod, &cands[i], a, &fits, e) < 0) {
            jsonw_free(&w);
            return NULL;
        }
        if (!fits)
            continue;
        jsonw_key(&w, cands[i].node);
        jsonw_begin_object(&w);
        jsonw_key(&w, "Pods");
        jsonw_begin_array(&w);
        for (k = 0; k < cands[i].n_uids; k++) {
            jsonw_begin_object(&w);
            jsonw_key(&w, "UID");
            jsonw_string(&w, cands[i].uids[k]);
            jsonw_end_object(&w);
        }
        jsonw_end_array(&w);
        jsonw_key(&w, "NumPDBViolations");
        jsonw_int(&w, cands[i].num_pdb_violations);
        jsonw_end_object(&w);
    }
    jsonw_end_object(&w);
    jsonw_end_object(&w);
    return jsonw_take(&w, out_len);
}

int ext_decode_binding(struct arena *a, const char *body, size_t len,
                       struct ext_binding *b, struct err *e)
{
    static const char *const keys[4] = { "PodName", "PodNamespace", "PodUID",
                                         "Node" };
    const char **out[4];
    cJSON *root = NULL;
    size_t i;

    memset(b, 0, sizeof(*b));
    out[0] = &b->pod_name;
    out[1] = &b->pod_namespace;
    out[2] = &b->pod_uid;
    out[3] = &b->node;
    if (json_arena_parse(a, body, len, JSON_ARENA_NO_NUL | JSON_ARENA_GO_KEYS,
                         &root, e) < 0)
        return err_prefix(e, "request body: ");
    if (!cJSON_IsObject(root))
        return err_set(e, "request body: expected an ExtenderBindingArgs "
                          "object");
    for (i = 0; i < 4; i++) {
        const cJSON *v = member(a, root, keys[i]);

        if (v && !cJSON_IsNull(v) && !cJSON_IsString(v))
            return err_set(e, "%s: expected a string", keys[i]);
        *out[i] = v && cJSON_IsString(v) ? v->valuestring : "";
    }
    if (!*b->pod_name || !*b->node)
        return err_set(e, "%s: missing", !*b->pod_name ? "PodName" : "Node");
    if (!*b->pod_namespace)
        b->pod_namespace = "default";
    return 0;
}

char *ext_binding_result(const char *error, size_t *out_len)
{
    struct jsonw w;

    jsonw_init(&w, 0);
    jsonw_begin_object(&w);
    jsonw_key(&w, "Error");
    jsonw_string(&w, error ? error : "");
    jsonw_end_object(&w);
    return jsonw_take(&w, out_len);
}
