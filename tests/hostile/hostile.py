#!/usr/bin/env python3
"""hostile.py: `serve` against hostile clients (issue 19), on 127.0.0.1 only.

Each attack starts its own server (demo policy and cluster), runs for a
bounded time with a bounded number of connections, stops by itself and
prints its figures; the run ends with cmocka-style summary lines that
tests/run.sh counts. `--quick` runs the cheap attacks with small sizes (it
is part of `make test` through tests/cli/test_hostile.sh); without it,
`make hostile` runs them all at full size.

  python3 tests/hostile/hostile.py --bin bin/kube-policy-extender [--quick]
      [--only NAME,...]

Attacks:
  fd         idle connections past the open-file limit (hard limit lowered
             to 256 for the server only): CPU, log lines, a valid filter's
             latency while they are held, the pause counters in /metrics
  memory     the largest body the defaults allow, of one-character node
             names (the worst answer-to-body ratio: refused) and of full
             nodes (answered), each on a fresh server: peak RSS against
             the shipped 256Mi limit
  pipeline   a request with a large answer never read, then small
             requests pipelined behind it: bytes taken, peak RSS
  bigbody    two clients re-sending big bodies while small filters go on
             fresh connections and on one kept-alive connection: their
             p50/p99/max latency; at
             full size 30 MB of names and 16 MB of full nodes with the
             defaults, and 30 MB of each with --max-body-bytes 32Mi
             --max-inflight-bytes 256Mi (--quick: 4 MB of names)
  smuggle    header sections RFC 9112 refuses and libevent takes (issue
             29): each must get one 400 and a close, the request smuggled
             behind it never answered
  slowloris  40 connections each sending a header byte every 200 ms at
             --max-connections 20 (issue 29): valid filters and /metrics
             answered and their latency, for 4 s (--quick) or 20 s
"""
import argparse
import http.client
import json
import os
import re
import resource
import socket
import subprocess
import sys
import threading
import time

HOST = "127.0.0.1"  # never anything but loopback
DEMO = "deploy/demo"
SHIPPED_LIMIT = 256 << 20  # deploy/kubernetes, Helm values: memory 256Mi

results = {"pass": 0, "fail": 0}


def ok(name):
    results["pass"] += 1
    print(f"[       OK ] {name}", flush=True)


def check(name, cond, detail=""):
    if cond:
        ok(name)
    else:
        results["fail"] += 1
        print(f"[  FAILED  ] {name}: {detail}", flush=True)


def figure(text):
    print(f"    figure: {text}", flush=True)


