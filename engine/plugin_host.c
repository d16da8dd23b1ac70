/*
 * plugin_host.c: the server side of include/kube-policy-extender/plugin.h:
 * the accessors a plugin reads pods and nodes through (the host table of
 * ABI 1.1), and the register functions that copy a plugin's sized struct
 * kpe_predicate / kpe_priority and turn it into a struct pred_def /
 * prio_def of the registries' runtime part. Each one
 * takes a slot whose trampoline (one static function per slot, so the
 * engine calls it like any built-in) calls the plugin's function.
 */
#include "engine/plugin_host.h"

#include <stdlib.h>
#include <string.h>

#include "kube/model/labels.h"
#include "kube/model/resources.h"
#include "predicates/predicates.h"
#include "priorities/priorities.h"

/* The pod as plugins see it: the pod and its effective request. */
struct kpe_pod {
    const struct kube_pod *pod;
    const struct kube_resources *request; /* NULL: not computed */
};

/* A struct kpe_node is the node's struct node_info. */
static const struct node_info *ni_of(const struct kpe_node *n)
{
    return (const struct node_info *)(const void *)n;
}

static const struct kpe_node *node_of(const struct node_info *ni)
{
    return (const struct kpe_node *)(const void *)ni;
}

/* ---- accessors ---- */

static int64_t res_get(const struct kube_resources *r, const char *name)
{
    if (!r || !name)
        return 0;
    if (!strcmp(name, "cpu"))
        return r->milli_cpu;
    if (!strcmp(name, "memory"))
        return r->memory;
    if (!strcmp(name, "ephemeral-storage"))
        return r->ephemeral_storage;
    if (!strcmp(name, "pods"))
        return r->pods;
    return kube_resources_scalar(r, name, NULL);
}

static const char *pod_name(const struct kpe_pod *p)
{
    return p->pod->name;
}

static const char *pod_namespace(const struct kpe_pod *p)
{
    return p->pod->namespace;
}

static const char *pod_label(const struct kpe_pod *p, const char *key)
{
    return key ? kube_labels_get(&p->pod->labels, key) : NULL;
}

static const char *pod_node_name(const struct kpe_pod *p)
{
    return p->pod->node_name ? p->pod->node_name : "";
}

/* The scheduler counts a pod as one "pods" (NodeResourcesFit's
 * allowedPodNumber check adds 1 for the incoming pod). */
static int64_t pod_request(const struct kpe_pod *p, const char *resource)
{
    if (resource && !strcmp(resource, "pods"))
        return 1;
    return res_get(p->request, resource);
}

static const char *node_name(const struct kpe_node *n)
{
    return ni_of(n)->node->name;
}

static const char *node_label(const struct kpe_node *n, const char *key)
{
    return key ? kube_labels_get(&ni_of(n)->node->labels, key) : NULL;
}

static int64_t node_allocatable(const struct kpe_node *n, const char *resource)
{
    return res_get(&ni_of(n)->node->allocatable, resource);
}

/* "pods": the pods accounted on the node (NodeInfo's len(Pods)); the
 * summed requests carry no pod count. */
static int64_t node_requested(const struct kpe_node *n, const char *resource)
{
    if (resource && !strcmp(resource, "pods"))
        return (int64_t)ni_of(n)->n_pods;
    return res_get(&ni_of(n)->requested, resource);
}

static int32_t pod_priority(const struct kpe_pod *p)
{
    return p->pod->has_priority ? p->pod->priority : 0;
}

static int node_unschedulable(const struct kpe_node *n)
{
    return ni_of(n)->node->unschedulable ? 1 : 0;
}

/* ---- slots ---- */

struct pred_slot {
    /* the plugin's descriptor, copied as far as its size goes (members of
     * a newer minor than the plugin's stay zero) */
    struct kpe_predicate desc;
    struct pred_plugin plugin;
    struct pred_def def;
    struct kpe_arg_schema *schema; /* malloc'd, with its fields */
};

struct prio_slot {
    struct kpe_priority desc; /* as pred_slot's */
    struct prio_plugin plugin;
    struct prio_def def;
    struct kpe_arg_schema *schema;
};

