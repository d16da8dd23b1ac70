/*
 * rdma_score.c: RdmaAwareScore, a score as a loadable plugin: pods with the
 * "high-comm" label prefer nodes labelled
 * node.kubernetes.io/rdma-enabled=true (score 100), and other pods prefer
 * to leave those nodes free (the seeds' CustomPriorityPolicy). It also
 * shows the resource accessors: among nodes of the right kind, one with
 * more free CPU left after the pod scores higher (KPE_SCORE_NORMALIZE
 * scales the raw scores to 0..100). Build:
 *
 *   cc -shared -fPIC -O2 -I/usr/local/include -o rdma_score.so rdma_score.c
 *
 * and name it in a Policy: {"name": "RdmaAwareScore", "weight": 2}.
 */
#include <stdint.h>
#include <string.h>

#include <kube-policy-extender/plugin.h>

KPE_PLUGIN_MAGIC;

static const struct kpe_plugin_host *host;

/* Raw score: kind match (1000) plus free CPU per mille after the pod. */
static int rdma_score(const void *arg, const struct kpe_pod *pod,
                      const struct kpe_node *node, int64_t *score)
{
    const char *have =
        host->node_label(node, "node.kubernetes.io/rdma-enabled");
    int high_comm = host->pod_label(pod, "high-comm") != NULL;
    int rdma = have && !strcmp(have, "true");
    int64_t alloc = host->node_allocatable(node, "cpu");
    int64_t used =
        host->node_requested(node, "cpu") + host->pod_request(pod, "cpu");
    int64_t free_pm =
        alloc > 0 && used < alloc ? (alloc - used) * 1000 / alloc : 0;

    (void)arg;
    *score = (high_comm == rdma ? 1000 : 0) + free_pm;
    return 0;
}

static const struct kpe_priority rdma_aware_score = {
    .size = sizeof(struct kpe_priority),
    .name = "RdmaAwareScore",
    .flags = KPE_USES_NODE_REQUESTED | KPE_SCORE_NORMALIZE,
    .doc = "example plugin: high-comm pods prefer RDMA nodes, then free CPU",
    .score = rdma_score,
    .args = NULL,
};

int kpe_plugin_init(const struct kpe_plugin_host *h)
{
    host = h;
    return h->register_priority(h, &rdma_aware_score);
}