class Server:
    """bin serve on an ephemeral loopback port, stderr kept in a file."""

    def __init__(self, binary, args=(), nofile=None, log="/dev/null"):
        def limits():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.log_path = log
        self.log = open(log, "w+")
        self.proc = subprocess.Popen(
            [binary, "serve", "--listen", f"{HOST}:0",
             "--policy", f"{DEMO}/policy.json",
             "--cluster", f"{DEMO}/cluster.json", *args],
            stderr=self.log, preexec_fn=limits)
        self.port = None
        deadline = time.time() + 20
        while time.time() < deadline and self.port is None:
            time.sleep(0.05)
            m = re.search(r"\(port (\d+)\)", open(log).read())
            if m:
                self.port = int(m.group(1))
        if self.port is None:
            self.stop()
            raise RuntimeError("server did not start: " + open(log).read())

    def status(self, key):
        text = open(f"/proc/{self.proc.pid}/status").read()
        return int(re.search(key + r":\s+(\d+)", text).group(1)) * 1024

    def cpu_seconds(self):
        f = open(f"/proc/{self.proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

    def metric(self, series):
        text = get(self.port, "/metrics")[1].decode()
        m = re.search("^" + re.escape(series) + r" (\S+)$", text, re.M)
        return float(m.group(1)) if m else None

    def log_text(self):
        return open(self.log_path, errors="replace").read()

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def get(port, path, timeout=10):
    c = http.client.HTTPConnection(HOST, port, timeout=timeout)
    c.request("GET", path)
    r = c.getresponse()
    return r.status, r.read()


def post(port, path, body, timeout=60):
    c = http.client.HTTPConnection(HOST, port, timeout=timeout)
    c.request("POST", path, body, {"Content-Type": "application/json"})
    r = c.getresponse()
    return r.status, r.read()


def pod():
    return json.load(open(f"{DEMO}/pods/web.json"))


def small_filter():
    return json.dumps({"Pod": pod(), "NodeNames": [
        "rdma-1", "rdma-2", "general-1", "gpu-1", "cordoned-1"]}).encode()


def names_body(size, width=1):
    """A filter body of at most size bytes of node names of width
    characters (1: all "a", the worst answer-to-body ratio)."""
    head = json.dumps({"Pod": pod()})[:-1] + ',"NodeNames":['
    n = max(1, (size - len(head) - 1) // (width + 3))
    if width == 1:
        names = ['"a"'] * n
    else:
        names = ['"%0*d"' % (width, i) for i in range(n)]
    return (head + ",".join(names) + "]}").encode()


def full_nodes_body(size):
    """A filter body of at most size bytes of full Node objects of ~10 KB
    (labels, resources, conditions, images: what kube-scheduler sends with
    nodeCacheCapable: false)."""
    def node(i):
        name = f"ip-10-{i // 250 % 250}-{i % 250}-7.us-west-2.compute.internal"
        return {
            "metadata": {
                "name": name, "uid": f"{i:08x}-0000-4000-8000-000000000000",
                "labels": {f"example.com/label-{j}": f"value-{i}-{j}"
                           for j in range(20)} |
                {"kubernetes.io/hostname": name,
                 "topology.kubernetes.io/zone": f"us-west-2{'abc'[i % 3]}"},
                "annotations": {"node.alpha.kubernetes.io/ttl": "0"}},
            "spec": {"providerID": f"aws:///us-west-2a/i-{i:017x}"},
            "status": {
                "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110",
                             "ephemeral-storage": "100Gi"},
                "allocatable": {"cpu": "7910m", "memory": "31Gi",
                                "pods": "110", "ephemeral-storage": "95Gi"},
                "conditions": [{"type": t, "status": "False",
                                "reason": "KubeletHasSufficient" + t,
                                "message": "kubelet has sufficient " + t}
                               for t in ("Memory", "Disk", "PID")],
                "images": [{"names": [f"registry.example.com/team-{j}/app-"
                                      f"{j}@sha256:{j:064x}",
                                      f"registry.example.com/team-{j}/app-"
                                      f"{j}:v1.{j}"],
                            "sizeBytes": 100000000 + j} for j in range(30)]}}
    head = json.dumps({"Pod": pod()})[:-1] + ',"Nodes":{"items":['
    parts, used, i = [], len(head) + 3, 0
    while True:
        one = json.dumps(node(i))
        if used + len(one) + 1 > size:
            break
        parts.append(one)
        used += len(one) + 1
        i += 1
    return (head + ",".join(parts) + "]}}").encode()


def percentile(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * p))] if v else float("nan")


# ---- attacks ---------------------------------------------------------


def attack_fd(a, tmp):
    n_idle = 300 if a.quick else 1100
    hold = 2.0 if a.quick else 5.0
    s = Server(a.bin, ["--max-connections", "100000"], nofile=256,
               log=f"{tmp}/fd.log")
    socks = []
    try:
        cpu0 = s.cpu_seconds()
        t0 = time.time()
        for _ in range(n_idle):
            k = socket.socket()
            k.setblocking(False)
            k.connect_ex((HOST, s.port))
            socks.append(k)
        time.sleep(1.0)  # held, no traffic: the server must be quiet
        quiet_cpu = s.cpu_seconds() - cpu0
        quiet = time.time() - t0
        lat = []
        body = small_filter()
        while time.time() - t0 < hold + 1.0:
            t = time.time()
            try:
                st, _ = post(s.port, "/filter", body, timeout=10)
            except OSError:
                st = 0
            lat.append((time.time() - t, st))
        cpu = s.cpu_seconds() - cpu0
        wall = time.time() - t0
        ok_lat = [d for d, st in lat if st == 200]
        text = s.log_text()
        accept_errors = text.count("Error from accept")
        pauses = text.count("not accepting connections")
        paused = s.metric('kpe_http_accept_paused_total{reason="error"}')
        shed = s.metric("kpe_http_connections_shed_total")
        figure(f"fd: {n_idle} idle connections, open-file limit 256, "
               f"{wall:.1f} s: server CPU {100 * quiet_cpu / quiet:.0f}% while "
               f"they are held, {100 * cpu / wall:.0f}% with filters, "
               f"{len(ok_lat)}/{len(lat)} filters answered, p99 "
               f"{1000 * percentile(ok_lat, 0.99):.1f} ms, log lines "
               f"{len(text.splitlines())} (accept errors {accept_errors}, "
               f"pause messages {pauses}), paused {paused}, shed {shed}")
        check("fd: no accept() error loop in the log", accept_errors == 0,
              f"{accept_errors} lines")
        check("fd: pauses logged at most once a second",
              pauses <= wall + 2, f"{pauses} in {wall:.1f} s")
        check("fd: the server does not spin", quiet_cpu < 0.2 * quiet,
              f"{quiet_cpu:.2f} s CPU in {quiet:.1f} s")
        check("fd: valid filters keep being answered",
              len(ok_lat) == len(lat) and len(lat) >= 3,
              f"{len(ok_lat)}/{len(lat)}")
        check("fd: accept pauses are counted in /metrics",
              paused is not None and paused >= 1, f"{paused}")
    finally:
        for k in socks:
            k.close()
        s.stop()


