"""oracle.py: what kube-scheduler v1.20.2 at --v=10 says about one pod,
and the v1.20 / v1.22 score rules the differential suite recomputes.

v1.20.2 formats (pkg/scheduler/core/generic_scheduler.go, prioritizeNodes):
  "Plugin %s scores on %v/%v => %v"   - the weighted NodeScoreList of one
                                        score plugin, Go %v of
                                        [{Name Score} ...]
  "Host %s => Score %d"               - the total of one feasible node
Neither is written when at most one node is feasible (Schedule returns
before scoring), so the feasible set then comes from the bound node or the
FailedScheduling event (FitError: "0/N nodes are available: ...").
"""
import math
import re

import randcluster as rc

PLUGIN_RE = re.compile(r"Plugin (\S+) scores on (\S+)/(\S+) => \[(.*)\]\s*$")
HOST_RE = re.compile(r"Host (\S+) => Score (-?\d+)\s*$")
ENTRY_RE = re.compile(r"\{(\S+) (-?\d+)\}")
ATTEMPT_RE = re.compile(r"Attempting to schedule pod: (\S+)/(\S+)\s*$")


def parse_attempt(text, ns, name):
    """The first scheduling attempt of ns/name in a log excerpt:
    {"plugins": {plugin: {node: weighted}}, "hosts": {node: total}}."""
    plugins, hosts = {}, {}
    inside = False
    for line in text.splitlines():
        m = ATTEMPT_RE.search(line)
        if m:
            if inside:
                break                       # a second attempt: keep the first
            inside = (m.group(1), m.group(2)) == (ns, name)
            continue
        if not inside:
            continue
        m = PLUGIN_RE.search(line)
        if m and (m.group(2), m.group(3)) == (ns, name):
            plugins[m.group(1)] = {n: int(s) for n, s in ENTRY_RE.findall(m.group(4))}
            continue
        m = HOST_RE.search(line)
        if m:
            hosts[m.group(1)] = int(m.group(2))
    return {"plugins": plugins, "hosts": hosts}


# -- the score rules --------------------------------------------------------

def go_round(x):
    """math.Round for the non-negative values here (half away from zero)."""
    return int(math.floor(x + 0.5))


def balanced(alloc, req, version):
    """BalancedResourceAllocation. v1.20.2: non-zero requests, 0 when a
    fraction reaches 1, (1 - |fc - fm|) * 100. v1.22 (documented, v1.22.4+):
    actual requests, fractions capped at 1, (1 - |fc - fm| / 2) * 100
    (docs/VERSION-SEMANTICS.md D1)."""
    def frac(r):
        return 1.0 if alloc[r] == 0 else req[r] / alloc[r]
    fc, fm = frac("cpu"), frac("memory")
    if version == "1.20":
        if fc >= 1 or fm >= 1:
            return 0
        return int((1 - abs(fc - fm)) * 100)
    fc, fm = min(fc, 1.0), min(fm, 1.0)
    return int((1 - abs((fc - fm) / 2)) * 100)


def most(alloc, req, version):
    """MostRequestedPriority over cpu and memory (weight 1 each): v1.20.2
    scores an over-committed resource 0, v1.22 caps requested at
    allocatable (D2)."""
    total = 0
    for r in ("cpu", "memory"):
        a, q = alloc[r], req[r]
        if a == 0:
            s = 0
        elif q > a:
            s = 0 if version == "1.20" else 100
        else:
            s = q * 100 // a
        total += s
    return total // 2


def _broken_linear(shape, p):
    for i, pt in enumerate(shape):
        if p <= pt[0]:
            if i == 0:
                return shape[0][1]
            u0, s0 = shape[i - 1]
            return s0 + (pt[1] - s0) * (p - u0) // (pt[0] - u0)
    return shape[-1][1]


