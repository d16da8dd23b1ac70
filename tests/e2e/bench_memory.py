"""bench_memory.py: peak resident memory (VmHWM) of `serve` and `schedule`
with a 5,000-node, 150,000-pod cluster in their cache (target: under 400 MB).

The cluster comes from the API-server double (tests/apiserver/apiserver.py
--load), not the real API server: creating 150,000 pods in kube-apiserver
v1.20.2 on a 2-core machine takes too long (the scale bench prints its
creation rate; at a few hundred pods per second that is many minutes, and
etcd's and the API server's memory would share the machine). The objects are
kubelet-shaped (shared/bench/gen_payload.py --nodes 5000 --pods-per-node 30,
as bench/whatif.sh uses), generated once under bench/payloads/n5000.

Each process lists and watches the whole cluster, reports ready (its cache
synced), and is read after a settling second:
  serve, split shape     deploy/policy/extender-policy.json
  serve, whole Policy    deploy/policy/policy.json
  schedule               deploy/policy/policy.json (nothing to schedule:
                         the loaded pods name other schedulers or are bound)
Environment: BENCH_MEMORY_CLUSTER (a cluster.json to use instead),
SHARED (../shared/bench). Alone: tests/e2e/bench_memory.py [KPE_BIN].
"""
import os
import subprocess
import sys
import time
import urllib.request

import k8s

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TARGET_MB = 400


def cluster_file():
    path = os.environ.get("BENCH_MEMORY_CLUSTER")
    if path:
        return path
    d = os.path.join(ROOT, "bench/payloads/n5000")
    path = os.path.join(d, "cluster.json")
    if not os.path.exists(path):
        shared = os.environ.get("SHARED", os.path.join(ROOT, "../shared/bench"))
        gen = os.path.join(shared, "gen_payload.py")
        if not os.path.exists(gen):
            raise RuntimeError(f"{gen} not found (set SHARED= or BENCH_MEMORY_CLUSTER=)")
        print(f"memory: generating {path}", flush=True)
        subprocess.run([sys.executable, gen, "--nodes", "5000", "--pods-per-node", "30",
                        "--seed", "1", "--out", d], check=True, stdout=subprocess.DEVNULL)
    return path


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/{pid}/status has no {field}")


def ready(url, proc):
    if not proc.alive():
        raise RuntimeError(f"{proc.name} exited:\n{proc.tail()}")
    try:
        with urllib.request.urlopen(url + "/readyz", timeout=5) as r:
            return r.read().startswith(b"ok")
    except OSError:
        return False


def measure(kpe, workdir, api_url, name, argv):
    port = k8s.free_port()
    url = f"http://127.0.0.1:{port}"
    p = k8s.Proc(name, [kpe, *argv, "--master", api_url, "--listen", f"127.0.0.1:{port}"],
                 workdir)
    try:
        t0 = time.monotonic()
        k8s.wait_for(f"{name} ready", lambda: ready(url, p), timeout=900, interval=0.5)
        dt = time.monotonic() - t0
        time.sleep(1)
        hwm, rss = status_kb(p.p.pid, "VmHWM"), status_kb(p.p.pid, "VmRSS")
    finally:
        p.stop()
    verdict = "under" if hwm / 1024 < TARGET_MB else "OVER"
    print(f"  {name:22s} VmHWM {hwm / 1024:6.0f} MB, VmRSS {rss / 1024:6.0f} MB "
          f"({verdict} the {TARGET_MB} MB target; synced in {dt:.0f} s)", flush=True)
    return hwm


def main(kpe, workdir):
    path = cluster_file()
    print(f"\nmemory: 5,000 nodes and 150,000 pods ({path}, "
          f"{os.path.getsize(path) / 1e6:.0f} MB of JSON) loaded into the API-server double "
          f"(tests/apiserver/apiserver.py --load; the real API server would take too long "
          f"to fill on this machine)", flush=True)
    port_file = os.path.join(workdir, "double.port")
    api = k8s.Proc("double", [sys.executable, os.path.join(ROOT, "tests/apiserver/apiserver.py"),
                              "--port-file", port_file, "--load", path], workdir)
    try:
        k8s.wait_for("the API-server double", lambda: os.path.exists(port_file)
                     and os.path.getsize(port_file) > 0, timeout=900, interval=0.5)
        with open(port_file) as f:
            api_url = f"http://127.0.0.1:{f.read().strip()}"
        full = os.path.join(ROOT, "deploy/policy/policy.json")
        ext = os.path.join(ROOT, "deploy/policy/extender-policy.json")
        measure(kpe, workdir, api_url, "serve (split shape)", ["serve", "--policy", ext])
        measure(kpe, workdir, api_url, "serve (whole Policy)", ["serve", "--policy", full])
        measure(kpe, workdir, api_url, "schedule", [
            "schedule", "--scheduler-name", "kpe-bench-memory", "--policy", full,
            "--leader-elect=false"])
    finally:
        api.stop()


if __name__ == "__main__":
    # The memory figures alone: tests/e2e/bench_memory.py [KPE_BIN]
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "bin/kube-policy-extender"),
         k8s.make_workdir("kpe-bench-memory."))
