"""scorerules.py: the score rules of v1.20.2 and of the documented v1.22,
recomputed from a randcluster.Case, for the differential suite to name the
class of a difference (docs/VERSION-SEMANTICS.md D1, D2, D3, D5, D6, D7,
D14). Restated from the v1.20.2 tree (pkg/scheduler/framework/plugins:
noderesources, interpodaffinity/scoring.go, podtopologyspread/scoring.go,
helper/spread.go) and from the document for v1.22; no upstream code.

Each rule takes `version` ("1.20" or "1.22") and, where a version changed
two things, flags to apply one change alone.
"""
import math

import randcluster as rc

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


# -- InterPodAffinity (D7) ---------------------------------------------------

def _matches(selector, labels):
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def _terms(pod, kind, preferred):
    aff = pod["spec"].get("affinity", {}).get(kind, {})
    if preferred:
        return [(t["weight"], t["podAffinityTerm"])
                for t in aff.get("preferredDuringSchedulingIgnoredDuringExecution", [])]
    return [(None, t) for t in aff.get("requiredDuringSchedulingIgnoredDuringExecution", [])]


def ipa_raw(case, hard_weight):
    """InterPodAffinity's raw score per node (v1.20.2 PreScore/Score; one
    namespace, so a term matches by its label selector alone)."""
    labels = {n["metadata"]["name"]: n["metadata"]["labels"] for n in case.nodes}
    pod = case.pod
    topo = {}

    def add(term, weight, target, node):
        key = term["topologyKey"]
        if _matches(term["labelSelector"], target["metadata"]["labels"]) and key in labels[node]:
            topo.setdefault(key, {})
            val = labels[node][key]
            topo[key][val] = topo[key].get(val, 0) + weight

    for ex in case.bound:
        node = ex["spec"]["nodeName"]
        for w, t in _terms(pod, "podAffinity", True):
            add(t, w, ex, node)
        for w, t in _terms(pod, "podAntiAffinity", True):
            add(t, -w, ex, node)
        if hard_weight > 0:
            for _, t in _terms(ex, "podAffinity", False):
                add(t, hard_weight, pod, node)
        for w, t in _terms(ex, "podAffinity", True):
            add(t, w, pod, node)
        for w, t in _terms(ex, "podAntiAffinity", True):
            add(t, -w, pod, node)
    raw = {n: sum(v.get(labels[n][k], 0) for k, v in topo.items() if k in labels[n])
           for n in labels}
    return raw, bool(topo)


def ipa(case, policy, feasible, version):
    """Normalised InterPodAffinity scores of the feasible nodes: v1.20.2's
    min and max start at 0, v1.21+'s at the first score (D7)."""
    raw, any_term = ipa_raw(case, policy.get("hardPodAffinitySymmetricWeight", 1))
    scores = [raw[n] for n in feasible]
    if not any_term:
        return {n: raw[n] for n in feasible}
    if version == "1.20":
        lo, hi = min([0] + scores), max([0] + scores)
    else:
        lo, hi = min(scores), max(scores)
    return {n: int(100 * ((raw[n] - lo) / (hi - lo))) if hi > lo else 0 for n in feasible}


# -- PodTopologySpread (D5, D6) ---------------------------------------------