/* Written at start only (plugin_host_add_*), read-only afterwards. */
static struct pred_slot pred_slots[PRED_MAX_RUNTIME];
static struct prio_slot prio_slots[PRIO_MAX_RUNTIME];

/* The plugin's argument: the entry's value of its schema, or NULL. */
static const void *pred_arg(const void *args)
{
    const struct pred_args *pa = args;

    return pa ? pa->value : NULL;
}

static const void *prio_arg(const void *args)
{
    const struct prio_args *pa = args;

    return pa ? pa->value : NULL;
}

static enum pred_code run_filter(size_t slot, const struct pred_cycle *cy,
                                 const void *args, const struct node_info *ni,
                                 struct pred_result *r)
{
    const struct kpe_predicate *d = &pred_slots[slot].desc;
    struct kpe_pod pod = { cy->pod, &cy->pod_request };
    const char *reason = NULL;
    int rc = d->filter(pred_arg(args), &pod, node_of(ni), &reason);

    if (rc == KPE_FIT)
        return PRED_FIT;
    if (!reason)
        reason = d->reasons[0];
    switch (rc) {
    case KPE_UNFIT:
        return pred_fail(r, PRED_UNFIT, reason);
    case KPE_UNFIT_UNRESOLVABLE:
        return pred_fail(r, PRED_UNFIT_UNRESOLVABLE, reason);
    default:
        return pred_failf(r, PRED_ERROR, "plugin predicate %s failed: %s",
                          d->name, reason);
    }
}

/* PreScore of every plugin priority: the pod and its request, once. */
static int plugin_prescore(struct prio_cycle *cy, const void *args,
                           void **state, struct err *e)
{
    struct kpe_pod *pod = arena_alloc(cy->arena, sizeof(*pod));
    struct kube_resources *req = arena_alloc(cy->arena, sizeof(*req));

    (void)args;
    if (!pod || !req || kube_pod_request(cy->arena, cy->pod, req) < 0)
        return err_set(e, "out of memory");
    pod->pod = cy->pod;
    pod->request = req;
    *state = pod;
    return 0;
}

static int run_score(size_t slot, const struct prio_cycle *cy, const void *args,
                     const void *state, const struct node_info *ni,
                     int64_t *score, struct err *e)
{
    const struct kpe_priority *d = &prio_slots[slot].desc;
    struct kpe_pod stack = { cy->pod, NULL };
    const struct kpe_pod *pod = state ? state : &stack;

    if (d->score(prio_arg(args), pod, node_of(ni), score) != 0)
        return err_set(e, "plugin priority %s failed on node %s", d->name,
                       ni->node->name);
    if (*score < 0 ||
        (!(d->flags & KPE_SCORE_NORMALIZE) && *score > PRIO_MAX_NODE_SCORE))
        return err_set(e,
                       "plugin priority %s gave node %s the score %lld, out "
                       "of range 0..%d",
                       d->name, ni->node->name, (long long)*score,
                       PRIO_MAX_NODE_SCORE);
    return 0;
}

static int normalize_max(const struct prio_cycle *cy, const void *args,
                         const void *state, int64_t *scores, struct err *e)
{
    (void)args;
    (void)state;
    (void)e;
    prio_normalize_default(scores, cy->n_nodes, PRIO_MAX_NODE_SCORE, false);
    return 0;
}

static int normalize_reverse(const struct prio_cycle *cy, const void *args,
                             const void *state, int64_t *scores, struct err *e)
{
    (void)args;
    (void)state;
    (void)e;
    prio_normalize_default(scores, cy->n_nodes, PRIO_MAX_NODE_SCORE, true);
    return 0;
}

/* One filter and one score trampoline per slot. */
#define SLOT_FNS(i)                                                            \
    static enum pred_code filter_##i(                                          \
        const struct pred_cycle *cy, const void *args, const void *state,      \
        const struct node_info *ni, struct pred_result *r)                     \
    {                                                                          \
        (void)state;                                                           \
        return run_filter(i, cy, args, ni, r);                                 \
    }                                                                          \
    static int score_##i(const struct prio_cycle *cy, const void *args,        \
                         const void *state, const struct node_info *ni,        \
                         int64_t *score, struct err *e)                        \
    {                                                                          \
        return run_score(i, cy, args, state, ni, score, e);                    \
    }
