"""suite_schedule.py: `kube-policy-extender schedule` against a real
kube-apiserver v1.20 (issue 14, point 4).

- a burst binds what fits and no more, and the pods left pending say why
  through the real kubectl describe (FailedScheduling, PodScheduled=False);
- two replicas elect one leader on a coordination.k8s.io/v1 Lease; when
  the leader is killed with SIGKILL the standby takes the Lease and drains
  the queue;
- kube-apiserver restarted in the middle of a run loses no pod and binds
  none twice;
- a burst of high-priority pods on full nodes preempts (DefaultPreemption):
  the victims are deleted, the pods bind where kube-scheduler v1.20.2,
  run on the same setup as the oracle, puts them; again with a
  PodDisruptionBudget that leaves its pods no disruption.
"""
import json
import os
import collections
import re
import threading
import time

import actors
import k8s

POLICY = "deploy/policy/policy.json"
NAME = actors.SCHEDULER_NAME


def policy(s):
    return f"{s.env.root}/{POLICY}"


def node_millis(cpu):
    return k8s.cpu_millis(cpu)


def check_allocatable(s, nodes_cpu):
    """No node holds more requested CPU than its allocatable."""
    load = k8s.node_load(s.cp)
    over = {n: m for n, (m, _) in load.items() if m > node_millis(nodes_cpu[n])}
    s.check(not over, f"no node over its allocatable CPU (load {dict(sorted(load.items()))}"
            + (f"; over: {over})" if over else ")"))
    return load


def events_by_pod(cp, reason):
    """involvedObject name -> [event] of one reason (default namespace)."""
    out = collections.defaultdict(list)
    for e in cp.events():
        if e.get("reason") == reason and e["involvedObject"].get("kind") == "Pod":
            out[e["involvedObject"]["name"]].append(e)
    return out


def describe_blocks(s, names):
    """kubectl describe pod NAME... as a user runs it, split per pod."""
    r = s.cp.kubectl("describe", "pod", *names)
    blocks = {}
    for part in re.split(r"(?m)^(?=Name:\s)", r.stdout):
        m = re.match(r"Name:\s+(\S+)", part)
        if m:
            blocks[m.group(1)] = part
    return blocks


def bound_lines(log_text):
    """pod -> how many times schedule logged binding it (needs --v 2)."""
    c = collections.Counter(re.findall(r"Successfully bound pod (\S+) to node", log_text))
    return c


def read_log(proc):
    with open(proc.log_path, "rb") as f:
        return f.read().decode("utf-8", "replace")


