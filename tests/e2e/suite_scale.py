"""suite_scale.py: the shipped split shape at size, and its choices.

- 500 nodes (10% RDMA), 2,000 pods (5% high-comm), the shipped Policy file
  and the extender's shipped Policy: no plain pod on an RDMA node, no
  high-comm pod off one, and pods per node as even as `schedule` (the
  same Policy in-process) spreads them on the same cluster; both reported.
- 20 pods one at a time: the node kube-scheduler binds is among `explain`'s
  best nodes (the highest total under the full Policy, `--semantics 1.20`:
  in the split shape kube-scheduler v1.20.2 scores its in-tree priorities
  with its own version's semantics) for that pod on a snapshot of the
  cluster taken just before it was created. Every pod states its memory
  request: v1.20's BalancedAllocation counts the 200Mi default of a pod
  without a memory request where v1.22.4+ counts nothing
  (docs/protocol.md, "Scores").
"""
import json
import os
import subprocess
import time

import actors
import k8s
import workload

EXT_POLICY = "deploy/policy/extender-policy.json"
FULL_POLICY = "deploy/policy/policy.json"
SCHED = actors.SCHEDULER_NAME


def run_extender_shape(s, n_pods):
    srv = actors.Serve(s, os.path.join(s.env.root, EXT_POLICY))
    _, f = actors.scheduler_files(s, "policy", srv.url, s.env.workdir)
    ks = actors.KubeScheduler(s, policy_file=f)
    t0 = time.monotonic()
    workload.make_pods(s.cp, n_pods, SCHED)
    k8s.wait_for(f"{n_pods} pods bound by kube-scheduler + extender",
                 lambda: len(k8s.bound(s.cp.pods())) >= n_pods, timeout=240, interval=1)
    dt = time.monotonic() - t0
    ks.proc.stop()
    srv.proc.stop()
    return dt


def run_schedule(s, n_pods):
    sch = actors.Schedule(s, os.path.join(s.env.root, FULL_POLICY), "--leader-elect=false",
                          "--kube-api-qps", "-1")
    t0 = time.monotonic()
    workload.make_pods(s.cp, n_pods, SCHED, prefix="q")
    k8s.wait_for(f"{n_pods} pods bound by schedule",
                 lambda: len(k8s.bound(s.cp.pods())) >= n_pods, timeout=240, interval=1)
    dt = time.monotonic() - t0
    sch.proc.stop()
    return dt


def check_rdma(s, label, by_node, rdma_nodes):
    plain_on_rdma = sum(1 for n in rdma_nodes for p in by_node.get(n, [])
                        if "high-comm" not in p["metadata"].get("labels", {}))
    hc_off = sum(1 for n, ps in by_node.items() if n not in rdma_nodes
                 for p in ps if "high-comm" in p["metadata"].get("labels", {}))
    s.check(plain_on_rdma == 0, f"{label}: no plain pod on an RDMA node ({plain_on_rdma})")
    s.check(hc_off == 0, f"{label}: no high-comm pod off an RDMA node ({hc_off})")


def five_hundred_nodes(s):
    n_nodes, n_pods = 500, 2000
    names = workload.make_nodes(s.cp, n_nodes, rdma_share=0.1)
    rdma = {n for i, n in enumerate(names) if workload.is_rdma(i, n_nodes, 0.1)}
    general = [n for n in names if n not in rdma]
    dt_ext = run_extender_shape(s, n_pods)
    by_node, _ = workload.placement(s.cp)
    check_rdma(s, "kube-scheduler + extender", by_node, rdma)
    sp_ext = workload.spread(by_node, general)
    s.cp.request("DELETE", "/api/v1/namespaces/default/pods?gracePeriodSeconds=0")
    k8s.wait_for("no pods left", lambda: not s.cp.pods(), timeout=60)
    dt_sched = run_schedule(s, n_pods)
    by_node, _ = workload.placement(s.cp)
    check_rdma(s, "schedule", by_node, rdma)
    sp_sched = workload.spread(by_node, general)
    s.note(f"500 nodes, 2000 pods: pods per general node kube-scheduler+extender {sp_ext} "
           f"in {dt_ext:.1f}s; schedule {sp_sched} in {dt_sched:.1f}s")
    s.check(sp_ext["max"] <= sp_sched["max"] + 1 and sp_ext["stdev"] <= sp_sched["stdev"] + 0.5,
            f"pods per node as even as schedule's (extender {sp_ext}, schedule {sp_sched})")


def explain_best(s, pod, snapshot):
    """The nodes with the highest total `explain` gives pod on snapshot."""
    pf = os.path.join(s.env.workdir, "pod.json")
    with open(pf, "w") as f:
        json.dump(pod, f)
    r = subprocess.run([s.env.kpe, "explain", "--policy", os.path.join(s.env.root, FULL_POLICY),
                        "--cluster", snapshot, "--pod", pf, "--semantics", "1.20",
                        "--output", "json"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"explain failed: {r.stderr.strip()}")
    out = json.loads(r.stdout)
    feas = [n for n in out["nodes"] if n["feasible"]]
    top = max(n["total"] for n in feas)
    return {n["name"] for n in feas if n["total"] == top}, top, {n["name"]: n for n in feas}


def bound_among_explains_best(s):
    # 12 nodes, 2 RDMA, with uneven load already on them so that the best
    # node differs from pod to pod.
    names = workload.make_nodes(s.cp, 12, rdma_share=1 / 6)
    for i, n in enumerate(names):
        for k in range(i % 4):
            s.cp.create_pod(f"pre-{i}-{k}", cpu="700m", memory="1Gi", scheduler=SCHED,
                            node_name=n)
    srv = actors.Serve(s, os.path.join(s.env.root, EXT_POLICY))
    _, f = actors.scheduler_files(s, "policy", srv.url, s.env.workdir)
    actors.KubeScheduler(s, policy_file=f)
    snap = os.path.join(s.env.workdir, "snapshot.json")
    misses = []
    for i in range(20):
        cpu = ["100m", "300m", "500m", "900m"][i % 4]
        mem = ["128Mi", "2Gi", "512Mi", "1Gi"][i % 4]
        labels = {"high-comm": "true"} if i % 7 == 3 else {"app": "plain"}
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": f"e-{i:02d}", "namespace": "default", "labels": labels},
               "spec": {"schedulerName": SCHED,
                        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.2",
                                        "resources": {"requests": {"cpu": cpu, "memory": mem},
                                                      "limits": {"cpu": cpu, "memory": mem}}}]}}
        r = s.cp.kubectl("get", "nodes,pods", "-A", "-o", "json")
        with open(snap, "w") as fh:
            fh.write(r.stdout)
        best, top, detail = explain_best(s, pod, snap)
        s.cp.post("/api/v1/namespaces/default/pods", pod)

        def node_of():
            return s.cp.get(f"/api/v1/namespaces/default/pods/e-{i:02d}")["spec"].get("nodeName")
        got = k8s.wait_for(f"pod e-{i:02d} bound", node_of, timeout=30)
        if got not in best:
            d = detail.get(got, {})
            misses.append(f"e-{i:02d} ({cpu}, {labels}): bound to {got} (explain: total "
                          f"{d.get('total')}, {d.get('scores')}), explain's best "
                          f"{sorted(best)} (total {top}, {detail[sorted(best)[0]].get('scores')})")
    s.check(not misses, f"20 pods bound among explain's best nodes ({len(misses)} not: {misses[:3]})")


SCENARIOS = [bound_among_explains_best, five_hundred_nodes]
