# whatif_cluster.sh: a small cluster for the simulate and diff tests:
# three 2-CPU nodes in zones a, b, c (node-1 runs a 1-CPU pod), two
# pending pods (1.5 CPU, then 0.5 CPU), and the pods and Policies the
# tests place them with.
# shellcheck shell=sh
W="$T_TMP/w"
mkdir -p "$W"
python3 - "$W" <<'PY'
import json, sys
out = sys.argv[1]
def node(name, zone, cpu="2"):
    return {"kind": "Node", "apiVersion": "v1",
            "metadata": {"name": name, "labels": {
                "kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": zone}},
            "status": {"allocatable": {"cpu": cpu, "memory": "4Gi",
                                       "pods": "110"},
                       "capacity": {"cpu": cpu, "memory": "4Gi",
                                    "pods": "110"}}}
def pod(name, cpu, node=None, labels=None, ts="2024-01-01T00:00:00Z",
        port=None):
    c = {"name": "c", "image": "x",
         "resources": {"requests": {"cpu": cpu, "memory": "100Mi"}}}
    if port:
        c["ports"] = [{"containerPort": port, "hostPort": port}]
    p = {"kind": "Pod", "apiVersion": "v1",
         "metadata": {"name": name, "namespace": "default",
                      "uid": "uid-" + name, "creationTimestamp": ts,
                      "labels": labels or {"app": name}},
         "spec": {"containers": [c]}, "status": {"phase": "Pending"}}
    if node:
        p["spec"]["nodeName"] = node
        p["status"]["phase"] = "Running"
    return p
items = [node("node-1", "a"), node("node-2", "b"), node("node-3", "c"),
         pod("running", "1", "node-1", ts="2024-01-01T00:00:00Z"),
         pod("pending", "1500m", ts="2024-01-01T00:00:05Z"),
         pod("small", "500m", ts="2024-01-01T00:00:10Z")]
json.dump({"kind": "List", "apiVersion": "v1", "items": items},
          open(out + "/cluster.json", "w"), indent=1)
json.dump(pod("one-cpu", "1"), open(out + "/one-cpu.json", "w"))
json.dump(pod("web", "100m", port=8080), open(out + "/port.json", "w"))
anti = pod("solo", "100m", labels={"app": "solo"})
anti["spec"]["affinity"] = {"podAntiAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "solo"}},
        "topologyKey": "topology.kubernetes.io/zone"}]}}
json.dump(anti, open(out + "/anti.json", "w"))
base = {"kind": "Policy", "apiVersion": "v1",
        "predicates": [{"name": "GeneralPredicates"},
                       {"name": "PodToleratesNodeTaints"},
                       {"name": "MatchInterPodAffinity"}]}
least = dict(base, priorities=[{"name": "LeastRequestedPriority",
                                "weight": 1}])
most = dict(base, priorities=[{"name": "MostRequestedPriority",
                               "weight": 1}])
json.dump(least, open(out + "/least.json", "w"), indent=1)
json.dump(most, open(out + "/most.json", "w"), indent=1)
PY
