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

The algorithm's time less its Filter, PreScore and Score points is what the
extender's two calls cost kube-scheduler (encode, wait, decode) plus the
bookkeeping around them. With BENCH_PROFILE=S (seconds, default 0: none)
one CPU profile of kube-scheduler is taken per run, starting 20 s in, and
left in the work dir as <run>.pprof (go tool pprof -top
$BINDIR/kube-scheduler <run>.pprof reads it).
"""
import os
import threading
import time
import urllib.request

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
    /metrics page whose name starts with one of prefixes."""
    acc = {}
    for line in text.splitlines():
        if not line.startswith(prefixes):
            continue
        head, _, value = line.rpartition(" ")
        name, _, labels = head.partition("{")
        for suffix, slot in (("_sum", 0), ("_count", 1)):
            if name.endswith(suffix):
                key = (name[:-len(suffix)], labels.rstrip("}"))
                cur = acc.setdefault(key, [0.0, 0.0])
                try:
                    cur[slot] += float(value)
                except ValueError:
                    pass
    return {k: tuple(v) for k, v in acc.items()}


def label(labels, key):
    for part in labels.split(","):
        k, _, v = part.partition("=")
        if k == key:
            return v.strip('"')
    return ""


def summarize(ks_text, serve_text):
    """The one line a run prints; '' when there is nothing to say."""
    out = []
    if ks_text:
        m = parse_means(ks_text, ("scheduler_",))
        per = {}
        for (name, labels), (s, n) in m.items():
            if name == "scheduler_framework_extension_point_duration_seconds":
                key = label(labels, "extension_point")
            elif name == "scheduler_scheduling_algorithm_duration_seconds":
                key = "algorithm"
            elif name == "scheduler_e2e_scheduling_duration_seconds":
                key = "attempt"
            else:
                continue
            t = per.setdefault(key, [0.0, 0.0])
            t[0] += s
            t[1] += n
        parts = [f"{k} {1000 * s / n:.2f}" for k, (s, n) in sorted(per.items()) if n]
        if parts:
            out.append("kube-scheduler ms per attempt: " + ", ".join(parts))
    if serve_text:
        m = parse_means(serve_text, ("kpe_http_request_duration_seconds",))
        per = {}
        for (_, labels), (s, n) in m.items():
            t = per.setdefault(label(labels, "route"), [0.0, 0.0])
            t[0] += s
            t[1] += n
        parts = [f"{r} {1000 * s / n:.2f} ({n:.0f})" for r, (s, n) in sorted(per.items())
                 if n and r in ("/filter", "/prioritize", "/preempt")]
        if parts:
            out.append("serve ms per request: " + ", ".join(parts))
    return "; ".join(out)


def read(url):
    """A page's text, or '' when it cannot be read (a missing figure, not a
    failed run)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read().decode()
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
            with urllib.request.urlopen(f"{self.url}/debug/pprof/profile?seconds={self.seconds}",
                                        timeout=self.seconds + 30) as r:
                data = r.read()
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
        self.started = time.monotonic()

    def finish(self):
        """Read the pages (before the processes stop): the line to print."""
        line = summarize(read(self.ks_url + "/metrics"),
                         read(self.serve_url + "/metrics") if self.serve_url else "")
        if self.prof:
            path = self.prof.wait()
            line += f"; profile {path}" if path else "; no profile (the run ended first)"
        return line
