"""check.py CLUSTER POD EXPLAIN_JSON: every Probe* score that explain
printed for a node (tests/data/plugins/accessor_probe.c) against the value
computed here from the same cluster and pod files, the way plugin.h
documents each accessor. Prints one line per mismatch; exit 1 if any."""
import json
import sys

UNITS = {"m": 0.001, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}


def qty(s, milli=False):
    s = str(s)
    for u, f in UNITS.items():
        if s.endswith(u):
            v = float(s[: -len(u)]) * f
            break
    else:
        v = float(s)
    return int(round(v * 1000)) if milli else int(round(v))


def res(d, name):
    if name not in d:
        return 0
    return qty(d[name], milli=(name == "cpu"))


def requests(pod):
    out = {}
    for c in pod["spec"].get("containers", []):
        for k, v in c.get("resources", {}).get("requests", {}).items():
            out[k] = out.get(k, 0) + res({k: v}, k)
    return out


cluster = json.load(open(sys.argv[1]))["items"]
pod = json.load(open(sys.argv[2]))
view = json.load(open(sys.argv[3]))
nodes = {o["metadata"]["name"]: o for o in cluster if o["kind"] == "Node"}
pods = [o for o in cluster if o["kind"] == "Pod"]
preq = requests(pod)
meta = pod["metadata"]
bad = 0
seen = 0
assert view["pod"] == "%s/%s" % (meta["namespace"], meta["name"])
for vn in view["nodes"]:
    node = nodes[vn["name"]]
    alloc = node["status"]["allocatable"]
    on = [p for p in pods if p["spec"].get("nodeName") == vn["name"]]
    nreq = {}
    for p in on:
        for k, v in requests(p).items():
            nreq[k] = nreq.get(k, 0) + v
    want = {
        "ProbePodName": len(view["pod"].split("/", 1)[1]),
        "ProbePodNamespace": len(view["pod"].split("/", 1)[0]),
        "ProbePodLabel": len(meta.get("labels", {}).get("probe", "")),
        "ProbePodNodeName": len(pod["spec"].get("nodeName", "")),
        "ProbePodCpu": preq.get("cpu", 0) // 10,
        "ProbePodMemory": preq.get("memory", 0) >> 24,
        "ProbePodPods": 1,
        "ProbePodGpu": preq.get("example.com/gpu", 0),
        "ProbePodPriority": pod["spec"].get("priority", 0),
        "ProbeNodeName": len(vn["name"]),
        "ProbeNodeLabel": len(node["metadata"].get("labels", {}).get("probe", "")),
        "ProbeNodeAllocCpu": res(alloc, "cpu") // 100,
        "ProbeNodeAllocPods": res(alloc, "pods"),
        "ProbeNodeAllocGpu": res(alloc, "example.com/gpu"),
        "ProbeNodeReqCpu": nreq.get("cpu", 0) // 10,
        "ProbeNodeReqMemory": nreq.get("memory", 0) >> 24,
        "ProbeNodeReqPods": len(on),
        "ProbeNodeReqGpu": nreq.get("example.com/gpu", 0),
        "ProbeNodeUnschedulable": 1 if node.get("spec", {}).get("unschedulable") else 0,
    }
    if set(vn["scores"]) != set(want):
        print("%s: scores for %s, want %s" % (vn["name"], sorted(vn["scores"]), sorted(want)))
        bad += 1
        continue
    for k, w in want.items():
        seen += 1
        if vn["scores"][k] != w:
            print("%s: %s = %s, want %s" % (vn["name"], k, vn["scores"][k], w))
            bad += 1
print("%d values checked, %d wrong" % (seen, bad))
sys.exit(1 if bad or not seen else 0)
