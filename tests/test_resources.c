/*
 * test_resources.c: resource-name classes and a pod's effective request,
 * with tables ported from pkg/apis/core/v1/helper/helpers_test.go,
 * pkg/scheduler/util/non_zero_test.go, pkg/scheduler/framework/types_test.go
 * and noderesources/fit_test.go (kube-scheduler v1.22).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kube/model/quantity.h"
#include "kube/model/resources.h"

#define MI (1024LL * 1024)

/* ---- builders: "cpu=100m,memory=500,example.com/aaa=1" ---- */

/*
 * A ResourceList as kube/parse/parse.c would fill it: cpu via MilliValue (and
 * Value in cpu_value), the rest via Value, other names kept as scalars
 * in order. NULL or "" gives an empty list. Memory comes from a.
 */
static struct kube_resources rl(struct arena *a, const char *spec)
{
    struct kube_resources r;
    char *copy, *item, *save = NULL;

    memset(&r, 0, sizeof(r));
    if (!spec || !*spec)
        return r;
    r.scalars = arena_calloc(a, 16, sizeof(*r.scalars));
    copy = arena_strdup(a, spec);
    assert_non_null(r.scalars);
    assert_non_null(copy);
    for (item = strtok_r(copy, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        struct kube_quantity q;
        struct err e;

        if (!eq)
            fail_msg("bad spec item %s", item);
        *eq = '\0';
        if (kube_quantity_parse(eq + 1, &q, &e) != 0)
            fail_msg("%s: %s", item, e.msg);
        if (strcmp(item, "cpu") == 0) {
            r.has |= KUBE_RES_CPU;
            r.milli_cpu = kube_quantity_milli_value(q);
            r.cpu_value = kube_quantity_value(q);
        } else if (strcmp(item, "memory") == 0) {
            r.has |= KUBE_RES_MEMORY;
            r.memory = kube_quantity_value(q);
        } else if (strcmp(item, "ephemeral-storage") == 0) {
            r.has |= KUBE_RES_EPHEMERAL_STORAGE;
            r.ephemeral_storage = kube_quantity_value(q);
        } else if (strcmp(item, "pods") == 0) {
            r.has |= KUBE_RES_PODS;
            r.pods = kube_quantity_value(q);
        } else {
            assert_true(r.n_scalars < 16);
            r.scalars[r.n_scalars].name = item;
            r.scalars[r.n_scalars].value = kube_quantity_value(q);
            r.n_scalars++;
        }
    }
    return r;
}

#define MAX_CONTAINERS 4

/* Request specs per container ("" = no requests), NULL-terminated. */
struct pod_spec {
    const char *containers[MAX_CONTAINERS + 1];
    const char *inits[MAX_CONTAINERS + 1];
    const char *overhead; /* NULL: spec.overhead not set */
};

static struct kube_container *containers(struct arena *a,
                                         const char *const *specs, size_t *n)
{
    struct kube_container *c;
    size_t i;

    for (*n = 0; *n < MAX_CONTAINERS && specs[*n]; (*n)++)
        ;
    c = arena_calloc(a, *n + 1, sizeof(*c));
    assert_non_null(c);
    for (i = 0; i < *n; i++) {
        c[i].name = "c";
        c[i].requests = rl(a, specs[i]);
    }
    return c;
}

static void build_pod(struct arena *a, const struct pod_spec *s,
                      struct kube_pod *p)
{
    memset(p, 0, sizeof(*p));
    p->name = "p";
    p->namespace = "default";
    p->containers = containers(a, s->containers, &p->n_containers);
    p->init_containers = containers(a, s->inits, &p->n_init_containers);
    if (s->overhead) {
        p->has_overhead = true;
        p->overhead = rl(a, s->overhead);
    }
}

/* "name=value,..." of r's scalars in order, for comparing. */
static const char *scalars_str(const struct kube_resources *r, char *buf,
                               size_t len)
{
    size_t i, o = 0;

    buf[0] = '\0';
    for (i = 0; i < r->n_scalars && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s=%lld", i ? "," : "",
                              r->scalars[i].name,
                              (long long)r->scalars[i].value);
    return buf;
}

/* ---- resource-name classes ---- */

struct class_case {
    const char *name;
    bool native, prefixed, extended, hugepages, attachable, scalar;
};

/*
 * TestIsNativeResource and TestIsOvercommitAllowed (helpers_test.go),
 * TestIsExtendedResourceName / TestIsHugePageSizeFromResourceName /
 * TestIsAttachableVolumeResourceName cases for the same helpers, the
 * names used by fit_test.go, and IsQualifiedName edges of "requests.<n>".
 */
static const struct class_case class_table[] = {
    /* name                                   nat pre ext huge att scal */
    { "pod.alpha.kubernetes.io/opaque-int-resource-foo", 1, 1, 0, 0, 0, 1 },
    { "kubernetes.io/resource-foo", 1, 1, 0, 0, 0, 1 },
    { "kubernetes.io/something", 1, 1, 0, 0, 0, 1 },
    { "subdomain.kubernetes.io/something", 1, 1, 0, 0, 0, 1 },
    { "example.com/kubernetes.io/x", 1, 1, 0, 0, 0, 1 },
    { "foo", 1, 0, 0, 0, 0, 0 },
    { "", 1, 0, 0, 0, 0, 0 },
    { "cpu", 1, 0, 0, 0, 0, 0 },
    { "memory", 1, 0, 0, 0, 0, 0 },
    { "ephemeral-storage", 1, 0, 0, 0, 0, 0 },
    { "pods", 1, 0, 0, 0, 0, 0 },
    { "a/b", 0, 0, 1, 0, 0, 1 },
    { "example.com/aaa", 0, 0, 1, 0, 0, 1 },
    { "example.com/foo", 0, 0, 1, 0, 0, 1 },
    { "nvidia.com/gpu", 0, 0, 1, 0, 0, 1 },
    { "example.com/GPU", 0, 0, 1, 0, 0, 1 },
    { "example.com/g_p.u-1", 0, 0, 1, 0, 0, 1 },
    { "requests.foobar", 1, 0, 0, 0, 0, 0 },
    { "requests.example.com/foo", 0, 0, 0, 0, 0, 0 },
    { "c/d/", 0, 0, 0, 0, 0, 0 },
    { "Example.com/gpu", 0, 0, 0, 0, 0, 0 },
    { "example.com/gpu-", 0, 0, 0, 0, 0, 0 },
    { "example.com/-gpu", 0, 0, 0, 0, 0, 0 },
    { "example.com/", 0, 0, 0, 0, 0, 0 },
    { "/gpu", 0, 0, 0, 0, 0, 0 },
    { "example..com/gpu", 0, 0, 0, 0, 0, 0 },
    { "-example.com/gpu", 0, 0, 0, 0, 0, 0 },
    { "example.com-/gpu", 0, 0, 0, 0, 0, 0 },
    { "example.com/g/pu", 0, 0, 0, 0, 0, 0 },
    { "example.com/g pu", 0, 0, 0, 0, 0, 0 },
    { "hugepages-2Mi", 1, 0, 0, 1, 0, 1 },
    { "hugepages-100m", 1, 0, 0, 1, 0, 1 },
    { "hugepages-", 1, 0, 0, 1, 0, 1 },
    { "hugepages", 1, 0, 0, 0, 0, 0 },
    { "attachable-volumes-aws-ebs", 1, 0, 0, 0, 1, 1 },
    { "attachable-volumes-100m", 1, 0, 0, 0, 1, 1 },
    { "attachable-volumes-csi-ebs.csi.aws.com", 1, 0, 0, 0, 1, 1 },
};

static void check_class(const struct class_case *c)
{
    const char *n = c->name;

    if (kube_resource_is_native(n) != c->native)
        fail_msg("%s: native = %d", n, !c->native);
    if (kube_resource_is_prefixed_native(n) != c->prefixed)
        fail_msg("%s: prefixed native = %d", n, !c->prefixed);
    if (kube_resource_is_extended(n) != c->extended)
        fail_msg("%s: extended = %d", n, !c->extended);
    if (kube_resource_is_hugepages(n) != c->hugepages)
        fail_msg("%s: hugepages = %d", n, !c->hugepages);
    if (kube_resource_is_attachable_volume(n) != c->attachable)
        fail_msg("%s: attachable volume = %d", n, !c->attachable);
    if (kube_resource_is_scalar(n) != c->scalar)
        fail_msg("%s: scalar = %d", n, !c->scalar);
}

static void resource_names_should_classify_as_helpers_go(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(class_table) / sizeof(class_table[0]); i++)
        check_class(&class_table[i]);
}

