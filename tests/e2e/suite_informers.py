"""suite_informers.py: `serve --kubeconfig`'s cache against a real
kube-apiserver v1.20 (issue 14, point 5).

Nodes and pods churn (created, relabelled, deleted, bound through the
Binding subresource, finished) while serve watches; kube-apiserver is
restarted under it in the middle of the churn. serve must notice (its log
shows the broken watches and the relist or reconnect), turn ready again,
and end with /debug/cache equal to what `kubectl get nodes,pods -A -o json`
lists: the same nodes, on each node the same pods, and the same summed
CPU and memory requests; pods bound to a node that does not exist are
counted as orphans.
"""
import random
import re
import threading
import time

import actors
import k8s

POLICY = "deploy/policy/policy.json"
NS2 = "kpe-e2e-informers"  # a second namespace, so that -A matters
NOBODY = "kpe-e2e-nobody"  # a scheduler name nothing serves: pods stay pending

_MEM = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9,
        "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}


def mem_bytes(q):
    m = re.fullmatch(r"(\d+)([A-Za-z]*)", str(q))
    if not m or m.group(2) not in _MEM:
        raise ValueError(f"memory quantity {q!r} not handled by the test")
    return int(m.group(1)) * _MEM[m.group(2)]


def pod_requests(p):
    cpu = mem = 0
    for c in p["spec"]["containers"]:
        r = c.get("resources", {}).get("requests", {})
        cpu += k8s.cpu_millis(r.get("cpu", "0"))
        mem += mem_bytes(r.get("memory", "0"))
    return cpu, mem


def expected_from_kubectl(s):
    """What the cache should hold, from the real kubectl: {node: (pods,
    milliCPU, memory)}, orphans (active pods on a node that does not
    exist)."""
    import json
    r = s.cp.kubectl("get", "nodes,pods", "-A", "-o", "json")
    items = json.loads(r.stdout)["items"]
    nodes = {i["metadata"]["name"]: (set(), 0, 0) for i in items if i["kind"] == "Node"}
    orphans = 0
    for p in (i for i in items if i["kind"] == "Pod"):
        n = p["spec"].get("nodeName")
        if not n or p["status"].get("phase") in ("Succeeded", "Failed"):
            continue
        if n not in nodes:
            orphans += 1
            continue
        pods, cpu, mem = nodes[n]
        c, m = pod_requests(p)
        pods.add(f"{p['metadata']['namespace']}/{p['metadata']['name']}")
        nodes[n] = (pods, cpu + c, mem + m)
    return nodes, orphans


def from_cache(serve):
    c = serve.cache()
    nodes = {n["name"]: (set(n["pods"]), n["requested"]["milliCPU"],
                         n["requested"]["memory"]) for n in c["nodes"]}
    dup = [n["name"] for n in c["nodes"] if len(set(n["pods"])) != len(n["pods"])]
    return nodes, c["orphanPods"], c["pods"], dup


def diff(want, got):
    out = []
    for n in sorted(set(want) | set(got)):
        if n not in got:
            out.append(f"node {n} missing from the cache")
        elif n not in want:
            out.append(f"node {n} in the cache only")
        elif want[n] != got[n]:
            wp, wc, wm = want[n]
            gp, gc, gm = got[n]
            out.append(f"node {n}: pods only in kubectl {sorted(wp - gp)}, only in the "
                       f"cache {sorted(gp - wp)}, milliCPU {wc} vs {gc}, memory {wm} vs {gm}")
    return out


def converge(s, serve, what, timeout=30):
    """Wait until /debug/cache equals kubectl's view; one check either way."""
    last = {}

    def same():
        if not serve.proc.alive():
            raise RuntimeError("serve exited:\n" + serve.proc.tail())
        want, worph = expected_from_kubectl(s)
        got, gorph, gpods, dup = from_cache(serve)
        last["d"] = diff(want, got) + (
            [f"orphans {worph} vs {gorph}"] if worph != gorph else []) + (
            [f"pods listed twice on {dup}"] if dup else []) + (
            [f"pods counted {gpods}, listed {sum(len(v[0]) for v in got.values())}"]
            if gpods != sum(len(v[0]) for v in got.values()) else [])
        last["n"] = (len(want), sum(len(v[0]) for v in want.values()), worph)
        return not last["d"]

    try:
        k8s.wait_for(what, same, timeout=timeout, interval=0.5)
        ok = True
    except TimeoutError:
        ok = False
    n = last.get("n", (0, 0, 0))
    s.check(ok, f"{what}: /debug/cache equals kubectl get nodes,pods -A "
            f"({n[0]} nodes, {n[1]} pods on them, {n[2]} orphans)"
            + ("" if ok else f"; differences: {last.get('d', [])[:6]}"))
    return ok