def scenario_burst_binds_what_fits_and_explains_the_rest(s):
    """30 pods of 1 CPU on three 4-CPU nodes: 12 bound, 18 pending with
    FailedScheduling and PodScheduled=False as kubectl describe shows."""
    nodes = {f"burst-{i}": "4" for i in range(3)}
    for n, cpu in nodes.items():
        s.cp.create_node(n, cpu=cpu)
    sched = actors.Schedule(s, policy(s), "--leader-elect=false", "--v", "2", "--seed", "1",
                            name="schedule-burst")
    names = [f"burst-{i:02d}" for i in range(30)]
    for n in names:
        s.cp.create_pod(n, scheduler=NAME)

    def settled():
        if not sched.proc.alive():
            raise RuntimeError("schedule exited:\n" + sched.proc.tail())
        pods = s.cp.pods()
        pending = [p for p in pods if not p["spec"].get("nodeName")]
        marked = [p for p in pending
                  if any(c["type"] == "PodScheduled" and c["status"] == "False"
                         for c in p["status"].get("conditions", []))]
        return len(pods) - len(pending) >= 12 and len(marked) == len(pending)

    k8s.wait_for("12 pods bound and every other pod marked PodScheduled=False",
                 settled, timeout=60, interval=0.5)
    time.sleep(2)  # a bind beyond the 12th would show by now
    pods = s.cp.pods()
    bound = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in k8s.bound(pods)}
    pending = sorted(p["metadata"]["name"] for p in pods if not p["spec"].get("nodeName"))
    s.check(len(bound) == 12, f"exactly 12 of 30 pods bound (got {len(bound)})")
    s.check(len(pending) == 18, f"18 pods pending (got {len(pending)})")
    load = check_allocatable(s, nodes)
    s.check(all(load.get(n, (0, 0))[1] == 4 for n in nodes),
            f"every node holds 4 pods ({load})")

    bad_cond = []
    for p in pods:
        if p["spec"].get("nodeName"):
            continue
        cond = [c for c in p["status"].get("conditions", []) if c["type"] == "PodScheduled"]
        if not (cond and cond[0]["status"] == "False"
                and cond[0].get("reason") == "Unschedulable"
                and "Insufficient cpu" in cond[0].get("message", "")):
            bad_cond.append((p["metadata"]["name"], cond))
    s.check(not bad_cond, "every pending pod's status has PodScheduled=False, reason "
            f"Unschedulable, 'Insufficient cpu' ({bad_cond[:2]})")

    want_msg = "0/3 nodes are available: 3 Insufficient cpu."
    blocks = describe_blocks(s, pending)
    s.check(sorted(blocks) == pending,
            f"kubectl describe shows every pending pod ({len(blocks)} of {len(pending)})")
    bad = []
    for n, text in sorted(blocks.items()):
        ok_cond = re.search(r"(?m)^\s+PodScheduled\s+False\s*$", text)
        ok_ev = re.search(r"(?m)^\s+Warning\s+FailedScheduling\s+.*\s" + re.escape(NAME)
                          + r"\s+" + re.escape(want_msg) + r"\s*$", text)
        if not (ok_cond and ok_ev):
            bad.append((n, text[text.find("Conditions:"):]))
    s.check(not bad, "kubectl describe of each pending pod: 'PodScheduled False' and "
            f"'Warning FailedScheduling ... {NAME} {want_msg}'"
            + (f"; first miss {bad[0][0]}:\n{bad[0][1]}" if bad else ""))

    one = sorted(bound)[0]
    text = describe_blocks(s, [one]).get(one, "")
    s.check(re.search(r"(?m)^\s+Normal\s+Scheduled\s+.*\s" + re.escape(NAME)
                      + r"\s+Successfully assigned default/" + re.escape(one)
                      + " to " + re.escape(bound[one]) + r"\s*$", text),
            f"kubectl describe of bound pod {one}: 'Normal Scheduled ... {NAME} "
            f"Successfully assigned default/{one} to {bound[one]}'")
    s.check(re.search(r"(?m)^Node:\s+" + re.escape(bound[one]) + "/", text),
            f"kubectl describe of {one} shows Node: {bound[one]}")
    twice = {p: c for p, c in bound_lines(read_log(sched.proc)).items() if c > 1}
    s.check(not twice, f"schedule logged no pod bound twice ({twice})")


LEASE_FLAGS = ["--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s",
               "--leader-elect-retry-period", "1s",
               "--leader-elect-resource-namespace", k8s.KPE_NS]


def lease(cp, name):
    try:
        return cp.get(f"/apis/coordination.k8s.io/v1/namespaces/{k8s.KPE_NS}/leases/{name}")
    except k8s.ApiError as ex:
        if ex.status == 404:
            return None
        raise


def acquired_as(proc):
    m = re.search(r"successfully acquired lease \S+ as (\S+)", read_log(proc))
    return m.group(1) if m else None


