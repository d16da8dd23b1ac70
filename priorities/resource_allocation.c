/*
 * resource_allocation.c: allocatable/requested pairs for the resource-based
 * score plugins, as noderesources/resource_allocation.go (v1.22) computes
 * them, with the pod side per util/non_zero.go. The pod side is worked
 * out once per cycle (struct prio_res_pod); per node nothing allocates.
 */
#include "priorities/resource_allocation.h"

#include <string.h>

#include "kube/model/resources.h"
#include "priorities/plugins.h"

#define RES_CPU       "cpu"
#define RES_MEMORY    "memory"
#define RES_EPHEMERAL "ephemeral-storage"

static const struct policy_resource default_resources[] = {
    { RES_CPU, 1 },
    { RES_MEMORY, 1 },
};

void prio_res_list_default(struct prio_res_list *out)
{
    out->v = default_resources;
    out->n = sizeof(default_resources) / sizeof(default_resources[0]);
}

void prio_res_list_from_args(const void *args, struct prio_res_list *out)
{
    const struct prio_args *a = args;
    const struct prio_resources_arg *r = a ? a->value : NULL;

    if (r && r->rtcr) {
        out->v = r->resources;
        out->n = r->resources ? r->n_resources : 0;
        return;
    }
    if (r && r->resources) {
        out->v = r->resources;
        out->n = r->n_resources;
        return;
    }
    prio_res_list_default(out);
}

bool prio_res_list_shadowed(const struct prio_res_list *l, size_t i)
{
    size_t j;

    for (j = i + 1; j < l->n; j++) {
        if (!strcmp(l->v[j].name, l->v[i].name))
            return true;
    }
    return false;
}

/*
 * One container's request for name: GetNonzeroRequestForResource
 * (PRIO_RES_NON_ZERO: missing cpu/memory keys take the defaults, other
 * non-scalar names count 0) or the plain request (missing: 0).
 */
static int64_t container_request(const struct kube_resources *rl,
                                 const char *name, enum prio_res_mode mode)
{
    bool non_zero = mode == PRIO_RES_NON_ZERO;

    if (!strcmp(name, RES_CPU)) {
        if (!(rl->has & KUBE_RES_CPU))
            return non_zero ? KUBE_DEFAULT_MILLI_CPU_REQUEST : 0;
        return rl->milli_cpu;
    }
    if (!strcmp(name, RES_MEMORY)) {
        if (!(rl->has & KUBE_RES_MEMORY))
            return non_zero ? KUBE_DEFAULT_MEMORY_REQUEST : 0;
        return rl->memory;
    }
    if (!strcmp(name, RES_EPHEMERAL))
        return (rl->has & KUBE_RES_EPHEMERAL_STORAGE) ? rl->ephemeral_storage
                                                      : 0;
    if (non_zero && !kube_resource_is_scalar(name))
        return 0;
    return kube_resources_scalar(rl, name, NULL);
}

/* pod.Spec.Overhead[name].Value(), 0 when absent (cpu in whole cores). */
static int64_t overhead_value(const struct kube_pod *pod, const char *name)
{
    const struct kube_resources *o = &pod->overhead;

    if (!pod->has_overhead)
        return 0;
    if (!strcmp(name, RES_CPU))
        return (o->has & KUBE_RES_CPU) ? o->cpu_value : 0;
    if (!strcmp(name, RES_MEMORY))
        return (o->has & KUBE_RES_MEMORY) ? o->memory : 0;
    if (!strcmp(name, RES_EPHEMERAL))
        return (o->has & KUBE_RES_EPHEMERAL_STORAGE) ? o->ephemeral_storage : 0;
    if (!strcmp(name, "pods"))
        return (o->has & KUBE_RES_PODS) ? o->pods : 0;
    return kube_resources_scalar(o, name, NULL);
}

int64_t prio_res_pod_request(const struct kube_pod *pod, const char *name,
                             enum prio_res_mode mode)
{
    int64_t req = 0, v;
    size_t i;

    for (i = 0; i < pod->n_containers; i++)
        req = prio_add64(
            req, container_request(&pod->containers[i].requests, name, mode));
    for (i = 0; i < pod->n_init_containers; i++) {
        v = container_request(&pod->init_containers[i].requests, name, mode);
        if (req < v)
            req = v;
    }
    return prio_add64(req, overhead_value(pod, name));
}

/* The node side of one resource given the pod's request for it. */
static bool node_pair(const struct node_info *ni, const char *name,
                      enum prio_res_mode mode, bool skip, int64_t pod_req,
                      int64_t *alloc, int64_t *req)
{
    const struct kube_resources *al = &ni->node->allocatable;
    bool non_zero = mode == PRIO_RES_NON_ZERO;
    int64_t node_req;
    bool found;

    if (skip && pod_req == 0 && kube_resource_is_scalar(name))
        return false;
    if (!strcmp(name, RES_CPU)) {
        *alloc = al->milli_cpu;
        node_req = non_zero ? ni->nonzero_milli_cpu : ni->requested.milli_cpu;
    } else if (!strcmp(name, RES_MEMORY)) {
        *alloc = al->memory;
        node_req = non_zero ? ni->nonzero_memory : ni->requested.memory;
    } else if (!strcmp(name, RES_EPHEMERAL)) {
        *alloc = al->ephemeral_storage;
        node_req = ni->requested.ephemeral_storage;
    } else {
        /* NodeInfo.Allocatable.ScalarResources holds scalar names only. */
        if (!kube_resource_is_scalar(name)) {
            *alloc = *req = 0;
            return !skip;
        }
        *alloc = kube_resources_scalar(al, name, &found);
        if (!found && skip)
            return false;
        node_req = kube_resources_scalar(&ni->requested, name, NULL);
    }
    if (*alloc == 0 && skip)
        return false;
    *req = prio_add64(node_req, pod_req);
    return true;
}

