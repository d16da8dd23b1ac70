#!/usr/bin/env python3
"""live_list_real.py: the live list of issue 24 against the real
kube-apiserver v1.20.2 (make bench-live-real).

    bench/live_list_real.py BINDIR CLUSTER_JSON [ROUNDS]

Starts etcd + kube-apiserver (tests/e2e/k8s.py), creates every Node and Pod
of CLUSTER_JSON (a /work/shared/bench/gen_payload.py cluster: kubelet-shaped
nodes and real pods, already bound) through the API, then times, in
alternating rounds (default 3):
  explain   kube-policy-extender explain --kubeconfig: lists every kind the
            Policy reads (paged, limit=500) and evaluates one 1-CPU pod;
  kubectl   kubectl get nodes,pods -A -o json (the command the issue names);
  raw       kubectl get --raw /api/v1/nodes + get --raw /api/v1/pods (the
            bytes alone, no decoding or printing).
and prints the medians with their spread, the ratios explain/kubectl and
explain/raw (target: within 2x of kubectl), peak RSS of each, and the load
average beside them. kubectl -o json holds every object decoded (5.1-5.8 GB and
74-82 s at 30,000 pods here), so past 50,000 pods only `raw` is compared
unless LIVE_KUBECTL_JSON=1.

Loading 150,000 pods takes minutes; BENCH_HOLD=PATH makes the script wait,
after loading, until PATH exists, so the load can run while the machine is
busy and the timing when it is quiet.
"""
import concurrent.futures
import http.client
import json
import os
import ssl
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests/e2e"))

import k8s  # noqa: E402

ONE_CPU = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "one-cpu", "namespace": "default",
                        "labels": {"app": "one-cpu"}},
           "spec": {"containers": [{"name": "c", "image": "registry.example/app:1",
                                    "resources": {"requests": {"cpu": "1",
                                                               "memory": "256Mi"}}}]}}


def as_new(obj):
    """The object as a client creates it: no server-set metadata, and a
    priority the Priority admission plugin computes itself."""
    md = obj["metadata"]
    for k in ("uid", "resourceVersion", "creationTimestamp", "managedFields",
              "generateName", "selfLink"):
        md.pop(k, None)
    spec = obj.get("spec", {})
    spec.pop("priority", None)
    if not spec.get("priorityClassName", "system-").startswith("system-"):
        spec.pop("priorityClassName")
    return obj


class Poster:
    """One persistent HTTPS connection per thread (urllib reconnects and
    renegotiates TLS on every request)."""

    def __init__(self, cp):
        self.cp = cp
        self.local = threading.local()
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE

    def post(self, path, obj):
        c = getattr(self.local, "c", None)
        if c is None:
            c = self.local.c = http.client.HTTPSConnection(
                "127.0.0.1", self.cp.port, context=self.ctx, timeout=60)
        c.request("POST", path, json.dumps(obj),
                  {"Authorization": f"Bearer {k8s.TOKEN}",
                   "Content-Type": "application/json"})
        r = c.getresponse()
        body = r.read()
        if r.status not in (201, 409):
            raise RuntimeError(f"POST {path} {obj['metadata']['name']}: {r.status} "
                               f"{body[:300]!r}")


def load(cp, path):
    with open(path) as f:
        items = json.load(f)["items"]
    nodes = [as_new(i) for i in items if i["kind"] == "Node"]
    pods = [as_new(i) for i in items if i["kind"] == "Pod"]
    del items
    p = Poster(cp)
    for ns in sorted({x["metadata"]["namespace"] for x in pods}):
        if ns not in ("default", "kube-system"):
            p.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                          "metadata": {"name": ns}})
    # The RuntimeClass admission plugin refuses a pod whose class is
    # unknown, or whose overhead differs from its class's.
    classes = {}
    for x in pods:
        rc = x["spec"].get("runtimeClassName")
        if rc:
            classes.setdefault(rc, x["spec"].get("overhead"))
    for rc, overhead in sorted(classes.items()):
        p.post("/apis/node.k8s.io/v1/runtimeclasses", {
            "apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
            "metadata": {"name": rc}, "handler": rc,
            **({"overhead": {"podFixed": overhead}} if overhead else {})})
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(16) as ex:
        list(ex.map(lambda n: p.post("/api/v1/nodes", n), nodes))
        done = 0
        for i in range(0, len(pods), 5000):
            chunk = pods[i:i + 5000]
            list(ex.map(lambda o: p.post(
                f"/api/v1/namespaces/{o['metadata']['namespace']}/pods", o), chunk))
            done += len(chunk)
            print(f"  loaded {done} pods ({time.monotonic() - t0:.0f} s)", flush=True)
    return len(nodes), len(pods)