def scenario_two_replicas_one_leader_failover(s):
    lname = f"kpe-e2e-{k8s.free_port()}"
    nodes = {f"le-{i}": "8" for i in range(3)}
    for n, cpu in nodes.items():
        s.cp.create_node(n, cpu=cpu)
    flags = ["--v", "2", "--leader-elect-resource-name", lname, *LEASE_FLAGS]
    a = actors.Schedule(s, policy(s), *flags, name="schedule-a")
    b = actors.Schedule(s, policy(s), *flags, name="schedule-b")
    reps = {"schedule-a": a, "schedule-b": b}

    def one_leader():
        for r in reps.values():
            if not r.proc.alive():
                raise RuntimeError(f"{r.proc.name} exited:\n{r.proc.tail()}")
        le = lease(s.cp, lname)
        holder = le and le["spec"].get("holderIdentity")
        leaders = [n for n, r in reps.items() if acquired_as(r.proc)]
        return holder and leaders and (holder, leaders)

    holder, leaders = k8s.wait_for(f"a holder on Lease {k8s.KPE_NS}/{lname}", one_leader,
                                   timeout=30, interval=0.3)
    time.sleep(1.5)  # a second acquisition, if any, would be logged by now
    leaders = [n for n, r in reps.items() if acquired_as(r.proc)]
    s.require(len(leaders) == 1, f"exactly one replica acquired the Lease ({leaders})")
    leader = reps[leaders[0]]
    standby_name = [n for n in reps if n != leaders[0]][0]
    standby = reps[standby_name]
    s.check(holder == acquired_as(leader.proc),
            f"Lease holderIdentity {holder!r} is {leaders[0]}'s identity")

    for i in range(6):
        s.cp.create_pod(f"before-{i}", scheduler=NAME)
    k8s.wait_for("6 pods bound by the leader",
                 lambda: len(k8s.bound(s.cp.pods())) == 6, timeout=30, interval=0.3)
    s.check(not bound_lines(read_log(standby.proc)),
            f"the standby {standby_name} bound nothing while it waited")
    s.check(acquired_as(standby.proc) is None, f"{standby_name} did not acquire the Lease")

    t_kill = time.monotonic()
    leader.proc.kill()
    s.check(not leader.proc.alive(), f"{leaders[0]} killed with SIGKILL")
    after = [f"after-{i:02d}" for i in range(18)]
    for n in after:
        s.cp.create_pod(n, scheduler=NAME)

    def taken_over():
        if not standby.proc.alive():
            raise RuntimeError(f"{standby_name} exited:\n{standby.proc.tail()}")
        return acquired_as(standby.proc)

    ident = k8s.wait_for(f"{standby_name} to acquire the Lease", taken_over, timeout=30,
                         interval=0.3)
    took = time.monotonic() - t_kill
    le = lease(s.cp, lname)
    s.check(le["spec"].get("holderIdentity") == ident != holder,
            f"Lease holderIdentity moved to {standby_name} ({le['spec'].get('holderIdentity')!r})")
    s.check(took < 4 + 3 + 5, f"take-over {took:.1f}s after the kill (lease duration 4s)")
    s.note(f"standby took the Lease {took:.1f}s after SIGKILL of the leader "
           f"(lease 4s, retry 1s); transitions {le['spec'].get('leaseTransitions')}")

    def drained():
        pods = {p["metadata"]["name"]: p for p in s.cp.pods()}
        return all(pods[n]["spec"].get("nodeName") for n in after)

    k8s.wait_for("the 18 pods created after the kill to be bound", drained, timeout=45,
                 interval=0.3)
    check_allocatable(s, nodes)
    new_bound = bound_lines(read_log(standby.proc))
    s.check(set(after) <= {k.split("/")[1] for k in new_bound},
            f"{standby_name} bound every pod created after the kill "
            f"({len(new_bound)} binds logged)")
    twice = {p: c for p, c in bound_lines(read_log(standby.proc)).items() if c > 1}
    s.check(not twice, f"no pod bound twice ({twice})")


def create_with_retry(cp, name, stop_at, errors):
    """Create a pod, riding out an apiserver restart: retry until it exists
    (409 AlreadyExists after a lost reply counts as created)."""
    while time.monotonic() < stop_at:
        try:
            cp.create_pod(name, scheduler=NAME, cpu="300m")
            return True
        except k8s.ApiError as ex:
            if ex.status == 409:
                return True
            errors.append(str(ex)[:120])
        except OSError as ex:
            errors.append(str(ex)[:120])
        time.sleep(0.2)
    return False


