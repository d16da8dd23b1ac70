"""bench_workloads.py: the scale bench's workloads, as data (one table).

Shaped after kube-scheduler's own test/integration/scheduler_perf: the
v1.20.2 config/performance-config.yaml and its pod and node templates
(config/node-default.yaml, pod-default.yaml, pod-with-pod-anti-affinity.yaml,
pod-with-preferred-pod-affinity.yaml, pod-with-node-affinity.yaml,
pod-with-topology-spreading.yaml, pod-with-preferred-topology-spreading.yaml,
pod-large-cpu.yaml, pod-low-priority.yaml, pod-high-priority.yaml). Where
v1.20.2 lacks a workload or a size, the later upstream config is followed:
SchedulingWithMixedChurn (misc/performance-config.yaml: churn in recreate
mode, one node, one pod-high-priority-large-cpu.yaml pod and one Service
every second; its 1000Nodes counts are used at 500 nodes) and the
PodAntiAffinity 5000Nodes counts (affinity/performance-config.yaml; v1.20.2
creates only 500 nodes there).

Differences from scheduler_perf, all the same for every row:
- by default (BENCH_POD_SCALE=auto) the measured pods are raised to
  AUTO_MEASURED where they fit (counts());
- init pods are created already bound (spec.nodeName, round-robin over the
  nodes, each placement feasible for its template) instead of being
  scheduled first: they are not measured either way, and every row starts
  from the same cluster;
- measured pods are all created before the row's scheduler starts (the
  queue is full from the first cycle, as in the former bench-e2e);
- a PriorityClass stands for the templates' bare `priority: 10` (the
  Priority admission plugin, on in a real API server, refuses a bare one);
- Unschedulable's init pods stay pending for the whole workload;
- the nodes carry the labels of every workload at once (NODE_LABELS).
"""

import k8s

ZONE = "topology.kubernetes.io/zone"
OLD_ZONE = "failure-domain.beta.kubernetes.io/zone"
HIGH_PRIORITY_CLASS = "kpe-bench-high"   # value 10, as the templates' priority
INIT_NS, MEASURED_NS, CHURN_NS = "sched-setup", "sched-test", "sched-churn"

# Node labels (upstream's labelNodePrepareStrategy of SchedulingNodeAffinity
# and of the TopologySpreading pair; uniqueNodeLabelStrategy's hostname is on
# every node anyway). One node set serves every workload, so every node
# carries both: no other workload's pods look at either key.
NODE_LABELS = [(OLD_ZONE, ["zone1"]), (ZONE, ["moon-1", "moon-2", "moon-3"])]

_CONTAINER = {"name": "pause", "image": "registry.k8s.io/pause:3.2",
              "ports": [{"containerPort": 80}]}


def _res(cpu, memory="500Mi", limits=True):
    r = {"requests": {"cpu": cpu, "memory": memory}}
    if limits:
        r["limits"] = dict(r["requests"])
    return r


_BOTH_NS = [MEASURED_NS, INIT_NS]