/* TestIsOvercommitAllowed: native and not hugepages. */
static void resource_names_should_allow_overcommit_as_upstream(void **state)
{
    static const struct {
        const char *name;
        bool want;
    } cases[] = {
        { "pod.alpha.kubernetes.io/opaque-int-resource-foo", true },
        { "kubernetes.io/resource-foo", true },
        { "hugepages-100m", false },
        { "", true },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool got = kube_resource_is_native(cases[i].name) &&
                   !kube_resource_is_hugepages(cases[i].name);

        if (got != cases[i].want)
            fail_msg("%s: overcommit allowed = %d", cases[i].name, got);
    }
}

/*
 * IsQualifiedName limits on "requests.<name>": name part <= 63 bytes, the
 * DNS prefix (which includes "requests.") <= 253 bytes.
 */
static void extended_names_should_respect_qualified_name_limits(void **state)
{
    static const struct {
        size_t prefix_len, name_len;
        bool want;
    } cases[] = {
        { 11, 63, true },  { 11, 64, false }, { 244, 1, true },
        { 245, 1, false }, { 1, 1, true },    { 600, 3, false },
    };
    char buf[1024];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t p = cases[i].prefix_len, n = cases[i].name_len;

        memset(buf, 'a', p);
        buf[p] = '/';
        memset(buf + p + 1, 'b', n);
        buf[p + 1 + n] = '\0';
        if (kube_resource_is_extended(buf) != cases[i].want)
            fail_msg("prefix %zu, name %zu: extended = %d", p, n,
                     !cases[i].want);
        if (kube_resource_is_scalar(buf) != cases[i].want)
            fail_msg("prefix %zu, name %zu: scalar = %d", p, n, !cases[i].want);
    }
    assert_false(kube_resource_is_extended(NULL));
    assert_true(kube_resource_is_native(NULL));
    assert_false(kube_resource_is_scalar(NULL));
}

