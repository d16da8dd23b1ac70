"""randcluster.py: seeded random clusters, incoming pods and Policies for
the differential suite (suite_semantics.py).

A case is one namespace's worth of objects plus its own nodes: nodes with
cpu/memory/pods/an extended resource, hostname/zone/disk labels (some nodes
without a zone), taints, images and avoid-pods annotations; ReplicaSets,
ReplicationControllers, StatefulSets and Services; bound pods owned by them,
some without requests, some with (anti-)affinity and host ports; and one
incoming pod that may carry every constraint kind. Everything is drawn from
one random.Random, so a seed and a case index give the same case again.

Quantities are kept in the units the checks compute with: cpu in
millicores, memory in MiB, the extended resource in units.
"""
import json

EXT = "example.com/gpu"
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
APPS = ("a", "b", "c")
IMAGES = ("registry.k8s.io/img-small:1", "registry.k8s.io/img-mid:1",
          "registry.k8s.io/img-big:1")
IMAGE_SIZE = {IMAGES[0]: 30 << 20, IMAGES[1]: 300 << 20, IMAGES[2]: 900 << 20}
MI = 1 << 20

# The five Policies. Each plugin appears once per Policy so that the
# oracle's per-plugin line maps to one priority (priority name -> plugin).
PLUGIN_OF = {
    "LeastRequestedPriority": "NodeResourcesLeastAllocated",
    "MostRequestedPriority": "NodeResourcesMostAllocated",
    "BalancedResourceAllocation": "NodeResourcesBalancedAllocation",
    "ImageLocalityPriority": "ImageLocality",
    "NodeAffinityPriority": "NodeAffinity",
    "TaintTolerationPriority": "TaintToleration",
    "NodePreferAvoidPodsPriority": "NodePreferAvoidPods",
    "SelectorSpreadPriority": "PodTopologySpread",
    "EvenPodsSpreadPriority": "PodTopologySpread",
    "InterPodAffinityPriority": "InterPodAffinity",
    "RequestedToCapacityRatioPriority": "RequestedToCapacityRatio",
}


def _prio(name, weight, argument=None):
    p = {"name": name, "weight": weight}
    if argument:
        p["argument"] = argument
    return p


def _preds(*names):
    return [{"name": n} for n in names]


POLICIES = {
    # The default priorities with the default predicates (predicates absent).
    "defaults": {"kind": "Policy", "apiVersion": "v1", "priorities": [
        _prio("LeastRequestedPriority", 1), _prio("BalancedResourceAllocation", 1),
        _prio("ImageLocalityPriority", 1), _prio("NodeAffinityPriority", 1),
        _prio("TaintTolerationPriority", 1), _prio("NodePreferAvoidPodsPriority", 10000),
        _prio("SelectorSpreadPriority", 1), _prio("InterPodAffinityPriority", 1)]},
    "most": {"kind": "Policy", "apiVersion": "v1",
             "predicates": _preds("PodFitsResources", "PodFitsHostPorts", "HostName",
                                  "MatchNodeSelector", "PodToleratesNodeTaints",
                                  "MatchInterPodAffinity"),
             "priorities": [_prio("MostRequestedPriority", 3),
                            _prio("InterPodAffinityPriority", 2),
                            _prio("TaintTolerationPriority", 1)],
             "hardPodAffinitySymmetricWeight": 5},
    "rtcr": {"kind": "Policy", "apiVersion": "v1",
             "predicates": _preds("GeneralPredicates", "PodToleratesNodeTaints",
                                  "EvenPodsSpread", "MatchInterPodAffinity"),
             "priorities": [
                 _prio("RequestedToCapacityRatioPriority", 2, {
                     "requestedToCapacityRatioArguments": {
                         "shape": [{"utilization": 0, "score": 0},
                                   {"utilization": 100, "score": 10}],
                         "resources": [{"name": "cpu", "weight": 1},
                                       {"name": "memory", "weight": 1},
                                       {"name": EXT, "weight": 2}]}}),
                 _prio("ImageLocalityPriority", 1), _prio("NodeAffinityPriority", 1)]},
    "spread": {"kind": "Policy", "apiVersion": "v1",
               "predicates": _preds("GeneralPredicates", "CheckNodeUnschedulable",
                                    "PodToleratesNodeTaints", "EvenPodsSpread",
                                    "MatchInterPodAffinity"),
               "priorities": [_prio("EvenPodsSpreadPriority", 2),
                              _prio("BalancedResourceAllocation", 1),
                              _prio("TaintTolerationPriority", 1)]},
    "selector": {"kind": "Policy", "apiVersion": "v1",
                 "predicates": _preds("GeneralPredicates", "CheckNodeUnschedulable",
                                      "PodToleratesNodeTaints", "MatchInterPodAffinity"),
                 "priorities": [
                     _prio("SelectorSpreadPriority", 2), _prio("InterPodAffinityPriority", 1),
                     _prio("NodePreferAvoidPodsPriority", 10000),
                     _prio("RequestedToCapacityRatioPriority", 1, {
                         "requestedToCapacityRatioArguments": {
                             "shape": [{"utilization": 0, "score": 10},
                                       {"utilization": 60, "score": 4},
                                       {"utilization": 100, "score": 0}],
                             "resources": [{"name": "cpu", "weight": 2},
                                           {"name": "memory", "weight": 1}]}})],
                 "hardPodAffinitySymmetricWeight": 3},
}