struct prio_res_pod *prio_res_pod_new(struct prio_cycle *cy,
                                      const struct prio_res_list *l,
                                      enum prio_res_mode mode)
{
    struct prio_res_pod *rp = arena_calloc(cy->arena, 1, sizeof(*rp));
    size_t i;

    if (!rp)
        return NULL;
    rp->list = *l;
    rp->mode = mode;
    /* #103169, CHANGELOG-1.22 v1.22.0; v1.20.2 resource_allocation.go
     * score() hands every listed resource to the scorer */
    rp->skip_unused = cy->semantics >= KPE_SEM_1_22;
    rp->shadowed = arena_calloc(cy->arena, l->n + 1, sizeof(*rp->shadowed));
    rp->request = arena_calloc(cy->arena, l->n + 1, sizeof(*rp->request));
    if (!rp->shadowed || !rp->request)
        return NULL;
    for (i = 0; i < l->n; i++) {
        rp->shadowed[i] = prio_res_list_shadowed(l, i);
        rp->request[i] = prio_res_pod_request(cy->pod, l->v[i].name, mode);
    }
    return rp;
}

int prio_res_prescore_args_non_zero(struct prio_cycle *cy, const void *args,
                                    void **state, struct err *e)
{
    struct prio_res_list l;

    prio_res_list_from_args(args, &l);
    *state = prio_res_pod_new(cy, &l, PRIO_RES_NON_ZERO);
    return *state ? 0 : err_set(e, "out of memory");
}

int prio_res_prescore_balanced(struct prio_cycle *cy, const void *args,
                               void **state, struct err *e)
{
    struct prio_res_list l;

    (void)args;
    prio_res_list_default(&l); /* a Policy scores cpu and memory only */
    /* actual requests from v1.22.4 (#105845); v1.20.2 and v1.21 count the
     * non-zero ones (balanced_allocation.go: NonZeroRequested) */
    *state = prio_res_pod_new(
        cy, &l,
        cy->semantics >= KPE_SEM_1_22 ? PRIO_RES_REQUESTED : PRIO_RES_NON_ZERO);
    return *state ? 0 : err_set(e, "out of memory");
}

bool prio_res_node_pair_at(const struct prio_res_pod *rp, size_t i,
                           const struct node_info *ni, int64_t *alloc,
                           int64_t *req)
{
    return node_pair(ni, rp->list.v[i].name, rp->mode, rp->skip_unused,
                     rp->request[i], alloc, req);
}

int64_t prio_res_weighted_score(const struct prio_res_pod *rp,
                                const struct node_info *ni,
                                prio_res_scorer_fn *scorer)
{
    int64_t score = 0, weights = 0, alloc, req;
    size_t i;

    for (i = 0; i < rp->list.n; i++) {
        if (rp->shadowed[i] || !prio_res_node_pair_at(rp, i, ni, &alloc, &req))
            continue;
        score = prio_add64(
            score, prio_mul64(scorer(req, alloc), rp->list.v[i].weight));
        weights = prio_add64(weights, rp->list.v[i].weight);
    }
    if (weights == 0)
        return 0;
    return prio_div64(score, weights);
}

/* For list: the resources Least/MostRequestedPriority score. */
static const struct kpe_arg_field default_resources_fields[] = {
    { .name = "resources",
      .type = KPE_ARG_OBJECTS,
      .type_doc = "[]{name, weight}",
      .def = "[{cpu 1}, {memory 1}]" },
};

const struct kpe_arg_schema prio_default_resources_values = {
    .key = "resources",
    .fields = KPE_ARG_FIELDS(default_resources_fields),
    .note = "not configurable in a Policy: the resources are cpu and memory, "
            "weight 1 each",
    .not_in_policy = true,
};

/* One {name, weight} resource: an element of RTCR's and the defaults. */
static const struct kpe_arg_field resource_fields[] = {
    { .name = "name",
      .type = KPE_ARG_STRING,
      .offset = offsetof(struct policy_resource, name),
      .type_doc = "string" },
    { .name = "weight",
      .type = KPE_ARG_INT64,
      .offset = offsetof(struct policy_resource, weight),
      .type_doc = "int64" },
};

const struct kpe_arg_schema prio_resource_schema = {
    .key = "resources",
    .size = sizeof(struct policy_resource),
    .fields = KPE_ARG_FIELDS(resource_fields),
};

/* check: Least/MostRequestedPriority's typed arguments. */
static const struct kpe_arg_field resources_resolved_fields[] = {
    { .name = "resources",
      .type = KPE_ARG_OBJECTS,
      .offset = offsetof(struct prio_resources_arg, resources),
      .count_offset = offsetof(struct prio_resources_arg, n_resources),
      .elem = &prio_resource_schema },
};

/* Least/MostAllocated's value: cpu=1, memory=1 (not settable). */
static const struct prio_resources_arg cpu_memory = {
    .resources = (struct policy_resource *)default_resources,
    .n_resources = sizeof(default_resources) / sizeof(default_resources[0]),
};

int prio_resources_finish(struct prio_args *out,
                          const struct prio_policy_facts *f, struct arena *a,
                          struct err *e)
{
    (void)f;
    (void)a;
    (void)e;
    out->value = &cpu_memory;
    return 0;
}

const struct kpe_arg_schema prio_resources_resolved = {
    .key = "resources",
    .fields = KPE_ARG_FIELDS(resources_resolved_fields),
};
