#!/usr/bin/env python3
"""bench.py: pods per second on the real control plane (make bench-e2e).

    tests/e2e/bench.py BINDIR [ROUNDS]

500 nodes (10% RDMA) and, per run, 2,000 pending pods (5% high-comm) under
the standard Policy (deploy/policy/policy.json), scheduled by:
  alone     kube-scheduler v1.20.2 with the in-tree half of the Policy
            (convert --to scheduler-policy, extender entry removed)
  schedule  our standalone scheduler with the whole Policy
  extender  kube-scheduler with the shipped split shape
            (deploy/scheduler/policy-config-file.json) calling `serve`
            with deploy/policy/extender-policy.json
in turn, ROUNDS times (default 3), on the same control plane. The pods are
created first, with no scheduler running; a run's rate is pods bound over
the time from its first to its last "Successfully bound pod" log line
(both schedulers log one per bind at --v=2). API rate limits are lifted on
both sides (kube-scheduler --kube-api-qps 5000, schedule --kube-api-qps
-1). Prints each run, the medians and the ratios to `alone`.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import actors  # noqa: E402
import k8s  # noqa: E402
import workload  # noqa: E402

N_NODES, N_PODS = 500, 2000
SCHED = actors.SCHEDULER_NAME
BOUND = re.compile(r"^I(\d{4}) (\d\d:\d\d:\d\d\.\d+) .*Successfully bound pod")


class Shim:
    """What actors expect of a scenario, for a benchmark."""

    def __init__(self, cp, workdir, kpe):
        self.cp = cp
        self.procs = []

        class E:
            pass
        self.env = E()
        self.env.workdir = workdir
        self.env.kpe = kpe
        self.env.root = ROOT
        self.env.bindir = cp.bindir

    def spawn(self, name, argv, env=None):
        p = k8s.Proc(name, argv, self.env.workdir, env=env)
        self.procs.append(p)
        return p

    def require(self, cond, what):
        if not cond:
            raise RuntimeError(what)

    def stop_all(self):
        for p in reversed(self.procs):
            p.stop()
        self.procs.clear()


def bind_times(log_path):
    ts = []
    with open(log_path, errors="replace") as f:
        for line in f:
            m = BOUND.match(line)
            if m:
                ts.append(datetime.strptime(m.group(2), "%H:%M:%S.%f").timestamp())
    return ts


def split_policies(s):
    kpe, pol = s.env.kpe, os.path.join(ROOT, "deploy/policy/policy.json")
    sched = json.loads(subprocess.run([kpe, "convert", pol, "--to", "scheduler-policy"],
                                      check=True, capture_output=True, text=True).stdout)
    sched["extenders"] = []
    f = os.path.join(s.env.workdir, "in-tree-policy.json")
    with open(f, "w") as fh:
        json.dump(sched, fh)
    return f


def run(s, mode, rnd, in_tree):
    name = f"{mode}-{rnd}"
    workload.make_pods(s.cp, N_PODS, SCHED, prefix=name)
    t0 = time.monotonic()
    if mode == "schedule":
        p = actors.Schedule(s, os.path.join(ROOT, "deploy/policy/policy.json"),
                            "--leader-elect=false", "--kube-api-qps", "-1", "--v", "2",
                            name=name).proc
    else:
        qps = ["--kube-api-qps=5000", "--kube-api-burst=5000"]
        if mode == "alone":
            f = in_tree
        else:
            srv = actors.Serve(s, os.path.join(ROOT, "deploy/policy/extender-policy.json"),
                               name=f"serve-{name}")
            _, f = actors.scheduler_files(s, "policy", srv.url, s.env.workdir)
        p = actors.KubeScheduler(s, policy_file=f, name=name, extra=qps).proc
    k8s.wait_for(f"{N_PODS} pods bound ({name})",
                 lambda: len(k8s.bound(s.cp.pods())) >= N_PODS, timeout=600, interval=1)
    wall = time.monotonic() - t0
    s.stop_all()
    ts = bind_times(p.log_path)
    rate = (len(ts) - 1) / (ts[-1] - ts[0]) if len(ts) > 1 and ts[-1] > ts[0] else 0.0
    s.cp.request("DELETE", "/api/v1/namespaces/default/pods?gracePeriodSeconds=0")
    k8s.wait_for("no pods left", lambda: not s.cp.pods(), timeout=120)
    print(f"  {name:12s} {len(ts):5d} binds logged, first to last {ts[-1] - ts[0]:6.2f} s: "
          f"{rate:7.1f} pods/s (wall incl. start-up {wall:.1f} s)", flush=True)
    return rate


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    rounds = int(argv[2]) if len(argv) > 2 else 3
    workdir = k8s.make_workdir("kpe-bench-e2e.")
    cp = k8s.ControlPlane(argv[1], workdir)
    kpe = os.environ.get("KPE_BIN", os.path.join(ROOT, "bin/kube-policy-extender"))
    s = Shim(cp, workdir, kpe)
    cp.start()
    rates = {"alone": [], "schedule": [], "extender": []}
    try:
        workload.make_nodes(cp, N_NODES, rdma_share=0.1)
        in_tree = split_policies(s)
        print(f"bench-e2e: {N_NODES} nodes, {N_PODS} pending pods per run, {rounds} rounds "
              f"(work dir {workdir})", flush=True)
        for rnd in range(rounds):
            for mode in rates:
                rates[mode].append(run(s, mode, rnd, in_tree))
    finally:
        s.stop_all()
        cp.stop()
    med = {m: statistics.median(v) for m, v in rates.items()}
    print("\nmedian pods/s:")
    for m, v in med.items():
        print(f"  {m:9s} {v:7.1f}  ({', '.join(f'{x:.0f}' for x in rates[m])})")
    if med["alone"]:
        print(f"ratios: schedule / kube-scheduler alone = {med['schedule'] / med['alone']:.2f}, "
              f"kube-scheduler + extender / alone = {med['extender'] / med['alone']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
