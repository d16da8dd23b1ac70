"""suite_whatif.py: explain, simulate and diff against a real
kube-apiserver and kube-scheduler v1.20 (issue 24, point 7).

- a pending pod's `explain --kubeconfig` agrees with kube-scheduler's own
  FailedScheduling message (v1.20's wording read as v1.22's, docs/policy-authors.md "Why
  is my pod pending?"), for a pod short of CPU and one whose node selector
  matches no node;
- `simulate --until-unschedulable` predicts K; kube-scheduler given K+1
  replicas binds exactly K and the last one pends with the predicted
  message;
- `diff` of the Policy against its split shape (and against its
  KubeSchedulerConfiguration) on the live cluster shows no difference.
"""
import json
import os
import re
import subprocess

import actors
import k8s

NAME = actors.SCHEDULER_NAME
# In-tree names only: kube-scheduler v1.20 runs all of it by itself.
POLICY = {
    "kind": "Policy", "apiVersion": "v1",
    "predicates": [{"name": "PodFitsResources"}, {"name": "PodFitsHostPorts"},
                   {"name": "MatchNodeSelector"}, {"name": "HostName"},
                   {"name": "PodToleratesNodeTaints"},
                   {"name": "CheckNodeUnschedulable"}],
    "priorities": [{"name": "LeastRequestedPriority", "weight": 1},
                   {"name": "BalancedResourceAllocation", "weight": 1}],
}
REWORD = {  # v1.20 -> v1.22, as whatif/why.c reads them
    "node(s) didn't match the requested hostname":
        "node(s) didn't match the requested node name",
    "node(s) didn't match Pod's node affinity":
        "node(s) didn't match Pod's node affinity/selector",
    "node(s) didn't match pod affinity/anti-affinity":
        "node(s) didn't match pod affinity/anti-affinity rules",
}


def write_policy(s):
    path = os.path.join(s.env.workdir, f"whatif-policy-{k8s.free_port()}.json")
    with open(path, "w") as f:
        json.dump(POLICY, f)
    return path


def kpe(s, *args, ok=(0,)):
    r = subprocess.run([s.env.kpe, *args, "--kubeconfig", s.cp.kubeconfig],
                       capture_output=True, text=True, check=False, timeout=120)
    if r.returncode not in ok:
        raise RuntimeError(f"kube-policy-extender {' '.join(args)}: exit "
                           f"{r.returncode}: {r.stderr[:400]}")
    return r


def counted(msg):
    """'0/N nodes are available: C R, C R.' -> (N, sorted [(C, R)])."""
    m = re.match(r"0/(\d+) nodes are available: (.*?)\.(?: preemption:.*)?$", msg)
    if not m:
        return None
    items = re.split(r", (?=\d)", m.group(2))
    out = []
    for it in items:
        c, r = it.split(" ", 1)
        out.append((int(c), REWORD.get(r, r)))
    return int(m.group(1)), sorted(out)


