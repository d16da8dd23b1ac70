"""bench_measure.py: what the scale bench measures.

- Watch: the time each measured pod is seen bound, from a watch on its
  namespace (fieldSelector spec.nodeName!=: a pod enters the watch when it
  is bound), whoever binds it; or the time each init pod is deleted
  (Preemption's evictions);
- throughput(): SchedulingThroughput as scheduler_perf reports it
  (test/integration/scheduler_perf/util.go, throughputCollector): pods
  bound per 1-second sample, average and the 50th/90th/99th percentiles of
  the sorted samples; sampled from the first measured bind on;
- CpuMeter: the machine's busy CPU time (/proc/stat) against the CPU time of
  the processes the bench knows (etcd and kube-apiserver from /proc, the
  harness itself, and the row's processes as children it has waited for);
  the rest is what other processes used meanwhile.
"""
import http.client
import json
import math
import os
import socket
import threading
import time
import urllib.parse

import k8s

TICK = os.sysconf("SC_CLK_TCK")


class Watch:
    """Watch namespace ns from now on; .times maps the name of each pod seen
    in an event of `types` to the monotonic time it was first seen. The
    default: pods seen bound (fieldSelector spec.nodeName!=: a pod enters
    the watch when it is bound), whoever binds them."""

    def __init__(self, cp, ns, field_selector="spec.nodeName!=", types=("ADDED", "MODIFIED")):
        self.times = {}
        self.types = types
        self.error = None
        self.closed = False
        rv = cp.get(f"/api/v1/namespaces/{ns}/pods?limit=1")["metadata"]["resourceVersion"]
        q = {"watch": "1", "resourceVersion": rv, "timeoutSeconds": "3600"}
        if field_selector:
            q["fieldSelector"] = field_selector
        u = urllib.parse.urlsplit(cp.url)
        # Our own connection, so that close() can shut its socket down under
        # the reading thread.
        self.conn = http.client.HTTPSConnection(u.hostname, u.port, context=cp.ctx, timeout=3600)
        self.conn.request("GET", f"/api/v1/namespaces/{ns}/pods?{urllib.parse.urlencode(q)}",
                          headers={"Authorization": f"Bearer {k8s.TOKEN}",
                                   "Accept": "application/json"})
        self.resp = self.conn.getresponse()
        if self.resp.status != 200:
            raise RuntimeError(f"watch {ns}: HTTP {self.resp.status}: {self.resp.read()[:300]!r}")
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            for line in self.resp:
                now = time.monotonic()
                ev = json.loads(line)
                if ev.get("type") == "ERROR":
                    self.error = ev.get("object", {}).get("message", "watch error")
                    return
                name = ev["object"]["metadata"]["name"]
                if ev["type"] in self.types and name not in self.times:
                    self.times[name] = now
        except Exception as ex:  # noqa: BLE001 - reported by the caller
            if not self.closed:
                self.error = repr(ex)

    def close(self):
        self.closed = True
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass
        self.thread.join(10)
        self.conn.close()

    def first(self):
        return min(self.times.values()) if self.times else None

    def last(self):
        return max(self.times.values()) if self.times else None


def wait_bound(watch, n, started, stall, first_stall, alive=None, also=(), limit=None):
    """Wait until n pods are seen bound, or nothing new happened for
    `stall` seconds (`first_stall` before anything happened: start-up),
    or alive() turns false with binds still missing, or `limit` seconds
    have passed. Progress is a bind, or an event of the `also` watches
    (Preemption's evictions: the binds come after them). The reason it
    stopped: 'all', 'stalled', 'exited' or 'limit'."""
    while True:
        if len(watch.times) >= n:
            return "all"
        if limit and time.monotonic() - started > limit:
            return "limit"
        for w in (watch, *also):
            if w.error:
                raise RuntimeError(f"watch failed: {w.error}")
        last = max((w.last() for w in (watch, *also) if w.last() is not None), default=None)
        now = time.monotonic()
        if (last is None and now - started > first_stall) or (last and now - last > stall):
            return "stalled"
        if alive and not alive():
            time.sleep(1)   # binds already posted still reach the watch
            return "all" if len(watch.times) >= n else "exited"
        time.sleep(0.1)


