"""suite_rbac.py: least privilege under a real authorizer (issue 27, point 4).

The control plane runs --authorization-mode=Node,RBAC and every other suite
runs serve, schedule and kube-scheduler as ServiceAccounts bound only to
the roles in deploy/ (k8s.SHIPPED_RBAC), so those roles are enough.
tests/deploy/check_rbac_calls.py shows they grant nothing the C source
does not call. Here each shipped rule is shown to be needed: for every
(group, resource, verb) the roles grant kube-policy-extender's
ServiceAccount, the role is re-applied without that one verb (a
SubjectAccessReview confirms the API server now denies it), our binary is
started as it would be in production, and the part of its work that needs
the rule must fail, with HTTP 403 in its log as the cause; then the
shipped role is restored (schedule's work includes a preemption: delete on
pods, the nominated node in pods/status). A baseline with the roles intact
shows the same checks pass and nothing is refused. The kubeadm recipes' extender, which
runs as kube-scheduler's own user, is shown to need
deploy/scheduler/kubeadm/rbac.yaml, and to work with it.
"""
import json
import os
import re
import sys
import time

import actors
import k8s

EXT_POLICY = "deploy/policy/extender-policy.json"
FULL_POLICY = "deploy/policy/policy.json"
USER = f"system:serviceaccount:{k8s.KPE_NS}:{k8s.KPE_SA}"
GROUPS = ["system:serviceaccounts", f"system:serviceaccounts:{k8s.KPE_NS}",
          "system:authenticated"]
LEASE_FLAGS = ["--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s",
               "--leader-elect-retry-period", "1s",
               "--leader-elect-resource-namespace", k8s.KPE_NS]


def shipped_rules(root):
    """(group, resource, verb) -> (file, role object) of every rule the
    shipped bindings grant our ServiceAccount (check_rbac_calls's reading
    of deploy/)."""
    sys.path.insert(0, os.path.join(root, "tests/deploy"))
    import check_rbac_calls
    import yaml
    out = {}
    for key, where in check_rbac_calls.shipped(root).items():
        for w in where:
            f, name = w.split(":", 1)
            with open(os.path.join(root, f)) as fh:
                for d in yaml.safe_load_all(fh):
                    if d and d["kind"] in ("Role", "ClusterRole") and d["metadata"]["name"] == name:
                        out[key] = (f, d)
    return out


def without(role, key):
    """The role with verb removed from resource (group, resource)."""
    g, r, v = key
    role = json.loads(json.dumps(role))
    rules = []
    for rule in role["rules"]:
        for rg in rule["apiGroups"]:
            for rr in rule["resources"]:
                verbs = [x for x in rule["verbs"] if (rg, rr, x) != key]
                if verbs:
                    rules.append({**{k: rule[k] for k in rule if k not in
                                     ("apiGroups", "resources", "verbs")},
                                  "apiGroups": [rg], "resources": [rr], "verbs": verbs})
    role["rules"] = rules
    return role


def allowed(cp, key, ns):
    g, r, v = key
    res, _, sub = r.partition("/")
    attrs = {"group": g, "resource": res, "verb": v}
    if sub:
        attrs["subresource"] = sub
    if ns:
        attrs["namespace"] = ns
    ans = cp.post("/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
        "spec": {"user": USER, "groups": GROUPS, "resourceAttributes": attrs}})
    return bool(ans["status"].get("allowed"))


def put_role(cp, role):
    """Replace the role as stored (an unconditional update)."""
    md = role["metadata"]
    if role["kind"] == "Role":
        path = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{md['namespace']}/roles/{md['name']}"
    else:
        path = f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{md['name']}"
    cp.request("PUT", path, role)


def log_of(proc):
    with open(proc.log_path, "rb") as f:
        return f.read().decode("utf-8", "replace")


def refused(proc):
    """The lines of proc's log naming HTTP 403 (forbidden)."""
    return [l for l in log_of(proc).splitlines() if re.search(r"HTTP 403|forbidden", l)]


# -- what serve does with the read role ------------------------------------