/* clang-format off */
#define SLOTS(X)                                                               \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)       \
    X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)         \
    X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)
/* clang-format on */
SLOTS(SLOT_FNS)
#define FILTER_ROW(i) filter_##i,
#define SCORE_ROW(i)  score_##i,
static pred_filter_fn *const filters[] = { SLOTS(FILTER_ROW) };
static prio_score_fn *const scores[] = { SLOTS(SCORE_ROW) };

_Static_assert(sizeof(filters) / sizeof(filters[0]) == PRED_MAX_RUNTIME,
               "one filter trampoline per predicate slot");
_Static_assert(sizeof(scores) / sizeof(scores[0]) == PRIO_MAX_RUNTIME,
               "one score trampoline per priority slot");
/* A plugin's struct kpe_strings is read and written as a policy_strlist. */
_Static_assert(sizeof(struct kpe_strings) == sizeof(struct policy_strlist) &&
                   offsetof(struct kpe_strings, n) ==
                       offsetof(struct policy_strlist, n),
               "kpe_strings has the layout of policy_strlist");

/* ---- descriptors: checks and conversion ---- */

/* The size of each descriptor in 1.0, the smallest a plugin may give. */
#define PREDICATE_SIZE_1_0                                                     \
    (offsetof(struct kpe_predicate, args) + sizeof(void *))
#define PRIORITY_SIZE_1_0 (offsetof(struct kpe_priority, args) + sizeof(void *))

/*
 * Copy a descriptor of `size` bytes (its first member) into out, as far
 * as both know; what the plugin's header lacks stays zero. 0, or -1 with
 * e set when size is below the 1.0 size.
 */
static int copy_sized(void *out, size_t out_size, const void *in,
                      size_t min_size, const char *kind, struct err *e)
{
    size_t size = *(const size_t *)in;

    memset(out, 0, out_size);
    if (size < min_size)
        return err_set(e,
                       "a %s descriptor with .size %zu: set .size = "
                       "sizeof(struct kpe_%s) (at least %zu)",
                       kind, size, kind, min_size);
    memcpy(out, in, size < out_size ? size : out_size);
    return 0;
}

static bool good_name(const char *s)
{
    if (!s || !*s || strlen(s) > 63)
        return false;
    for (; *s; s++) {
        if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
            !(*s >= '0' && *s <= '9') && *s != '-' && *s != '_')
            return false;
    }
    return true;
}

static int field_type(int t, enum kpe_arg_type *out, const char **doc)
{
    switch (t) {
    case KPE_PLUGIN_ARG_STRING:
        *out = KPE_ARG_STRING;
        *doc = "string";
        return 0;
    case KPE_PLUGIN_ARG_BOOL:
        *out = KPE_ARG_BOOL;
        *doc = "bool";
        return 0;
    case KPE_PLUGIN_ARG_INT64:
        *out = KPE_ARG_INT64;
        *doc = "int64";
        return 0;
    case KPE_PLUGIN_ARG_STRINGS:
        *out = KPE_ARG_STRINGS;
        *doc = "[]string";
        return 0;
    }
    return -1;
}

/* A key no descriptor (predicate or priority) uses yet. */
static int key_free(const char *key, const char *kind, const char *name,
                    struct err *e)
{
    const struct kpe_arg_schema *s[KPE_MAX_ARGS];
    size_t i, n = pred_arg_schemas(s, KPE_MAX_ARGS);

    for (i = 0; i < n; i++) {
        if (!strcmp(s[i]->key, key))
            goto taken;
    }
    n = prio_arg_schemas(s, KPE_MAX_ARGS);
    for (i = 0; i < n; i++) {
        if (!strcmp(s[i]->key, key))
            goto taken;
    }
    return 0;
taken:
    return err_set(e,
                   "%s \"%s\": argument key \"%s\" is already taken by a "
                   "built-in or another plugin",
                   kind, name, key);
}

/*
 * The internal schema for a plugin's argument (malloc'd, fields after
 * it), or NULL with e set. api_order puts plugins after every built-in.
 */
