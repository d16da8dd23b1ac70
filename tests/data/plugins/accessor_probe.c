/*
 * accessor_probe.c: one priority per accessor of the plugin host, each
 * scoring a node with what its accessor returns (scaled into 0..100), for
 * tests/cli/test_plugin_accessors.sh, which compares every score in
 * `explain --output json` with the same value computed from the cluster
 * and pod files. Strings are scored by their length; labels are read
 * under the key "probe". Built against the current header (ABI 1.1: it
 * also reads pod_priority and node_unschedulable).
 */
#include <string.h>

#include <kube-policy-extender/plugin.h>

KPE_PLUGIN_MAGIC;

static const struct kpe_plugin_host *host;

static int64_t len(const char *s)
{
    return s ? (int64_t)strlen(s) : 0;
}

/* One score function per probe: `expr` reads pod and node. */
#define PROBE(fn, expr)                                                        \
    static int fn(const void *arg, const struct kpe_pod *pod,                  \
                  const struct kpe_node *node, int64_t *score)                 \
    {                                                                          \
        (void)arg;                                                             \
        (void)pod;                                                             \
        (void)node;                                                            \
        *score = (expr);                                                       \
        return 0;                                                              \
    }

PROBE(pod_name_len, len(host->pod_name(pod)))
PROBE(pod_namespace_len, len(host->pod_namespace(pod)))
PROBE(pod_label_len, len(host->pod_label(pod, "probe")))
PROBE(pod_node_name_len, len(host->pod_node_name(pod)))
PROBE(pod_cpu, host->pod_request(pod, "cpu") / 10)
PROBE(pod_memory, host->pod_request(pod, "memory") >> 24)
PROBE(pod_pods, host->pod_request(pod, "pods"))
PROBE(pod_gpu, host->pod_request(pod, "example.com/gpu"))
PROBE(pod_prio, host->pod_priority(pod))
PROBE(node_name_len, len(host->node_name(node)))
PROBE(node_label_len, len(host->node_label(node, "probe")))
PROBE(node_alloc_cpu, host->node_allocatable(node, "cpu") / 100)
PROBE(node_alloc_pods, host->node_allocatable(node, "pods"))
PROBE(node_alloc_gpu, host->node_allocatable(node, "example.com/gpu"))
PROBE(node_req_cpu, host->node_requested(node, "cpu") / 10)
PROBE(node_req_memory, host->node_requested(node, "memory") >> 24)
PROBE(node_req_pods, host->node_requested(node, "pods"))
PROBE(node_req_gpu, host->node_requested(node, "example.com/gpu"))
PROBE(node_cordoned, host->node_unschedulable(node))

#define ROW(name, fn)                                                          \
    { sizeof(struct kpe_priority),                                             \
      name,                                                                    \
      KPE_USES_NODE_REQUESTED,                                                 \
      "probe: " #fn,                                                           \
      fn,                                                                      \
      NULL },

static const struct kpe_priority probes[] = {
    ROW("ProbePodName", pod_name_len)            /* pod_name */
    ROW("ProbePodNamespace", pod_namespace_len)  /* pod_namespace */
    ROW("ProbePodLabel", pod_label_len)          /* pod_label */
    ROW("ProbePodNodeName", pod_node_name_len)   /* pod_node_name */
    ROW("ProbePodCpu", pod_cpu)                  /* pod_request */
    ROW("ProbePodMemory", pod_memory)            /* pod_request */
    ROW("ProbePodPods", pod_pods)                /* pod_request */
    ROW("ProbePodGpu", pod_gpu)                  /* pod_request */
    ROW("ProbePodPriority", pod_prio)            /* pod_priority */
    ROW("ProbeNodeName", node_name_len)          /* node_name */
    ROW("ProbeNodeLabel", node_label_len)        /* node_label */
    ROW("ProbeNodeAllocCpu", node_alloc_cpu)     /* node_allocatable */
    ROW("ProbeNodeAllocPods", node_alloc_pods)   /* node_allocatable */
    ROW("ProbeNodeAllocGpu", node_alloc_gpu)     /* node_allocatable */
    ROW("ProbeNodeReqCpu", node_req_cpu)         /* node_requested */
    ROW("ProbeNodeReqMemory", node_req_memory)   /* node_requested */
    ROW("ProbeNodeReqPods", node_req_pods)       /* node_requested */
    ROW("ProbeNodeReqGpu", node_req_gpu)         /* node_requested */
    ROW("ProbeNodeUnschedulable", node_cordoned) /* node_unschedulable */
};

int kpe_plugin_init(const struct kpe_plugin_host *h)
{
    size_t i;

    host = h;
    for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        if (h->register_priority(h, &probes[i]) != 0)
            return -1;
    }
    return 0;
}
