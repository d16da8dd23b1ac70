#!/usr/bin/env python3
"""Write a synthetic `kubectl get -o json`-style List of nodes and pods for
--load (benchmarks): gen_cluster.py --nodes N --pods M [--bound FRACTION]."""
import argparse
import json
import sys


def node(i):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": "node-%05d" % i,
        "uid": "00000000-0000-4000-8000-%012d" % i,
        "creationTimestamp": "2021-01-01T00:00:00Z",
        "labels": {"kubernetes.io/hostname": "node-%05d" % i,
                   "topology.kubernetes.io/zone": "zone-%d" % (i % 3),
                   "kubernetes.io/os": "linux"}},
        "spec": {"podCIDR": "10.%d.%d.0/24" % (i // 256, i % 256)},
        "status": {
            "capacity": {"cpu": "32", "memory": "128Gi", "pods": "110",
                         "ephemeral-storage": "500Gi"},
            "allocatable": {"cpu": "31500m", "memory": "125Gi",
                            "pods": "110", "ephemeral-storage": "450Gi"},
            "conditions": [{"type": "Ready", "status": "True",
                            "reason": "KubeletReady",
                            "lastHeartbeatTime": "2021-01-01T00:00:00Z",
                            "lastTransitionTime": "2021-01-01T00:00:00Z"}],
            "addresses": [{"type": "InternalIP",
                           "address": "192.0.2.%d" % (i % 250)}],
            "nodeInfo": {"kubeletVersion": "v1.22.17",
                         "operatingSystem": "linux",
                         "architecture": "amd64"}}}


def pod(i, nodes, bound):
    ns = "ns-%03d" % (i % 200)
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "pod-%06d" % i, "namespace": ns,
        "uid": "10000000-0000-4000-8000-%012d" % i,
        "creationTimestamp": "2021-01-01T00:00:00Z",
        "labels": {"app": "app-%d" % (i % 500), "tier": "t%d" % (i % 3)}},
        "spec": {"containers": [{
            "name": "main", "image": "registry.example/app:%d" % (i % 7),
            "ports": [{"containerPort": 8080, "protocol": "TCP"}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                          "limits": {"cpu": "500m", "memory": "256Mi"}}}],
            "schedulerName": "default-scheduler",
            "tolerations": [{"key": "node.kubernetes.io/not-ready",
                             "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300}]},
        "status": {"phase": "Pending", "qosClass": "Burstable"}}
    if nodes and (i % 1000) < bound * 1000:
        p["spec"]["nodeName"] = "node-%05d" % (i % nodes)
        p["status"]["phase"] = "Running"
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nodes", type=int, default=10)
    ap.add_argument("--pods", type=int, default=30)
    ap.add_argument("--bound", type=float, default=0.9,
                    help="fraction of pods with spec.nodeName (default 0.9)")
    a = ap.parse_args()
    out = sys.stdout
    out.write('{"apiVersion":"v1","kind":"List","metadata":'
              '{"resourceVersion":""},"items":[')
    first = True
    for i in range(a.nodes):
        out.write(("" if first else ",\n") + json.dumps(node(i)))
        first = False
    for i in range(a.pods):
        out.write(("" if first else ",\n") +
                  json.dumps(pod(i, a.nodes, a.bound)))
        first = False
    out.write("]}\n")


if __name__ == "__main__":
    main()