static void resources_scalar_should_report_presence(void **state)
{
    struct arena a;
    struct kube_resources r;
    bool found = true;

    (void)state;
    arena_init(&a, 0);
    r = rl(&a, "cpu=1,example.com/gpu=2,hugepages-2Mi=0");
    assert_int_equal(kube_resources_scalar(&r, "example.com/gpu", &found), 2);
    assert_true(found);
    assert_int_equal(kube_resources_scalar(&r, "hugepages-2Mi", &found), 0);
    assert_true(found);
    assert_int_equal(kube_resources_scalar(&r, "example.com/fpga", &found), 0);
    assert_false(found);
    assert_int_equal(kube_resources_scalar(&r, "cpu", &found), 0);
    assert_false(found);
    assert_int_equal(kube_resources_scalar(&r, "example.com/gpu", NULL), 2);
    arena_destroy(&a);
}

/* ---- pod requests ---- */

struct request_case {
    const char *name;
    struct pod_spec pod;
    struct {
        int64_t cpu, memory, ephemeral, pods;
    } want;              /* kube_pod_request */
    const char *scalars; /* its scalars, in first-seen order */
    struct {
        int64_t cpu, memory;
    } nz; /* kube_pod_nonzero_request */
};

/* What framework.Resource.ResourceList() gives: all four keys present. */
#define RES(c, m) "cpu=" c ",memory=" m ",pods=0,ephemeral-storage=0"