class Churn:
    """Random node and pod operations in a thread; every failure (the
    apiserver being down) is counted and the operation dropped."""

    def __init__(self, s, seed):
        self.s = s
        self.cp = s.cp
        self.rng = random.Random(seed)
        self.seq = 0
        self.ops = {}
        self.failed = {}
        self.unexpected = []
        self.stop_flag = threading.Event()
        self.t = None

    def _nodes(self):
        return [n["metadata"]["name"] for n in self.cp.nodes()]

    def _pods(self, ns):
        return self.cp.pods(ns)

    def op_create_node(self):
        self.seq += 1
        self.cp.create_node(f"churn-{self.seq}", cpu=str(self.rng.choice([4, 8, 16])),
                            memory=self.rng.choice(["16Gi", "32Gi"]))

    def op_recreate_node(self):
        # A node name pods are still bound to (orphans) comes back.
        have = set(self._nodes())
        names = {p["spec"].get("nodeName") for ns in ("default", NS2)
                 for p in self._pods(ns)} - have - {None}
        if names:
            self.cp.create_node(self.rng.choice(sorted(names)))

    def op_relabel_node(self):
        n = self.rng.choice(self._nodes())
        self.cp.patch(f"/api/v1/nodes/{n}",
                      {"metadata": {"labels": {"churn": str(self.rng.randrange(100))}}})

    def op_delete_node(self):
        n = self.rng.choice(self._nodes())
        self.cp.delete(f"/api/v1/nodes/{n}")

    def _pod_spec(self, ns):
        self.seq += 1
        cpu = self.rng.choice(["100m", "250m", "1", "1500m"])
        mem = self.rng.choice(["64Mi", "1Gi", "100M", "0"])
        c2 = {"name": "side", "image": "registry.k8s.io/pause:3.2",
              "resources": {"requests": {"cpu": "50m", "memory": "16Mi"}}}
        extra = {}
        if self.rng.random() < 0.3:
            extra["containers"] = [
                {"name": "c", "image": "registry.k8s.io/pause:3.2",
                 "resources": {"requests": {"cpu": cpu, "memory": mem}}}, c2]
        else:
            extra["containers"] = [
                {"name": "c", "image": "registry.k8s.io/pause:3.2",
                 "resources": {"requests": {"cpu": cpu, "memory": mem}}}]
        return f"churn-{self.seq}", extra

    def op_create_bound_pod(self):
        ns = self.rng.choice(["default", NS2])
        name, extra = self._pod_spec(ns)
        self.cp.create_pod(name, ns=ns, node_name=self.rng.choice(self._nodes()),
                           extra=extra)

    def op_create_pending_pod(self):
        ns = self.rng.choice(["default", NS2])
        name, extra = self._pod_spec(ns)
        self.cp.create_pod(name, ns=ns, scheduler=NOBODY, extra=extra)

    def op_bind_pod(self):
        ns = self.rng.choice(["default", NS2])
        pending = [p["metadata"]["name"] for p in self._pods(ns)
                   if not p["spec"].get("nodeName")]
        if pending:
            name = self.rng.choice(pending)
            self.cp.post(f"/api/v1/namespaces/{ns}/pods/{name}/binding", {
                "apiVersion": "v1", "kind": "Binding", "metadata": {"name": name},
                "target": {"apiVersion": "v1", "kind": "Node",
                           "name": self.rng.choice(self._nodes())}})

    def op_delete_pod(self):
        ns = self.rng.choice(["default", NS2])
        pods = [p["metadata"]["name"] for p in self._pods(ns)]
        if pods:
            self.cp.delete(f"/api/v1/namespaces/{ns}/pods/{self.rng.choice(pods)}", grace=0)

    def op_finish_pod(self):
        # The kubelet's report that a pod ended: the cache drops it.
        ns = self.rng.choice(["default", NS2])
        pods = [p["metadata"]["name"] for p in self._pods(ns) if p["spec"].get("nodeName")
                and p["status"].get("phase") not in ("Succeeded", "Failed")]
        if pods:
            self.cp.patch(f"/api/v1/namespaces/{ns}/pods/{self.rng.choice(pods)}/status",
                          {"status": {"phase": self.rng.choice(["Succeeded", "Failed"])}})

    OPS = [(op_create_node, 2), (op_recreate_node, 1), (op_relabel_node, 3),
           (op_delete_node, 1), (op_create_bound_pod, 6), (op_create_pending_pod, 3),
           (op_bind_pod, 3), (op_delete_pod, 3), (op_finish_pod, 1)]

    def step(self):
        fns = [f for f, _ in self.OPS]
        fn = self.rng.choices(fns, weights=[w for _, w in self.OPS])[0]
        name = fn.__name__[3:]
        try:
            fn(self)
            self.ops[name] = self.ops.get(name, 0) + 1
        except (OSError, k8s.ApiError, IndexError, ValueError) as ex:
            # 404/409: a race with our own earlier operation; others: down.
            self.failed[name] = self.failed.get(name, 0) + 1
            if isinstance(ex, k8s.ApiError) and ex.status in (400, 422):
                self.unexpected.append(f"{name}: {ex}")

    def run(self):
        while not self.stop_flag.is_set():
            self.step()
            time.sleep(0.02)

    def start(self):
        self.stop_flag.clear()
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def stop(self):
        self.stop_flag.set()
        self.t.join(timeout=60)
        return not self.t.is_alive()


