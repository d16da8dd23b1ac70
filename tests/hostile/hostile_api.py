#!/usr/bin/env python3
"""hostile_api.py: `serve` and `schedule` against a hostile API server
(issue 29), on 127.0.0.1 only.

A small API server runs in this process, on an ephemeral loopback port. It
answers lists and watches of every kind the informers read with empty,
valid answers, except where the case under test misbehaves. For each case
the binary is started with a kubeconfig pointing at it, left running for a
bounded time, and measured: its peak RSS (VmHWM, against the shipped 256Mi
limit), the list and watch requests it made per 10 s (a relist storm
shows here), and its log lines holding a secret (the kubeconfig's token
and password are marked SECRET: there must be none). The run ends with
cmocka-style summary lines that tests/run.sh counts. `--quick` runs a
subset at small sizes (part of `make test` through
tests/cli/test_hostile_api.sh); without it, `make hostile` runs every case
at full size against both binaries.

  python3 tests/hostile/hostile_api.py --bin bin/kube-policy-extender
      [--quick] [--only CASE,...] [--apps serve,schedule]

Cases (nodes misbehave unless said; the other kinds answer normally):
  oversized   a 40 MB list page of full nodes, declared (Content-Length)
              and, for pods, chunked with no length: refused
  big-list    a 30 MB list page of full nodes, under the cap: taken, and
              the memory of reading it given back (RSS once listed)
  gzip-bomb   a list page of 1 MB that gzip-inflates to 1 GB: refused
  big-event   a 100 MB watch event: refused, then a relist
  undecodable every watch of every kind starts with `not json`
  unknown     every watch of every kind starts with {"type":"FOO",...}
  slow        lists of nodes answer one byte a second, endlessly; watches
              of pods trickle a byte every 200 ms
  flood-429   every list answers 429 with Retry-After: 0
  flood-500   every list answers 500
  redirect    every list answers 302 to another loopback port, which must
              see no request (no token sent elsewhere)
  secrets     kubeconfigs with user:SECRET@ in the server URL, a token with
              CR LF in it, and a query in the server URL: each refused at
              start with a message naming the field, no SECRET printed, and
              no request sent
"""
import argparse
import json
import os
import re
import select
import socket
import subprocess
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hostile import HOST, SHIPPED_LIMIT, check, figure, full_nodes_body, \
    results  # noqa: E402

DEMO = "deploy/demo"
TOKEN = "hostile-SECRET-token"
SECRET = "SECRET"

# The collections the informers list and watch (kube/client/informer.c).
PATHS = ("/api/v1/nodes", "/api/v1/pods", "/api/v1/services",
         "/api/v1/replicationcontrollers", "/apis/apps/v1/replicasets",
         "/apis/apps/v1/statefulsets", "/api/v1/persistentvolumes",
         "/api/v1/persistentvolumeclaims",
         "/apis/storage.k8s.io/v1/storageclasses",
         "/apis/storage.k8s.io/v1/csinodes", "/api/v1/namespaces")


def empty_list(rv="1"):
    return json.dumps({"kind": "List", "apiVersion": "v1",
                       "metadata": {"resourceVersion": rv},
                       "items": []}).encode()


