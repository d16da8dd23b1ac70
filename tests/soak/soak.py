#!/usr/bin/env python3
"""soak.py: run `serve --kubeconfig` against the API-server double under
load, churn, faults and policy rewrites, then check that it survived.

Loopback only, Python standard library only. See tests/soak/README.md.

    python3 tests/soak/soak.py --duration 180            # make soak
    python3 tests/soak/soak.py --duration 25 --nodes 50 --pods 400  # short

Exit status 0 when every check passed, 1 when one failed, 2 on a setup
error. The summary (requests by kind, errors, RSS, duration) is printed on
stdout; --json-out writes it as JSON too.
"""
import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
MIB = 1 << 20

# Request kinds. VALID ones must always succeed; INVALID ones must get the
# documented rejection; ROUGH ones (abandoned connections) have no answer
# to check, only the server's survival.
VALID = ["filter-names", "filter-full", "prioritize-names",
         "prioritize-full", "preempt-names", "preempt-full", "bind",
         "get-metrics", "get-policy", "slow-valid"]
INVALID = ["bad-json", "wrong-types", "truncated", "oversized",
           "huge-headers", "bad-method", "unknown-path", "stalled"]
ROUGH = ["abandoned"]

# Load mix for the request workers (kind: weight).
MIX = {"filter-names": 25, "filter-full": 8, "prioritize-names": 15,
       "prioritize-full": 5, "preempt-names": 5, "preempt-full": 3,
       "bind": 5, "get-metrics": 2, "get-policy": 1, "bad-json": 4,
       "wrong-types": 4, "truncated": 4, "oversized": 1, "huge-headers": 1,
       "bad-method": 1, "unknown-path": 1}


# Bodies of the right JSON syntax but the wrong shape, per verb (keys a
# verb does not read are ignored, as Go's encoding/json ignores them).
_POD = {"metadata": {"name": "x", "namespace": "soak"}}
_ARGS_WRONG = [
    {"Pod": 5, "NodeNames": ["node-00000"]},
    {"Pod": _POD, "NodeNames": "node-00000"},
    {"Pod": _POD, "NodeNames": [1, 2]},
    {"Pod": _POD, "Nodes": []},
    {"Pod": _POD, "Nodes": {"items": [{"metadata": 3}]}},
    {"Pod": {"spec": {"containers": "none"}}, "NodeNames": ["node-00000"]},
    {"NodeNames": ["node-00000"]},
    [], 17, "string", None]
WRONG_TYPES = {
    "filter": _ARGS_WRONG,
    "prioritize": _ARGS_WRONG,
    "preempt": [
        {"Pod": 5, "NodeNameToMetaVictims": {}},
        {"Pod": _POD, "NodeNameToMetaVictims": {"node-00000": 3}},
        {"Pod": _POD, "NodeNameToMetaVictims": {"node-00000": {"Pods": 1}}},
        {"Pod": _POD, "NodeNameToMetaVictims": {
            "node-00000": {"Pods": [{"Name": "no-uid"}]}}},
        {"Pod": _POD, "NodeNameToVictims": []},
        {"NodeNameToMetaVictims": {}}, [], 17],
    "bind": [
        {"PodName": 1, "PodNamespace": "soak", "Node": "node-00000"},
        {"PodName": "x", "PodNamespace": "soak"},
        {"PodName": "x", "PodNamespace": "soak", "Node": []},
        [], 17, "string"],
}


def log(msg):
    sys.stderr.write("soak: %s\n" % msg)
    sys.stderr.flush()


# ---- quantities, as the cache sums them (effective pod requests) ----

_BIN = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}
_DEC = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "m": None}