static const struct request_case request_table[] = {
    /* types_test.go TestNodeInfoAddPod: the three pods */
    { "test-1 overhead cpu only",
      { { "cpu=100m,memory=500" }, { NULL }, "cpu=500m" },
      { 600, 500, 0, 0 },
      "",
      { 600, 500 } },
    { "test-2 overhead cpu and memory, no memory request",
      { { "cpu=200m" }, { NULL }, "cpu=500m,memory=500" },
      { 700, 500, 0, 0 },
      "",
      { 700, 200 * MI + 500 } },
    { "test-3 init container and overhead",
      { { "cpu=200m" }, { "cpu=500m,memory=200Mi" }, "cpu=500m,memory=500" },
      { 1000, 200 * MI + 500, 0, 0 },
      "",
      { 1000, 200 * MI + 500 } },
    /* types_test.go TestNewNodeInfo / TestNodeInfoRemovePod makeBasePod */
    { "makeBasePod 100m/500",
      { { "cpu=100m,memory=500" }, { NULL }, NULL },
      { 100, 500, 0, 0 },
      "",
      { 100, 500 } },
    { "makeBasePod 200m/1Ki",
      { { "cpu=200m,memory=1Ki" }, { NULL }, NULL },
      { 200, 1024, 0, 0 },
      "",
      { 200, 1024 } },
    { "makeBasePod 200m/1Ki + overhead 500m/500",
      { { "cpu=200m,memory=1Ki" }, { NULL }, "cpu=500m,memory=500" },
      { 700, 1524, 0, 0 },
      "",
      { 700, 1524 } },
    /* fit_test.go TestEnoughRequests: the pods' computed requests */
    { "no resources requested",
      { { NULL }, { NULL }, NULL },
      { 0, 0, 0, 0 },
      "",
      { 0, 0 } },
    { "init container cpu",
      { { RES("1m", "1") }, { RES("3m", "1") }, NULL },
      { 3, 1, 0, 0 },
      "",
      { 3, 1 } },
    { "highest init container cpu",
      { { RES("1m", "1") }, { RES("3m", "1"), RES("2m", "1") }, NULL },
      { 3, 1, 0, 0 },
      "",
      { 3, 1 } },
    { "init container memory",
      { { RES("1m", "1") }, { RES("1m", "3"), RES("1m", "2") }, NULL },
      { 1, 3, 0, 0 },
      "",
      { 1, 3 } },
    { "init max, not sum",
      { { RES("1m", "1") }, { RES("1m", "1"), RES("1m", "1") }, NULL },
      { 1, 1, 0, 0 },
      "",
      { 1, 1 } },
    { "extended resource for init container",
      { { RES("0", "0") }, { RES("0", "0") ",example.com/aaa=1" }, NULL },
      { 0, 0, 0, 0 },
      "example.com/aaa=1",
      { 0, 0 } },
    { "extended resource for multiple containers",
      { { RES("1m", "1") ",example.com/aaa=3",
          RES("1m", "1") ",example.com/aaa=3" },
        { NULL },
        NULL },
      { 2, 2, 0, 0 },
      "example.com/aaa=6",
      { 2, 2 } },
    { "extended resource for multiple init containers",
      { { RES("0", "0") },
        { RES("1m", "1") ",example.com/aaa=6",
          RES("1m", "1") ",example.com/aaa=3" },
        NULL },
      { 1, 1, 0, 0 },
      "example.com/aaa=6",
      { 1, 1 } },
    { "kubernetes.io resource",
      { { RES("1m", "1") ",kubernetes.io/something=10" }, { NULL }, NULL },
      { 1, 1, 0, 0 },
      "kubernetes.io/something=10",
      { 1, 1 } },
    { "hugepages for multiple containers",
      { { RES("1m", "1") ",hugepages-2Mi=3",
          RES("1m", "1") ",hugepages-2Mi=3" },
        { NULL },
        NULL },
      { 2, 2, 0, 0 },
      "hugepages-2Mi=6",
      { 2, 2 } },
    { "resources + pod overhead",
      { { RES("1m", "1") }, { NULL }, "cpu=3m,memory=13" },
      { 4, 14, 0, 0 },
      "",
      { 4, 14 } },
    { "requests + overhead memory",
      { { RES("1m", "1") }, { NULL }, "cpu=1m,memory=15" },
      { 2, 16, 0, 0 },
      "",
      { 2, 16 } },
    /* fit_test.go TestStorageRequests */
    { "ephemeral storage",
      { { "ephemeral-storage=25" }, { NULL }, NULL },
      { 0, 0, 25, 0 },
      "",
      { 100, 200 * MI } },
    /* behaviour the filter depends on */
    /* A container's zero scalar is kept (Resource.Add); an init
     * container's is not, because v1.22's SetMaxResource sets a scalar
     * only when its value exceeds the current one. */
    { "zero scalar kept from containers, not from init containers",
      { { "cpu=1,example.com/aaa=0" }, { "hugepages-2Mi=0" }, NULL },
      { 1000, 0, 0, 0 },
      "example.com/aaa=0",
      { 1000, 200 * MI } },
    { "scalars in first-seen order across lists",
      { { "b.io/x=1", "a.io/y=2,b.io/x=1" },
        { "c.io/z=1,a.io/y=5" },
        "d.io/w=1,b.io/x=1" },
      { 0, 0, 0, 0 },
      "b.io/x=3,a.io/y=5,c.io/z=1,d.io/w=1",
      { 200, 400 * MI } },
    { "non-scalar names are ignored",
      { { "foo=5,requests.example.com/a=1,example.com/-x=1,Ex.com/y=1" },
        { "bar=7" },
        "baz=1" },
      { 0, 0, 0, 0 },
      "",
      { 100, 200 * MI } },
    { "pods summed over containers and overhead, not init containers",
      { { "pods=1", "pods=2" }, { "pods=10" }, "pods=1" },
      { 0, 0, 0, 4 },
      "",
      { 200, 400 * MI } },
    { "init ephemeral storage is a max",
      { { "ephemeral-storage=1Gi", "ephemeral-storage=1Gi" },
        { "ephemeral-storage=3Gi" },
        "ephemeral-storage=1" },
      { 0, 0, 3 * 1024 * MI + 1, 0 },
      "",
      { 200, 400 * MI } },
    /* non_zero.go defaults through calculateResource */
    { "explicit zero stays zero",
      { { "cpu=0,memory=0" }, { NULL }, NULL },
      { 0, 0, 0, 0 },
      "",
      { 0, 0 } },
    { "missing keys default per container",
      { { "", "cpu=0" }, { NULL }, NULL },
      { 0, 0, 0, 0 },
      "",
      { 100, 400 * MI } },
    { "init container without requests counts as defaults",
      { { "cpu=50m,memory=10" }, { "" }, NULL },
      { 50, 10, 0, 0 },
      "",
      { 100, 200 * MI } },
    { "init defaults lose to a larger container sum",
      { { "cpu=2,memory=1Gi" }, { "" }, NULL },
      { 2000, 1024 * MI, 0, 0 },
      "",
      { 2000, 1024 * MI } },
    { "overhead cpu counted in millicores",
      { { "" }, { NULL }, "cpu=250m,memory=1Mi" },
      { 250, MI, 0, 0 },
      "",
      { 350, 201 * MI } },
    { "overhead without cpu/memory keys adds nothing",
      { { "" }, { NULL }, "example.com/aaa=1" },
      { 0, 0, 0, 0 },
      "example.com/aaa=1",
      { 100, 200 * MI } },
    { "cpu rounded up to millicores",
      { { "cpu=0.0001" }, { NULL }, NULL },
      { 1, 0, 0, 0 },
      "",
      { 1, 200 * MI } },
    { "memory rounded up to bytes",
      { { "memory=0.5" }, { NULL }, NULL },
      { 0, 1, 0, 0 },
      "",
      { 100, 1 } },
};