def cleanup_ns2(cp):
    """delete_all empties default only; a namespace is never really deleted
    without a controller-manager, so its pods are removed one by one."""
    for p in cp.pods(NS2):
        try:
            cp.delete(f"/api/v1/namespaces/{NS2}/pods/{p['metadata']['name']}", grace=0)
        except k8s.ApiError as ex:
            if ex.status != 404:
                raise


def ready(serve):
    try:
        return actors.http_get(serve.url + "/readyz").startswith(b"ok")
    except OSError:
        return False


def scenario_churn_and_apiserver_restart_under_serve(s):
    cp = s.cp
    if not any(n["metadata"]["name"] == NS2 for n in cp.get("/api/v1/namespaces")["items"]):
        cp.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                       "metadata": {"name": NS2}})
    cleanup_ns2(cp)
    try:
        run_churn_scenario(s)
    finally:
        cleanup_ns2(cp)


def run_churn_scenario(s):
    cp = s.cp
    for i in range(6):
        cp.create_node(f"inf-{i}", cpu="8", memory="32Gi")
    churn = Churn(s, seed=14)
    for _ in range(20):
        churn.op_create_bound_pod()
    for _ in range(5):
        churn.op_create_pending_pod()
    serve = actors.Serve(s, f"{s.env.root}/{POLICY}", name="serve-informers")
    converge(s, serve, "after the first list")

    churn.start()
    time.sleep(4)
    s.require(churn.stop(), "churn thread stopped")
    s.check(sum(churn.ops.values()) >= 20 and not churn.unexpected,
            f"churn while watching: {churn.ops} ({churn.failed} raced) "
            f"{churn.unexpected[:3]}")
    converge(s, serve, "after churn while watching")

    log_mark = len(read_log(serve.proc))
    early = re.findall(r"\] \w+: watch from .*", read_log(serve.proc))
    s.check(not early, f"before the restart the cache followed the churn through its "
            f"watches alone (no watch broke: {early[:2]})")
    done_before = dict(churn.ops)
    churn.start()
    time.sleep(2)
    t0 = time.monotonic()
    cp.restart_apiserver()
    down = time.monotonic() - t0
    time.sleep(4)  # churn goes on after the restart
    s.require(churn.stop(), "churn thread stopped")
    during = {k: v - done_before.get(k, 0) for k, v in churn.ops.items()}
    s.check(sum(during.values()) >= 10 and not churn.unexpected,
            f"churn around the restart (apiserver back after {down:.1f}s): {during} "
            f"succeeded {churn.unexpected[:3]}")
    s.check(serve.proc.alive(), "serve rode out the apiserver restart")

    try:
        k8s.wait_for("serve /readyz ok after the restart", lambda: ready(serve), timeout=30)
        s.check(True, "serve /readyz ok after the restart")
    except TimeoutError as ex:
        s.check(False, f"{ex}: {actors.http_get(serve.url + '/readyz')!r}")
    converge(s, serve, "after the apiserver restart")

    log = read_log(serve.proc)[log_mark:]
    broken = re.findall(r"\] (\w+): watch from \S+: (.*); (retrying|relisting)", log)
    relists = sorted({kind for kind, _, how in broken if how == "relisting"})
    gone = sorted({kind for kind, msg, how in broken if "410" in msg or "Gone" in msg
                   or "too old" in msg})
    s.check(broken, f"serve's log shows its watches broken by the restart "
            f"({len(broken)} lines; e.g. {broken[:1]})")
    s.check("nodes" in {k for k, _, _ in broken} and "pods" in {k for k, _, _ in broken},
            "the node and pod watches both noticed the restart")
    s.note(f"after the restart: watches relisted for {relists or 'none'}; "
           f"410/too old for {gone or 'none'}; {len(broken)} watch-failure lines")


def read_log(proc):
    with open(proc.log_path, "rb") as f:
        return f.read().decode("utf-8", "replace")


SCENARIOS = [scenario_churn_and_apiserver_restart_under_serve]