def quantity_milli(q):
    """A quantity string as milli-units, rounded up (cpu)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([a-zA-Z]*)", q)
    num, sfx = m.group(1), m.group(2)
    if sfx == "m":
        return -(-int(float(num) * 1000) // 1000)
    mult = _BIN.get(sfx) or (_DEC.get(sfx) if sfx else 1)
    return int(round(float(num) * mult * 1000))


def quantity_value(q):
    """A quantity string as whole units, rounded up (memory)."""
    return -(-quantity_milli(q) // 1000)


def pod_requests(pod):
    """(milliCPU, memory) as kube_pod_request computes it."""
    spec = pod.get("spec", {})

    def reqs(c):
        r = (c.get("resources") or {}).get("requests") or {}
        return (quantity_milli(r["cpu"]) if "cpu" in r else 0,
                quantity_value(r["memory"]) if "memory" in r else 0)
    cpu = mem = 0
    for c in spec.get("containers") or []:
        a, b = reqs(c)
        cpu, mem = cpu + a, mem + b
    for c in spec.get("initContainers") or []:
        a, b = reqs(c)
        cpu, mem = max(cpu, a), max(mem, b)
    ov = spec.get("overhead") or {}
    if "cpu" in ov:
        cpu += quantity_milli(ov["cpu"])
    if "memory" in ov:
        mem += quantity_value(ov["memory"])
    return cpu, mem


# ---- the two processes ----

class Proc:
    def __init__(self, args, logpath, env=None):
        self.logpath = logpath
        self.logf = open(logpath, "wb")
        self.p = subprocess.Popen(args, stdout=self.logf,
                                  stderr=subprocess.STDOUT, cwd=ROOT,
                                  env=env)

    def alive(self):
        return self.p.poll() is None

    def stop(self, timeout=20):
        if self.alive():
            self.p.send_signal(signal.SIGTERM)
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        self.logf.close()
        return rc

    def tail(self, n=15):
        with open(self.logpath, "rb") as f:
            return b"".join(f.readlines()[-n:]).decode(errors="replace")


def wait_for(fn, timeout, step=0.1):
    end = time.time() + timeout
    while time.time() < end:
        v = fn()
        if v:
            return v
        time.sleep(step)
    return None


def http_json(base, method, path, body=None, timeout=30):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


# ---- the soak ----

class Soak:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.counts = {}       # kind -> {"ok": n, "fail": n}
        self.failures = []     # (kind, message), the first few kept
        self.events = {}       # churn/fault/policy operations -> count
        self.rss = []          # (seconds since start, KiB)
        self.crashed = None
        self.soak_pods = {}    # "soak/name" -> node, pods the churn may touch
        self.finished = []     # names of pods the churn finished, to delete
        self.pod_seq = 0

    # -- bookkeeping --
    def record(self, kind, ok, msg=None):
        with self.lock:
            c = self.counts.setdefault(kind, {"ok": 0, "fail": 0})
            c["ok" if ok else "fail"] += 1
            if not ok and len(self.failures) < 40:
                self.failures.append((kind, msg))

    def event(self, name):
        with self.lock:
            self.events[name] = self.events.get(name, 0) + 1

    def next_name(self, prefix):
        with self.lock:
            self.pod_seq += 1
            return "%s-%06d" % (prefix, self.pod_seq)

    # -- setup --
    def setup(self):
        a = self.a
        self.tmp = tempfile.mkdtemp(prefix="kpe-soak-")
        cluster = os.path.join(self.tmp, "cluster.json")
        with open(cluster, "w") as f:
            subprocess.run([sys.executable,
                            os.path.join(ROOT, "tests/apiserver/gen_cluster.py"),
                            "--nodes", str(a.nodes), "--pods", str(a.pods),
                            "--bound", "0.9"], stdout=f, check=True)
        with open(cluster) as f:
            items = json.load(f)["items"]
        self.nodes = [o for o in items if o["kind"] == "Node"]
        self.node_names = [n["metadata"]["name"] for n in self.nodes]
        # Loaded pods are never churned: preempt victims come from them.
        self.stable = {}
        for p in items:
            if p["kind"] == "Pod" and p["spec"].get("nodeName"):
                self.stable.setdefault(p["spec"]["nodeName"], []).append(p)
        portf = os.path.join(self.tmp, "api.port")
        self.api = Proc([sys.executable,
                         os.path.join(ROOT, "tests/apiserver/apiserver.py"),
                         "--port-file", portf, "--load", cluster,
                         "--history", "20000", "--bookmark-interval", "2"],
                        os.path.join(self.tmp, "api.log"))
        if not wait_for(lambda: os.path.exists(portf) and
                        open(portf).read().strip(), 60):
            raise RuntimeError("the API-server double did not start:\n" +
                               self.api.tail())
        self.api_url = "http://127.0.0.1:%s" % open(portf).read().strip()
        kc = os.path.join(self.tmp, "kubeconfig")
        with open(kc, "w") as f:
            f.write("apiVersion: v1\nkind: Config\nclusters:\n- name: d\n"
                    "  cluster: {server: \"%s\"}\nusers:\n- name: u\n"
                    "  user: {}\ncontexts:\n- name: c\n"
                    "  context: {cluster: d, user: u}\ncurrent-context: c\n"
                    % self.api_url)
        with open(os.path.join(ROOT, "deploy/demo/policy.json")) as f:
            self.policy_good = f.read()
        self.policy_path = os.path.join(self.tmp, "policy.json")
        with open(self.policy_path, "w") as f:
            f.write(self.policy_good)
        self.serve_log = os.path.join(self.tmp, "serve.log")
        args = [a.bin, "serve", "--listen", "127.0.0.1:0",
                "--policy", self.policy_path, "--kubeconfig", kc,
                "--debug-endpoints", "--workers", str(a.server_workers),
                "--max-body-bytes", str(a.max_body),
                "--max-header-bytes", "16Ki",
                "--read-timeout", str(a.read_timeout),
                "--policy-watch-interval", "200",
                # The soak's pods are never bound: holds (the extender
                # deciding alone with this full Policy) would keep them in
                # the cache it compares with the API server until they
                # expire. Holds are proven with the real kube-scheduler in
                # make e2e (suite_extender: burst_sole_shape*).
                "--hold-timeout", "0"]
        self.srv = Proc(args, self.serve_log)

        def port():
            m = re.search(rb"\(port (\d+)\)", open(self.serve_log, "rb").read())
            return m and int(m.group(1))
        self.port = wait_for(port, 60)
        if not self.port:
            raise RuntimeError("serve did not start:\n" + self.srv.tail())
        self.base = "http://127.0.0.1:%d" % self.port

        def ready():
            try:
                with urllib.request.urlopen(self.base + "/readyz",
                                            timeout=5) as r:
                    return r.status == 200
            except OSError:
                return False
        if not wait_for(ready, 120, 0.2):
            raise RuntimeError("serve never became ready:\n" +
                               self.srv.tail())

    # -- request bodies --
    def new_pod(self, rng):
        cpu = rng.choice(["100m", "250m", "500m", "1", "2", "40"])
        mem = rng.choice(["64Mi", "256Mi", "1Gi", "4Gi"])
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "q-%d" % rng.randrange(10**6),
                            "namespace": "soak",
                            "uid": "q-%d" % rng.randrange(10**9),
                            "labels": {"app": "app-%d" % rng.randrange(20)}},
               "spec": {"containers": [{
                   "name": "c", "image": "registry.example/app:%d" %
                   rng.randrange(7),
                   "resources": {"requests": {"cpu": cpu, "memory": mem}}}]}}
        if rng.random() < 0.2:
            pod["metadata"]["labels"]["high-comm"] = "x"
        if rng.random() < 0.1:
            pod["spec"]["containers"][0]["ports"] = [
                {"containerPort": 80, "hostPort": 8080}]
        return pod

    def args_names(self, rng, pod=None):
        names = rng.sample(self.node_names,
                           rng.randint(1, min(len(self.node_names), 100)))
        return {"Pod": pod or self.new_pod(rng), "Nodes": None,
                "NodeNames": names}, names

    def args_full(self, rng):
        nodes = rng.sample(self.nodes, rng.randint(1, min(len(self.nodes),
                                                          40)))
        names = [n["metadata"]["name"] for n in nodes]
        return {"Pod": self.new_pod(rng), "Nodes": {"items": nodes},
                "NodeNames": None}, names

    def args_preempt(self, rng, full):
        cands = [n for n in self.node_names if n in self.stable]
        chosen = rng.sample(cands, min(len(cands), rng.randint(1, 4)))
        victims = {}
        for n in chosen:
            pods = rng.sample(self.stable[n],
                              min(len(self.stable[n]), rng.randint(1, 3)))
            if full:
                victims[n] = {"Pods": pods, "NumPDBViolations": 0}
            else:
                victims[n] = {"Pods": [{"UID": p["metadata"]["uid"]}
                                       for p in pods],
                              "NumPDBViolations": 0}
        body = {"Pod": self.new_pod(rng)}
        if full:
            body.update(NodeNameToVictims=victims, NodeNameToMetaVictims=None)
        else:
            body.update(NodeNameToVictims=None, NodeNameToMetaVictims=victims)
        return body, chosen

    # -- answers --
    @staticmethod
    def check_filter(status, body, names, full):
        if status != 200:
            return "HTTP %d" % status
        r = json.loads(body)
        if r.get("Error"):
            return "Error: %s" % r["Error"]
        if full:
            passed = [n["metadata"]["name"] for n in
                      (r.get("Nodes") or {}).get("items") or []]
        else:
            passed = r.get("NodeNames") or []
        failed = list((r.get("FailedNodes") or {}).keys())
        if sorted(passed + failed) != sorted(names):
            return "nodes answered != nodes asked (%d+%d vs %d)" % (
                len(passed), len(failed), len(names))
        return None

    @staticmethod
    def check_prioritize(status, body, names):
        if status != 200:
            return "HTTP %d: %s" % (status, body[:200])
        r = json.loads(body)
        if sorted(h["Host"] for h in r) != sorted(names):
            return "hosts answered != nodes asked"
        if any(not 0 <= h["Score"] <= 10 for h in r):
            return "score out of 0..10"
        return None

    @staticmethod
    def check_preempt(status, body, names):
        if status != 200:
            return "HTTP %d: %s" % (status, body[:200])
        r = json.loads(body).get("NodeNameToMetaVictims") or {}
        if not set(r) <= set(names):
            return "preempt answered nodes it was not asked about"
        return None

    # -- one request on a keep-alive connection --
    def post(self, conn, path, body, headers=None):
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        conn.request("POST", path, body=body, headers=h)
        r = conn.getresponse()
        return r.status, r.read(), r.getheader("Connection", "")

    def create_pod(self, name, node=None, rng=None):
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "soak",
                            "labels": {"app": "soak"}},
               "spec": {"containers": [{
                   "name": "c", "image": "x",
                   "resources": {"requests": {
                       "cpu": (rng or self.rng).choice(["50m", "200m", "1"]),
                       "memory": (rng or self.rng).choice(
                           ["32Mi", "300Mi", "1Gi"])}}}]}}
        if node:
            pod["spec"]["nodeName"] = node
        return http_json(self.api_url, "POST",
                         "/api/v1/namespaces/soak/pods", pod)

    def delete_pod(self, name):
        try:
            http_json(self.api_url, "DELETE",
                      "/api/v1/namespaces/soak/pods/" + name)
            self.event("bind: pod deleted to keep the population steady")
        except OSError as e:
            self.event("bind: delete failed (double: %s)" %
                       type(e).__name__)

    def do_one(self, conn, kind, rng):
        """Send one request of kind; returns (ok, message, keep_conn)."""
        if kind in ("filter-names", "filter-full"):
            full = kind == "filter-full"
            args, names = (self.args_full if full else self.args_names)(rng)
            st, body, _ = self.post(conn, "/filter", json.dumps(args))
            err = self.check_filter(st, body, names, full)
            return err is None, err, True
        if kind in ("prioritize-names", "prioritize-full"):
            full = kind == "prioritize-full"
            args, names = (self.args_full if full else self.args_names)(rng)
            st, body, _ = self.post(conn, "/prioritize", json.dumps(args))
            err = self.check_prioritize(st, body, names)
            return err is None, err, True
        if kind in ("preempt-names", "preempt-full"):
            args, names = self.args_preempt(rng, kind == "preempt-full")
            st, body, _ = self.post(conn, "/preempt", json.dumps(args))
            err = self.check_preempt(st, body, names)
            return err is None, err, True
        if kind == "bind":
            name = self.next_name("bind")
            try:
                pod = self.create_pod(name, rng=rng)
            except OSError as e:
                self.event("bind: pod create failed (double)")
                return True, "skipped: %s" % e, True
            node = rng.choice(self.node_names)
            st, body, _ = self.post(conn, "/bind", json.dumps({
                "PodName": name, "PodNamespace": "soak",
                "PodUID": pod["metadata"]["uid"], "Node": node}))
            if st != 200 or json.loads(body).get("Error"):
                return False, "HTTP %d: %s" % (st, body[:200]), True
            with self.lock:
                self.soak_pods["soak/" + name] = node
                extra = len(self.soak_pods) - self.a.churn_target
                old = rng.sample(sorted(self.soak_pods), extra) \
                    if extra > 0 else []
                for k in old:
                    del self.soak_pods[k]
            # Keep the population steady (a flat RSS needs a steady state).
            for k in old:
                self.delete_pod(k.split("/")[1])
            return True, None, True
        if kind in ("get-metrics", "get-policy"):
            conn.request("GET", "/metrics" if kind == "get-metrics"
                         else "/policy")
            r = conn.getresponse()
            b = r.read()
            ok = r.status == 200 and len(b) > 100
            return ok, None if ok else "HTTP %d" % r.status, True
        return self.do_invalid(conn, kind, rng)

    def do_invalid(self, conn, kind, rng):
        verb = rng.choice(["filter", "prioritize", "preempt", "bind"])
        if kind == "bad-json":
            body = rng.choice([b"not json", b"{\"Pod\": {\"metadata\": ",
                               b"[1,2", b"", bytes(rng.randrange(256)
                                                   for _ in range(64)),
                               b"{\"Pod\":{}}}", b"\x00\x01"])
        elif kind == "wrong-types":
            body = json.dumps(rng.choice(WRONG_TYPES[verb])).encode()
        elif kind == "truncated":
            args, _ = self.args_names(rng)
            full = json.dumps(args).encode()
            body = full[:rng.randrange(1, len(full) - 1)]
        elif kind == "oversized":
            pad = b" " * (self.a.max_body + 1024)
            st, _, _ = self.post(conn, "/" + verb, b"{\"Pod\":{}" + pad + b"}")
            return st == 413, "HTTP %d, want 413" % st, False
        elif kind == "huge-headers":
            conn.request("GET", "/healthz",
                         headers={"X-Filler": "a" * (20 << 10)})
            r = conn.getresponse()
            r.read()
            return r.status == 400, "HTTP %d, want 400" % r.status, False
        elif kind == "bad-method":
            conn.request("GET", "/" + verb)
            r = conn.getresponse()
            r.read()
            return r.status == 405, "HTTP %d, want 405" % r.status, True
        elif kind == "unknown-path":
            st, _, _ = self.post(conn, "/nope/%d" % rng.randrange(100), b"{}")
            return st == 404, "HTTP %d, want 404" % st, True
        st, out, _ = self.post(conn, "/" + verb, body)
        # filter and bind report problems in Error with 200 (kube-scheduler
        # drops other statuses' bodies); prioritize with an empty list and
        # 200 (what every kube-scheduler decodes); preempt with 400.
        if verb in ("filter", "bind"):
            ok = st == 200 and bool(json.loads(out).get("Error"))
        elif verb == "prioritize":
            ok = st == 200 and json.loads(out) == []
        else:
            ok = st == 400
        return ok, "%s: HTTP %d %s" % (verb, st, out[:120]), True

    # -- threads --
    def worker(self, idx):
        rng = random.Random(self.a.seed * 1000 + idx)
        kinds = list(MIX)
        weights = [MIX[k] for k in kinds]
        conn = None
        while not self.stop.is_set():
            kind = rng.choices(kinds, weights)[0]
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                                  timeout=30)
            try:
                ok, msg, keep = self.do_one(conn, kind, rng)
            except (OSError, http.client.HTTPException, ValueError) as e:
                ok, msg, keep = False, "%s: %r" % (type(e).__name__, e), False
            self.record(kind, ok, msg)
            if not keep or rng.random() < 0.02:
                conn.close()
                conn = None

    def slow_clients(self):
        rng = random.Random(self.a.seed + 7)
        while not self.stop.is_set():
            kind = rng.choice(["slow-valid", "slow-valid", "stalled",
                               "abandoned", "abandoned"])
            try:
                ok, msg = getattr(self, kind.replace("-", "_"))(rng)
            except (OSError, ValueError) as e:
                ok, msg = False, "%s: %r" % (type(e).__name__, e)
            self.record(kind, ok, msg)

    def raw(self, timeout=None):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        s.settimeout(timeout or 30)
        return s

    @staticmethod
    def read_response(s):
        buf = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            buf += b
            head, sep, rest = buf.partition(b"\r\n\r\n")
            if sep:
                m = re.search(rb"(?i)content-length: *(\d+)", head)
                if m and len(rest) >= int(m.group(1)):
                    break
        return buf

    def slow_valid(self, rng):
        """A valid filter dribbled in small pieces (each gap well inside
        the read timeout): it must be answered like any other."""
        args, names = self.args_names(rng)
        body = json.dumps(args).encode()
        req = (b"POST /filter HTTP/1.1\r\nHost: soak\r\nContent-Type: "
               b"application/json\r\nContent-Length: %d\r\n"
               b"Connection: close\r\n\r\n" % len(body)) + body
        s = self.raw()
        try:
            step = max(64, len(req) // 40)
            for i in range(0, len(req), step):
                s.sendall(req[i:i + step])
                time.sleep(rng.uniform(0.005, 0.05))
            resp = self.read_response(s)
        finally:
            s.close()
        head, _, payload = resp.partition(b"\r\n\r\n")
        m = re.match(rb"HTTP/1\.1 (\d+)", head)
        err = self.check_filter(int(m.group(1)) if m else 0, payload, names,
                                False)
        return err is None, err

    def stalled(self, rng):
        """Half a request, then silence: the server must hang up within
        the read timeout (plus slack)."""
        s = self.raw(timeout=self.a.read_timeout + 5)
        t0 = time.time()
        try:
            if rng.random() < 0.5:
                s.sendall(b"POST /filter HTTP/1.1\r\nHost: soak\r\n")
            else:
                s.sendall(b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n"
                          b"\r\n{\"Pod\":")
            try:
                data = s.recv(4096)
            except ConnectionResetError:
                data = b""
        except socket.timeout:
            return False, "not closed after %.1f s" % (time.time() - t0)
        finally:
            s.close()
        dt = time.time() - t0
        ok = dt <= self.a.read_timeout + 3 and (
            not data or data.startswith(b"HTTP/1.1 4"))
        return ok, "closed after %.1f s with %r" % (dt, data[:40])

    def abandoned(self, rng):
        """Connections that go away mid-request or before the answer."""
        s = self.raw()
        args, _ = self.args_names(rng)
        body = json.dumps(args).encode()
        req = (b"POST /%s HTTP/1.1\r\nHost: soak\r\nContent-Length: %d\r\n"
               b"\r\n" % (rng.choice([b"filter", b"prioritize"]), len(body))
               + body)
        how = rng.randrange(4)
        if how == 0:
            pass                              # connect, close
        elif how == 1:
            s.sendall(req[:rng.randrange(1, 40)])  # inside the headers
        elif how == 2:
            s.sendall(req[:len(req) - len(body) // 2])  # inside the body
        else:
            s.sendall(req)                    # whole request, no reading
        if rng.random() < 0.5:
            # RST instead of FIN.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
        return True, None

    def churn(self):
        """Create, delete, move and finish pods in the double; relabel
        and cordon nodes. Only pods this soak made are touched."""
        rng = random.Random(self.a.seed + 11)
        while not self.stop.wait(self.a.churn_interval):
            with self.lock:
                mine = list(self.soak_pods.items())
            op = rng.choice(["create", "create", "delete", "move", "finish",
                             "node"])
            if op in ("delete", "move", "finish") and not mine:
                op = "create"
            if op == "create" and len(mine) > self.a.churn_target:
                op = "delete"
            try:
                if op == "create":
                    name = self.next_name("churn")
                    node = rng.choice(self.node_names)
                    self.create_pod(name, node, rng)
                    with self.lock:
                        self.soak_pods["soak/" + name] = node
                elif op == "delete" and self.finished:
                    # Finished pods go away too (as the pod GC would have
                    # them), so the population stays steady.
                    http_json(self.api_url, "DELETE",
                              "/api/v1/namespaces/soak/pods/" +
                              self.finished.pop(0))
                elif op in ("delete", "move"):
                    key, _ = rng.choice(mine)
                    name = key.split("/")[1]
                    with self.lock:
                        self.soak_pods.pop(key, None)
                    http_json(self.api_url, "DELETE",
                              "/api/v1/namespaces/soak/pods/" + name)
                    if op == "move":
                        # spec.nodeName is immutable: a move is delete +
                        # create under the same name on another node.
                        node = rng.choice(self.node_names)
                        self.create_pod(name, node, rng)
                        with self.lock:
                            self.soak_pods[key] = node
                elif op == "finish":
                    key, _ = rng.choice(mine)
                    with self.lock:
                        self.soak_pods.pop(key, None)
                    req = urllib.request.Request(
                        self.api_url + "/api/v1/namespaces/soak/pods/" +
                        key.split("/")[1] + "/status",
                        data=json.dumps({"status": {"phase": rng.choice(
                            ["Succeeded", "Failed"])}}).encode(),
                        method="PATCH", headers={
                            "Content-Type": "application/merge-patch+json"})
                    urllib.request.urlopen(req, timeout=30).read()
                    self.finished.append(key.split("/")[1])
                else:
                    node = rng.choice(self.node_names)
                    req = urllib.request.Request(
                        self.api_url + "/api/v1/nodes/" + node,
                        data=json.dumps({"metadata": {"labels": {
                            "soak-gen": str(rng.randrange(1000))}},
                            "spec": {"unschedulable":
                                     rng.random() < 0.1}}).encode(),
                        method="PATCH", headers={
                            "Content-Type": "application/merge-patch+json"})
                    urllib.request.urlopen(req, timeout=30).read()
                self.event("churn " + op)
            except OSError as e:
                self.event("churn %s failed (double: %s)" % (op, type(e)
                                                            .__name__))

    FAULTS = [
        ("drop watches (close)", {"action": "drop-watches", "mode": "close"}),
        ("drop watches (reset)", {"action": "drop-watches", "mode": "reset"}),
        ("410 on the next watch (event)",
         {"action": "expire-next-watch", "count": 1, "http": False}),
        ("410 on the next watch (HTTP)",
         {"action": "expire-next-watch", "count": 1, "http": True}),
        ("compact history + drop watches",
         [{"action": "compact"}, {"action": "drop-watches", "mode": "close"}]),
        # The relist that compaction forces meets the two 500s at once, so
        # failing lists never queue up across faults.
        ("500 on pod lists + relist",
         [{"action": "error", "code": 500, "count": 2, "path": "/api/v1/pods",
           "verb": "list"},
          {"action": "compact"}, {"action": "drop-watches", "mode": "close"}]),
        ("500 on node watches + drop",
         [{"action": "error", "code": 500, "count": 2,
           "path": "/api/v1/nodes", "verb": "watch"},
          {"action": "drop-watches", "mode": "close"}]),
        ("slow watches", {"action": "delay", "ms": 300, "count": 4,
                          "verb": "watch"}),
    ]

    def faults(self):
        rng = random.Random(self.a.seed + 13)
        while not self.stop.wait(self.a.fault_interval):
            name, rule = rng.choice(self.FAULTS)
            try:
                # Error rules wait for a matching request; stacking them
                # while an informer backs off would only lengthen its
                # backoff. Inject another kind of fault instead.
                if '"error"' in json.dumps(rule) and http_json(
                        self.api_url, "GET", "/_fault")["errors"]:
                    name, rule = self.FAULTS[0]
                http_json(self.api_url, "POST", "/_fault", rule)
                self.event("fault: " + name)
            except OSError as e:
                self.event("fault %s failed: %s" % (name, e))

    def bad_policies(self):
        good = json.loads(self.policy_good)
        yield "good (demo)", self.policy_good, True
        alt = json.loads(self.policy_good)
        for p in alt["priorities"]:
            if p["name"] == "LeastRequestedPriority":
                p["weight"] = 3
        yield "good (weights changed)", json.dumps(alt, indent=1), True
        yield "bad (truncated JSON)", self.policy_good[:len(
            self.policy_good) // 2], False
        bad = json.loads(self.policy_good)
        bad["predicates"].append({"name": "PodFitsHostNw"})
        yield "bad (unknown predicate)", json.dumps(bad), False
        bad = dict(good, priorities=[{"name": "LeastRequestedPriority",
                                      "weight": -1}])
        yield "bad (negative weight)", json.dumps(bad), False

    def policies(self):
        rng = random.Random(self.a.seed + 17)
        variants = list(self.bad_policies())
        while not self.stop.wait(self.a.policy_interval):
            name, text, good = rng.choice(variants)
            tmp = self.policy_path + ".tmp"
            if good:
                with open(tmp, "w") as f:
                    f.write(text)
                os.rename(tmp, self.policy_path)
            else:
                with open(self.policy_path, "w") as f:
                    f.write(text)
            if rng.random() < 0.3:
                self.srv.p.send_signal(signal.SIGHUP)
                self.event("policy: SIGHUP")
            self.event("policy: wrote " + name)
        with open(self.policy_path + ".tmp", "w") as f:
            f.write(self.policy_good)
        os.rename(self.policy_path + ".tmp", self.policy_path)

    def sampler(self):
        t0 = time.time()
        while True:
            if not self.srv.alive():
                self.crashed = "serve exited with %s during the soak" % \
                    self.srv.p.returncode
                self.stop.set()
                return
            kib = rss_kib(self.srv.p.pid)
            if kib:
                self.rss.append((time.time() - t0, kib))
            if self.stop.wait(1.0):
                return

    # -- end checks --
    def expected_cache(self):
        st = http_json(self.api_url, "GET", "/_state?resource=pods,nodes")
        res = st["resources"]
        want = {n["metadata"]["name"]: {"pods": set(), "cpu": 0, "mem": 0}
                for n in res.get("nodes", [])}
        orphans = 0
        for p in res.get("pods", []):
            node = p["spec"].get("nodeName")
            if not node or p.get("status", {}).get("phase") in (
                    "Succeeded", "Failed"):
                continue
            if node not in want:
                orphans += 1
                continue
            w = want[node]
            w["pods"].add("%s/%s" % (p["metadata"]["namespace"],
                                     p["metadata"]["name"]))
            cpu, mem = pod_requests(p)
            w["cpu"] += cpu
            w["mem"] += mem
        return want, orphans

    def cache_diff(self):
        want, orphans = self.expected_cache()
        with urllib.request.urlopen(self.base + "/debug/cache",
                                    timeout=30) as r:
            got = json.loads(r.read())
        have = {n["name"]: n for n in got["nodes"]}
        diffs = []
        if set(have) != set(want):
            diffs.append("nodes: cache has %d, API server %d" %
                         (len(have), len(want)))
        for name in sorted(set(have) & set(want)):
            h, w = have[name], want[name]
            if set(h["pods"]) != w["pods"]:
                diffs.append("%s: pods differ: only in cache %s, only in "
                             "API server %s" % (
                                 name, sorted(set(h["pods"]) - w["pods"])[:3],
                                 sorted(w["pods"] - set(h["pods"]))[:3]))
            elif len(h["pods"]) != len(set(h["pods"])):
                diffs.append("%s: a pod is accounted twice" % name)
            if (h["requested"]["milliCPU"], h["requested"]["memory"]) != \
                    (w["cpu"], w["mem"]):
                diffs.append("%s: requests cache %s/%s, API server %s/%s" % (
                    name, h["requested"]["milliCPU"],
                    h["requested"]["memory"], w["cpu"], w["mem"]))
        if got["orphanPods"] != orphans:
            diffs.append("orphan pods: cache %d, API server %d" %
                         (got["orphanPods"], orphans))
        total = sum(len(w["pods"]) for w in want.values())
        return diffs, total, len(want)

    def metrics(self):
        with urllib.request.urlopen(self.base + "/metrics", timeout=30) as r:
            text = r.read().decode()
        out = {}
        for line in text.splitlines():
            m = re.match(r'kpe_policy_reloads_total\{result="(\w+)"\} (\S+)',
                         line)
            if m:
                out["reloads " + m.group(1)] = int(float(m.group(2)))
            m = re.match(r'kpe_http_requests_total\{route="([^"]+)",'
                         r'code="(\d+)"\} (\S+)', line)
            if m:
                out["http %s %s" % (m.group(1), m.group(2))] = \
                    int(float(m.group(3)))
        return out

    def rss_verdict(self, duration):
        """Flat after warm-up: the last samples' median may exceed the
        median at the end of warm-up by at most the tolerance."""
        warm = max(self.a.warmup, 0.2 * duration)
        after = [k for t, k in self.rss if t >= warm]
        if len(after) < 6:
            return None, "too few RSS samples after warm-up (%d)" % len(after)
        first = sorted(after[:3])[1]
        last = sorted(after[-3:])[1]
        allowed = first * self.a.rss_tolerance / 100 + \
            self.a.rss_slack_mib * 1024
        info = {"warmup_s": round(warm, 1),
                "start_kib": self.rss[0][1], "after_warmup_kib": first,
                "end_kib": last, "max_kib": max(k for _, k in self.rss),
                "growth_kib": last - first, "allowed_kib": int(allowed)}
        return info, None if last - first <= allowed else \
            "RSS grew %d KiB after warm-up (allowed %d)" % (last - first,
                                                            allowed)

    def run(self):
        a = self.a
        t0 = time.time()
        threads = [threading.Thread(target=self.sampler)]
        threads += [threading.Thread(target=self.worker, args=(i,))
                    for i in range(a.clients)]
        threads += [threading.Thread(target=f) for f in (
            self.slow_clients, self.churn, self.faults, self.policies)]
        for t in threads:
            t.start()
        log("serve pid %d on port %d, API server %s; soaking %d s" % (
            self.srv.p.pid, self.port, self.api_url, a.duration))
        self.stop.wait(a.duration)
        self.stop.set()
        for t in threads:
            t.join()
        load_s = time.time() - t0
        problems = []
        if self.crashed:
            problems.append(self.crashed)
        # Settle: faults off, then the cache must converge on the double.
        diffs, total, nnodes, converge = ["not checked"], 0, 0, None
        if self.srv.alive():
            http_json(self.api_url, "POST", "/_fault", {"action": "clear"})
            t1 = time.time()
            first = None
            while time.time() - t1 < a.settle:
                diffs, total, nnodes = self.cache_diff()
                if not diffs:
                    converge = time.time() - t1
                    break
                if first is None:
                    first = diffs
                    log("cache not yet equal: %s" % "; ".join(diffs[:3]))
                time.sleep(0.5)
            if diffs:
                problems.append("cache != API server after %d s: %s" % (
                    a.settle, "; ".join(diffs[:5])))
            metrics = self.metrics()
            # Requests after the last policy write: the good one serves.
            with urllib.request.urlopen(self.base + "/policy") as r:
                served = r.read().decode()
            if '"LeastRequestedPriority"' not in served:
                problems.append("/policy does not show the final policy")
        else:
            metrics = {}
        rss, rss_problem = self.rss_verdict(load_s)
        if rss_problem:
            problems.append(rss_problem)
        rc = self.srv.stop()
        if rc != 0 and not self.crashed:
            problems.append("serve exited %d after SIGTERM" % rc)
        self.api.stop()
        valid_fail = sum(self.counts.get(k, {}).get("fail", 0)
                         for k in VALID)
        invalid_fail = sum(self.counts.get(k, {}).get("fail", 0)
                           for k in INVALID + ROUGH)
        if valid_fail:
            problems.append("%d valid request(s) failed" % valid_fail)
        if invalid_fail:
            problems.append("%d invalid request(s) got an unexpected answer"
                            % invalid_fail)
        for k in ("reloads success", "reloads failure"):
            if metrics and metrics.get(k, 0) < 1:
                problems.append("no policy %s recorded" % k.split()[1])
        summary = {
            "duration_s": round(load_s, 1), "seed": a.seed,
            "cluster": {"nodes": nnodes, "active_bound_pods_at_end": total,
                        "generated_pods": a.pods},
            "requests": self.counts,
            "requests_total": sum(c["ok"] + c["fail"]
                                  for c in self.counts.values()),
            "valid_failed": valid_fail, "invalid_unexpected": invalid_fail,
            "events": dict(sorted(self.events.items())),
            "server_metrics": metrics, "rss": rss,
            "cache_converged_after_s": None if converge is None
            else round(converge, 1),
            "serve_exit": rc, "failures": self.failures[:10],
            "problems": problems,
        }
        return summary


def print_summary(s, out):
    w = out.write
    w("soak summary (%.1f s, seed %d)\n" % (s["duration_s"], s["seed"]))
    w("  %-20s %8s %6s\n" % ("request kind", "ok", "fail"))
    for k in VALID + INVALID + ROUGH:
        c = s["requests"].get(k)
        if c:
            w("  %-20s %8d %6d\n" % (k, c["ok"], c["fail"]))
    w("  %-20s %8d   (%.0f/s)\n" % ("total", s["requests_total"],
                                     s["requests_total"] / s["duration_s"]))
    w("  valid requests failed: %d; invalid requests answered unexpectedly:"
      " %d\n" % (s["valid_failed"], s["invalid_unexpected"]))
    for k, v in s["events"].items():
        w("  %-44s %6d\n" % (k, v))
    m = s["server_metrics"]
    w("  policy reloads: %d ok, %d refused (server metrics)\n" % (
        m.get("reloads success", 0), m.get("reloads failure", 0)))
    r = s["rss"]
    if r:
        w("  RSS KiB: start %d, after %.0f s warm-up %d, end %d, max %d; "
          "growth %+d (allowed %d)\n" % (
              r["start_kib"], r["warmup_s"], r["after_warmup_kib"],
              r["end_kib"], r["max_kib"], r["growth_kib"], r["allowed_kib"]))
    w("  cache vs API server: %s (%d nodes, %d active bound pods)\n" % (
        "equal after %.1f s" % s["cache_converged_after_s"]
        if s["cache_converged_after_s"] is not None else "DIFFERENT",
        s["cluster"]["nodes"], s["cluster"]["active_bound_pods_at_end"]))
    w("  serve exit status after SIGTERM: %s\n" % s["serve_exit"])
    for kind, msg in s["failures"]:
        w("  failure: %s: %s\n" % (kind, msg))
    for p in s["problems"]:
        w("  PROBLEM: %s\n" % p)
    w("soak: %s\n" % ("PASS" if not s["problems"] else "FAIL"))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT,
                                                  "bin/kube-policy-extender"))
    ap.add_argument("--duration", type=float, default=180,
                    help="seconds of load (default 180)")
    ap.add_argument("--nodes", type=int, default=200)
    ap.add_argument("--pods", type=int, default=2000,
                    help="generated pods, 90%% bound (default 2000)")
    ap.add_argument("--clients", type=int, default=3,
                    help="request threads besides the slow client")
    ap.add_argument("--server-workers", type=int, default=2)
    ap.add_argument("--max-body", type=int, default=1 << 20)
    ap.add_argument("--read-timeout", type=int, default=3)
    ap.add_argument("--churn-interval", type=float, default=0.05)
    ap.add_argument("--churn-target", type=int, default=300,
                    help="pods the churn keeps alive at most")
    ap.add_argument("--fault-interval", type=float, default=3.0)
    ap.add_argument("--policy-interval", type=float, default=1.5)
    ap.add_argument("--warmup", type=float, default=20,
                    help="seconds before RSS must stay flat (at least 20%% "
                    "of the duration)")
    ap.add_argument("--rss-tolerance", type=float, default=10,
                    help="allowed RSS growth after warm-up, percent")
    ap.add_argument("--rss-slack-mib", type=float, default=4,
                    help="plus this many MiB")
    ap.add_argument("--settle", type=float, default=90,
                    help="seconds for the cache to converge at the end "
                    "(the informers' backoff is at most 30 s plus 100%% "
                    "jitter)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json-out")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory (logs)")
    a = ap.parse_args()
    s = Soak(a)
    try:
        s.setup()
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        log("setup failed: %s" % e)
        for p in ("srv", "api"):
            if hasattr(s, p):
                getattr(s, p).stop()
        return 2
    try:
        summary = s.run()
    finally:
        for p in (s.srv, s.api):
            if p.alive():
                p.stop()
    print_summary(summary, sys.stdout)
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(summary, f, indent=1)
    if summary["problems"] or a.keep:
        log("logs kept in %s" % s.tmp)
        if summary["problems"]:
            sys.stdout.write("--- serve log (tail) ---\n%s" % s.srv.tail(20))
    else:
        shutil.rmtree(s.tmp, ignore_errors=True)
    return 1 if summary["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