class Api(ThreadingHTTPServer):
    """The hostile API server. `case` picks the misbehaviour; `log` holds
    (monotonic time, verb, path, headers) for every request."""
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, blobs):
        super().__init__((HOST, 0), Handler)
        self.blobs = blobs
        self.case = None
        self.redirect_to = None
        self.lock = threading.Lock()
        self.log = []
        self.stopping = threading.Event()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://{HOST}:{self.server_address[1]}"

    def record(self, verb, path, headers):
        with self.lock:
            self.log.append((time.monotonic(), verb, path, headers))

    def requests(self, since=0.0, verb=None, path=None):
        with self.lock:
            return [r for r in self.log if r[0] >= since and
                    (verb is None or r[1] == verb) and
                    (path is None or r[2] == path)]

    def reset(self, case):
        with self.lock:
            self.log = []
        self.case = case

    def close(self):
        self.stopping.set()
        self.shutdown()
        self.server_close()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        # Writes (events, bindings): none is expected; refused.
        self.server.record(self.command, self.path, str(self.headers))
        self.answer(405, b'{"kind":"Status","code":405}')

    do_PUT = do_PATCH = do_DELETE = do_POST

    def do_GET(self):
        api = self.server
        path, _, query = self.path.partition("?")
        watch = "watch=true" in query
        api.record("watch" if watch else "list", path, str(self.headers))
        if path not in PATHS:
            return self.answer(404, b'{"kind":"Status","code":404}')
        case = api.case
        try:
            if watch:
                return self.watch(case, path)
            return self.list(case, path)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            self.close_connection = True

    # ---- answers ----

    def answer(self, status, body, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def chunked_start(self, status=200, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def hold(self, seconds=600, trickle=None):
        """Keep a watch open until the client leaves or the case ends,
        sending `trickle` bytes every 0.2 s if given."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and not self.server.stopping.is_set():
            r, _, _ = select.select([self.connection], [], [], 0.2)
            if r and not self.connection.recv(1, socket.MSG_PEEK):
                return  # the client closed
            if trickle:
                self.chunk(trickle)

    def list(self, case, path):
        nodes = path == "/api/v1/nodes"
        if case == "oversized" and nodes:
            return self.answer(200, self.server.blobs["page"])
        if case == "oversized" and path == "/api/v1/pods":
            self.chunked_start()
            page = self.server.blobs["page"]
            for off in range(0, len(page), 1 << 20):
                self.chunk(page[off:off + (1 << 20)])
            return self.chunk(b"")
        if case == "big-list" and nodes:
            return self.answer(200, self.server.blobs["fits"])
        if case == "gzip-bomb" and nodes:
            return self.answer(200, self.server.blobs["bomb"],
                               [("Content-Encoding", "gzip")])
        if case == "slow" and nodes:
            self.chunked_start()
            return self.slow_list()
        if case == "flood-429":
            return self.answer(429, b'{"kind":"Status","code":429,'
                               b'"message":"too many requests"}',
                               [("Retry-After", "0")])
        if case == "flood-500":
            return self.answer(500, b'{"kind":"Status","code":500,'
                               b'"message":"etcd is down"}')
        if case == "redirect":
            return self.answer(302, b"", [("Location", self.server.redirect_to
                                           + path)])
        return self.answer(200, empty_list())

    def slow_list(self):
        self.chunk(b"{")
        while not self.server.stopping.is_set():
            r, _, _ = select.select([self.connection], [], [], 1.0)
            if r and not self.connection.recv(1, socket.MSG_PEEK):
                return
            self.chunk(b" ")

    def watch(self, case, path):
        self.chunked_start()
        if case == "undecodable":
            self.chunk(b"not json\n")
        elif case == "unknown":
            self.chunk(b'{"type":"FOO","object":{}}\n')
        elif case == "big-event" and path == "/api/v1/nodes":
            self.big_event()
            return
        elif case == "slow" and path == "/api/v1/pods":
            return self.hold(trickle=b"\n")
        self.hold()

    def big_event(self):
        size = self.server.blobs["event_size"]
        self.chunk(b'{"type":"ADDED","object":{"metadata":{"name":"big",'
                   b'"resourceVersion":"5","annotations":{"x":"')
        piece = b"x" * (1 << 20)
        for _ in range(size >> 20):
            self.chunk(piece)
        self.chunk(b'"}}}}\n')
        self.hold()


class Catcher(ThreadingHTTPServer):
    """The target of redirects: counts what reaches it."""
    daemon_threads = True

    def __init__(self):
        outer = self
        self.hits = []

        class H(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                outer.hits.append(str(self.headers))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        super().__init__((HOST, 0), H)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://{HOST}:{self.server_address[1]}"


# ---- the payloads, made once ----


def node_list(size):
    """A NodeList of at most size bytes of hostile.py's full nodes."""
    body = full_nodes_body(size - 100)
    # full_nodes_body wraps items in an ExtenderArgs; make it a NodeList.
    items = body[body.index(b'"items":[') + 8:-2]
    return b'{"kind":"NodeList","apiVersion":"v1","metadata":' \
        b'{"resourceVersion":"1"},"items":' + items + b"}"


def make_blobs(quick, cases):
    """Pages over and under the 32 MiB cap, a gzip bomb, an event size."""
    page = node_list(40 << 20) if "oversized" in cases else b""
    fits = node_list(30 << 20) if "big-list" in cases else b""
    inflated = (256 if quick else 1024) << 20
    z = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
    parts = [z.compress(b'{"kind":"NodeList","items":[')]
    zeros = b" " * (1 << 20)
    for _ in range(inflated >> 20):
        parts.append(z.compress(zeros))
    parts.append(z.flush())
    bomb = b"".join(parts)
    # Its start inflates to what it says (the rest is spaces).
    head = zlib.decompressobj(31).decompress(bomb, 64)
    assert head.startswith(b'{"kind":"NodeList"'), head
    return {"page": page, "fits": fits, "bomb": bomb,
            "event_size": (32 if quick else 100) << 20}


# ---- the binaries ----


def kubeconfig(path, server, token=TOKEN):
    with open(path, "w") as f:
        f.write("apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                f"clusters:\n- name: k\n  cluster: {{server: {json.dumps(server)}}}\n"
                f"users:\n- name: u\n  user: {{token: {json.dumps(token)}}}\n"
                "contexts:\n- name: c\n  context: {cluster: k, user: u}\n")
    return path


class App:
    """serve or schedule against kubeconfig kc, stderr kept in log."""

    def __init__(self, binary, app, kc, log):
        args = [binary, app, "--listen", f"{HOST}:0", "--policy",
                f"{DEMO}/policy.json", "--kubeconfig", kc]
        if app == "schedule":
            # Alone: the informers are under test, not the Lease.
            args += ["--scheduler-name", "hostile-scheduler",
                     "--leader-elect=false"]
        self.log_path = log
        self.log = open(log, "w+")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log)

    def wait_port(self, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = re.search(r"\(port (\d+)\)", self.text())
            if m:
                return int(m.group(1))
            if self.proc.poll() is not None:
                return None
            time.sleep(0.05)
        return None

    def text(self):
        return open(self.log_path, errors="replace").read()

    def status(self, key):
        try:
            s = open(f"/proc/{self.proc.pid}/status").read()
        except OSError:
            return 0
        return int(re.search(key + r":\s+(\d+)", s).group(1)) * 1024

    def peak(self):
        return self.status("VmHWM")

    def rss(self):
        return self.status("VmRSS")

    def healthy(self, port):
        try:
            c = socket.create_connection((HOST, port), timeout=5)
            c.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                      b"Connection: close\r\n\r\n")
            return c.recv(64).startswith(b"HTTP/1.1 200")
        except OSError:
            return False

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


# ---- the cases ----

# What each case must show in the log: each row once at least, any of its
# texts (a page that finds the informers' memory budget taken by another
# one's is refused for that reason instead).
BUDGET = "bytes the informers may hold at once"
EXPECT = {
    "oversized": (("nodes: list http://", ),
                  ("list page declared larger than 33554432 bytes",),
                  ("pods: list http://",),
                  ("list page larger than 33554432 bytes", BUDGET)),
    "big-list": (("nodes: listed, watching from 1",),),
    "gzip-bomb": (("list page larger than 33554432 bytes", BUDGET),),
    "big-event": (("watch event larger than 16777216 bytes: refused",
                   BUDGET),),
    "undecodable": (("watch event: invalid JSON at byte 0",),),
    "unknown": (("watch event: unknown type \"FOO\"",),),
    "slow": (),
    "flood-429": (("HTTP 429: too many requests",),),
    "flood-500": (("HTTP 500: etcd is down",),),
    "redirect": (("HTTP 302",),),
}

# The most requests (lists, or watches) one collection may get per 10 s.
# The reflector's backoff (0.8 s doubling, up to as much again of jitter)
# allows 5 in 10 s; without it these cases made hundreds.
MAX_PER_10S = 10


def run_case(a, api, catcher, app, case, tmp):
    secs = a.window
    api.reset(case)
    kc = kubeconfig(f"{tmp}/kc-{case}", api.url)
    p = App(a.bin, app, kc, f"{tmp}/{app}-{case}.log")
    name = f"{app}: {case}"
    try:
        port = p.wait_port()
        check(f"{name}: started", port is not None, p.text()[-400:])
        if port is None:
            return
        t0 = time.monotonic()
        time.sleep(secs)
        healthy = p.healthy(port)
        peak, rss = p.peak(), p.rss()
        text = p.text()
        window = api.requests(since=t0)
        per_path = {}
        for _, verb, path, _ in window:
            per_path[(verb, path)] = per_path.get((verb, path), 0) + 1
        others = [r for r in window if r[2] not in PATHS]
        worst = max(per_path.items(), key=lambda kv: kv[1],
                    default=(("-", "-"), 0))
        per10 = worst[1] * 10.0 / secs
        secret_lines = [ln for ln in text.splitlines() if SECRET in ln]
        figure(f"{name}: {secs:.0f} s: {len(window)} requests "
               f"({len(window) * 10.0 / secs:.0f} per 10 s), busiest "
               f"{worst[0][0]} {worst[0][1]} x{worst[1]} "
               f"({per10:.1f} per 10 s); peak RSS {peak / 1e6:.0f} MB, at "
               f"the end {rss / 1e6:.0f} MB; "
               f"{len(text.splitlines())} log lines, {len(secret_lines)} "
               f"with a secret; healthz {'ok' if healthy else 'FAILED'}")
        check(f"{name}: peak RSS under the shipped 256Mi limit",
              0 < peak < SHIPPED_LIMIT, f"{peak / 1e6:.0f} MB")
        check(f"{name}: at most {MAX_PER_10S} requests per collection "
              f"per 10 s", per10 <= MAX_PER_10S,
              f"{worst[0]} x{worst[1]} in {secs:.0f} s")
        check(f"{name}: no secret in the log", not secret_lines,
              secret_lines[:2])
        check(f"{name}: no request but lists and watches", not others,
              [r[1:3] for r in others[:3]])
        check(f"{name}: still alive and answering /healthz",
              healthy and p.proc.poll() is None, text[-400:])
        for any_of in EXPECT[case]:
            check(f"{name}: logs \"{any_of[0]}\"",
                  any(w in text for w in any_of), text[-600:])
        if case == "big-list":
            # 2,800 nodes stay cached (about 40 MB); the 30 MB page and
            # its parse must not.
            check(f"{name}: the page's memory given back once listed",
                  peak - rss > 25e6, f"RSS {rss / 1e6:.0f} MB of a peak of "
                  f"{peak / 1e6:.0f} MB")
        if case == "redirect":
            check(f"{name}: the redirect target saw no request",
                  not catcher.hits, catcher.hits[:1])
    finally:
        p.stop()


# Kubeconfigs refused at start: (what, server, token, message wanted).
REFUSED = (
    ("password in the server URL", "http://admin:SECRET@{hp}", TOKEN,
     "cluster \"k\": server: a user name or password in the server URL is "
     "not supported"),
    ("CR LF in the token", "http://{hp}", "abc\r\nX-Injected: SECRET",
     "user \"u\": token: control character 0x0d at byte 3 is not allowed "
     "in an HTTP header"),
    ("query in the server URL", "http://{hp}/x?y=SECRET", TOKEN,
     "cluster \"k\": server: a query (?) or fragment (#) is not allowed"),
    ("fragment in the server URL", "http://{hp}#SECRET", TOKEN,
     "cluster \"k\": server: a query (?) or fragment (#) is not allowed"),
)


def run_secrets(a, api, app, tmp):
    hp = api.url.split("//", 1)[1]
    api.reset("secrets")
    for what, server, token, want in REFUSED:
        kc = kubeconfig(f"{tmp}/kc-secret", server.format(hp=hp), token)
        p = App(a.bin, app, kc, f"{tmp}/{app}-secrets.log")
        try:
            p.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
        text = p.text()
        p.stop()
        name = f"{app}: secrets: {what}"
        check(f"{name}: refused at start", p.proc.returncode not in (None, 0),
              f"exit {p.proc.returncode}")
        check(f"{name}: the message names the field", want in text,
              text[-400:])
        check(f"{name}: no secret printed", SECRET not in text,
              [ln for ln in text.splitlines() if SECRET in ln][:2])
    sent = api.requests()
    check(f"{app}: secrets: no request reached the API server", not sent,
          f"{len(sent)} requests")


CASES = ("oversized", "big-list", "gzip-bomb", "big-event", "undecodable", "unknown",
         "slow", "flood-429", "flood-500", "redirect", "secrets")
QUICK = ("oversized", "gzip-bomb", "undecodable", "secrets")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default="bin/kube-policy-extender")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default=None)
    p.add_argument("--apps", default=None)
    p.add_argument("--tmp", default=os.environ.get("TMPDIR", "/tmp"))
    a = p.parse_args()
    cases = a.only.split(",") if a.only else (QUICK if a.quick else CASES)
    apps = (a.apps or ("serve" if a.quick else "serve,schedule")).split(",")
    a.window = 5.0 if a.quick else 10.0
    t = time.time()
    blobs = make_blobs(a.quick, cases)
    print(f"    (payloads: {time.time() - t:.1f} s)", flush=True)
    api, catcher = Api(blobs), Catcher()
    api.redirect_to = catcher.url
    try:
        for app in apps:
            for case in cases:
                t = time.time()
                try:
                    if case == "secrets":
                        run_secrets(a, api, app, a.tmp)
                    else:
                        run_case(a, api, catcher, app, case, a.tmp)
                except Exception as e:  # a crash of the case is a failure
                    check(f"{app}: {case}: ran", False, repr(e))
                print(f"    ({app}: {case}: {time.time() - t:.1f} s)",
                      flush=True)
    finally:
        api.close()
        catcher.shutdown()
    n = results["pass"] + results["fail"]
    print(f"[==========] {n} test(s) run.")
    print(f"[  PASSED  ] {results['pass']} test(s).")
    if results["fail"]:
        print(f"[  FAILED  ] {results['fail']} test(s).")
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
