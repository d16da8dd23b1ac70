/*
 * resources.c: resource-name classes (pkg/apis/core/v1/helper/helpers.go)
 * and a pod's effective request as kube-scheduler v1.22 sums it:
 * framework/types.go (Resource.Add, SetMaxResource, calculateResource),
 * noderesources/fit.go computePodResourceRequest and util/non_zero.go.
 */
#include "kube/model/resources.h"

#include <stdio.h>
#include <string.h>

#define REQUESTS_PREFIX    "requests."
#define NATIVE_NS_PREFIX   "kubernetes.io/"
#define HUGEPAGES_PREFIX   "hugepages-"
#define ATTACHABLE_PREFIX  "attachable-volumes-"
#define DNS1123_SUB_MAX    253
#define QUALIFIED_NAME_MAX 63

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* One DNS-1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, no length limit. */
static bool is_dns_label(const char *s, size_t len)
{
    size_t i;

    if (len == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[len - 1]))
        return false;
    for (i = 1; i + 1 < len; i++) {
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    }
    return true;
}

/* validation.IsDNS1123Subdomain: dot-separated labels, at most 253. */
static bool is_dns1123_subdomain(const char *s, size_t len)
{
    size_t start = 0, i;

    if (len > DNS1123_SUB_MAX)
        return false;
    for (i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            if (!is_dns_label(s + start, i - start))
                return false;
            start = i + 1;
        }
    }
    return true;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 bytes. */
static bool is_qualified_name_part(const char *s, size_t len)
{
    size_t i;

    if (len == 0 || len > QUALIFIED_NAME_MAX)
        return false;
    if (!is_alnum(s[0]) || !is_alnum(s[len - 1]))
        return false;
    for (i = 1; i + 1 < len; i++) {
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    }
    return true;
}

/* validation.IsQualifiedName: [DNS-1123 subdomain "/"] name. */
static bool is_qualified_name(const char *s)
{
    const char *slash = strchr(s, '/');

    if (!slash)
        return is_qualified_name_part(s, strlen(s));
    if (strchr(slash + 1, '/'))
        return false;
    return is_dns1123_subdomain(s, (size_t)(slash - s)) &&
           is_qualified_name_part(slash + 1, strlen(slash + 1));
}

bool kube_resource_is_prefixed_native(const char *name)
{
    return name && strstr(name, NATIVE_NS_PREFIX) != NULL;
}

bool kube_resource_is_native(const char *name)
{
    if (!name)
        name = "";
    return strchr(name, '/') == NULL || kube_resource_is_prefixed_native(name);
}

bool kube_resource_is_extended(const char *name)
{
    /* the longest name that can be qualified after "requests." */
    char quota[sizeof(REQUESTS_PREFIX) + DNS1123_SUB_MAX + 1 +
               QUALIFIED_NAME_MAX];
    int n;

    if (!name || kube_resource_is_native(name) ||
        has_prefix(name, REQUESTS_PREFIX))
        return false;
    n = snprintf(quota, sizeof(quota), "%s%s", REQUESTS_PREFIX, name);
    if (n < 0 || (size_t)n >= sizeof(quota))
        return false;
    return is_qualified_name(quota);
}

bool kube_resource_is_hugepages(const char *name)
{
    return name && has_prefix(name, HUGEPAGES_PREFIX);
}

bool kube_resource_is_attachable_volume(const char *name)
{
    return name && has_prefix(name, ATTACHABLE_PREFIX);
}

bool kube_resource_is_scalar(const char *name)
{
    return kube_resource_is_extended(name) ||
           kube_resource_is_hugepages(name) ||
           kube_resource_is_prefixed_native(name) ||
           kube_resource_is_attachable_volume(name);
}

int64_t kube_resources_scalar(const struct kube_resources *r, const char *name,
                              bool *found)
{
    size_t i;

    for (i = 0; r && name && i < r->n_scalars; i++) {
        if (strcmp(r->scalars[i].name, name) == 0) {
            if (found)
                *found = true;
            return r->scalars[i].value;
        }
    }
    if (found)
        *found = false;
    return 0;
}