def scenario_apiserver_restart_mid_run(s):
    """~200 pods on 20 nodes, kube-apiserver restarted while they are being
    created and bound: every pod bound exactly once, no node over its
    allocatable."""
    nodes = {f"rs-{i:02d}": "4" for i in range(20)}
    for n, cpu in nodes.items():
        s.cp.create_node(n, cpu=cpu)
    # API writes throttled (a bind and an event per pod) so that binds are
    # still queued and in flight when the apiserver goes down.
    sched = actors.Schedule(s, policy(s), "--leader-elect=false", "--v", "2", "--event-retry-seconds", "3",
                            "--kube-api-qps", "25", "--kube-api-burst", "10",
                            name="schedule-restart")
    names = [f"rs-{i:03d}" for i in range(200)]
    errors, missing = [], []
    stop_at = time.monotonic() + 120

    def creator(part):
        for n in part:
            if not create_with_retry(s.cp, n, stop_at, errors):
                missing.append(n)

    workers = [threading.Thread(target=creator, args=(names[i::4],), daemon=True)
               for i in range(4)]
    for t in workers:
        t.start()
    k8s.wait_for("40 pods bound before the restart",
                 lambda: len(k8s.bound(s.cp.pods())) >= 40, timeout=60, interval=0.3)
    before = len(k8s.bound(s.cp.pods()))
    t0 = time.monotonic()
    s.cp.restart_apiserver()
    down = time.monotonic() - t0
    pending_at_restart = 200 - before
    for t in workers:
        t.join(timeout=120)
    s.require(not any(t.is_alive() for t in workers) and not missing,
              f"all 200 pods created across the restart (missing {len(missing)})")
    s.note(f"restart at {before} bound ({pending_at_restart} not yet bound or created), apiserver "
           f"back after {down:.1f}s; "
           f"{len(errors)} pod creations retried")

    def all_bound():
        if not sched.proc.alive():
            raise RuntimeError("schedule exited:\n" + sched.proc.tail())
        pods = s.cp.pods()
        return len(pods) == 200 and len(k8s.bound(pods)) == 200

    try:
        k8s.wait_for("all 200 pods bound after the restart", all_bound, timeout=90,
                     interval=0.5)
    except TimeoutError as ex:
        pods = s.cp.pods()
        left = sorted(p["metadata"]["name"] for p in pods if not p["spec"].get("nodeName"))
        s.require(False, f"{ex}; {len(pods)} pods, unbound: {left[:10]}")
    s.check(sched.proc.alive(), "schedule rode out the restart (still running)")
    check_allocatable(s, nodes)

    # Events posted while the apiserver was down are tried again (every 3 s
    # here, 12 tries, as client-go's sink): every pod gets its event.
    try:
        k8s.wait_for("a Scheduled event for every pod",
                     lambda: not set(names) - set(events_by_pod(s.cp, "Scheduled")),
                     timeout=45, interval=1)
    except TimeoutError:
        pass
    scheduled = events_by_pod(s.cp, "Scheduled")
    multi = {p: [e["message"] for e in ev] for p, ev in scheduled.items()
             if len(ev) > 1 or ev[0].get("count", 1) > 1}
    s.check(not multi, f"no pod has two Scheduled events ({list(multi.items())[:3]})")
    nodes_of = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in s.cp.pods()}
    wrong = {p: ev[0]["message"] for p, ev in scheduled.items()
             if not ev[0]["message"].endswith(f" to {nodes_of.get(p)}")}
    s.check(not wrong, f"every Scheduled event names the node the pod is bound to "
            f"({list(wrong.items())[:3]})")
    no_event = sorted(set(names) - set(scheduled))
    s.check(not no_event, f"every pod has its Scheduled event, those posted during the "
                          f"restart included ({len(no_event)} missing: {no_event[:5]})")
    log = read_log(sched.proc)
    binds = bound_lines(log)
    twice = {p: c for p, c in binds.items() if c > 1}
    s.check(not twice, f"schedule's log has no pod bound twice ({twice})")
    lost_reply = re.findall(r"pod (\S+) was bound by someone else", log)
    # No answer at all (the server went down mid-POST), then the watch
    # showed the pod on the node asked for (sched_lost_bind.h).
    unanswered = re.findall(r"pod (\S+) is bound to node \S+, as our Binding asked", log)
    s.check(sum(binds.values()) + len(lost_reply) + len(unanswered) >= 200 and
            set(binds) | set(lost_reply) | set(unanswered) >= {f"default/{n}" for n in names},
            f"schedule accounts for every pod: {sum(binds.values())} binds logged, "
            f"{len(lost_reply)} found bound already (reply lost in the restart), "
            f"{len(unanswered)} seen bound after a POST with no answer")
    s.check(not set(binds) & set(unanswered),
            f"no pod both bound and seen bound unanswered ({sorted(set(binds) & set(unanswered))[:3]})")
    if lost_reply:
        s.note(f"{len(lost_reply)} binds whose reply was lost came back 409: {lost_reply[:5]}")
    if unanswered:
        s.note(f"{len(unanswered)} binds got no answer and were seen to land: {unanswered[:5]}")