# Linux carries a process's peak RSS across exec, so a command started
# straight from this (large) process would report ours; a fresh small
# interpreter forks it and reports the child's own peak.
RSS_WRAPPER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, ru = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(ru.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(argv, out_path):
    """Wall seconds and peak RSS (MB) of argv."""
    rss_path = out_path + ".rss"
    t0 = time.monotonic()
    with open(out_path, "wb") as out, open(out_path + ".err", "wb") as err:
        code = subprocess.call([sys.executable, "-c", RSS_WRAPPER, rss_path, *argv],
                               stdout=out, stderr=err)
    wall = time.monotonic() - t0
    if code not in (0, 1):
        with open(out_path + ".err", errors="replace") as f:
            raise RuntimeError(f"{' '.join(argv[:3])} exited {code}: {f.read()[-2000:]}")
    with open(rss_path) as f:
        return wall, int(f.read()) / 1024


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    bindir, cluster = argv[1], argv[2]
    rounds = int(argv[3]) if len(argv) > 3 else 3
    kpe = os.environ.get("KPE_BIN", os.path.join(ROOT, "bin/kube-policy-extender"))
    policy = os.environ.get("POLICY", os.path.join(ROOT, "deploy/policy/policy.json"))
    workdir = k8s.make_workdir("kpe-bench-live.")
    cp = k8s.ControlPlane(bindir, workdir)
    cp.start()
    try:
        n_nodes, n_pods = load(cp, cluster)
        pod = os.path.join(workdir, "one-cpu.json")
        with open(pod, "w") as f:
            json.dump(ONE_CPU, f)
        hold = os.environ.get("BENCH_HOLD")
        if hold:
            print(f"loaded; waiting for {hold} to exist", flush=True)
            while not os.path.exists(hold):
                time.sleep(2)
        kc = ["--kubeconfig", cp.kubeconfig]
        rows = {
            "explain": [[kpe, "explain", "--policy", policy, *kc, "--pod", pod,
                         "--request-timeout", "600", "--output", "json"]],
            "kubectl": [["kubectl", *kc, "get", "nodes,pods", "-A", "-o", "json",
                         "--request-timeout", "600s"]],
            "raw": [["kubectl", *kc, "get", "--raw", "/api/v1/nodes"],
                    ["kubectl", *kc, "get", "--raw", "/api/v1/pods"]],
        }
        if n_pods > 50000 and not os.environ.get("LIVE_KUBECTL_JSON"):
            # Measured: at 30,000 pods kubectl -o json took 74-82 s and 5.1-5.8 GB;
            # it grows linearly, past this machine's memory at 150,000.
            print(f"kubectl get nodes,pods -A -o json not run at {n_pods} pods: it needs "
                  "about 190 MB per 1,000 pods (LIVE_KUBECTL_JSON=1 forces it)", flush=True)
            del rows["kubectl"]
        wall = {r: [] for r in rows}
        rss = {r: 0.0 for r in rows}
        print(f"live list: {n_nodes} nodes, {n_pods} pods in kube-apiserver v1.20.2, "
              f"{rounds} rounds [load average {loadavg()}]", flush=True)
        for rnd in range(rounds):
            for name, cmds in rows.items():
                total = 0.0
                for argv_ in cmds:
                    w, m = run_measured(argv_, os.path.join(workdir, f"{name}.out"))
                    total += w
                    rss[name] = max(rss[name], m)
                wall[name].append(total)
                print(f"  round {rnd}: {name:8s} {total:7.2f} s [load average {loadavg()}]",
                      flush=True)
        with open(os.path.join(workdir, "explain.out")) as f:
            json.load(f)  # explain's answer is whole JSON
    finally:
        cp.stop()
    med = {r: statistics.median(v) for r, v in wall.items()}
    print("\nmedian seconds (min-max), peak RSS:")
    for r, v in wall.items():
        print(f"  {r:8s} {med[r]:7.2f} ({min(v):.2f}-{max(v):.2f})  {rss[r]:8.0f} MB")
    if "kubectl" in med:
        print(f"explain / kubectl get nodes,pods -A -o json = "
              f"{med['explain'] / med['kubectl']:.2f} (target <= 2)")
    print(f"explain / kubectl get --raw nodes + pods = {med['explain'] / med['raw']:.2f} "
          f"[load average {loadavg()}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