/* Go's int64 addition wraps; do the same without signed overflow. */
static int64_t add_wrap(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* The entry for name in out, appended with value 0 when new. */
static struct kube_scalar *scalar_slot(struct kube_resources *out,
                                       const char *name)
{
    size_t i;

    for (i = 0; i < out->n_scalars; i++) {
        if (strcmp(out->scalars[i].name, name) == 0)
            return &out->scalars[i];
    }
    out->scalars[out->n_scalars].name = name;
    out->scalars[out->n_scalars].value = 0;
    return &out->scalars[out->n_scalars++];
}

/* Resource.Add: sum every key; pods too; unknown names are dropped. */
static void add_list(struct kube_resources *out,
                     const struct kube_resources *rl)
{
    size_t i;

    if (rl->has & KUBE_RES_CPU)
        out->milli_cpu = add_wrap(out->milli_cpu, rl->milli_cpu);
    if (rl->has & KUBE_RES_MEMORY)
        out->memory = add_wrap(out->memory, rl->memory);
    if (rl->has & KUBE_RES_EPHEMERAL_STORAGE)
        out->ephemeral_storage =
            add_wrap(out->ephemeral_storage, rl->ephemeral_storage);
    if (rl->has & KUBE_RES_PODS)
        out->pods = add_wrap(out->pods, rl->pods);
    out->has |= rl->has & (KUBE_RES_CPU | KUBE_RES_MEMORY |
                           KUBE_RES_EPHEMERAL_STORAGE | KUBE_RES_PODS);
    for (i = 0; i < rl->n_scalars; i++) {
        struct kube_scalar *s;

        if (!kube_resource_is_scalar(rl->scalars[i].name))
            continue;
        s = scalar_slot(out, rl->scalars[i].name);
        s->value = add_wrap(s->value, rl->scalars[i].value);
    }
}

/* Resource.SetMaxResource: per-key max; `pods` is not a case there. */
static void max_list(struct kube_resources *out,
                     const struct kube_resources *rl)
{
    size_t i;

    if (rl->has & KUBE_RES_CPU)
        out->milli_cpu = max64(out->milli_cpu, rl->milli_cpu);
    if (rl->has & KUBE_RES_MEMORY)
        out->memory = max64(out->memory, rl->memory);
    if (rl->has & KUBE_RES_EPHEMERAL_STORAGE)
        out->ephemeral_storage =
            max64(out->ephemeral_storage, rl->ephemeral_storage);
    out->has |=
        rl->has & (KUBE_RES_CPU | KUBE_RES_MEMORY | KUBE_RES_EPHEMERAL_STORAGE);
    for (i = 0; i < rl->n_scalars; i++) {
        struct kube_scalar *s;

        bool found;

        if (!kube_resource_is_scalar(rl->scalars[i].name))
            continue;
        /* SetMaxResource: only a larger value creates or raises the entry,
         * so an init container's zero request adds nothing. */
        if (rl->scalars[i].value <=
            kube_resources_scalar(out, rl->scalars[i].name, &found))
            continue;
        s = scalar_slot(out, rl->scalars[i].name);
        s->value = rl->scalars[i].value;
    }
}

static size_t count_scalars(const struct kube_pod *p)
{
    size_t n = 0, i;

    for (i = 0; i < p->n_containers; i++)
        n += p->containers[i].requests.n_scalars;
    for (i = 0; i < p->n_init_containers; i++)
        n += p->init_containers[i].requests.n_scalars;
    if (p->has_overhead)
        n += p->overhead.n_scalars;
    return n;
}

/*
 * out->has gets the native keys seen in any list that counted; cpu_value
 * is left 0 (the scoring overhead quirk reads pod->overhead directly).
 */
int kube_pod_request(struct arena *a, const struct kube_pod *p,
                     struct kube_resources *out)
{
    size_t cap = count_scalars(p), i;

    memset(out, 0, sizeof(*out));
    if (cap > 0) {
        out->scalars = arena_calloc(a, cap, sizeof(*out->scalars));
        if (!out->scalars)
            return -1;
    }
    for (i = 0; i < p->n_containers; i++)
        add_list(out, &p->containers[i].requests);
    for (i = 0; i < p->n_init_containers; i++)
        max_list(out, &p->init_containers[i].requests);
    if (p->has_overhead)
        add_list(out, &p->overhead);
    return 0;
}

/* GetNonzeroRequests for one container's requests. */
static void nonzero(const struct kube_resources *rl, int64_t *cpu, int64_t *mem)
{
    *cpu = (rl->has & KUBE_RES_CPU) ? rl->milli_cpu
                                    : KUBE_DEFAULT_MILLI_CPU_REQUEST;
    *mem =
        (rl->has & KUBE_RES_MEMORY) ? rl->memory : KUBE_DEFAULT_MEMORY_REQUEST;
}

void kube_pod_nonzero_request(const struct kube_pod *p, int64_t *milli_cpu,
                              int64_t *memory)
{
    int64_t cpu = 0, mem = 0, c, m;
    size_t i;

    for (i = 0; i < p->n_containers; i++) {
        nonzero(&p->containers[i].requests, &c, &m);
        cpu = add_wrap(cpu, c);
        mem = add_wrap(mem, m);
    }
    for (i = 0; i < p->n_init_containers; i++) {
        nonzero(&p->init_containers[i].requests, &c, &m);
        cpu = max64(cpu, c);
        mem = max64(mem, m);
    }
    if (p->has_overhead && (p->overhead.has & KUBE_RES_CPU))
        cpu = add_wrap(cpu, p->overhead.milli_cpu);
    if (p->has_overhead && (p->overhead.has & KUBE_RES_MEMORY))
        mem = add_wrap(mem, p->overhead.memory);
    *milli_cpu = cpu;
    *memory = mem;
}