def serve_probe(s, name, enough=None, wait=6.0, kubeconfig=None):
    """serve with the extender policy as deployed. After it is ready a
    node and a pod on an existing node are created; returns (ready, what
    its cache missed of the two, the 403 lines). enough(ready, missed,
    403 lines, seconds) ends the wait early once the outcome is shown."""
    port = k8s.free_port()
    old = f"old-{port}"
    s.cp.create_node(old)
    p = s.spawn(name, [s.env.kpe, "serve", "--listen", f"127.0.0.1:{port}",
                       "--kubeconfig", kubeconfig or s.cp.kpe_kubeconfig,
                       "--policy", os.path.join(s.env.root, EXT_POLICY),
                       "--debug-endpoints", "--v", "2"])
    url = f"http://127.0.0.1:{port}"
    node, pod = f"late-{port}", f"late-{port}"
    created = False
    missed = ["a node created after start", "a pod created after start"]
    t0 = time.monotonic()
    while time.monotonic() < t0 + wait and p.alive():
        if enough(created, missed, refused(p), time.monotonic() - t0) if enough else not missed:
            break
        try:
            ready = actors.http_get(url + "/readyz", timeout=2).startswith(b"ok")
        except OSError:
            ready = False
        if ready and not created:
            s.cp.create_node(node)
            s.cp.create_pod(pod, node_name=old)
            created = True
        if ready and created:
            try:
                nodes = json.loads(actors.http_get(url + "/debug/cache", timeout=2))["nodes"]
                names = {n.get("name"): n for n in nodes}
                missed = [m for m, seen in (
                    ("a node created after start", node in names),
                    ("a pod created after start",
                     f"default/{pod}" in (names.get(old) or {}).get("pods", [])))
                    if not seen]
            except (OSError, ValueError, KeyError):
                pass
        time.sleep(0.2)
    if not enough:
        time.sleep(1.5)  # nothing refused later either
    p.stop()
    return created, missed, refused(p)


# -- what schedule does with the bind, status and lease roles --------------

