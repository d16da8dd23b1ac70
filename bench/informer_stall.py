#!/usr/bin/env python3
"""informer_stall.py: how many starts of `serve` fail to sync against the
real kube-apiserver v1.20.2 (500 nodes, 2,000 pods).

    bench/informer_stall.py [STARTS]      (default 60; KPE_BIN picks the binary)

Starts serve STARTS times in a row and counts those whose /readyz is not
"ok" within 8 s. With every informer multiplexed on one HTTP/2 connection,
2 of 80 starts never finished the pods list; with HTTP/1.1 transfers, 0 of
250 (kube/client/informer.c). Not a timed test: a count.
"""
import os, sys, time, subprocess, urllib.request
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests/e2e"))
import k8s, workload
bindir = os.environ.get("KPE_E2E_BIN", os.path.expanduser("~/.cache/kube-policy-extender/k8s-v1.20.2/bin"))
wd = k8s.make_workdir("kpe-stall.")
cp = k8s.ControlPlane(bindir, wd); cp.start()
try:
    workload.make_nodes(cp, 500)
    workload.make_pods(cp, 2000, "nobody")
    fails = 0
    N = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    for i in range(N):
        port = k8s.free_port()
        log = open(f"{wd}/serve-{i}.log", "wb")
        p = subprocess.Popen([os.environ.get("KPE_BIN", os.path.join(ROOT, "bin/kube-policy-extender")), "serve", "--listen", f"127.0.0.1:{port}", "--kubeconfig", cp.kpe_kubeconfig, "--policy", os.path.join(ROOT, "deploy/policy/extender-policy.json"), "--v", "2"], stdout=log, stderr=subprocess.STDOUT)
        t0 = time.monotonic(); ok = False
        while time.monotonic() - t0 < 8:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1).read().startswith(b"ok"):
                    ok = True; break
            except Exception:
                pass
            time.sleep(0.05)
        p.terminate(); p.wait()
        if not ok:
            fails += 1
            print("stall at start", i, f"{wd}/serve-{i}.log", flush=True)
    print(f"{fails} of {N} starts did not become ready in 8 s")
finally:
    cp.stop()