def failed_scheduling(s, pod):
    evs = [e for e in s.cp.events()
           if e.get("reason") == "FailedScheduling"
           and e["involvedObject"].get("name") == pod]
    evs.sort(key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")
    return evs[-1]["message"] if evs else None


def scenario_explain_agrees_with_kube_scheduler(s):
    """Two pending pods, each with kube-scheduler's FailedScheduling; our
    explain of each agrees, the v1.20 wording difference included."""
    for i in range(2):
        s.cp.create_node(f"w-{i}", cpu="4")
    s.cp.create_node("w-cordoned", cpu="4", unschedulable=True)
    pol = write_policy(s)
    actors.KubeScheduler(s, policy_file=pol, name="kube-scheduler-explain")
    s.cp.create_pod("too-big", cpu="5", scheduler=NAME)
    s.cp.create_pod("no-match", cpu="1", scheduler=NAME,
                    extra={"nodeSelector": {"disk": "ssd"}})
    msgs = {}

    def have_events():
        for p in ("too-big", "no-match"):
            msgs[p] = failed_scheduling(s, p)
        return all(msgs.values())

    k8s.wait_for("kube-scheduler's FailedScheduling for both pods", have_events,
                 timeout=60, interval=0.5)
    s.note(f"kube-scheduler v1.20 said: {msgs}")
    for p in ("too-big", "no-match"):
        r = kpe(s, "explain", "--policy", pol, "--pod", f"default/{p}",
                "--output", "json")
        d = json.loads(r.stdout)
        s.check(d["event"] and d["event"]["message"] == msgs[p],
                f"{p}: explain shows kube-scheduler's event ({d['event']})")
        s.check(d["agree"] is True,
                f"{p}: explain agrees with kube-scheduler: ours {d['summary']!r}, "
                f"theirs {msgs[p]!r}")
        s.check(counted(d["summary"] or "") == counted(msgs[p]),
                f"{p}: the same counted reasons, v1.20 wording read as v1.22's")
    r = kpe(s, "explain", "--policy", pol, "--all-pending", "--scheduler-name",
            NAME, "--output", "json")
    d = json.loads(r.stdout)
    got = {p["pod"]: p["agree"] for p in d["pods"]}
    s.check(got == {"default/too-big": True, "default/no-match": True},
            f"--all-pending: both pods, both agree ({got})")


def scenario_simulate_capacity_is_what_kube_scheduler_binds(s):
    """simulate --until-unschedulable says K; K+1 replicas given to
    kube-scheduler: K bound, the last pending with the predicted message."""
    for i, cpu in enumerate(("4", "4", "3")):
        s.cp.create_node(f"cap-{i}", cpu=cpu)
    pol = write_policy(s)
    actors.KubeScheduler(s, policy_file=pol, name="kube-scheduler-capacity")
    s.cp.create_pod("already", cpu="1500m", scheduler=NAME)
    k8s.wait_for("the first pod bound",
                 lambda: len(k8s.bound(s.cp.pods())) == 1, timeout=60)
    tmpl = os.path.join(s.env.workdir, "replica.json")
    with open(tmpl, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "rep", "namespace": "default"},
                   "spec": {"schedulerName": NAME, "containers": [{
                       "name": "c", "image": "registry.k8s.io/pause:3.2",
                       "resources": {"requests": {"cpu": "1"},
                                     "limits": {"cpu": "1"}}}]}}, f)
    r = kpe(s, "simulate", "--policy", pol, "--pod", tmpl,
            "--until-unschedulable", "--output", "json")
    d = json.loads(r.stdout)
    k = d["untilUnschedulable"]["fit"]
    predicted = d["untilUnschedulable"]["next"]
    s.check(k == 9, f"simulate: 9 more 1-CPU replicas fit in 11 - 1.5 CPU (got {k})")
    s.note(f"simulate predicted K={k}, next: {predicted}")
    names = [f"rep-{i}" for i in range(k + 1)]
    for n in names:
        s.cp.create_pod(n, cpu="1", scheduler=NAME)

    def settled():
        pods = [p for p in s.cp.pods() if p["metadata"]["name"] in names]
        pending = [p["metadata"]["name"] for p in pods if not p["spec"].get("nodeName")]
        return len(pods) - len(pending) == k and len(pending) == 1 and \
            failed_scheduling(s, pending[0])

    k8s.wait_for(f"kube-scheduler to bind {k} and fail one", settled, timeout=90,
                 interval=0.5)
    import time
    time.sleep(2)  # a bind beyond K would show by now
    pods = [p for p in s.cp.pods() if p["metadata"]["name"] in names]
    bound = [p for p in pods if p["spec"].get("nodeName")]
    pending = [p["metadata"]["name"] for p in pods if not p["spec"].get("nodeName")]
    s.check(len(bound) == k, f"kube-scheduler bound exactly K={k} ({len(bound)})")
    s.check(len(pending) == 1, f"one replica pends ({pending})")
    msg = failed_scheduling(s, pending[0]) if pending else None
    s.check(msg and counted(msg) == counted(predicted),
            f"it pends with the predicted message: kube-scheduler {msg!r}, "
            f"simulate {predicted!r}")


def scenario_diff_policy_against_its_split_shape(s):
    """The shipped Policy against its split shape and its
    KubeSchedulerConfiguration, on the live cluster: no difference."""
    for i in range(4):
        s.cp.create_node(f"d-{i}", cpu="4", labels={"rdma": "true"} if i < 2 else {})
    for i in range(6):
        s.cp.create_pod(f"bound-{i}", cpu="500m", node_name=f"d-{i % 4}")
    for i in range(8):
        s.cp.create_pod(f"pending-{i}", cpu="700m", scheduler="nobody",
                        labels={"app": "web"})
    pol = os.path.join(s.env.root, "deploy/policy/policy.json")
    w = s.env.workdir
    for to, name in (("scheduler-policy", "s.json"), ("extender-policy", "x.json"),
                     ("kubeschedulerconfiguration", "ksc.yaml")):
        with open(os.path.join(w, name), "w") as f:
            subprocess.run([s.env.kpe, "convert", pol, "--to", to], stdout=f,
                           check=True)
    for mode in ((), ("--replay",)):
        r = kpe(s, "diff", "--policy", pol, "--policy", os.path.join(w, "s.json"),
                "--extender-policy", os.path.join(w, "x.json"), *mode,
                "--output", "json", ok=(0, 1))
        d = json.loads(r.stdout)
        s.check(r.returncode == 0 and d["differences"] == 0 and d["pods"] >= 8,
                f"diff {' '.join(mode) or 'pending'}: the Policy against its split "
                f"shape, {d['pods']} pods, {d['differences']} difference(s)")
        r = kpe(s, "diff", "--policy", pol, "--config", os.path.join(w, "ksc.yaml"),
                "--extender-policy", os.path.join(w, "x.json"), *mode,
                "--output", "json", ok=(0, 1))
        d = json.loads(r.stdout)
        s.check(r.returncode == 0 and d["differences"] == 0,
                f"diff {' '.join(mode) or 'pending'}: the Policy against its "
                f"KubeSchedulerConfiguration, {d['differences']} difference(s)")


SCENARIOS = [
    scenario_explain_agrees_with_kube_scheduler,
    scenario_simulate_capacity_is_what_kube_scheduler_binds,
    scenario_diff_policy_against_its_split_shape,
]
