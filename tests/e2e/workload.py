"""workload.py: clusters and pod batches for the scale suite and the bench:
many nodes (a share of them RDMA) and many pending pods, created in
parallel through the API."""
import concurrent.futures
import statistics

import k8s

RDMA = {"node.kubernetes.io/rdma-enabled": "true"}


def is_rdma(i, n_nodes, rdma_share):
    every = max(1, round(1 / rdma_share)) if rdma_share else 0
    return bool(every) and i % every == 0


def make_nodes(cp, n, rdma_share=0.1, cpu="4", memory="16Gi"):
    """n nodes node-000.. (every 1/rdma_share-th one RDMA); their names."""
    names = [f"node-{i:03d}" for i in range(n)]

    def one(i):
        cp.create_node(names[i], cpu=cpu, memory=memory,
                       labels=RDMA if is_rdma(i, n, rdma_share) else None)
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        list(ex.map(one, range(n)))
    return names


def make_pods(cp, n, scheduler, prefix="p", high_comm_every=20, cpu="100m"):
    """n pending pods; every high_comm_every-th carries the high-comm label."""
    def one(i):
        hc = high_comm_every and i % high_comm_every == 0
        cp.create_pod(f"{prefix}-{i:04d}", cpu=cpu, scheduler=scheduler,
                      labels={"high-comm": "true"} if hc else {"app": "plain"})
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        list(ex.map(one, range(n)))


def placement(cp):
    """(pods by node, pods by name) of the bound pods."""
    by_node, by_name = {}, {}
    for p in k8s.bound(cp.pods()):
        n = p["spec"]["nodeName"]
        by_node.setdefault(n, []).append(p)
        by_name[p["metadata"]["name"]] = p
    return by_node, by_name


def spread(by_node, nodes):
    counts = [len(by_node.get(n, [])) for n in nodes]
    return {"min": min(counts), "max": max(counts),
            "stdev": round(statistics.pstdev(counts), 2)}