def schedule_probe(s, name, wait=5.0):
    """schedule as deployed (leader election in our namespace): a pod
    that fits must be bound with a Scheduled event, one that cannot fit
    must get PodScheduled=False, the Lease must name the leader, and a pod
    of priority 1000 that fits only once a pod of priority 0 is gone must
    preempt it (the victim deleted, the preemptor's nominatedNodeName
    set). The list of what went wrong and the 403 lines."""
    tag = f"{k8s.free_port()}"
    s.cp.create_node(f"rb-{tag}", cpu="4")
    # Preemption's node: 6 CPUs held by one pod of priority 0; the 5-CPU
    # preemptor fits no other node, even emptied.
    s.cp.create_node(f"rbp-{tag}", cpu="6")
    fits, big = f"fits-{tag}", f"big-{tag}"
    low, urgent = f"low-{tag}", f"urgent-{tag}"
    s.cp.post("/apis/scheduling.k8s.io/v1/priorityclasses", {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": f"rbac-high-{tag}"}, "value": 1000})
    s.cp.create_pod(low, cpu="6", scheduler=actors.SCHEDULER_NAME, node_name=f"rbp-{tag}")
    lease = f"rbac-{tag}"
    p = s.spawn(name, [s.env.kpe, "schedule", "--scheduler-name", actors.SCHEDULER_NAME,
                       "--policy", os.path.join(s.env.root, FULL_POLICY),
                       "--kubeconfig", s.cp.kpe_kubeconfig,
                       "--listen", f"127.0.0.1:{k8s.free_port()}", "--v", "2",
                       "--leader-elect-resource-name", lease, *LEASE_FLAGS])
    s.cp.create_pod(fits, cpu="1", scheduler=actors.SCHEDULER_NAME)
    s.cp.create_pod(big, cpu="8", scheduler=actors.SCHEDULER_NAME)
    s.cp.create_pod(urgent, cpu="5", scheduler=actors.SCHEDULER_NAME,
                    priority_class=f"rbac-high-{tag}")

    def state():
        pods = {x["metadata"]["name"]: x for x in s.cp.pods()}
        wrong = []
        if not pods[fits]["spec"].get("nodeName"):
            wrong.append("the pod that fits is not bound")
        if not any(e.get("reason") == "Scheduled" and e["involvedObject"]["name"] == fits
                   for e in s.cp.events()):
            wrong.append("no Scheduled event")
        conds = pods[big].get("status", {}).get("conditions") or []
        if not any(c["type"] == "PodScheduled" and c["status"] == "False" for c in conds):
            wrong.append("no PodScheduled=False on the pod that cannot fit")
        if low in pods and not pods[low]["metadata"].get("deletionTimestamp"):
            wrong.append("the preemption victim is not deleted")
        if pods[urgent].get("status", {}).get("nominatedNodeName") != f"rbp-{tag}":
            wrong.append("the preemptor is not nominated")
        try:
            le = s.cp.get(f"/apis/coordination.k8s.io/v1/namespaces/{k8s.KPE_NS}/leases/{lease}")
            renewed = le["spec"].get("renewTime")
        except k8s.ApiError:
            renewed = None
        if not renewed:
            wrong.append("no Lease held")
        if not p.alive():
            wrong.append(f"schedule exited ({p.p.returncode})")
        return wrong
    deadline = time.monotonic() + wait
    wrong = state()
    while wrong and time.monotonic() < deadline:
        time.sleep(0.3)
        wrong = state()
    if not wrong:
        # Held past a renewal: an update refused shows only now.
        time.sleep(4.5)
        wrong = state()
    p.stop()
    return wrong, refused(p)


def probe_for(key):
    if key[1] == "poddisruptionbudgets":
        return "schedule"  # only schedule watches them (preemption)
    return "serve" if key[2] in ("list", "watch") else "schedule"


def scenario_baseline_shipped_roles_suffice(s):
    ready, missed, denied = serve_probe(s, "serve-baseline")
    s.check(ready and not missed and not denied,
            f"serve with the shipped roles: ready, sees a new node and pod, nothing refused "
            f"({missed}; {denied[:2]})")
    wrong, denied = schedule_probe(s, "schedule-baseline")
    s.check(not wrong and not denied, f"schedule with the shipped roles: binds, records, "
                                      f"reports, leads; nothing refused ({wrong}; {denied[:2]})")


def scenario_each_shipped_rule_is_needed(s):
    rules = shipped_rules(s.env.root)
    s.require(len(rules) >= 20, f"shipped rules for {USER}: {len(rules)}")
    for key in sorted(rules):
        def mine_of(denied, key=key):
            # The API server's own words for this one refusal.
            return [d for d in denied if f'cannot {key[2]} resource "{key[1]}"' in d]

        f, role = rules[key]
        ns = role["metadata"].get("namespace")
        what = f"{key[0] or 'core'}/{key[1]} {key[2]} ({role['kind']} {role['metadata']['name']})"
        put_role(s.cp, without(role, key))
        try:
            k8s.wait_for(f"the API server to deny {what}",
                         lambda: not allowed(s.cp, key, ns), timeout=10)
            tag = f"{key[1].replace('/', '-')}-{key[2]}"
            if probe_for(key) == "serve":

                def enough(ready, missed, denied, t):
                    n = len(mine_of(denied))
                    if key[2] == "list":
                        return n and t > 1.0  # and still not ready
                    if key[1] in ("nodes", "pods"):
                        return n and ready and t > 3.0
                    return n >= 2
                ready, missed, denied = serve_probe(s, f"serve-no-{tag}", enough)
                mine = mine_of(denied)
                if key[2] == "list":
                    failed, how = not ready, "never ready"
                elif key[1] in ("nodes", "pods"):
                    failed, how = ready and missed, f"ready but its cache missed {missed}"
                else:
                    # Nothing in /debug/cache shows these kinds: the failure
                    # is the watch refused and retried without end.
                    failed, how = len(mine) >= 2, f"its watch refused {len(mine)} times"
                s.check(failed and mine,
                        f"without {what}: serve {how}; the cause, HTTP 403: "
                        f"{mine[0][mine[0].find(']') + 2:][:150] if mine else 'none logged'}")
            else:
                wrong, denied = schedule_probe(s, f"schedule-no-{tag}")
                mine = mine_of(denied)
                if key[2] == "watch":
                    # Listed, so ready: the watch is refused and retried.
                    failed, how = len(mine) >= 2, f"its watch refused {len(mine)} times"
                else:
                    failed, how = bool(wrong), f"fails: {wrong}"
                s.check(failed and mine,
                        f"without {what}: schedule {how}; the cause, HTTP 403: "
                        f"{mine[0][mine[0].find(']') + 2:][:150] if mine else 'none logged'}")
        finally:
            put_role(s.cp, role)
            k8s.wait_for(f"the API server to allow {what} again",
                         lambda: allowed(s.cp, key, ns), timeout=10)
        s.cp.delete_all()


KUBEADM_RBAC = "deploy/scheduler/kubeadm/rbac.yaml"
KUBEADM_BINDING = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/" \
    "kube-policy-extender-read-kube-scheduler"


def scenario_kubeadm_identity_needs_its_binding(s):
    """The kubeadm recipes run the extender with kube-scheduler's
    scheduler.conf (user system:kube-scheduler). Its built-in roles do not
    let it list namespaces on v1.20: without deploy/scheduler/kubeadm/
    rbac.yaml the extender is never ready; with it, it serves."""
    conf = s.cp.kube_scheduler_user_kubeconfig
    try:
        s.cp.delete(KUBEADM_BINDING)
    except k8s.ApiError as ex:
        if ex.status != 404:
            raise
    try:
        def enough(ready, missed, denied, t):
            return denied and t > 1.0
        ready, missed, denied = serve_probe(s, "serve-kubeadm-unbound", enough, kubeconfig=conf)
        s.check(not ready and any('cannot list resource "namespaces"' in d for d in denied),
                f"as system:kube-scheduler alone: never ready, refused the namespaces "
                f"({denied[0][denied[0].find(']') + 2:][:140] if denied else 'nothing refused'})")
        s.cp.apply(os.path.join(s.env.root, KUBEADM_RBAC))
        ready, missed, denied = serve_probe(s, "serve-kubeadm-bound", kubeconfig=conf)
        s.check(ready and not missed and not denied,
                f"with {KUBEADM_RBAC} applied: ready, sees a new node and pod, nothing refused "
                f"({missed}; {denied[:1]})")
    finally:
        try:
            s.cp.delete(KUBEADM_BINDING)
        except k8s.ApiError:
            pass


SCENARIOS = [scenario_baseline_shipped_roles_suffice, scenario_kubeadm_identity_needs_its_binding,
             scenario_each_shipped_rule_is_needed]