PREEMPT_POLICY = {"kind": "Policy", "apiVersion": "v1",
                  "predicates": [{"name": "PodFitsResources"}],
                  "priorities": [{"name": "LeastRequestedPriority", "weight": 1}]}
# Three full 4-CPU nodes: pod -> (node, priority, cpu). Distinct
# priorities leave kube-scheduler no tie to break at random.
PREEMPT_FILL = {
    **{f"a{p}": ("preempt-a", p, "1") for p in (10, 11, 12, 13)},
    **{f"b{p}": ("preempt-b", p, "2") for p in (30, 31)},
    **{f"c{p}": ("preempt-c", p, "1") for p in (20, 21, 22, 23)},
}
PREEMPTORS = ["h1", "h2", "h3"]  # 2 CPU, priority 1000, in this order


def guard_pdb(s):
    """A policy/v1beta1 PDB over app=guard with no disruption left (the
    status the disruption controller would write, set by hand: no
    kube-controller-manager runs here)."""
    path = "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets"
    s.cp.post(path, {"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget",
                     "metadata": {"name": "guard"},
                     "spec": {"selector": {"matchLabels": {"app": "guard"}},
                              "maxUnavailable": 0}})
    s.cp.patch(path + "/guard/status", {"status": {
        "disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2,
        "expectedPods": 2, "observedGeneration": 1}})