def weights(policy):
    """priority name -> weight of a Policy."""
    return {p["name"]: p["weight"] for p in policy.get("priorities", [])}


def _res(cpu_m, mem_mi, gpu):
    r = {}
    if cpu_m is not None:
        r["cpu"] = f"{cpu_m}m"
    if mem_mi is not None:
        r["memory"] = f"{mem_mi}Mi"
    if gpu:
        r[EXT] = str(gpu)
    return r


class Case:
    """One random case: objects to create (in order), the incoming pod, and
    the model the score checks recompute from."""

    def __init__(self, rng, ns):
        self.ns = ns
        self.rng = rng
        self.controllers = []   # (kind, name, app)
        self.objects = []       # namespaced objects, created before nodes
        self.nodes = []         # Node objects (annotations filled after controllers)
        self.bound = []         # bound Pod objects
        self.pod = None
        self._gen()

    # -- generation ------------------------------------------------------
    def _gen(self):
        r = self.rng
        ns = self.ns
        for app in APPS:
            sel = {"app": app}
            tmpl = {"metadata": {"labels": sel},
                    "spec": {"containers": [{"name": "c", "image": IMAGES[0]}]}}
            if r.random() < 0.7:
                self.objects.append({"apiVersion": "v1", "kind": "Service",
                                     "metadata": {"name": f"svc-{app}", "namespace": ns},
                                     # headless: no cluster IP, so a long
                                     # run cannot exhaust the /24 range
                                     # (spreading reads only the selector)
                                     "spec": {"selector": sel, "clusterIP": "None",
                                              "ports": [{"port": 80}]}})
            if r.random() < 0.6:
                self.objects.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                     "metadata": {"name": f"rs-{app}", "namespace": ns},
                                     "spec": {"replicas": 0, "selector": {"matchLabels": sel},
                                              "template": tmpl}})
                self.controllers.append(("ReplicaSet", f"rs-{app}", app))
            if r.random() < 0.3:
                self.objects.append({"apiVersion": "v1", "kind": "ReplicationController",
                                     "metadata": {"name": f"rc-{app}", "namespace": ns},
                                     "spec": {"replicas": 0, "selector": sel,
                                              "template": tmpl}})
                self.controllers.append(("ReplicationController", f"rc-{app}", app))
            if r.random() < 0.3:
                self.objects.append({"apiVersion": "apps/v1", "kind": "StatefulSet",
                                     "metadata": {"name": f"ss-{app}", "namespace": ns},
                                     "spec": {"replicas": 0, "serviceName": f"svc-{app}",
                                              "selector": {"matchLabels": sel},
                                              "template": tmpl}})
                self.controllers.append(("StatefulSet", f"ss-{app}", app))
        n_nodes = r.randint(4, 7)
        for i in range(n_nodes):
            name = f"{ns}-n{i}"
            cpu = r.choice((2000, 4000, 8000))
            mem = r.choice((4096, 8192, 16384))
            pods = r.choice((110, 110, 110, 4))
            gpu = r.choice((0, 0, 2, 4))
            labels = {HOST: name, "kubernetes.io/os": "linux",
                      "disk": r.choice(("ssd", "hdd"))}
            if r.random() < 0.8:
                labels[ZONE] = r.choice(("z1", "z2", "z3"))
            taints = []
            if r.random() < 0.35:
                taints.append({"key": "dedicated", "value": r.choice(("x", "y")),
                               "effect": r.choice(("NoSchedule", "PreferNoSchedule"))})
            images = [{"names": [im], "sizeBytes": IMAGE_SIZE[im]}
                      for im in IMAGES if r.random() < 0.4]
            alloc = {"cpu": f"{cpu}m", "memory": f"{mem}Mi", "pods": str(pods),
                     "ephemeral-storage": "100Gi"}
            if gpu:
                alloc[EXT] = str(gpu)
            self.nodes.append({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": labels, "annotations": {}},
                "spec": {"taints": taints, "unschedulable": r.random() < 0.1},
                "status": {"capacity": alloc, "allocatable": dict(alloc), "images": images,
                           "conditions": [{"type": "Ready", "status": "True"}],
                           "addresses": [{"type": "Hostname", "address": name}]}})
        # avoid-pods: filled in once the controllers' uids are known
        self.avoid = [(n["metadata"]["name"], r.choice(APPS)) for n in self.nodes
                      if r.random() < 0.25]
        for j in range(r.randint(3, 12)):
            node = r.choice(self.nodes)["metadata"]["name"]
            self.bound.append(self._pod(f"b{j}", node=node))
        self.pod = self._pod("incoming", incoming=True)

    def _pod(self, name, node=None, incoming=False):
        r = self.rng
        app = r.choice(APPS)
        labels = {"app": app, "tier": r.choice(("x", "y"))}
        containers = []
        for k in range(r.choice((1, 1, 2))):
            if r.random() < 0.2:
                req = {}                                  # defaults count in v1.20
            else:
                req = _res(r.choice((100, 250, 500, 1000, 1500)) if r.random() < 0.9 else None,
                           r.choice((128, 512, 1024, 3072)) if r.random() < 0.8 else None,
                           r.choice((0, 0, 1, 2)))
            c = {"name": f"c{k}", "image": r.choice(IMAGES),
                 "resources": {"requests": req, "limits": dict(req)} if req else {}}
            containers.append(c)
        spec = {"containers": containers, "schedulerName": "my-scheduler"}
        meta = {"name": name, "namespace": self.ns, "labels": labels}
        owners = [c for c in self.controllers if c[2] == app]
        if owners and r.random() < (0.6 if incoming else 0.8):
            kind, cname, _ = r.choice(owners)
            meta["ownerReferences"] = [{"apiVersion": "v1" if kind == "ReplicationController"
                                        else "apps/v1", "kind": kind, "name": cname,
                                        "uid": "", "controller": True}]
        if node:
            spec["nodeName"] = node
        p = incoming and 1.0 or 0.25
        if r.random() < 0.2 * p + (0.1 if not incoming else 0):
            containers[0]["ports"] = [{"containerPort": 8080, "hostPort": 8080}]
        aff = {}
        if incoming:
            if r.random() < 0.25:
                spec["nodeSelector"] = {"disk": r.choice(("ssd", "hdd"))}
            if r.random() < 0.3:
                aff.setdefault("nodeAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = {
                    "nodeSelectorTerms": [{"matchExpressions": [
                        {"key": ZONE, "operator": "In",
                         "values": r.sample(("z1", "z2", "z3"), 2)}]}]}
            if r.random() < 0.6:
                aff.setdefault("nodeAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": r.randint(1, 100), "preference": {"matchExpressions": [
                        {"key": "disk", "operator": "In", "values": [r.choice(("ssd", "hdd"))]}]}}]
            if r.random() < 0.6:
                spec["tolerations"] = [{"key": "dedicated", "operator": "Equal",
                                        "value": r.choice(("x", "y")),
                                        "effect": r.choice(("NoSchedule", "PreferNoSchedule"))}]
            if r.random() < 0.5:
                spec["topologySpreadConstraints"] = [{
                    "maxSkew": r.randint(1, 2), "topologyKey": r.choice((ZONE, HOST)),
                    "whenUnsatisfiable": r.choice(("DoNotSchedule", "ScheduleAnyway")),
                    "labelSelector": {"matchLabels": {"app": app}}}]
        pa = {}
        if r.random() < (0.2 if incoming else 0.1):
            pa.setdefault("podAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
                {"labelSelector": {"matchLabels": {"app": r.choice(APPS)}},
                 "topologyKey": ZONE}]
        if r.random() < (0.3 if incoming else 0.15):
            pa.setdefault("podAntiAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
                {"labelSelector": {"matchLabels": {"app": r.choice(APPS)}},
                 "topologyKey": r.choice((HOST, ZONE))}]
        if r.random() < (0.6 if incoming else 0.3):
            pa.setdefault("podAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": r.randint(1, 100), "podAffinityTerm": {
                    "labelSelector": {"matchLabels": {"tier": r.choice(("x", "y"))}},
                    "topologyKey": r.choice((HOST, ZONE))}}]
        if r.random() < (0.5 if incoming else 0.3):
            pa.setdefault("podAntiAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": r.randint(1, 100), "podAffinityTerm": {
                    "labelSelector": {"matchLabels": {"app": r.choice(APPS)}},
                    "topologyKey": r.choice((HOST, ZONE))}}]
        aff.update(pa)
        if aff:
            spec["affinity"] = aff
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}

    def avoid_annotation(self, app, uids):
        """The preferAvoidPods annotation naming app's RS or RC (by uid)."""
        sigs = []
        for kind, name, a in self.controllers:
            if a == app and kind in ("ReplicaSet", "ReplicationController"):
                sigs.append({"podSignature": {"podController": {
                    "apiVersion": "v1" if kind == "ReplicationController" else "apps/v1",
                    "kind": kind, "name": name, "uid": uids[(kind, name)],
                    "controller": True}}, "reason": "e2e", "message": "avoid"})
        return json.dumps({"preferAvoidPods": sigs}) if sigs else None