# Pod templates: labels, spec fields beside the one container, resources.
POD_TEMPLATES = {
    "default": {"resources": _res("100m")},
    "anti-affinity": {
        "labels": {"color": "green"}, "resources": _res("100m"),
        "spec": {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"color": "green"}},
             "topologyKey": "kubernetes.io/hostname", "namespaces": _BOTH_NS}]}}}},
    "preferred-affinity": {
        "labels": {"color": "red"}, "resources": _res("100m"),
        "spec": {"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"color": "red"}},
                "topologyKey": "kubernetes.io/hostname", "namespaces": _BOTH_NS}}]}}}},
    "node-affinity": {
        "resources": _res("100m"),
        "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": OLD_ZONE, "operator": "In", "values": ["zone1", "zone2"]}]}]}}}}},
    "topology-spreading": {
        "resources": _res("100m"),
        "spec": {"topologySpreadConstraints": [
            {"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}]}},
    "preferred-topology-spreading": {
        "resources": _res("100m"),
        "spec": {"topologySpreadConstraints": [
            {"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"}]}},
    "large-cpu": {"resources": _res("9", limits=False)},
    "low-priority": {"resources": _res("900m"),
                     "spec": {"terminationGracePeriodSeconds": 0}},
    "high-priority": {"resources": _res("3000m"),
                      "spec": {"priorityClassName": HIGH_PRIORITY_CLASS}},
    "high-priority-large-cpu": {"resources": _res("9", limits=False),
                                "spec": {"priorityClassName": HIGH_PRIORITY_CLASS}},
}

# The table. counts: nodes -> (init pods, measured pods), from upstream's
# 500Nodes and 5000Nodes entries; other sizes scale the 500-node counts.
# max_measured: how many measured pods fit beside the init pods at a node
# count (one per node for PodAntiAffinity's hostname term and Preemption's
# 3-CPU pods); the automatic scale stays within it.
# init_bound: init pods are created bound (False: left pending, as
# Unschedulable's skipWaitToCompletion); init_consumed: the measured pods
# evict init pods, so each run starts from fresh ones; churn: templates
# recreated every second while the measured pods schedule.
WORKLOADS = [
    {"name": "SchedulingBasic", "init": "default", "measured": "default",
     "counts": {500: (500, 1000), 5000: (1000, 1000)}},
    {"name": "PodAntiAffinity", "init": "anti-affinity",
     "measured": "anti-affinity", "counts": {500: (100, 400), 5000: (1000, 1000)},
     "max_measured": lambda nodes, init: nodes - init},
    {"name": "PreferredPodAffinity", "init": "preferred-affinity",
     "measured": "preferred-affinity", "counts": {500: (500, 1000), 5000: (5000, 1000)}},
    {"name": "NodeAffinity", "init": "node-affinity",
     "measured": "node-affinity", "counts": {500: (500, 1000), 5000: (5000, 1000)}},
    {"name": "TopologySpreading", "init": "default",
     "measured": "topology-spreading", "counts": {500: (1000, 1000), 5000: (5000, 2000)}},
    {"name": "PreferredTopologySpreading", "init": "default",
     "measured": "preferred-topology-spreading",
     "counts": {500: (1000, 1000), 5000: (5000, 2000)}},
    {"name": "Unschedulable", "init": "large-cpu", "measured": "default",
     "init_bound": False, "counts": {500: (200, 1000), 5000: (200, 5000)}},
    {"name": "MixedChurn", "init": None, "measured": "default",
     "churn": ["node", "high-priority-large-cpu", "service"],
     "counts": {500: (0, 1000), 5000: (0, 2000)}},
    {"name": "Preemption", "init": "low-priority", "measured": "high-priority",
     "init_consumed": True, "counts": {500: (2000, 500), 5000: (20000, 5000)},
     "max_measured": lambda nodes, init: nodes},
]

DEFAULT_SIZES = (500, 5000)
NODE_MILLICPU = 4000   # node-default.yaml's 4 CPUs

# BENCH_POD_SCALE=auto (the default) raises the measured pods to this many
# where they fit. The 1-second samples need it: the rows bind 300-900 pods/s
# here, so upstream's 1,000 measured pods give one or two samples, and one
# run's figure moved by a third between rounds. BENCH_POD_SCALE=1 keeps
# upstream's counts exactly.
AUTO_MEASURED = 5000


def by_name(names):
    """The workloads named (all when names is empty), in table order; a
    ValueError naming any unknown one."""
    known = {w["name"] for w in WORKLOADS}
    bad = [n for n in names if n not in known]
    if bad:
        raise ValueError(f"unknown workload(s) {', '.join(bad)}; known: {', '.join(sorted(known))}")
    return [w for w in WORKLOADS if not names or w["name"] in names]


def upstream_counts(w, nodes):
    """(init pods, measured pods) of workload w at `nodes` nodes as upstream's
    config has them (other sizes scale the 500-node counts)."""
    if nodes in w["counts"]:
        return w["counts"][nodes]
    return tuple(round(c * nodes / 500) for c in w["counts"][500])


def counts(w, nodes, pod_scale="auto"):
    """(init pods, measured pods) of workload w at `nodes` nodes. pod_scale
    multiplies the measured pods only (the init pods keep their share of the
    nodes: Preemption's fill must stay full); "auto" raises them to
    AUTO_MEASURED. Raised above upstream's count, they stay within what fits:
    the workload's max_measured, else cpu_fit (CPU binds before memory or
    the 110-pod limit for every template here)."""
    init, measured = upstream_counts(w, nodes)
    if "max_measured" in w:
        cap = w["max_measured"](nodes, init)
    else:
        cap = cpu_fit(w, nodes, init)
    if pod_scale == "auto":
        want = max(measured, AUTO_MEASURED)
    else:
        want = max(1, round(measured * pod_scale))
    if pod_scale == "auto" or want > measured:
        want = min(want, max(measured, cap))
    return init, want


def cpu_fit(w, nodes, init):
    """How many measured pods fit in nine tenths of the CPU the bound init
    pods leave on `nodes` nodes (node(): 4 CPUs each)."""
    free = nodes * NODE_MILLICPU
    if w["init"] and w.get("init_bound", True):
        free -= init * k8s.cpu_millis(POD_TEMPLATES[w["init"]]["resources"]["requests"]["cpu"])
    per = k8s.cpu_millis(POD_TEMPLATES[w["measured"]]["resources"]["requests"]["cpu"])
    return max(0, free * 9 // 10 // per)


def parse_pod_scale(text):
    """BENCH_POD_SCALE: "auto" or a positive number; ValueError otherwise."""
    if text.strip() == "auto":
        return "auto"
    try:
        v = float(text)
    except ValueError:
        v = 0.0
    if not v > 0 or v != v or v == float("inf"):
        raise ValueError(f"BENCH_POD_SCALE must be auto or a positive number, not {text!r}")
    return v


def node_name(i):
    return f"node-{i:05d}"


def node(i, name=None):
    """Node i: node-default.yaml's capacity, Ready, with NODE_LABELS (value
    i modulo the list: a fixed spread instead of upstream's random pick)."""
    name = name or node_name(i)
    res = {"cpu": str(NODE_MILLICPU // 1000), "memory": "32Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
              "kubernetes.io/arch": "amd64"}
    for key, values in NODE_LABELS:
        labels[key] = values[i % len(values)]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "spec": {}, "status": {
                "capacity": res, "allocatable": res,
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
                "addresses": [{"type": "Hostname", "address": name}]}}


def pod(template, name, ns, scheduler, node=None):
    t = POD_TEMPLATES[template]
    c = dict(_CONTAINER, resources=t["resources"])
    spec = {"schedulerName": scheduler, "containers": [c], **t.get("spec", {})}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": dict(t.get("labels", {}))},
            "spec": spec}


def service(name, ns):
    """churn/service-default.yaml's shape."""
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns},
            "spec": {"selector": {"app": "churn"}, "ports": [{"port": 80, "targetPort": 8080}]}}


def priority_classes():
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": HIGH_PRIORITY_CLASS}, "value": 10}]
