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
import re

import scorerules as sr

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


# Per priority, the classes a v1.22 difference may have, each with the
# v1.22 rule's variant that applies that change alone (or all of them).
CLASSES = {
    "BalancedResourceAllocation": [("D1", {})],
    "MostRequestedPriority": [("D2", {})],
    "RequestedToCapacityRatioPriority": [
        ("D3", {"rounding": "down", "skip_unrequested": False}),
        ("D14", {"rounding": "up", "skip_unrequested": True}),
        ("D3+D14", {})],
    "InterPodAffinityPriority": [("D7", {})],
    "SelectorSpreadPriority": [("D5", {"fix_d5": True, "owner_only": False}),
                               ("D6", {"fix_d5": False, "owner_only": True}),
                               ("D5+D6", {})],
    "EvenPodsSpreadPriority": [("D5", {"fix_d5": True, "owner_only": False}),
                               ("D6", {"fix_d5": False, "owner_only": True}),
                               ("D5+D6", {})],
}


def classify(case, policy, prio, node, feasible, oracle_score, ours_score):
    """(class, v1.20 rule, v1.22 rule) for a per-priority difference between
    v1.20.2 and our v1.22. The class is the documented one that explains it,
    or None: it holds only when the v1.20 rule recomputed here gives the
    oracle's score and that class's v1.22 rule gives ours."""
    if prio not in CLASSES:
        return None, None, None
    r20 = sr.recompute(case, policy, prio, node, feasible, "1.20")
    r22 = sr.recompute(case, policy, prio, node, feasible, "1.22")
    if r20 != oracle_score:
        return None, r20, r22
    for cls, kw in CLASSES[prio]:
        if sr.recompute(case, policy, prio, node, feasible, "1.22", **kw) == ours_score:
            return cls, r20, r22
    return None, r20, r22


# D8: the filter reasons v1.21/v1.22 reworded (docs/VERSION-SEMANTICS.md).
D8_REWORDING = {
    "node(s) didn't match Pod's node affinity": "node(s) didn't match Pod's node affinity/selector",
    "node(s) didn't match the requested hostname": "node(s) didn't match the requested node name",
    "node(s) didn't match pod affinity/anti-affinity":
        "node(s) didn't match pod affinity/anti-affinity rules",
}

SUMMARY_RE = re.compile(r"^0/(\d+) nodes are available: (.*)\.$")


def histogram(msg):
    """{reason: count} of a FitError message, or None."""
    m = SUMMARY_RE.match(msg.strip())
    if not m:
        return None
    out = {}
    for item in re.split(r", (?=\d+ )", m.group(2)):
        count, _, reason = item.partition(" ")
        out[reason] = out.get(reason, 0) + int(count)
    return out


def reword(hist):
    """A v1.20.2 reason histogram with D8's rewording applied."""
    out = {}
    for reason, n in hist.items():
        r = D8_REWORDING.get(reason, reason)
        out[r] = out.get(r, 0) + n
    return out


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