# -- the resource model the v1.20 / v1.22 rules are recomputed from ---------

def qty(s):
    """A quantity string as the case writes it -> (millicores | MiB | units)."""
    s = str(s)
    for suf, mul in (("m", 1), ("Mi", 1), ("Gi", 1024)):
        if s.endswith(suf):
            return int(s[:-len(suf)]) * mul
    return int(s)


def pod_requests(pod, non_zero):
    """{cpu (m), memory (bytes), EXT} of a pod; non_zero applies v1.20's
    per-container defaults (100m / 200MiB) to cpu and memory."""
    out = {"cpu": 0, "memory": 0, EXT: 0}
    for c in pod["spec"]["containers"]:
        req = c.get("resources", {}).get("requests", {})
        cpu = qty(req["cpu"]) if "cpu" in req else (100 if non_zero else 0)
        mem = qty(req["memory"]) * MI if "memory" in req else (200 * MI if non_zero else 0)
        out["cpu"] += cpu
        out["memory"] += mem
        out[EXT] += qty(req.get(EXT, "0"))
    return out


def node_inputs(case, node_name, non_zero):
    """(allocatable, requested incl. the incoming pod) of one node."""
    node = next(n for n in case.nodes if n["metadata"]["name"] == node_name)
    a = node["status"]["allocatable"]
    alloc = {"cpu": qty(a["cpu"]), "memory": qty(a["memory"]) * MI, EXT: qty(a.get(EXT, "0"))}
    req = pod_requests(case.pod, non_zero)
    for b in case.bound:
        if b["spec"]["nodeName"] == node_name:
            for k, v in pod_requests(b, non_zero).items():
                req[k] += v
    return alloc, req
