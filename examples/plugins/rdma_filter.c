/*
 * rdma_filter.c: RdmaAware, the seeds' RdmaAware filter as a loadable
 * plugin. A pod carrying the label key podLabel (default "high-comm", any
 * value) fits only nodes whose label nodeLabel (default
 * "node.kubernetes.io/rdma-enabled") equals nodeLabelValue (default
 * "true"); other pods fit everywhere. The same rule as the built-in
 * HighCommPodFilter. Build:
 *
 *   cc -shared -fPIC -O2 -I/usr/local/include -o rdma_filter.so rdma_filter.c
 *
 * and name it in a Policy: {"name": "RdmaAware"}, optionally with
 * "argument": {"rdmaAware": {"podLabel": "...", "nodeLabel": "...",
 * "nodeLabelValue": "..."}}.
 */
#include <stddef.h>
#include <string.h>

#include <kube-policy-extender/plugin.h>

KPE_PLUGIN_MAGIC;

#define RDMA_REASON "Node does not support RDMA"

/* The argument as written; NULL members take the defaults. */
struct rdma_arg {
    const char *pod_label;
    const char *node_label;
    const char *node_label_value;
};

static const struct kpe_plugin_arg_field rdma_fields[] = {
    { "podLabel", KPE_PLUGIN_ARG_STRING, offsetof(struct rdma_arg, pod_label),
      "high-comm" },
    { "nodeLabel", KPE_PLUGIN_ARG_STRING, offsetof(struct rdma_arg, node_label),
      "node.kubernetes.io/rdma-enabled" },
    { "nodeLabelValue", KPE_PLUGIN_ARG_STRING,
      offsetof(struct rdma_arg, node_label_value), "true" },
};

static const struct kpe_plugin_args rdma_args = {
    "rdmaAware",
    sizeof(struct rdma_arg),
    rdma_fields,
    sizeof(rdma_fields) / sizeof(rdma_fields[0]),
    "example plugin: the labels RdmaAware reads",
};

/* Set once by kpe_plugin_init, before any filter call. */
static const struct kpe_plugin_host *host;

static int rdma_filter(const void *arg, const struct kpe_pod *pod,
                       const struct kpe_node *node, const char **reason)
{
    const struct rdma_arg *a = arg;
    const char *pod_label = a && a->pod_label ? a->pod_label : "high-comm";
    const char *node_label =
        a && a->node_label ? a->node_label : "node.kubernetes.io/rdma-enabled";
    const char *want = a && a->node_label_value ? a->node_label_value : "true";
    const char *have;

    if (!host->pod_label(pod, pod_label))
        return KPE_FIT;
    have = host->node_label(node, node_label);
    if (have && !strcmp(have, want))
        return KPE_FIT;
    *reason = RDMA_REASON;
    return KPE_UNFIT;
}

static const struct kpe_predicate rdma_aware = {
    .size = sizeof(struct kpe_predicate),
    .name = "RdmaAware",
    .flags = 0,
    .doc = "example plugin: pods with the high-comm label fit only RDMA nodes",
    .reasons = (const char *const[]){ RDMA_REASON, NULL },
    .filter = rdma_filter,
    .args = &rdma_args,
};

int kpe_plugin_init(const struct kpe_plugin_host *h)
{
    host = h;
    return h->register_predicate(h, &rdma_aware);
}