def percentile(sorted_samples, q):
    """scheduler_perf's pick: the ceil(len*q/100)-th smallest sample."""
    return sorted_samples[max(0, int(math.ceil(len(sorted_samples) * q / 100)) - 1)]


def throughput(times):
    """SchedulingThroughput of the bind times: {'avg','p50','p90','p99',
    'samples','span'}; all zero when nothing was bound."""
    ts = sorted(times)
    if not ts:
        return {"avg": 0.0, "p50": 0.0, "p90": 0.0, "p99": 0.0, "samples": 0, "span": 0.0}
    span = ts[-1] - ts[0]
    full = int(span)
    if full == 0:
        samples = [len(ts) / span if span > 0 else float(len(ts))]
    else:
        samples, i = [], 0
        for k in range(1, full + 1):
            end, c = ts[0] + k, 0
            while i < len(ts) and ts[i] < end:
                i, c = i + 1, c + 1
            samples.append(float(c))
    s = sorted(samples)
    return {"avg": sum(s) / len(s), "p50": percentile(s, 50), "p90": percentile(s, 90),
            "p99": percentile(s, 99), "samples": len(s), "span": span}


def busy_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest is in user)
    return v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)


def proc_ticks(pid):
    """utime + stime of a live process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


def own_and_children():
    """CPU seconds of the harness itself and of the children it has waited
    for (the row's processes, once stopped)."""
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system


def metric_samples(text, prefixes):
    """(name, {label: value}, value) for each sample line of a /metrics page
    whose name starts with one of prefixes; a value that is not a number
    is left out."""
    for line in text.splitlines():
        if not line.startswith(prefixes):
            continue
        head, _, value = line.rpartition(" ")
        name, _, labels = head.partition("{")
        kv = dict(part.split("=", 1) for part in labels.rstrip("}").split(",") if "=" in part)
        try:
            yield name, {k: v.strip('"') for k, v in kv.items()}, float(value)
        except ValueError:
            continue


def parse_request_counts(text):
    """apiserver_request_total from a /metrics page, summed by
    'VERB resource[/subresource]' (codes, scopes and versions merged)."""
    out = {}
    for name, kv, value in metric_samples(text, ("apiserver_request_total{",)):
        key = kv.get("verb", "?") + " " + kv.get("resource", "?") + (
            "/" + kv["subresource"] if kv.get("subresource") else "")
        out[key] = out.get(key, 0) + value
    return out


def request_counts(cp):
    """The API server's requests so far, by verb and resource; {} when its
    /metrics cannot be read."""
    try:
        return parse_request_counts(cp.request("GET", "/metrics", raw=True).decode())
    except Exception:  # noqa: BLE001 - a missing figure, not a failed run
        return {}


def request_delta(before, after, per, top=6):
    """'POST pods/binding 1.00, ...': the requests made between two
    request_counts, per `per` (pods), the largest first."""
    d = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    d = sorted(((v, k) for k, v in d.items() if v > 0), reverse=True)[:top]
    return ", ".join(f"{k} {v / per:.2f}" for v, k in d) if per else ""


class CpuMeter:
    """CPU seconds over one run: machine busy, the known processes, other.
    Start it before the row's processes start; stop it once they have been
    stopped and waited for."""

    def __init__(self, steady_pids):
        self.steady = list(steady_pids)
        self.busy0 = busy_ticks()
        self.steady0 = sum(proc_ticks(p) for p in self.steady)
        self.own0, self.children0 = own_and_children()
        self.t0 = time.monotonic()

    def stop(self):
        busy = (busy_ticks() - self.busy0) / TICK
        steady = (sum(proc_ticks(p) for p in self.steady) - self.steady0) / TICK
        own, children = own_and_children()
        own, row = own - self.own0, children - self.children0
        return {"wall": time.monotonic() - self.t0, "busy": busy, "row": row,
                "control_plane": steady, "harness": own,
                "other": max(0.0, busy - row - steady - own)}


def other_is_notable(cpu):
    """Other processes used more than a tenth of a core on average, or 5%
    of the busy time."""
    return cpu["other"] > max(0.1 * cpu["wall"], 0.05 * cpu["busy"])