static void check_request(const struct request_case *c)
{
    struct arena a;
    struct kube_pod p;
    struct kube_resources out;
    char got[256];
    int64_t nz_cpu = -1, nz_mem = -1;

    arena_init(&a, 0);
    build_pod(&a, &c->pod, &p);
    if (kube_pod_request(&a, &p, &out) != 0)
        fail_msg("%s: kube_pod_request failed", c->name);
    kube_pod_nonzero_request(&p, &nz_cpu, &nz_mem);
    scalars_str(&out, got, sizeof(got));
    if (out.milli_cpu != c->want.cpu || out.memory != c->want.memory ||
        out.ephemeral_storage != c->want.ephemeral || out.pods != c->want.pods)
        fail_msg("%s: request cpu=%lld memory=%lld es=%lld pods=%lld, "
                 "want %lld %lld %lld %lld",
                 c->name, (long long)out.milli_cpu, (long long)out.memory,
                 (long long)out.ephemeral_storage, (long long)out.pods,
                 (long long)c->want.cpu, (long long)c->want.memory,
                 (long long)c->want.ephemeral, (long long)c->want.pods);
    if (strcmp(got, c->scalars) != 0)
        fail_msg("%s: scalars \"%s\", want \"%s\"", c->name, got, c->scalars);
    if (nz_cpu != c->nz.cpu || nz_mem != c->nz.memory)
        fail_msg("%s: non-zero cpu=%lld memory=%lld, want %lld %lld", c->name,
                 (long long)nz_cpu, (long long)nz_mem, (long long)c->nz.cpu,
                 (long long)c->nz.memory);
    arena_destroy(&a);
}

