"""suite_extender.py: a real kube-scheduler v1.20.2 calling our `serve`.

Every kube-scheduler file under deploy/scheduler/ that a v1.20 scheduler can
read, used as shipped (only the extender URL, the kubeconfig path and, for
the nodeCacheCapable=false and bindVerb variants, that one field changed),
with the extender serving the shipped deploy/policy/extender-policy.json:
  - the seeds' scenario: a high-comm pod lands only on an RDMA node, plain
    pods are steered off RDMA nodes by CustomPriorityPolicy, a pod pinned
    with spec.nodeName is answered by PodFitsHostNew from the live cache;
  - a burst: 30 pods of 1 CPU at once on three 4-CPU nodes, never a node
    over its allocatable (and every CPU used);
  - preemption through our `preempt` answer: the victims v1.22 would pick.
Plus the shape we no longer ship but document (kube-scheduler with
`predicates: []`, `priorities: []`, the extender deciding alone with the
full Policy): the same burst, kept safe by the extender's holds.
"""
import json
import os
import time

import actors
import k8s

EXT_POLICY = "deploy/policy/extender-policy.json"
FULL_POLICY = "deploy/policy/policy.json"
RDMA = {"node.kubernetes.io/rdma-enabled": "true"}
SCHED = actors.SCHEDULER_NAME


def path(s, rel):
    return os.path.join(s.env.root, rel)


def start(s, shape, policy=EXT_POLICY, cache_capable=True, bind=False,
          serve_args=()):
    """serve + kube-scheduler wired by the shipped file of `shape`."""
    srv = actors.Serve(s, path(s, policy), *serve_args)
    wd = s.env.workdir
    if shape == "policy":
        pol, f = actors.scheduler_files(s, "policy", srv.url, wd)
        ours = [x for x in pol["extenders"] if x["urlPrefix"] == srv.url]
        s.require(len(ours) == 1, "the shipped Policy has one extender entry for us")
        ours[0]["nodeCacheCapable"] = cache_capable
        if bind:
            ours[0]["bindVerb"] = "bind"
        with open(f, "w") as fh:
            json.dump(pol, fh)
        ks = actors.KubeScheduler(s, policy_file=f, v=int(os.environ.get("KS_V", "2")))
    else:
        text, f = actors.scheduler_files(s, "v1beta1", srv.url, wd)
        if not cache_capable:
            text = text.replace("nodeCacheCapable: true", "nodeCacheCapable: false")
        if bind:
            text = text.replace("filterVerb: filter", "filterVerb: filter\n    bindVerb: bind")
        with open(f, "w") as fh:
            fh.write(text)
        ks = actors.KubeScheduler(s, config_file=f)
    return srv, ks


def wait_settled(s, n_pods, want_bound=None, timeout=90):
    """Until want_bound pods are bound (default: all), then a little more
    to see that nothing else gets bound."""
    want = n_pods if want_bound is None else want_bound

    def done():
        return len(k8s.bound(s.cp.pods())) >= want
    k8s.wait_for(f"{want} of {n_pods} pods bound", done, timeout=timeout, interval=0.25)
    time.sleep(2.0)
    return s.cp.pods()


def check_no_overcommit(s, label, alloc_m=4000):
    load = k8s.node_load(s.cp)
    over = {n: m for n, (m, _) in load.items() if m > alloc_m}
    s.check(not over, f"{label}: no node over its allocatable CPU "
                      f"(requested millicores per node: {dict(sorted((n, m) for n, (m, _) in load.items()))})")
    return load


# -- the seeds' scenario ---------------------------------------------------

