"""suite_replicas.py: the split shape served by two `serve` replicas behind
a real load balancer (issue 27, point 6).

kube-scheduler v1.20.2 with the shipped Policy file calls one URL: Debian's
haproxy on loopback, balancing two `serve` replicas of
deploy/policy/extender-policy.json, health-checked on /readyz, a request
that found a dead replica retried on the other. A burst of 100 pods of
200m is created on five 4-CPU nodes (exactly every CPU), and one replica
is killed with SIGKILL while pods are still pending. Every pod must end
bound, no node over its allocatable CPU (the split shape keeps the
accounting in kube-scheduler, so the replicas need not share any state),
and the survivor must have answered calls after the kill.
"""
import os
import re
import shutil
import time

import actors
import k8s

EXT_POLICY = "deploy/policy/extender-policy.json"
SCHED = actors.SCHEDULER_NAME
N_NODES, N_PODS, POD_CPU = 5, 100, "200m"

HAPROXY_CFG = """global
    maxconn 512
defaults
    mode http
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    retries 3
    option redispatch
    retry-on all-retryable-errors
    # A new server connection per request, so each call is balanced
    # (kube-scheduler keeps one connection to the balancer alive).
    option http-server-close
frontend extender
    bind 127.0.0.1:{port}
    default_backend replicas
backend replicas
    # (roundrobin would alternate filter and prioritize between the two)
    balance random
    option httpchk GET /readyz
    http-check expect status 200
    server a 127.0.0.1:{a} check inter 300ms fall 1 rise 2
    server b 127.0.0.1:{b} check inter 300ms fall 1 rise 2
"""


def calls(srv):
    """Extender calls a replica answered (serve --v 2 logs one line each)."""
    with open(srv.proc.log_path, errors="replace") as f:
        return sum(1 for line in f if re.search(r"method=\"POST\" path=\"/(filter|prioritize|preempt)\"", line))


def scenario_two_replicas_behind_haproxy_one_killed_mid_burst(s):
    cp = s.cp
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    s.require(os.access(haproxy, os.X_OK), "haproxy installed (tests/e2e/k8s-build.sh)")
    for i in range(N_NODES):
        cp.create_node(f"rep-{i}", cpu="4")
    policy = os.path.join(s.env.root, EXT_POLICY)
    a = actors.Serve(s, policy, name="serve-a")
    b = actors.Serve(s, policy, name="serve-b")
    port = k8s.free_port()
    cfg = os.path.join(s.env.workdir, f"haproxy-{port}.cfg")
    with open(cfg, "w") as f:
        f.write(HAPROXY_CFG.format(port=port, a=a.port, b=b.port))
    lb = s.spawn("haproxy", [haproxy, "-f", cfg, "-db"])
    url = f"http://127.0.0.1:{port}"

    def lb_ready():
        if not lb.alive():
            raise RuntimeError(f"haproxy exited:\n{lb.tail()}")
        return actors.http_get(url + "/readyz").startswith(b"ok")
    k8s.wait_for("haproxy to pass /readyz through", lb_ready, timeout=20)
    # The whole burst pending first, then kube-scheduler: it works through
    # it at once, and the kill lands in the middle.
    for i in range(N_PODS):
        cp.create_pod(f"rep-{i:02d}", cpu=POD_CPU, scheduler=SCHED)
    _, pol_file = actors.scheduler_files(s, "policy", url, s.env.workdir)
    actors.KubeScheduler(s, policy_file=pol_file)
    # Kill one replica while the burst is being scheduled, once both have
    # answered some of it.
    k8s.wait_for("both replicas answering the burst",
                 lambda: calls(a) >= 5 and calls(b) >= 5, timeout=60, interval=0.02)
    at_kill = len(k8s.bound(cp.pods()))
    a_calls = calls(a)
    a.proc.kill()
    b_before = calls(b)
    s.check(at_kill < N_PODS, f"serve-a killed with SIGKILL mid-burst ({at_kill} of {N_PODS} "
                              f"bound, serve-a had answered {a_calls} calls)")
    k8s.wait_for(f"all {N_PODS} pods bound", lambda: len(k8s.bound(cp.pods())) == N_PODS,
                 timeout=120, interval=0.25)
    time.sleep(1.0)
    pods = cp.pods()
    nb = len(k8s.bound(pods))
    s.check(nb == N_PODS, f"every pod bound ({nb} of {N_PODS})")
    load = k8s.node_load(cp)
    over = {n: m for n, (m, _) in load.items() if m > 4000}
    s.check(not over, f"no node over its allocatable CPU (requested millicores per node: "
                      f"{dict(sorted((n, m) for n, (m, _) in load.items()))})")
    b_after = calls(b)
    s.check(b_after > b_before, f"serve-b answered after the kill ({b_before} -> {b_after} "
                                f"calls)")
    s.check(lb.alive(), "haproxy still running")
    failed = [e for e in cp.events() if e.get("reason") == "FailedScheduling"]
    s.note(f"{len(failed)} FailedScheduling events during the kill (kube-scheduler retries "
           f"them; haproxy retries a request that found the dead replica)")


SCENARIOS = [scenario_two_replicas_behind_haproxy_one_killed_mid_burst]