def attack_memory(a, tmp):
    """The largest body the defaults allow (--max-body-bytes), twice, each
    on a fresh server: one-character node names (the worst answer-to-body
    ratio: refused, 413) and full nodes (the largest legitimate request:
    answered)."""
    cases = (("1-character node names", names_body, 413),
             ("full nodes", full_nodes_body, 200))
    for what, make, want in cases:
        s = Server(a.bin, log=f"{tmp}/memory.log")
        try:
            cap = int(s.metric("kpe_http_max_body_bytes") or 0)
            body = make(cap)
            base = s.status("VmRSS")
            t = time.time()
            st, ans = post(s.port, "/filter", body, timeout=120)
            secs = time.time() - t
            peak = s.status("VmHWM")
            figure(f"memory: body {len(body) / 1e6:.1f} MB of {what} (cap "
                   f"{cap / 1048576:.0f} MiB): HTTP {st}, answer "
                   f"{len(ans) / 1e6:.2f} MB in {secs:.2f} s, RSS "
                   f"{base / 1e6:.0f} -> peak {peak / 1e6:.0f} MB, factor "
                   f"(peak - before) / body {(peak - base) / len(body):.1f}; "
                   f"{ans[:100]!r}")
            check(f"memory: {what}: HTTP {want}", st == want,
                  f"HTTP {st}: {ans[-200:]!r}")
            check(f"memory: {what}: peak RSS under the shipped 256Mi limit",
                  peak < SHIPPED_LIMIT, f"{peak / 1e6:.0f} MB")
            st, _ = post(s.port, "/filter", small_filter())
            check(f"memory: {what}: the server still answers", st == 200,
                  f"HTTP {st}")
        finally:
            s.stop()


