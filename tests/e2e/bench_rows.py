"""bench_rows.py: who binds the pods in the scale bench (the rows).

  ceiling         apiload bind (bench/apiload.go): a Binding and one Event
                  per pod, no decision (round-robin over the nodes), 16
                  workers posting Bindings and 16 the Events (schedule's
                  --bind-workers shape) over HTTP/2: what the API server
                  allows
  kube-scheduler  kube-scheduler v1.20.2 alone with the Policy's in-tree
                  half (convert --to scheduler-policy, extender removed)
  schedule        our standalone scheduler with the whole Policy
  split           kube-scheduler + `serve`, the shipped split shape
                  (deploy/scheduler/policy-config-file.json, serve with
                  deploy/policy/extender-policy.json)
  do-nothing      the same kube-scheduler files, `serve` with an empty Policy
                  (the price of any extender)

Not in the default set (BENCH_ROWS=...): schedule-b (another build's
schedule, BENCH_KPE_B), ceiling-watch (the ceiling plus one more pods
watch) and ceiling-h1 (the ceiling over HTTP/1.1).

API rate limits are lifted on every side (kube-scheduler --kube-api-qps
5000, schedule --kube-api-qps -1).
"""
import json
import os
import subprocess

import actors
import bench_inside
import bench_measure as bm
import k8s

FULL_POLICY = "deploy/policy/policy.json"
EXT_POLICY = "deploy/policy/extender-policy.json"
EMPTY_POLICY = {"kind": "Policy", "apiVersion": "v1", "predicates": [], "priorities": []}

# name -> how it runs (data; start() reads it).
ROWS = {
    "ceiling": {"kind": "ceiling"},
    "kube-scheduler": {"kind": "kube-scheduler"},
    "schedule": {"kind": "schedule"},
    "split": {"kind": "kube-scheduler", "extender": EXT_POLICY},
    "do-nothing": {"kind": "kube-scheduler", "extender": "empty"},
    # Not in the default set: `schedule` from another build (BENCH_KPE_B),
    # alternating with the schedule row, to A/B a change on the real
    # control plane.
    "schedule-b": {"kind": "schedule", "bin_env": "BENCH_KPE_B"},
    # Not in the default set: the ceiling with one more watch of every pod
    # (JSON over HTTP/1.1, as schedule's informer asks), to price a
    # scheduler's watch.
    "ceiling-watch": {"kind": "ceiling", "watch": True},
    # Not in the default set: the ceiling over HTTP/1.1, a connection per
    # worker (schedule's shape), to see which protocol the API server
    # serves cheaper.
    "ceiling-h1": {"kind": "ceiling", "http1": True},
}
DEFAULT_ROWS = ["ceiling", "kube-scheduler", "schedule", "split", "do-nothing"]


def row_binary(row):
    """The binary a row runs in place of the build's own, or None; a
    ValueError when the row needs one that is not there."""
    env = ROWS[row].get("bin_env")
    if not env:
        return None
    path = os.environ.get(env, "")
    if not path or not os.access(path, os.X_OK):
        raise ValueError(f"row {row} runs {env}, which is {'unset' if not path else path + ': not an executable'}")
    return path
KS_QPS = ["--kube-api-qps=5000", "--kube-api-burst=5000"]


class Shim:
    """What actors expect of a scenario, for a benchmark."""

    def __init__(self, cp, workdir, kpe, root, apiload):
        self.cp = cp
        self.procs = []
        self.apiload = apiload
        self.inside = None  # bench_inside.Inside of the running row, if asked

        class E:
            pass
        self.env = E()
        self.env.workdir = workdir
        self.env.kpe = kpe
        self.env.root = root
        self.env.bindir = cp.bindir
        self.files = self._files()

    def spawn(self, name, argv, env=None):
        p = k8s.Proc(name, argv, self.env.workdir, env=env)
        self.procs.append(p)
        return p

    def require(self, cond, what):
        if not cond:
            raise RuntimeError(what)

    def stop_all(self):
        """Stop the row's processes; the CPU seconds each used, by name
        (read just before it is stopped)."""
        used = {}
        for p in reversed(self.procs):
            used[p.name] = bm.proc_ticks(p.p.pid) / bm.TICK if p.alive() else None
            p.stop()
        self.procs.clear()
        return used

    def write(self, name, text):
        path = os.path.join(self.env.workdir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o600)
        return path

    def _files(self):
        """The in-tree half of the Policy, the empty Policy, the bearer
        tokens apiload uses (admin to create, kube-scheduler's to bind) and
        kube-scheduler's as a header for ceiling-watch's curl."""
        pol = os.path.join(self.env.root, FULL_POLICY)
        sched = json.loads(subprocess.run(
            [self.env.kpe, "convert", pol, "--to", "scheduler-policy"],
            check=True, capture_output=True, text=True).stdout)
        sched["extenders"] = []
        token = self.cp.sa_token(k8s.KPE_NS, k8s.SCHEDULER_SA)
        return {
            "in-tree": self.write("in-tree-policy.json", json.dumps(sched)),
            "empty": self.write("empty-policy.json", json.dumps(EMPTY_POLICY)),
            "admin-token": self.write("admin.token", k8s.TOKEN),
            "scheduler-token": self.write("scheduler.token", token),
            "watch-header": self.write("watch.header", f"Authorization: Bearer {token}\n"),
        }


def start(s, row, name, namespace):
    """Start row `row` (a ROWS key) as run `name`: its processes."""
    spec = ROWS[row]
    root = s.env.root
    if spec["kind"] == "ceiling":
        watcher = [s.spawn(f"watch-{name}", [
            "curl", "-sSkN", "--http1.1", "-o", "/dev/null", "-H", f"@{s.files['watch-header']}",
            s.cp.url + "/api/v1/pods?watch=1&allowWatchBookmarks=true"])] \
            if spec.get("watch") else []
        http1 = ["-http1"] if spec.get("http1") else []
        return watcher + [s.spawn(name, [s.apiload, *http1, "-server", s.cp.url,
                               "-token-file", s.files["scheduler-token"], "-workers", "16",
                               "-namespace", namespace, "-scheduler", actors.SCHEDULER_NAME,
                               "bind"])]
    if spec["kind"] == "schedule":
        return [actors.Schedule(s, os.path.join(root, FULL_POLICY), "--leader-elect=false",
                                "--kube-api-qps", "-1", name=name, kpe=row_binary(row)).proc]
    procs, serve_url, extra = [], None, list(KS_QPS)
    if bench_inside.enabled():
        args, ks_url = bench_inside.scheduler_args()
        extra += args
    if "extender" in spec:
        pol = s.files["empty"] if spec["extender"] == "empty" else os.path.join(
            root, spec["extender"])
        srv = actors.Serve(s, pol, name=f"serve-{name}")
        procs.append(srv.proc)
        serve_url = srv.url
        _, f = actors.scheduler_files(s, "policy", srv.url, s.env.workdir)
    else:
        f = s.files["in-tree"]
    procs.append(actors.KubeScheduler(s, policy_file=f, name=name, v=1, extra=extra).proc)
    if bench_inside.enabled():
        s.inside = bench_inside.Inside(ks_url, serve_url, s.env.workdir, name)
    return procs