def seeds(s, shape, cache_capable=True, bind=False):
    for n in ("rdma-1", "rdma-2"):
        s.cp.create_node(n, labels=RDMA)
    for n in ("general-1", "general-2", "general-3"):
        s.cp.create_node(n)
    srv, _ = start(s, shape, cache_capable=cache_capable, bind=bind)
    # A pod pinned with spec.nodeName is bound by the API server itself (no
    # scheduler sees it); the extender must answer PodFitsHostNew for it
    # from the live cache, and count its CPU on general-3.
    s.cp.create_pod("pinned", cpu="1", scheduler=SCHED, node_name="general-3")
    k8s.wait_for("the pinned pod in serve's cache",
                 lambda: any("default/pinned" in n.get("pods", [])
                             for n in srv.cache().get("nodes", [])), timeout=20)
    pinned = s.cp.get("/api/v1/namespaces/default/pods/pinned")
    ans = actors.http_post(srv.url + "/filter", {
        "Pod": pinned, "Nodes": None,
        "NodeNames": ["rdma-1", "rdma-2", "general-1", "general-2", "general-3"]})
    s.check(ans.get("NodeNames") == ["general-3"] and not ans.get("Error"),
            f"PodFitsHostNew: the pinned pod fits only general-3 (got {ans.get('NodeNames')})")
    s.check(all("hostname" in r for r in (ans.get("FailedNodes") or {}).values())
            and len(ans.get("FailedNodes") or {}) == 4,
            f"PodFitsHostNew's reason on the 4 other nodes ({ans.get('FailedNodes')})")
    s.cp.create_pod("hc", cpu="1", scheduler=SCHED, labels={"high-comm": "true"})
    for i in range(4):
        s.cp.create_pod(f"plain-{i}", cpu="500m", scheduler=SCHED)
    pods = {p["metadata"]["name"]: p for p in wait_settled(s, 6)}
    hc = pods["hc"]["spec"].get("nodeName")
    s.check(hc in ("rdma-1", "rdma-2"), f"the high-comm pod is on an RDMA node ({hc})")
    plain = {n: pods[n]["spec"].get("nodeName") for n in pods if n.startswith("plain-")}
    s.check(all(v and v.startswith("general-") for v in plain.values()),
            f"plain pods avoid RDMA nodes through CustomPriorityPolicy ({plain})")
    if bind:
        log = srv.proc.tail(400)
        s.check("POST /bind" in log or "/bind" in log,
                "kube-scheduler bound through our bind verb (serve logged /bind)")
    m = srv.metrics()
    s.check("kpe_filter_nodes_total" in m, "serve counted its filter calls")


def seeds_policy_file(s):
    seeds(s, "policy")


def seeds_policy_file_full_nodes(s):
    seeds(s, "policy", cache_capable=False)


def seeds_policy_file_bind(s):
    seeds(s, "policy", bind=True)


def seeds_v1beta1(s):
    seeds(s, "v1beta1")


def seeds_v1beta1_full_nodes(s):
    seeds(s, "v1beta1", cache_capable=False)


def seeds_v1beta1_bind(s):
    seeds(s, "v1beta1", bind=True)


# -- the burst -------------------------------------------------------------

def burst(s, shape, policy=EXT_POLICY, bind=False, cache_capable=True, serve_args=()):
    for n in ("general-1", "general-2", "general-3"):
        s.cp.create_node(n)
    srv, ks = start(s, shape, policy=policy, bind=bind, cache_capable=cache_capable,
                    serve_args=serve_args)
    for i in range(30):
        s.cp.create_pod(f"burst-{i:02d}", cpu="1", scheduler=SCHED)
    wait_settled(s, 30, want_bound=12, timeout=120)
    load = check_no_overcommit(s, f"burst through {shape}")
    nbound = len(k8s.bound(s.cp.pods()))
    s.check(nbound == 12, f"exactly 12 of 30 pods bound, every CPU used ({nbound})")
    return srv, load


def burst_policy_file(s):
    burst(s, "policy")


def burst_policy_file_full_nodes(s):
    burst(s, "policy", cache_capable=False)


def burst_policy_file_bind(s):
    burst(s, "policy", bind=True)


def burst_v1beta1(s):
    burst(s, "v1beta1")


def burst_v1beta1_bind(s):
    burst(s, "v1beta1", bind=True)


def sole_shape(s, bind=False, cache_capable=True):
    """The extender deciding alone: kube-scheduler's Policy has no
    predicates or priorities of its own (it still adds its two mandatory
    ones), the extender serves the full Policy."""
    for n in ("general-1", "general-2", "general-3"):
        s.cp.create_node(n)
    srv = actors.Serve(s, path(s, FULL_POLICY))
    pol = {"kind": "Policy", "apiVersion": "v1", "predicates": [], "priorities": [],
           "extenders": [{"urlPrefix": srv.url, "filterVerb": "filter",
                          "prioritizeVerb": "prioritize", "preemptVerb": "preempt",
                          "bindVerb": "bind" if bind else "", "weight": 1,
                          "nodeCacheCapable": cache_capable,
                          "httpTimeout": 5000000000, "ignorable": False}]}
    f = os.path.join(s.env.workdir, f"sole-{k8s.free_port()}.json")
    with open(f, "w") as fh:
        json.dump(pol, fh)
    actors.KubeScheduler(s, policy_file=f)
    for i in range(30):
        s.cp.create_pod(f"burst-{i:02d}", cpu="1", scheduler=SCHED)
    wait_settled(s, 30, want_bound=12, timeout=120)
    check_no_overcommit(s, "burst, extender deciding alone")
    nbound = len(k8s.bound(s.cp.pods()))
    s.check(nbound == 12, f"exactly 12 of 30 pods bound ({nbound})")
    m = srv.metrics()
    holds = [l for l in m.splitlines() if l.startswith("kpe_extender_holds_total")]
    s.check(holds and int(float(holds[0].split()[-1])) >= 12,
            f"serve held the pods it singled out ({holds})")


def burst_sole_shape(s):
    sole_shape(s)