def attack_pipeline(a, tmp):
    s = Server(a.bin, ["--max-body-bytes", "1Mi"], log=f"{tmp}/pipe.log")
    try:
        big = names_body(300000, width=12)  # an answer ~10 x the body
        k = socket.create_connection((HOST, s.port))
        k.sendall(b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n"
                  b"\r\n" % len(big) + big)
        one = small_filter()
        req = (b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n"
               b"\r\n" % len(one) + one)
        batch = req * max(1, (64 << 10) // len(req))
        k.setblocking(False)
        base = s.status("VmRSS")
        sent, off, t0 = 0, 0, time.time()
        secs = 1.5 if a.quick else 5.0
        while time.time() - t0 < secs:
            try:
                n = k.send(batch[off:])  # partial sends resume mid-request
                sent += n
                off = (off + n) % len(batch)
            except BlockingIOError:
                time.sleep(0.02)
        peak = s.status("VmHWM")
        figure(f"pipeline: {sent / 1e6:.1f} MB pipelined in {secs:.1f} s "
               f"behind an unread answer: RSS {base / 1e6:.0f} -> peak "
               f"{peak / 1e6:.0f} MB")
        check("pipeline: the server stops reading (a few MB at most)",
              sent < 16e6, f"{sent / 1e6:.1f} MB taken")
        check("pipeline: peak RSS stays low", peak - base < 16e6,
              f"{(peak - base) / 1e6:.0f} MB")
        k.close()
    finally:
        s.stop()


def bigbody_case(a, tmp, args, what, make, size, secs):
    """Two clients re-send a size-byte body made by make while a third
    sends small filters on fresh connections and a fourth on one kept-alive
    connection (pinned to one worker, as kube-scheduler's are); returns
    both latency lists and how many small filters were not answered 200."""
    s = Server(a.bin, args, log=f"{tmp}/bigbody.log")
    stop = threading.Event()
    big_done, codes = [0, 0], {}
    try:
        big = make(size)

        def sender(i):
            while not stop.is_set():
                try:
                    st, _ = post(s.port, "/filter", big, timeout=60)
                    codes[st] = codes.get(st, 0) + 1
                    big_done[i] += 1
                except OSError:
                    codes["reset"] = codes.get("reset", 0) + 1
                    time.sleep(0.05)

        body = small_filter()
        small_codes, kept = {}, []

        def count(st):
            if st != 200:
                small_codes[st] = small_codes.get(st, 0) + 1

        def keepalive():
            c = http.client.HTTPConnection(HOST, s.port, timeout=30)
            while not stop.is_set():
                t = time.time()
                try:
                    c.request("POST", "/filter", body,
                              {"Content-Type": "application/json"})
                    r = c.getresponse()
                    r.read()
                    count(r.status)
                except OSError:
                    count("reset")
                    c = http.client.HTTPConnection(HOST, s.port, timeout=30)
                kept.append(time.time() - t)
                time.sleep(0.01)

        threads = [threading.Thread(target=sender, args=(i,)) for i in (0, 1)]
        threads.append(threading.Thread(target=keepalive))
        for t in threads:
            t.start()
        lat = []
        t0 = time.time()
        while time.time() - t0 < secs:
            t = time.time()
            st, _ = post(s.port, "/filter", body, timeout=30)
            lat.append(time.time() - t)
            count(st)
            time.sleep(0.01)
        stop.set()
        for t in threads:
            t.join()

        def dist(xs):
            return (f"p50 {1000 * percentile(xs, 0.5):.1f} ms, p99 "
                    f"{1000 * percentile(xs, 0.99):.1f} ms, max "
                    f"{1000 * max(xs):.1f} ms")
        bad = sum(small_codes.values())
        figure(f"bigbody: {' '.join(args) or 'defaults'}: two clients "
               f"re-sending {len(big) / 1e6:.1f} MB bodies of {what} "
               f"({sum(big_done)} sent in {secs:.0f} s, answers {codes}); "
               f"small filter, fresh connections x{len(lat)}: {dist(lat)}; "
               f"one kept-alive connection x{len(kept)}: {dist(kept)}; "
               f"{bad} not 200 {small_codes}; peak RSS "
               f"{s.status('VmHWM') / 1e6:.0f} MB")
        return lat + kept, bad
    finally:
        stop.set()
        s.stop()


def attack_bigbody(a, tmp):
    raised = ["--max-body-bytes", "32Mi", "--max-inflight-bytes", "256Mi"]
    if a.quick:
        cases = (([], "1-character names", names_body, 4 << 20),)
    else:
        cases = (([], "1-character names", names_body, 30 << 20),
                 ([], "full nodes", full_nodes_body, 16 << 20),
                 (raised, "1-character names", names_body, 30 << 20),
                 (raised, "full nodes", full_nodes_body, 30 << 20))
    for args, what, make, size in cases:
        lat, bad = bigbody_case(a, tmp, args, what, make, size,
                                3.0 if a.quick else 10.0)
        name = f"bigbody: {what}, {len(args) and 'raised limits' or 'defaults'}"
        check(f"{name}: small filters all answered", bad == 0, f"{bad}")
        check(f"{name}: small filters not stalled for seconds",
              max(lat) < 2.0, f"max {max(lat):.2f} s")


def raw_exchange(port, data, wait=2.0):
    """Send data on a fresh connection; what came back until the close or
    `wait` s of silence, and whether the server closed."""
    k = socket.create_connection((HOST, port), timeout=wait)
    k.sendall(data)
    out, closed = b"", False
    try:
        while True:
            b = k.recv(65536)
            if not b:
                closed = True
                break
            out += b
    except socket.timeout:
        pass
    except OSError:
        closed = True
    k.close()
    return out, closed


SMUGGLED = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
SMUGGLE_CASES = [
    ("space before the colon of Content-Length",
     b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length : %d\r\n\r\n"
     % len(SMUGGLED) + SMUGGLED),
    ("space before the colon of Transfer-Encoding",
     b"POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n"
     b"Content-Length: 2\r\n\r\n{}" + SMUGGLED),
    ("no Host", b"GET /healthz HTTP/1.1\r\n\r\n" + SMUGGLED),
    ("two Host", b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"
     + SMUGGLED),
    ("NUL in a value", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX: a\0b\r\n\r\n"
     + SMUGGLED),
    ("empty field name", b"GET /healthz HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n"
     + SMUGGLED),
    ("chunk size 0x1a3", b"POST /filter HTTP/1.1\r\nHost: x\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n0x2\r\n{}\r\n0\r\n\r\n" + SMUGGLED),
    ("Transfer-Encoding: identity, chunked", b"POST /filter HTTP/1.1\r\n"
     b"Host: x\r\nTransfer-Encoding: identity, chunked\r\n\r\n"
     b"2\r\n{}\r\n0\r\n\r\n" + SMUGGLED),
]


def attack_smuggle(a, tmp):
    s = Server(a.bin, log=f"{tmp}/smuggle.log")
    try:
        for name, data in SMUGGLE_CASES:
            out, closed = raw_exchange(s.port, data)
            answers = out.count(b"HTTP/1.")
            check(f"smuggle: {name}: one 400 and a close",
                  out.startswith(b"HTTP/1.1 400") and answers == 1 and closed,
                  f"closed {closed}, got {out[:200]!r}")
        st, _ = post(s.port, "/filter", small_filter(), timeout=10)
        check("smuggle: a valid filter is still answered", st == 200, st)
        figure(f"smuggle: {len(SMUGGLE_CASES)} cases, "
               f"{s.metric('kpe_http_bad_headers_total')} counted in "
               f"kpe_http_bad_headers_total")
    finally:
        s.stop()


def attack_slowloris(a, tmp):
    secs = 4.0 if a.quick else 20.0
    n_slow = 40
    s = Server(a.bin, ["--max-connections", "20"], log=f"{tmp}/slowloris.log")
    stop = threading.Event()
    reconnects = [0]

    def slow():
        socks = [None] * n_slow
        while not stop.is_set():
            for i in range(n_slow):
                try:
                    if socks[i] is None:
                        socks[i] = socket.create_connection((HOST, s.port),
                                                            timeout=1)
                        socks[i].sendall(b"GET /healthz HTTP/1.1\r\nX-A: ")
                        reconnects[0] += 1
                    socks[i].sendall(b"a")
                except OSError:
                    if socks[i] is not None:
                        socks[i].close()
                    socks[i] = None
            stop.wait(0.2)
        for k in socks:
            if k is not None:
                k.close()

    t = threading.Thread(target=slow)
    t.start()
    lat, metrics_ok, n = [], 0, 0
    try:
        time.sleep(1.5)
        t0 = time.time()
        while time.time() - t0 < secs:
            n += 1
            t1 = time.time()
            try:
                st, _ = post(s.port, "/filter", small_filter(), timeout=5)
            except OSError:
                st = 0
            if st == 200:
                lat.append(time.time() - t1)
            try:
                metrics_ok += get(s.port, "/metrics", timeout=5)[0] == 200
            except OSError:
                pass
        shed = s.metric("kpe_http_connections_shed_total")
        figure(f"slowloris: {n_slow} connections trickling headers at "
               f"--max-connections 20, {secs:.0f} s: {len(lat)}/{n} filters "
               f"answered (p50 {1000 * percentile(lat, 0.5):.0f} ms, max "
               f"{1000 * max(lat or [0]):.0f} ms), /metrics {metrics_ok}/{n}, "
               f"{reconnects[0]} slow connections opened, shed {shed}")
        check("slowloris: every valid filter answered", len(lat) == n and n,
              f"{len(lat)}/{n}")
        check("slowloris: /metrics reachable", metrics_ok == n,
              f"{metrics_ok}/{n}")
    finally:
        stop.set()
        t.join()
        s.stop()


ATTACKS = {"fd": attack_fd, "memory": attack_memory,
           "pipeline": attack_pipeline, "bigbody": attack_bigbody,
           "smuggle": attack_smuggle, "slowloris": attack_slowloris}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default="bin/kube-policy-extender")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default=",".join(ATTACKS))
    p.add_argument("--tmp", default=os.environ.get("TMPDIR", "/tmp"))
    a = p.parse_args()
    for name in a.only.split(","):
        t = time.time()
        try:
            ATTACKS[name](a, a.tmp)
        except Exception as e:  # a crash of the attack is a failure
            check(f"{name}: ran", False, repr(e))
        print(f"    ({name}: {time.time() - t:.1f} s)", flush=True)
    n = results["pass"] + results["fail"]
    print(f"[==========] {n} test(s) run.")
    print(f"[  PASSED  ] {results['pass']} test(s).")
    if results["fail"]:
        print(f"[  FAILED  ] {results['fail']} test(s).")
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