static void pod_request_should_match_scheduler_tables(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(request_table) / sizeof(request_table[0]); i++)
        check_request(&request_table[i]);
}

/* TestGetNonZeroRequest (non_zero_test.go): one container's requests. */
static void nonzero_request_should_default_missing_keys(void **state)
{
    static const struct {
        const char *name, *requests;
        int64_t cpu, memory;
    } cases[] = {
        { "cpu_and_memory_not_found", "", KUBE_DEFAULT_MILLI_CPU_REQUEST,
          KUBE_DEFAULT_MEMORY_REQUEST },
        { "only_cpu_exist", "cpu=200m", 200, KUBE_DEFAULT_MEMORY_REQUEST },
        { "only_memory_exist", "memory=400Mi", KUBE_DEFAULT_MILLI_CPU_REQUEST,
          400 * MI },
        { "cpu_memory_exist", "cpu=200m,memory=400Mi", 200, 400 * MI },
        { "extended_resource_only", "intel.com/foo=4",
          KUBE_DEFAULT_MILLI_CPU_REQUEST, KUBE_DEFAULT_MEMORY_REQUEST },
    };
    size_t i;

    (void)state;
    assert_int_equal(KUBE_DEFAULT_MEMORY_REQUEST, 209715200);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct arena a;
        struct kube_pod p;
        struct pod_spec s = { { cases[i].requests }, { NULL }, NULL };
        int64_t cpu, mem;

        arena_init(&a, 0);
        build_pod(&a, &s, &p);
        kube_pod_nonzero_request(&p, &cpu, &mem);
        if (cpu != cases[i].cpu || mem != cases[i].memory)
            fail_msg("%s: got %lld/%lld, want %lld/%lld", cases[i].name,
                     (long long)cpu, (long long)mem, (long long)cases[i].cpu,
                     (long long)cases[i].memory);
        arena_destroy(&a);
    }
}