def _node_fits_affinity(pod, labels):
    if any(labels.get(k) != v for k, v in pod["spec"].get("nodeSelector", {}).items()):
        return False
    req = (pod["spec"].get("affinity", {}).get("nodeAffinity", {})
           .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if not req:
        return True
    return any(all(labels.get(e["key"]) in e["values"] for e in t["matchExpressions"])
               for t in req["nodeSelectorTerms"])


def default_selector(case, owner_only):
    """The system-default spreading selector, as matchLabels. v1.20.2:
    services, RCs, RSs and StatefulSets of the namespace selecting the pod;
    v1.22 (D6): services and the pod's controller owner only. All of this
    suite's selectors are {app: X}, so the result is {app: X} or None."""
    app = case.pod["metadata"]["labels"]["app"]
    svcs = [o for o in case.objects if o["kind"] == "Service"
            and o["spec"]["selector"] == {"app": app}]
    if owner_only:
        refs = case.pod["metadata"].get("ownerReferences", [])
        ctrls = [c for c in case.controllers
                 if any(r["kind"] == c[0] and r["name"] == c[1] for r in refs) and c[2] == app]
    else:
        ctrls = [c for c in case.controllers if c[2] == app]
    return {"app": app} if svcs or ctrls else None


def pts(case, feasible, version, fix_d5=None, owner_only=None):
    """Normalised PodTopologySpread scores of the feasible nodes (v1.20.2
    PreScore/Score/NormalizeScore). v1.22 differs by D6 (owner_only) and,
    for system-default constraints, D5 (fix_d5: a node without a topology
    label is not ignored; its missing value counts as "")."""
    fix_d5 = (version != "1.20") if fix_d5 is None else fix_d5
    owner_only = (version != "1.20") if owner_only is None else owner_only
    pod = case.pod
    ns_labels = {n["metadata"]["name"]: n["metadata"]["labels"] for n in case.nodes}
    own = pod["spec"].get("topologySpreadConstraints", [])
    if own:
        cons = [(c["maxSkew"], c["topologyKey"], c["labelSelector"]) for c in own
                if c["whenUnsatisfiable"] == "ScheduleAnyway"]
        system = False
    else:
        sel = default_selector(case, owner_only)
        cons = [] if sel is None else [(3, rc.HOST, {"matchLabels": sel}),
                                       (5, rc.ZONE, {"matchLabels": sel})]
        system = True
    if not cons:
        return {n: 100 for n in feasible}
    require_all = not (system and fix_d5)

    def has_all(labels):
        return all(k in labels for _, k, _ in cons)
    ignored = set()
    pairs, size = {}, [0] * len(cons)
    for n in feasible:
        if require_all and not has_all(ns_labels[n]):
            ignored.add(n)
            continue
        for i, (_, key, _) in enumerate(cons):
            if key == rc.HOST:
                continue
            pair = (key, ns_labels[n].get(key, ""))
            if pair not in pairs:
                pairs[pair] = 0
                size[i] += 1
    weight = [math.log((len(feasible) - len(ignored) if key == rc.HOST else size[i]) + 2)
              for i, (_, key, _) in enumerate(cons)]

    def count(node, sel):
        return sum(1 for b in case.bound if b["spec"]["nodeName"] == node
                   and _matches(sel, b["metadata"]["labels"]))
    for n, labels in ns_labels.items():
        if not _node_fits_affinity(pod, labels) or (require_all and not has_all(labels)):
            continue
        for _, key, sel in cons:
            pair = (key, labels.get(key, ""))
            if pair in pairs:
                pairs[pair] += count(n, sel)
    raw = {}
    for n in feasible:
        if n in ignored:
            continue
        score = 0.0
        for i, (skew, key, sel) in enumerate(cons):
            if key in ns_labels[n]:
                cnt = count(n, sel) if key == rc.HOST else pairs[(key, ns_labels[n][key])]
                score += cnt * weight[i] + (skew - 1)
        raw[n] = int(score)
    lo = min(raw.values()) if raw else 0
    hi = max([0] + list(raw.values()))
    out = {}
    for n in feasible:
        if n in ignored:
            out[n] = 0
        elif hi == 0:
            out[n] = 100
        else:
            out[n] = 100 * (hi + lo - raw[n]) // hi
    return out


def recompute(case, policy, prio, node, feasible, version, **kw):
    """The score of priority prio on node under one version's rule, from
    the case's own objects; None when this module has no rule for prio."""
    if prio in ("InterPodAffinityPriority",):
        return ipa(case, policy, feasible, version)[node]
    if prio in ("SelectorSpreadPriority", "EvenPodsSpreadPriority"):
        return pts(case, feasible, version, **kw)[node]
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