def burst_sole_shape_full_nodes(s):
    sole_shape(s, cache_capable=False)


def burst_sole_shape_bind(s):
    sole_shape(s, bind=True)


# -- preemption ------------------------------------------------------------

def preemption(s, shape):
    """One 4-CPU node full of 1-CPU pods of priorities 10, 20, 30, 40; a
    2-CPU pod of priority 1000. v1.22 removes every lower-priority pod, then
    reprieves from the highest priority down while the preemptor still
    fits: the victims are the pods of priority 10 and 20.

    kube-scheduler v1.20.2 never calls an extender's preempt verb: its
    scheduler factory does not hand the extenders to the framework
    (pkg/scheduler/factory.go: profile.NewMap without WithExtenders), so
    DefaultPreemption's CallExtenders sees none. Our preempt answer is
    therefore asked directly, with the ExtenderPreemptionArgs that
    kube-scheduler sends (NodeNameToMetaVictims, nodeCacheCapable), against
    the live cache, before kube-scheduler preempts in-tree."""
    s.cp.create_node("general-1")
    for v in (10, 20, 30, 40, 1000):
        s.cp.post("/apis/scheduling.k8s.io/v1/priorityclasses", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": f"p{v}"}, "value": v})
    srv, _ = start(s, shape)
    for v in (10, 20, 30, 40):
        s.cp.create_pod(f"low-{v}", cpu="1", scheduler=SCHED, priority_class=f"p{v}")
    wait_settled(s, 4)
    uid = {p["metadata"]["name"]: p["metadata"]["uid"] for p in s.cp.pods()}
    urgent = {"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": "urgent", "namespace": "default"},
              "spec": {"schedulerName": SCHED, "priority": 1000,
                       "containers": [{"name": "c", "resources": {
                           "requests": {"cpu": "2"}, "limits": {"cpu": "2"}}}]}}

    def ask(url, pod, victims):
        return actors.http_post(url + "/preempt", {
            "Pod": pod, "NodeNameToVictims": None,
            "NodeNameToMetaVictims": {"general-1": {
                "Pods": [{"UID": uid[v]} for v in victims], "NumPDBViolations": 0}}})

    def kept(ans):
        got = (ans.get("NodeNameToMetaVictims") or {}).get("general-1", {})
        return sorted(v["UID"] for v in got.get("Pods", []))
    v122 = sorted([uid["low-10"], uid["low-20"]])
    ans = ask(srv.url, urgent, ["low-10", "low-20"])
    s.check(kept(ans) == v122,
            f"extender policy: preempt keeps general-1 with v1.22's victims ({ans})")
    hc = json.loads(json.dumps(urgent))
    hc["metadata"]["labels"] = {"high-comm": "true"}
    ans = ask(srv.url, hc, ["low-10", "low-20"])
    s.check(not kept(ans), f"extender policy: preempt drops general-1 for a high-comm "
                           f"preemptor (HighCommPodFilter) ({ans})")
    # The full Policy (the extender deciding alone) also checks resources.
    full = actors.Serve(s, path(s, FULL_POLICY), name="serve-full")
    ans = ask(full.url, urgent, ["low-10", "low-20"])
    s.check(kept(ans) == v122, f"full policy: preempt keeps v1.22's victims ({ans})")
    ans = ask(full.url, urgent, ["low-10"])
    s.check(not kept(ans), f"full policy: preempt drops general-1 when one victim does "
                           f"not free 2 CPUs ({ans})")
    s.cp.create_pod("urgent", cpu="2", scheduler=SCHED, priority_class="p1000")

    def preempted():
        s.cp.finish_deletions()
        names = {p["metadata"]["name"]: p for p in s.cp.pods()}
        return "urgent" in names and names["urgent"]["spec"].get("nodeName")
    k8s.wait_for("the preemptor bound", preempted, timeout=90, interval=0.5)
    left = sorted(p["metadata"]["name"] for p in s.cp.pods())
    s.check(left == ["low-30", "low-40", "urgent"],
            f"kube-scheduler evicted low-10 and low-20, as v1.22 and our answer pick (left: {left})")
    check_no_overcommit(s, "after preemption")


def preemption_policy_file(s):
    preemption(s, "policy")


def preemption_v1beta1(s):
    preemption(s, "v1beta1")


SCENARIOS = [
    seeds_policy_file, seeds_policy_file_full_nodes, seeds_policy_file_bind,
    seeds_v1beta1, seeds_v1beta1_full_nodes, seeds_v1beta1_bind,
    burst_policy_file, burst_policy_file_full_nodes, burst_policy_file_bind,
    burst_v1beta1, burst_v1beta1_bind,
    burst_sole_shape, burst_sole_shape_full_nodes, burst_sole_shape_bind,
    preemption_policy_file, preemption_v1beta1,
]
