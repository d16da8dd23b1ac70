#!/usr/bin/env python3
"""bench.py: kube-scheduler's own benchmark workloads on the real control
plane (make bench-e2e). Never a timed test.

    tests/e2e/bench.py BINDIR

The workloads (tests/e2e/bench_workloads.py, shaped after scheduler_perf's
performance-config.yaml), each at 500 and 5,000 nodes, are scheduled by the
five rows of tests/e2e/bench_rows.py (the API server's ceiling,
kube-scheduler alone, schedule, kube-scheduler + serve split, kube-scheduler
+ a do-nothing serve) in alternating rounds on one control plane (etcd +
kube-apiserver v1.20.2). Per run: the init pods are in place (created
bound), the measured pods are created pending, the row starts, and each
measured pod's bind is timed from a watch; SchedulingThroughput (average,
p50, p90, p99 of 1-second samples) as scheduler_perf reports it. A row
that stops binding (nothing new for BENCH_STALL seconds) is reported with
what it bound ("bound 0/500, stalled"), never waited for forever.

Printed per workload and size: each run, the medians over rounds, the
ratios schedule/kube-scheduler, schedule/ceiling and split/do-nothing, the
load average, and a warning when processes outside the bench used the CPU
during a run (/proc/stat busy time against the CPU time of the control
plane, the row's processes and the harness). Then the peak RSS of serve and
schedule holding a 5,000-node, 150,000-pod cluster (tests/e2e/bench_memory.py).

Environment (defaults: the full set):
  BENCH_SIZES=500,5000        node counts
  BENCH_WORKLOADS=a,b         workload names (default: every one in the table)
  BENCH_ROWS=a,b              rows (default: all five; schedule-b runs
                              BENCH_KPE_B's schedule, to A/B two builds)
  BENCH_ROUNDS=3              rounds
  BENCH_WARMUP=1              runs of the first row before round 0 of each workload,
                              printed but left out of every figure (the first run
                              after the init pods meets a colder control plane)
  BENCH_POD_SCALE=auto        multiplies upstream's measured pod counts (1: exactly
                              upstream's; a quick check: 0.1); auto raises them to
                              5,000 where they fit, for enough 1-second samples
  BENCH_STALL=30              seconds without a new bind (or eviction) that end a run
  BENCH_RUN_LIMIT=900         seconds after which a run ends whatever it bound
  BENCH_MEMORY=1              0: skip the memory figures
  BENCH_OUT=FILE              also write every run as JSON there
  BENCH_INSIDE=0              1: per kube-scheduler run, its mean ms per attempt by
                              extension point and serve's per request
                              (tests/e2e/bench_inside.py); BENCH_PROFILE=S adds
                              an S-second CPU profile of kube-scheduler per run
  APILOAD=build/bench/apiload the Go client (make builds it)
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import actors  # noqa: E402
import bench_inside  # noqa: E402
import bench_measure as bm  # noqa: E402
import bench_memory  # noqa: E402
import bench_rows  # noqa: E402
import bench_workloads as bw  # noqa: E402
import k8s  # noqa: E402

SCHED = actors.SCHEDULER_NAME
FIRST_BIND_GRACE = 60   # seconds a row may take to start before its first bind


def env_list(name, default):
    v = os.environ.get(name, "").strip()
    return [x.strip() for x in v.split(",") if x.strip()] if v else list(default)


def procs_cpu(cpu):
    """' (kube-scheduler 20.1, serve 11.5)': each process's share of a row
    of more than one; '' otherwise."""
    procs = cpu.get("procs") or {}
    if len(procs) < 2:
        return ""
    return " (" + ", ".join(f"{k} {'?' if v is None else f'{v:.1f}'}"
                            for k, v in sorted(procs.items())) + ")"


class Bench:
    def __init__(self, s, rounds, stall, pod_scale, limit, warmup=0):
        self.s, self.cp = s, s.cp
        self.rounds, self.stall, self.pod_scale, self.limit = rounds, stall, pod_scale, limit
        self.warmup = warmup
        self.results = []

    # -- objects ---------------------------------------------------------
    def post(self, lines, what):
        """POST "PATH\\tJSON" lines through apiload (admin); seconds taken."""
        t0 = time.monotonic()
        r = subprocess.run([self.s.apiload, "-server", self.cp.url, "-token-file",
                            self.s.files["admin-token"], "post"], input="\n".join(lines),
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"creating {what}: {r.stderr.strip() or r.stdout.strip()}")
        return time.monotonic() - t0

    @staticmethod
    def pod_line(pod):
        return f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods\t{json.dumps(pod)}"

    def names(self, ns):
        """The names of the pods in ns (metadata only: cheap at 20,000)."""
        req = urllib.request.Request(f"{self.cp.url}/api/v1/namespaces/{ns}/pods", headers={
            "Authorization": f"Bearer {k8s.TOKEN}",
            "Accept": "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"})
        with urllib.request.urlopen(req, context=self.cp.ctx, timeout=120) as r:
            return {p["metadata"]["name"] for p in json.load(r)["items"] or []}

    def delete_pods(self, ns, timeout=600):
        """Every pod and event of ns, deleted 16 at a time through apiload
        (kube-apiserver deletes a collection one object after another)."""
        for res in ("pods", "events"):
            r = subprocess.run([self.s.apiload, "-server", self.cp.url, "-token-file",
                                self.s.files["admin-token"], "delete", "-namespace", ns,
                                "-resource", res], capture_output=True, text=True,
                               timeout=timeout)
            if r.returncode != 0:
                raise RuntimeError(f"deleting the {res} of {ns}: {r.stderr.strip()}")
        k8s.wait_for(f"no pods left in {ns}",
                     lambda: not self.cp.get(f"/api/v1/namespaces/{ns}/pods?limit=1")["items"],
                     timeout=timeout, interval=0.5)

    def init_pods(self, w, n_nodes, n_init):
        """Create the init pods of w that are missing (all of them at first;
        after a Preemption run, the evicted ones): pod i bound to node i
        modulo the nodes, or pending when the workload says so."""
        have = self.names(bw.INIT_NS)
        bound = w.get("init_bound", True)
        lines = [self.pod_line(bw.pod(w["init"], f"init-{i:05d}", bw.INIT_NS, SCHED,
                                      node=bw.node_name(i % n_nodes) if bound else None))
                 for i in range(n_init) if f"init-{i:05d}" not in have]
        if lines:
            dt = self.post(lines, f"{len(lines)} init pods")
            return len(lines), dt
        return 0, 0.0

    # -- one run ---------------------------------------------------------
    def run(self, w, n_nodes, row, rnd, warmup=False):
        """One run; a warm-up run is printed but not kept in the results."""
        n_init, n_meas = bw.counts(w, n_nodes, self.pod_scale)
        if w["init"] and w.get("init_consumed"):
            made, dt = self.init_pods(w, n_nodes, n_init)
            if made:
                print(f"    (re-created {made} evicted init pods in {dt:.1f} s)", flush=True)
        dt = self.post([self.pod_line(bw.pod(w["measured"], f"m-{i:05d}", bw.MEASURED_NS, SCHED))
                        for i in range(n_meas)], f"{n_meas} measured pods")
        name = f"{w['name']}-{n_nodes}-{row}-{rnd}"
        watch = bm.Watch(self.cp, bw.MEASURED_NS)
        evicted = bm.Watch(self.cp, bw.INIT_NS, field_selector=None, types=("DELETED",)) \
            if w.get("init_consumed") else None
        reqs0 = bm.request_counts(self.cp)
        meter = bm.CpuMeter([self.cp.etcd.p.pid, self.cp.apiserver.p.pid])
        started = time.monotonic()
        procs, churn, failure, used = [], None, None, {}
        try:
            try:
                procs = bench_rows.start(self.s, row, name, bw.MEASURED_NS)
            except (RuntimeError, TimeoutError) as ex:
                # One row that does not come up must not end a run of hours:
                # reported, left out of the medians, and the bench goes on.
                failure = str(ex).splitlines()[0]
            if w.get("churn") and not failure:
                churn = Churn(self.cp, w["churn"])
            reason = "no start" if failure else bm.wait_bound(
                watch, n_meas, started, self.stall, FIRST_BIND_GRACE,
                alive=lambda: all(p.alive() for p in procs), also=[evicted] if evicted else [],
                limit=self.limit)
        finally:
            if churn:
                churn.stop()
            inside, inside_line = self.s.inside.finish() if self.s.inside else (None, "")
            self.s.inside = None
            used = self.s.stop_all()
            watch.close()
            if evicted:
                evicted.close()
        cpu = meter.stop()
        reqs = bm.request_delta(reqs0, bm.request_counts(self.cp), len(watch.times))
        # The row's main process is named as the run; helpers as role-run.
        cpu["procs"] = {(bench_rows.ROWS[row]["kind"] if n == name else n.split("-")[0]): v
                        for n, v in used.items()}
        tp = bm.throughput(list(watch.times.values()))
        res = {"workload": w["name"], "nodes": n_nodes, "row": row, "round": rnd,
               "init": n_init, "measured": n_meas, "bound": len(watch.times), "end": reason,
               "create_s": dt, "first_bind_s": watch.first() - started if watch.times else None,
               "evicted": len(evicted.times) if evicted else None, **tp, "cpu": cpu,
               "inside": inside}
        if not warmup:
            self.results.append(res)
        self.delete_pods(bw.MEASURED_NS)
        if churn:
            churn.cleanup()
        if failure:
            end = f" (DID NOT START: {failure}; logs in {self.s.env.workdir})"
        elif reason == "all":
            end = ""
        elif reason == "stalled" and not watch.times and not (evicted and evicted.times):
            end = f" (stalled: nothing within {FIRST_BIND_GRACE} s of the start)"
        elif reason == "stalled":
            end = f" (stalled: nothing new for {self.stall:.0f} s)"
        elif reason == "limit":
            end = f" (stopped at the {self.limit:.0f} s limit of a run)"
        else:
            end = " (its processes exited before binding them all)"
        warn = "  <- other processes used the CPU" if bm.other_is_notable(cpu) else ""
        if watch.times:
            end += f", first bind {res['first_bind_s']:.1f} s after the start"
        if evicted:
            end += f", {len(evicted.times)} init pods evicted"
        if warmup:
            end += " (warm-up: in no figure)"
        print(f"  {row:14s} r{rnd}  bound {res['bound']}/{n_meas}{end}: avg {tp['avg']:7.1f} "
              f"p50 {tp['p50']:6.0f} p90 {tp['p90']:6.0f} p99 {tp['p99']:6.0f} pods/s "
              f"({tp['samples']} samples); CPU s: row {cpu['row']:.1f}{procs_cpu(cpu)}, control plane "
              f"{cpu['control_plane']:.1f}, other {cpu['other']:.1f}{warn}", flush=True)
        if reqs:
            print(f"      API requests per bound pod: {reqs}", flush=True)
        if inside_line:
            print(f"      {inside_line}", flush=True)
        return res

    # -- one workload at one size ---------------------------------------
    def workload(self, w, n_nodes, rows):
        n_init, n_meas = bw.counts(w, n_nodes, self.pod_scale)
        up = bw.upstream_counts(w, n_nodes)[1]
        print(f"\n{w['name']}, {n_nodes} nodes: {n_init} init pods ({w['init'] or 'none'}), "
              f"{n_meas} measured pods ({w['measured']}; upstream's config: {up}), "
              f"{self.rounds} rounds", flush=True)
        if w["init"]:
            made, dt = self.init_pods(w, n_nodes, n_init)
            print(f"  created {made} init pods in {dt:.1f} s", flush=True)
        mine, t0 = [], time.monotonic()
        for i in range(self.warmup):
            self.run(w, n_nodes, rows[0], f"w{i}", warmup=True)
        for rnd in range(self.rounds):
            order = rows[rnd % len(rows):] + rows[:rnd % len(rows)]
            for row in order:
                mine.append(self.run(w, n_nodes, row, rnd))
        if w["init"]:
            self.delete_pods(bw.INIT_NS)
        summarize(mine, rows)
        print(f"  ({w['name']} at {n_nodes} nodes took {time.monotonic() - t0:.0f} s of wall time)",
              flush=True)


class Churn:
    """SchedulingWithMixedChurn's churn in recreate mode: every second the
    previous node, pod and Service go and new ones come."""

    def __init__(self, cp, kinds, interval=1.0):
        self.cp, self.kinds, self.interval = cp, kinds, interval
        self.done = threading.Event()
        self.k = 0
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _paths(self, k):
        ns = bw.CHURN_NS
        out = []
        for kind in self.kinds:
            if kind == "node":
                out.append(("/api/v1/nodes", bw.node(k, name=f"churn-node-{k}")))
            elif kind == "service":
                out.append((f"/api/v1/namespaces/{ns}/services", bw.service(f"churn-svc-{k}", ns)))
            else:
                out.append((f"/api/v1/namespaces/{ns}/pods",
                            bw.pod(kind, f"churn-pod-{k}", ns, SCHED)))
        return out

    def _run(self):
        try:
            while not self.done.is_set():
                if self.k:
                    self._delete(self.k - 1)
                for path, obj in self._paths(self.k):
                    self.cp.post(path, obj)
                self.k += 1
                self.done.wait(self.interval)
        except Exception as ex:  # noqa: BLE001 - reported at the end of the run
            self.error = repr(ex)

    def _delete(self, k):
        for path, obj in self._paths(k):
            try:
                self.cp.delete(f"{path}/{obj['metadata']['name']}", grace=0)
            except k8s.ApiError as ex:
                if ex.status != 404:
                    raise

    def stop(self):
        self.done.set()
        self.thread.join()
        if self.error:
            raise RuntimeError(f"churn failed: {self.error}")

    def cleanup(self):
        if self.k:
            self._delete(self.k - 1)


def started_runs(runs, row):
    """The runs of row that started (the medians leave the others out)."""
    return [r for r in runs if r["row"] == row and r["end"] != "no start"]


def med(runs, key):
    return statistics.median(r[key] for r in runs) if runs else None


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def paired_ratios(runs, a, b):
    """Row a's average over row b's, per round in which both started
    (runs minutes apart, on the same control plane), in round order."""
    by = {}
    for r in runs:
        if r["row"] in (a, b) and r["end"] != "no start":
            by.setdefault(r["round"], {})[r["row"]] = r["avg"]
    return [v[a] / v[b] for _, v in sorted(by.items()) if a in v and b in v and v[b]]


def cell(v, short):
    return f"{'-' if v is None else f'{v:.1f}':>13s}{'*' if short else ' '}"


def summarize(runs, rows):
    """Medians per row over the rounds, the ratios, the load and a warning."""
    if not runs:
        return
    w, n = runs[0]["workload"], runs[0]["nodes"]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"  -- {w}, {n} nodes: medians over {len(runs) // max(1, len(rows))} rounds "
          f"(load average {load})")
    print(f"  {'row':14s} {'avg':>7s} {'p50':>6s} {'p90':>6s} {'p99':>6s}  {'bound':>11s}  row CPU s")
    avg = {}
    for row in rows:
        rr = started_runs(runs, row)
        if not rr:
            continue
        avg[row] = med(rr, "avg")
        bound = min(r["bound"] for r in rr)
        cpu = statistics.median(r["cpu"]["row"] for r in rr)
        print(f"  {row:14s} {avg[row]:7.1f} {med(rr, 'p50'):6.0f} {med(rr, 'p90'):6.0f} "
              f"{med(rr, 'p99'):6.0f}  {bound:5d}/{rr[0]['measured']:<5d}  {cpu:.1f}")
    failed = [r for r in runs if r["end"] == "no start"]
    if failed:
        print(f"  {len(failed)} run(s) did not start and are left out: "
              + ", ".join(f"{r['row']} r{r['round']}" for r in failed))
    g = avg.get
    print(f"  ratios: schedule/kube-scheduler {ratio(g('schedule'), g('kube-scheduler'))}, "
          f"schedule/ceiling {ratio(g('schedule'), g('ceiling'))}, "
          f"split/do-nothing {ratio(g('split'), g('do-nothing'))}")
    pr = paired_ratios(runs, "split", "do-nothing")
    if pr:
        print(f"  split/do-nothing round by round: median {statistics.median(pr):.2f}, "
              f"{min(pr):.2f} to {max(pr):.2f} over {len(pr)} rounds")
    eq = bench_inside.equal_speed_ratio(runs, "split", "do-nothing")
    if eq is not None:
        print(f"  split/do-nothing at equal machine speed (algorithm per in-tree ms, "
              f"BENCH_INSIDE): {eq:.3f}")
    noisy = [r for r in runs if bm.other_is_notable(r["cpu"])]
    if noisy:
        other = sum(r["cpu"]["other"] for r in noisy)
        print(f"  WARNING: processes outside the bench used {other:.1f} s of CPU during "
              f"{len(noisy)} of {len(runs)} runs: these figures do not hold on a quiet machine")
    sys.stdout.flush()


def final_table(results, rows):
    print("\nSchedulingThroughput average, pods/s (median over rounds); "
          "ratios sched/ks, sched/ceiling, split/do-nothing")
    print(f"{'workload':28s} {'nodes':>5s} " + " ".join(f"{r:>14s}" for r in rows)
          + "   s/ks s/ceil split/dn")
    keys = []
    for r in results:
        if (r["workload"], r["nodes"]) not in keys:
            keys.append((r["workload"], r["nodes"]))
    for wname, n in keys:
        runs = [r for r in results if r["workload"] == wname and r["nodes"] == n]
        avg = {row: med(started_runs(runs, row), "avg") for row in rows}
        short = {row: any(r["bound"] < r["measured"] for r in runs if r["row"] == row)
                 for row in rows}
        g = avg.get
        print(f"{wname:28s} {n:5d} " + " ".join(cell(avg[r], short[r]) for r in rows)
              + f"   {ratio(g('schedule'), g('kube-scheduler')):>4s}"
              f" {ratio(g('schedule'), g('ceiling')):>6s}"
              f" {ratio(g('split'), g('do-nothing')):>8s}")
    if any(r["bound"] < r["measured"] for r in results):
        print("* not every measured pod was bound in at least one round, or a run did not "
              "start (see its run lines; runs that did not start are not in the medians)")
    noisy = [r for r in results if bm.other_is_notable(r["cpu"])]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average at the end: {load}; {len(noisy)} of {len(results)} runs saw other "
          f"processes use the CPU" + (" (WARNING: not a quiet machine)" if noisy else ""))


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        sizes = [int(x) for x in env_list("BENCH_SIZES", bw.DEFAULT_SIZES)]
        workloads = bw.by_name(env_list("BENCH_WORKLOADS", []))
        rows = env_list("BENCH_ROWS", bench_rows.DEFAULT_ROWS)
        bad = [r for r in rows if r not in bench_rows.ROWS]
        if bad:
            raise ValueError(f"unknown row(s) {', '.join(bad)}; known: {', '.join(bench_rows.ROWS)}")
        for r in rows:
            bench_rows.row_binary(r)
        bench_inside.profile_seconds()
        rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
        warmup = int(os.environ.get("BENCH_WARMUP", "1"))
        pod_scale = bw.parse_pod_scale(os.environ.get("BENCH_POD_SCALE", "auto"))
        stall = float(os.environ.get("BENCH_STALL", "30"))
        limit = float(os.environ.get("BENCH_RUN_LIMIT", "900"))
        if min(sizes) < 1 or rounds < 1 or stall <= 0 or limit <= 0:
            raise ValueError("BENCH_SIZES, BENCH_ROUNDS, BENCH_STALL and "
                             "BENCH_RUN_LIMIT must be positive")
        if warmup < 0:
            raise ValueError("BENCH_WARMUP must be 0 or more")
    except ValueError as ex:
        print(f"bench-e2e: {ex}", file=sys.stderr)
        return 2
    apiload = os.environ.get("APILOAD", os.path.join(ROOT, "build/bench/apiload"))
    if not os.access(apiload, os.X_OK):
        print(f"bench-e2e: {apiload} missing (make bench-e2e builds it)", file=sys.stderr)
        return 2
    # SIGTERM (timeout, Ctrl-C's cousin) still stops the control plane.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    kpe = os.environ.get("KPE_BIN", os.path.join(ROOT, "bin/kube-policy-extender"))
    workdir = k8s.make_workdir("kpe-bench-e2e.")
    cp = k8s.ControlPlane(argv[1], workdir)
    print(f"bench-e2e: sizes {sizes}, workloads {[w['name'] for w in workloads]}, rows {rows}, "
          f"{rounds} rounds after {warmup} warm-up run(s), pod scale {pod_scale} (work dir {workdir}); {os.cpu_count()} CPUs, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    started = time.monotonic()
    cp.start()
    b = None
    try:
        s = bench_rows.Shim(cp, workdir, kpe, ROOT, apiload)
        for ns in (bw.INIT_NS, bw.MEASURED_NS, bw.CHURN_NS):
            cp.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                           "metadata": {"name": ns}})
        for pc in bw.priority_classes():
            cp.post("/apis/scheduling.k8s.io/v1/priorityclasses", pc)
        b = Bench(s, rounds, stall, pod_scale, limit, warmup)
        have = 0
        for n in sizes:
            if n < have:
                cp.request("DELETE", "/api/v1/nodes")
                k8s.wait_for("no nodes", lambda: not cp.nodes(), timeout=300, interval=1)
                have = 0
            if n > have:
                lines = [f"/api/v1/nodes\t{json.dumps(bw.node(i))}" for i in range(have, n)]
                dt = b.post(lines, f"{n - have} nodes")
                print(f"\ncreated {n - have} nodes in {dt:.1f} s", flush=True)
                have = n
            for w in workloads:
                b.workload(w, n, rows)
    finally:
        if b:
            b.s.stop_all()
        cp.stop()
    final_table(b.results, rows)
    print(f"bench-e2e: the runs took {(time.monotonic() - started) / 60:.1f} min", flush=True)
    out = os.environ.get("BENCH_OUT")
    if out:
        with open(out, "w") as f:
            json.dump(b.results, f, indent=1)
    if os.environ.get("BENCH_MEMORY", "1") != "0":
        bench_memory.main(kpe, workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