def preemption_run(s, start_scheduler, guarded=()):
    """Fill the nodes (the pods in guarded labelled app=guard and covered
    by guard_pdb), start a scheduler, create the preemptors at once and
    play the kubelet (victims marked for deletion go for good) until every
    preemptor is bound. Returns (placements, pods left, preemptor pods,
    scheduler proc)."""
    for n in ("preempt-a", "preempt-b", "preempt-c"):
        s.cp.create_node(n, cpu="4")
    for v in sorted({p for _, p, _ in PREEMPT_FILL.values()} | {1000}):
        s.cp.post("/apis/scheduling.k8s.io/v1/priorityclasses", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": f"p{v}"}, "value": v})
    for name, (node, prio, cpu) in PREEMPT_FILL.items():
        s.cp.create_pod(name, cpu=cpu, scheduler=NAME, node_name=node,
                        priority_class=f"p{prio}",
                        labels={"app": "guard"} if name in guarded else None)
    if guarded:
        guard_pdb(s)
    proc = start_scheduler()
    for name in PREEMPTORS:
        s.cp.create_pod(name, cpu="2", scheduler=NAME, priority_class="p1000")

    def all_bound():
        if not proc.alive():
            raise RuntimeError("the scheduler exited:\n" + proc.tail())
        s.cp.finish_deletions()
        pods = {p["metadata"]["name"]: p for p in s.cp.pods()}
        return all(pods.get(h, {}).get("spec", {}).get("nodeName") for h in PREEMPTORS)
    k8s.wait_for("every preemptor bound", all_bound, timeout=120, interval=0.5)
    time.sleep(2)  # a late preemption would show by now
    s.cp.finish_deletions()
    pods = {p["metadata"]["name"]: p for p in s.cp.pods()}
    placed = {h: pods[h]["spec"]["nodeName"] for h in PREEMPTORS}
    return placed, sorted(pods), {h: pods[h] for h in PREEMPTORS}, proc


def scenario_preemption_matches_kube_scheduler(s):
    """Nodes full of low-priority pods, then three 2-CPU pods of priority
    1000 in a burst: schedule deletes the victims v1.22 (and v1.20.2)
    DefaultPreemption picks, posts Preempted events, nominates the node,
    and binds each preemptor where kube-scheduler v1.20.2 does on the same
    setup (the oracle, run second)."""
    pol = os.path.join(s.env.workdir, "preempt-policy.json")
    with open(pol, "w") as f:
        json.dump(PREEMPT_POLICY, f)
    ours_placed, ours_left, ours_pods, proc = preemption_run(
        s, lambda: actors.Schedule(s, pol, "--leader-elect=false", "--v", "2", "--seed", "1",
                                   name="schedule-preempt").proc)
    events = events_by_pod(s.cp, "Preempted")
    proc.stop()
    # By hand: h1 on a (highest victim 11, not c's 21 or b's 30); h2 on a
    # too (a12, a13: 13); h3 on c (a holds two nominated pods: c20, c21).
    want_left = sorted(["b30", "b31", "c22", "c23", "h1", "h2", "h3"])
    want_placed = {"h1": "preempt-a", "h2": "preempt-a", "h3": "preempt-c"}
    s.check(ours_placed == want_placed, f"schedule binds the preemptors {ours_placed} "
            f"(by hand: {want_placed})")
    s.check(ours_left == want_left, f"schedule leaves {ours_left} (by hand: {want_left})")
    victims = sorted(set(PREEMPT_FILL) - set(ours_left))
    bad_ev = [v for v in victims
              if not any(re.match(r"Preempted by default/h\d on node preempt-[ac]$",
                                  e.get("message", "")) for e in events.get(v, []))]
    s.check(victims and not bad_ev, f"every victim {victims} has a Preempted event "
            f"(missing or wrong: {bad_ev})")
    nom = {h: p["status"].get("nominatedNodeName") for h, p in ours_pods.items()}
    s.check(all(nom[h] == ours_placed[h] for h in PREEMPTORS),
            f"each preemptor's status.nominatedNodeName names its node ({nom})")
    check_allocatable(s, {"preempt-a": "4", "preempt-b": "4", "preempt-c": "4"})

    s.cp.delete_all()
    ks_placed, ks_left, _, _ = preemption_run(
        s, lambda: actors.KubeScheduler(s, policy_file=pol, name="kube-scheduler-preempt").proc)
    s.check(ks_placed == ours_placed,
            f"kube-scheduler v1.20.2 places the preemptors alike ({ks_placed})")
    s.check(ks_left == ours_left, f"kube-scheduler v1.20.2 leaves the same pods ({ks_left})")


def scenario_preemption_respects_pdbs_like_kube_scheduler(s):
    """The same burst with a10 and a11 under a PodDisruptionBudget that
    allows no disruption: h1 still goes to preempt-a but reprieves them
    (its victims a12, a13); h2 would now violate the budget there, so it
    preempts on preempt-c (c20, c21), and h3 follows it (c22, c23). The
    oracle is kube-scheduler v1.20.2 on the same setup."""
    pol = os.path.join(s.env.workdir, "preempt-policy.json")
    with open(pol, "w") as f:
        json.dump(PREEMPT_POLICY, f)
    guarded = ("a10", "a11")
    ours_placed, ours_left, _, proc = preemption_run(
        s, lambda: actors.Schedule(s, pol, "--leader-elect=false", "--v", "2", "--seed", "1",
                                   name="schedule-preempt-pdb").proc, guarded)
    proc.stop()
    want_placed = {"h1": "preempt-a", "h2": "preempt-c", "h3": "preempt-c"}
    want_left = sorted(["a10", "a11", "b30", "b31", "h1", "h2", "h3"])
    s.check(ours_placed == want_placed, f"schedule binds the preemptors {ours_placed} "
            f"(by hand: {want_placed})")
    s.check(ours_left == want_left, f"schedule leaves {ours_left}: the PDB's pods stay "
            f"(by hand: {want_left})")
    s.cp.delete_all()
    s.cp.delete("/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets/guard")
    ks_placed, ks_left, _, _ = preemption_run(
        s, lambda: actors.KubeScheduler(s, policy_file=pol, name="kube-scheduler-preempt-pdb").proc,
        guarded)
    s.cp.delete("/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets/guard")
    s.check(ks_placed == ours_placed,
            f"kube-scheduler v1.20.2 places the preemptors alike ({ks_placed})")
    s.check(ks_left == ours_left, f"kube-scheduler v1.20.2 leaves the same pods ({ks_left})")


SCENARIOS = [scenario_burst_binds_what_fits_and_explains_the_rest,
             scenario_two_replicas_one_leader_failover,
             scenario_apiserver_restart_mid_run,
             scenario_preemption_matches_kube_scheduler,
             scenario_preemption_respects_pdbs_like_kube_scheduler]
