#!/usr/bin/env python3
"""affinity_sim.py: the input of an offline A/B of InterPodAffinity's cost.

Writes DIR/cluster.json and DIR/pod.json: the scale bench's PodAntiAffinity
workload at 5,000 nodes (tests/e2e/bench_workloads.py), its 1,000 init pods
already bound (every fifth node), and one measured pod to place. Then

    farm-bench -n 11 --timeout 400 --vs "OLD simulate ARGS" -- NEW simulate ARGS

with ARGS = --policy deploy/policy/policy.json --cluster DIR/cluster.json
--pod DIR/pod.json --replicas 4000 -o json times two builds placing 4,000
replicas one after another (every placement runs the PreFilter over all
the pods placed so far). docs/performance.md quotes it.

    python3 bench/affinity_sim.py DIR [NODES] [INIT_PODS]
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import bench_workloads as bw  # noqa: E402


def main(argv):
    if len(argv) not in (2, 3, 4):
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    out = argv[1]
    try:
        nodes = int(argv[2]) if len(argv) > 2 else 5000
        init = int(argv[3]) if len(argv) > 3 else 1000
    except ValueError as ex:
        print(f"affinity_sim.py: NODES and INIT_PODS are whole numbers: {ex}", file=sys.stderr)
        return 2
    if nodes < 1 or init < 0 or init > nodes:
        print(f"affinity_sim.py: want 1 <= NODES and 0 <= INIT_PODS <= NODES, not {nodes} and {init}",
              file=sys.stderr)
        return 2
    step = nodes // init if init else 1
    items = [bw.node(i) for i in range(nodes)]
    for i in range(init):
        p = bw.pod("anti-affinity", f"init-{i:05d}", bw.INIT_NS, "sched",
                   node=bw.node(i * step)["metadata"]["name"])
        p["metadata"]["uid"] = f"u-init-{i}"
        p.setdefault("status", {})["phase"] = "Running"
        items.append(p)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "cluster.json"), "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f)
    with open(os.path.join(out, "pod.json"), "w") as f:
        json.dump(bw.pod("anti-affinity", "m", bw.MEASURED_NS, "sched"), f)
    print(f"{out}: {nodes} nodes, {init} anti-affinity pods bound")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