static struct kpe_arg_schema *schema_of(const struct kpe_plugin_args *pa,
                                        const char *kind, const char *name,
                                        int order, struct err *e)
{
    struct kpe_arg_schema *s;
    struct kpe_arg_field *f;
    size_t i;

    if (!good_name(pa->key) || !pa->size || !pa->fields || !pa->n_fields ||
        pa->n_fields > KPE_MAX_ARG_FIELDS) {
        err_set(e,
                "\"%s\": bad argument schema (want a key, a size and "
                "1..64 fields)",
                name);
        return NULL;
    }
    if (key_free(pa->key, kind, name, e) < 0)
        return NULL;
    s = calloc(1, sizeof(*s) + pa->n_fields * sizeof(*f));
    if (!s) {
        err_set(e, "out of memory");
        return NULL;
    }
    f = (struct kpe_arg_field *)(void *)(s + 1);
    for (i = 0; i < pa->n_fields; i++) {
        const struct kpe_plugin_arg_field *pf = &pa->fields[i];

        if (!good_name(pf->name) || pf->offset >= pa->size ||
            field_type(pf->type, &f[i].type, &f[i].type_doc) < 0) {
            err_set(e,
                    "%s \"%s\": argument field %zu: bad name, type or offset",
                    kind, name, i);
            free(s);
            return NULL;
        }
        f[i].name = pf->name;
        f[i].offset = pf->offset;
        f[i].def = pf->def;
        if (kpe_arg_default_check(&f[i], e) < 0) {
            err_prefix(e, "%s \"%s\": argument ", kind, name);
            free(s);
            return NULL;
        }
    }
    s->key = pa->key;
    s->api_order = order;
    s->size = pa->size;
    s->fields = f;
    s->n_fields = pa->n_fields;
    s->note = pa->note ? pa->note : "";
    s->absent_is_default = true; /* plugin.h: arg is never NULL */
    return s;
}

/* The argument as written is what the plugin reads. */
static int keep_pred_arg(const void *written, struct arena *a,
                         struct pred_args *out, struct err *e)
{
    (void)a;
    (void)e;
    out->value = written;
    return 0;
}

static int keep_prio_arg(const void *written, struct arena *a,
                         struct prio_args *out, struct err *e)
{
    (void)a;
    (void)e;
    out->value = written;
    return 0;
}

int plugin_host_add_predicate(const struct kpe_predicate *desc, struct err *e)
{
    size_t i = pred_registry_runtime();
    struct pred_slot *s = &pred_slots[i];
    const struct kpe_predicate *p = &s->desc;

    if (i == PRED_MAX_RUNTIME)
        return err_set(e, "more than %d plugin predicates", PRED_MAX_RUNTIME);
    memset(s, 0, sizeof(*s));
    if (!desc)
        return err_set(e, "predicate name \"\" is not [A-Za-z0-9_-]{1,63}");
    if (copy_sized(&s->desc, sizeof(s->desc), desc, PREDICATE_SIZE_1_0,
                   "predicate", e) < 0)
        return -1;
    if (!good_name(p->name))
        return err_set(e, "predicate name \"%s\" is not [A-Za-z0-9_-]{1,63}",
                       p->name ? p->name : "");
    if (!p->filter || !p->doc || !p->reasons || !p->reasons[0] ||
        (p->flags & ~KPE_USES_NODE_REQUESTED))
        return err_set(e,
                       "predicate \"%s\": want a filter, a doc line, at "
                       "least one reason and only known flags",
                       p->name);
    s->plugin.ref.name = p->name;
    s->plugin.filter = filters[i];
    s->plugin.reasons = p->reasons;
    s->def.name = p->name;
    s->def.flags = PRED_EXTENSION | PRED_PLUGIN;
    s->def.needs =
        p->flags & KPE_USES_NODE_REQUESTED ? KPE_NEED_PODS_ON_NODE : 0;
    s->def.own = &s->plugin;
    s->def.doc = p->doc;
    /* The name first (its clash is the likelier mistake), then the key. */
    if (pred_registry_add(&s->def, e) < 0 ||
        (p->args && !(s->schema = schema_of(p->args, "predicate", p->name,
                                            1000 + (int)i, e)))) {
        pred_registry_truncate(i);
        memset(s, 0, sizeof(*s));
        return -1;
    }
    if (s->schema) {
        s->def.args = s->schema;
        s->def.parse_args = keep_pred_arg;
        if (pred_registry_keys_fit(&s->def, e) < 0) {
            pred_registry_truncate(i);
            free(s->schema);
            memset(s, 0, sizeof(*s));
            return -1;
        }
    }
    return 0;
}