/*
 * TestNodeInfoAddPod: the node totals over the three pods, Requested
 * 2300m / 209716700 and NonZeroRequested 2300m / 419431900.
 */
static void pod_requests_should_sum_to_node_totals(void **state)
{
    const struct pod_spec pods[] = {
        { { "cpu=100m,memory=500" }, { NULL }, "cpu=500m" },
        { { "cpu=200m" }, { NULL }, "cpu=500m,memory=500" },
        { { "cpu=200m" }, { "cpu=500m,memory=200Mi" }, "cpu=500m,memory=500" },
    };
    int64_t cpu = 0, mem = 0, nz_cpu = 0, nz_mem = 0;
    struct arena a;
    size_t i;

    (void)state;
    arena_init(&a, 0);
    for (i = 0; i < sizeof(pods) / sizeof(pods[0]); i++) {
        struct kube_pod p;
        struct kube_resources r;
        int64_t c, m;

        build_pod(&a, &pods[i], &p);
        assert_int_equal(kube_pod_request(&a, &p, &r), 0);
        kube_pod_nonzero_request(&p, &c, &m);
        cpu += r.milli_cpu;
        mem += r.memory;
        nz_cpu += c;
        nz_mem += m;
    }
    assert_int_equal(cpu, 2300);
    assert_int_equal(mem, 209716700);
    assert_int_equal(nz_cpu, 2300);
    assert_int_equal(nz_mem, 419431900);
    arena_destroy(&a);
}

/* spec.overhead is only read when set (has_overhead). */
static void pod_request_should_ignore_unset_overhead(void **state)
{
    struct arena a;
    struct kube_pod p;
    struct kube_resources r;
    struct pod_spec s = { { "cpu=1" }, { NULL }, NULL };
    int64_t cpu, mem;

    (void)state;
    arena_init(&a, 0);
    build_pod(&a, &s, &p);
    p.overhead = rl(&a, "cpu=1,memory=1,example.com/aaa=1");
    assert_int_equal(kube_pod_request(&a, &p, &r), 0);
    assert_int_equal(r.milli_cpu, 1000);
    assert_int_equal(r.memory, 0);
    assert_int_equal(r.n_scalars, 0);
    assert_int_equal(r.has, KUBE_RES_CPU);
    kube_pod_nonzero_request(&p, &cpu, &mem);
    assert_int_equal(cpu, 1000);
    assert_int_equal(mem, KUBE_DEFAULT_MEMORY_REQUEST);
    arena_destroy(&a);
}

/* Resource.Add sums int64 as Go does: it wraps instead of trapping. */
static void pod_request_should_wrap_like_go_int64(void **state)
{
    struct arena a;
    struct kube_pod p;
    struct kube_resources r;
    struct pod_spec s = { { "memory=9Ei,example.com/a=9223372036854775807",
                            "memory=9Ei,example.com/a=2" },
                          { NULL },
                          NULL };

    (void)state;
    arena_init(&a, 0);
    build_pod(&a, &s, &p);
    assert_int_equal(kube_pod_request(&a, &p, &r), 0);
    assert_int_equal(r.memory, -2);
    assert_int_equal(r.scalars[0].value, INT64_MIN + 1);
    arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resource_names_should_classify_as_helpers_go),
        cmocka_unit_test(resource_names_should_allow_overcommit_as_upstream),
        cmocka_unit_test(extended_names_should_respect_qualified_name_limits),
        cmocka_unit_test(resources_scalar_should_report_presence),
        cmocka_unit_test(pod_request_should_match_scheduler_tables),
        cmocka_unit_test(nonzero_request_should_default_missing_keys),
        cmocka_unit_test(pod_requests_should_sum_to_node_totals),
        cmocka_unit_test(pod_request_should_ignore_unset_overhead),
        cmocka_unit_test(pod_request_should_wrap_like_go_int64),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