def rtcr(args, alloc, req, pod_req, version, rounding=None, skip_unrequested=None):
    """RequestedToCapacityRatioPriority. v1.20.2: utilisation
    100 - (cap - req) * 100 / cap (rounds up) and every listed resource
    counted; v1.22: req * 100 / cap (rounds down, D3) and an extended
    resource the pod does not request, or with allocatable 0, skipped (D14).
    rounding / skip_unrequested override one half to tell D3 from D14."""
    up = (version == "1.20") if rounding is None else rounding == "up"
    skip = (version != "1.20") if skip_unrequested is None else skip_unrequested
    shape = [(p["utilization"], p["score"] * 10) for p in args["shape"]]
    score = wsum = 0
    for res in args["resources"]:
        r, w = res["name"], res["weight"]
        a, q = alloc.get(r, 0), req.get(r, 0)
        if skip and r not in ("cpu", "memory") and (pod_req.get(r, 0) == 0 or a == 0):
            continue
        if a == 0 or q > a:
            util = 100
        elif up:
            util = 100 - (a - q) * 100 // a
        else:
            util = q * 100 // a
        s = _broken_linear(shape, util)
        if s > 0:
            score += s * w
            wsum += w
    return 0 if wsum == 0 else go_round(score / wsum)


def recompute(case, policy, prio, node, version, **kw):
    """The score of priority prio on node under one version's rule, from
    the case's own objects; None when this suite has no rule for prio."""
    non_zero = version == "1.20" or prio != "BalancedResourceAllocation"
    alloc, req = rc.node_inputs(case, node, non_zero)
    if prio == "BalancedResourceAllocation":
        return balanced(alloc, req, version)
    if prio == "MostRequestedPriority":
        return most(alloc, req, version)
    if prio == "RequestedToCapacityRatioPriority":
        args = next(p for p in policy["priorities"] if p["name"] == prio)
        args = args["argument"]["requestedToCapacityRatioArguments"]
        return rtcr(args, alloc, req, rc.pod_requests(case.pod, False), version, **kw)
    return None


def classify(case, policy, prio, node, oracle_score, ours_score):
    """The documented class (D1, D2, D3, D14, D3+D14) that explains a
    per-priority difference between v1.20.2 and our v1.22, or None: the
    class holds only when the v1.20 rule recomputed here gives the oracle's
    score and the v1.22 rule gives ours."""
    r20 = recompute(case, policy, prio, node, "1.20")
    if r20 is None or r20 != oracle_score:
        return None
    if prio == "BalancedResourceAllocation":
        return "D1" if recompute(case, policy, prio, node, "1.22") == ours_score else None
    if prio == "MostRequestedPriority":
        return "D2" if recompute(case, policy, prio, node, "1.22") == ours_score else None
    if prio == "RequestedToCapacityRatioPriority":
        for cls, kw in (("D3", {"rounding": "down", "skip_unrequested": False}),
                        ("D14", {"rounding": "up", "skip_unrequested": True}),
                        ("D3+D14", {"rounding": "down", "skip_unrequested": True})):
            if recompute(case, policy, prio, node, "1.22", **kw) == ours_score:
                return cls
    return None


# D8: the filter reasons v1.21/v1.22 reworded (docs/VERSION-SEMANTICS.md).
D8_REWORDING = {
    "node(s) didn't match Pod's node affinity": "node(s) didn't match Pod's node affinity/selector",
    "node(s) didn't match the requested hostname": "node(s) didn't match the requested node name",
    "node(s) didn't match pod affinity/anti-affinity":
        "node(s) didn't match pod affinity/anti-affinity rules",
}

SUMMARY_RE = re.compile(r"^0/(\d+) nodes are available: (.*)\.$")


def reword_summary(msg):
    """A v1.20.2 FitError message with D8's rewording applied (and the
    histogram re-sorted as FitError sorts it)."""
    m = SUMMARY_RE.match(msg.strip())
    if not m:
        return None
    parts = []
    for item in re.split(r", (?=\d+ )", m.group(2)):
        count, _, reason = item.partition(" ")
        parts.append(f"{count} {D8_REWORDING.get(reason, reason)}")
    return f"0/{m.group(1)} nodes are available: {', '.join(sorted(parts))}."