int plugin_host_add_priority(const struct kpe_priority *desc, struct err *e)
{
    size_t i = prio_registry_runtime();
    struct prio_slot *s = &prio_slots[i];
    const struct kpe_priority *p = &s->desc;
    unsigned known =
        KPE_USES_NODE_REQUESTED | KPE_SCORE_NORMALIZE | KPE_SCORE_REVERSE;

    if (i == PRIO_MAX_RUNTIME)
        return err_set(e, "more than %d plugin priorities", PRIO_MAX_RUNTIME);
    memset(s, 0, sizeof(*s));
    if (!desc)
        return err_set(e, "priority name \"\" is not [A-Za-z0-9_-]{1,63}");
    if (copy_sized(&s->desc, sizeof(s->desc), desc, PRIORITY_SIZE_1_0,
                   "priority", e) < 0)
        return -1;
    if (!good_name(p->name))
        return err_set(e, "priority name \"%s\" is not [A-Za-z0-9_-]{1,63}",
                       p->name ? p->name : "");
    if (!p->score || !p->doc || (p->flags & ~known))
        return err_set(e,
                       "priority \"%s\": want a score function, a doc line "
                       "and only known flags",
                       p->name);
    s->plugin.ref.name = p->name;
    s->plugin.prescore = plugin_prescore;
    s->plugin.score = scores[i];
    if (p->flags & KPE_SCORE_NORMALIZE)
        s->plugin.normalize =
            p->flags & KPE_SCORE_REVERSE ? normalize_reverse : normalize_max;
    s->def.name = p->name;
    s->def.flags = PRIO_EXTENSION | PRIO_PLUGIN;
    s->def.needs =
        p->flags & KPE_USES_NODE_REQUESTED ? KPE_NEED_PODS_ON_NODE : 0;
    s->def.own = &s->plugin;
    s->def.doc = p->doc;
    /* The name first (its clash is the likelier mistake), then the key. */
    if (prio_registry_add(&s->def, e) < 0 ||
        (p->args && !(s->schema = schema_of(p->args, "priority", p->name,
                                            1000 + (int)i, e)))) {
        prio_registry_truncate(i);
        memset(s, 0, sizeof(*s));
        return -1;
    }
    if (s->schema) {
        s->def.args = s->schema;
        s->def.parse_args = keep_prio_arg;
        if (prio_registry_keys_fit(&s->def, e) < 0) {
            prio_registry_truncate(i);
            free(s->schema);
            memset(s, 0, sizeof(*s));
            return -1;
        }
    }
    return 0;
}

void plugin_host_truncate(size_t n_preds, size_t n_prios)
{
    size_t i;

    for (i = n_preds; i < pred_registry_runtime(); i++) {
        free(pred_slots[i].schema);
        memset(&pred_slots[i], 0, sizeof(pred_slots[i]));
    }
    for (i = n_prios; i < prio_registry_runtime(); i++) {
        free(prio_slots[i].schema);
        memset(&prio_slots[i], 0, sizeof(prio_slots[i]));
    }
    pred_registry_truncate(n_preds);
    prio_registry_truncate(n_prios);
}

void plugin_host_fill(struct kpe_plugin_host *h)
{
    h->size = sizeof(*h);
    h->api_major = KPE_PLUGIN_API_MAJOR;
    h->api_minor = KPE_PLUGIN_API_MINOR;
    h->pod_name = pod_name;
    h->pod_namespace = pod_namespace;
    h->pod_label = pod_label;
    h->pod_node_name = pod_node_name;
    h->pod_request = pod_request;
    h->node_name = node_name;
    h->node_label = node_label;
    h->node_allocatable = node_allocatable;
    h->node_requested = node_requested;
    h->pod_priority = pod_priority; /* 1.1 */
    h->node_unschedulable = node_unschedulable;
}
