"""bench_inside.py: what a kube-scheduler row spends its time on, when
BENCH_INSIDE=1 (off by default: a row then serves one more port).

kube-scheduler v1.20.2 is started with its insecure port on 127.0.0.1
(metrics and /debug/pprof, which it serves by default), and at the end of
each run, before its processes stop, one line reads both sides:

  kube-scheduler, mean ms per attempt: the scheduling algorithm (which
  includes the extender's calls), the whole attempt, and each extension
  point of its framework (PreFilter, PreScore, Score, ...);
  serve, mean ms per request: filter and prioritize, from its dispatch to
  its reply.

The algorithm's time less its in-tree points (PreFilter, Filter, PreScore,
Score) is what the extender's two calls cost kube-scheduler (encode, wait,
decode) plus the bookkeeping around them. The summary of a workload adds
split/do-nothing at equal machine speed: the in-tree points are the same
work in both rows, so the algorithm's time per unit of them compares the
rows without the machine's drift between their runs. It holds where
kube-scheduler's cycle sets the pace; on Preemption the dry run
(PostFilter, outside the algorithm) and the evictions set it.

With BENCH_PROFILE=S (seconds, default 0: none) one CPU profile of
kube-scheduler is taken per run, starting 20 s in, and left in the work dir
as <run>.pprof (go tool pprof -top $BINDIR/kube-scheduler <run>.pprof reads
it).
"""
import os
import statistics
import threading

import actors
import bench_measure as bm
import k8s

PROFILE_DELAY = 20  # seconds into a run before its profile starts


def enabled():
    return os.environ.get("BENCH_INSIDE", "0") not in ("", "0")


def profile_seconds():
    try:
        return max(0, int(os.environ.get("BENCH_PROFILE", "0")))
    except ValueError:
        raise ValueError("BENCH_PROFILE must be a whole number of seconds") from None


def scheduler_args():
    """kube-scheduler's flags for its insecure port, and its URL; the flags
    come after --port=0, and the last of a flag wins."""
    port = k8s.free_port()
    return [f"--port={port}", "--address=127.0.0.1"], f"http://127.0.0.1:{port}"


def parse_means(text, prefixes):
    """{(name, labels): (sum, count)} for each histogram or summary in a
    /metrics page whose name starts with one of prefixes; labels as a
    sorted tuple of (label, value)."""
    acc = {}
    for name, kv, value in bm.metric_samples(text, prefixes):
        for suffix, slot in (("_sum", 0), ("_count", 1)):
            if name.endswith(suffix):
                key = (name[:-len(suffix)], tuple(sorted(kv.items())))
                acc.setdefault(key, [0.0, 0.0])[slot] += value
    return {k: tuple(v) for k, v in acc.items()}


IN_TREE = ("PreFilter", "Filter", "PreScore", "Score")  # the points inside the algorithm


def figures(ks_text, serve_text):
    """{"ks": {point: ms per attempt}, "serve": {route: [ms, requests]}}
    from the two /metrics pages; "algorithm" and "attempt" are the whole
    algorithm and the whole attempt."""
    ks_names = {"scheduler_scheduling_algorithm_duration_seconds": "algorithm",
                "scheduler_e2e_scheduling_duration_seconds": "attempt"}
    ks, serve = {}, {}
    for (name, labels), sn in parse_means(ks_text, ("scheduler_",)).items():
        key = dict(labels).get("extension_point") \
            if name == "scheduler_framework_extension_point_duration_seconds" \
            else ks_names.get(name)
        add(ks, key, sn)
    for (_, labels), sn in parse_means(serve_text,
                                       ("kpe_http_request_duration_seconds",)).items():
        route = dict(labels).get("route")
        add(serve, route if route in ("/filter", "/prioritize", "/preempt") else None, sn)
    return {"ks": {k: 1000 * s / n for k, (s, n) in ks.items() if n},
            "serve": {r: [1000 * s / n, n] for r, (s, n) in serve.items() if n}}


def add(acc, key, sum_count):
    """Sum a (sum, count) into acc[key]; a key of None is left out."""
    if key is not None:
        t = acc.setdefault(key, [0.0, 0.0])
        t[0] += sum_count[0]
        t[1] += sum_count[1]


def summarize(fig):
    """The one line a run prints; '' when there is nothing to say."""
    out = []
    if fig["ks"]:
        out.append("kube-scheduler ms per attempt: "
                   + ", ".join(f"{k} {v:.2f}" for k, v in sorted(fig["ks"].items())))
    if fig["serve"]:
        out.append("serve ms per request: " + ", ".join(
            f"{r} {ms:.2f} ({n:.0f})" for r, (ms, n) in sorted(fig["serve"].items())))
    return "; ".join(out)


def per_in_tree(fig):
    """The algorithm's time over its in-tree points' (PreFilter, Filter,
    PreScore, Score): what one unit of kube-scheduler's own work costs
    with the extender's calls added. None without the figures."""
    ks = fig.get("ks", {}) if fig else {}
    in_tree = sum(ks.get(k, 0.0) for k in IN_TREE)
    return ks["algorithm"] / in_tree if "algorithm" in ks and in_tree > 0 else None


def equal_speed_ratio(runs, a, b):
    """Row a over row b at equal machine speed: the median of b's
    per_in_tree over a's, from the runs' "inside" figures; None when
    either row has none. Throughput is the inverse of the algorithm's time
    when kube-scheduler's cycle is the limit, and the in-tree points are
    the same work in both rows, so this ratio leaves out how fast the
    machine ran during each row's runs."""
    med = {}
    for row in (a, b):
        v = [x for x in (per_in_tree(r.get("inside")) for r in runs if r["row"] == row)
             if x is not None]
        if not v:
            return None
        med[row] = statistics.median(v)
    return med[b] / med[a]


def read(url):
    """A page's text, or '' when it cannot be read (a missing figure, not a
    failed run)."""
    try:
        return actors.http_get(url, timeout=10).decode()
    except OSError:
        return ""


class Profiler:
    """One CPU profile of kube-scheduler, PROFILE_DELAY s into the run."""

    def __init__(self, url, seconds, path):
        self.url, self.seconds, self.path = url, seconds, path
        self.stop_ev = threading.Event()
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        if self.stop_ev.wait(PROFILE_DELAY):
            return
        try:
            data = actors.http_get(f"{self.url}/debug/pprof/profile?seconds={self.seconds}",
                                   timeout=self.seconds + 30)
        except OSError:
            return
        with open(self.path, "wb") as f:
            f.write(data)

    def wait(self):
        """Called once the run has bound its pods: a profile already under
        way is finished, one not yet begun is not taken."""
        self.stop_ev.set()
        self.t.join(timeout=self.seconds + 40)
        return self.path if os.path.exists(self.path) else None


class Inside:
    """The figures of one run of a kube-scheduler row."""

    def __init__(self, ks_url, serve_url, workdir, name):
        self.ks_url, self.serve_url = ks_url, serve_url
        secs = profile_seconds()
        self.prof = Profiler(ks_url, secs, os.path.join(workdir, f"{name}.pprof")) \
            if secs else None

    def finish(self):
        """Read the pages (before the processes stop): the figures and the
        line to print."""
        fig = figures(read(self.ks_url + "/metrics"),
                      read(self.serve_url + "/metrics") if self.serve_url else "")
        line = summarize(fig)
        if self.prof:
            path = self.prof.wait()
            line += f"; profile {path}" if path else "; no profile (the run ended first)"
        return fig, line
