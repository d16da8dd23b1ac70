#!/bin/sh
# test_rules_equiv.sh: the seeds' HighCommPodFilter and CustomPriorityPolicy
# written as declarative rules (LabelRule, LabelScoreRule) give the same
# answers as the built-ins: `explain --output json` over bench clusters
# generated now (../shared/bench/gen_payload.py, fixed seeds), every node's
# verdict, reasons, scores and total compared, for pods with and without the
# high-comm label, alone and (for two of the variants) inside the demo
# Policy. Issue 17 point 2.
. "$(dirname "$0")/lib.sh"
GEN=${KPE_BENCH_DIR:-../shared/bench}/gen_payload.py
if [ ! -f "$GEN" ]; then
    GEN=/work/shared/bench/gen_payload.py
fi
if [ ! -f "$GEN" ]; then
    not_ok "bench generator" "no gen_payload.py (set KPE_BENCH_DIR)"
    finish
fi

# Two clusters (different sizes and seeds); the high-comm profile's pod too.
for spec in "300 17" "500 3"; do
    set -- $spec
    run "generate $1 nodes, seed $2" 0 python3 "$GEN" --nodes "$1" \
        --pods-per-node 1 --seed "$2" --out "$T_TMP/n$1"
    run "generate the high-comm pod, seed $2" 0 python3 "$GEN" --nodes "$1" \
        --pods-per-node 1 --seed "$2" --pod-profile high-comm --no-cluster \
        --out "$T_TMP/hc$1"
done

# The policies: the built-ins alone, the rules alone, and the demo Policy
# with its built-ins swapped for the same rules (same weight).
run "write the policies" 0 python3 - "$T_TMP" deploy/demo/policy.json <<'PY'
import json, sys
tmp, demo = sys.argv[1], sys.argv[2]
RDMA = "node.kubernetes.io/rdma-enabled"
rule_pred = {"name": "RdmaOnly", "argument": {"labelRule": {
    "podSelector": ["high-comm"], "nodeSelector": [RDMA + "=true"],
    "reason": "Node does not support RDMA"}}}
def rule_prios(w):
    return [{"name": "RdmaForHighComm", "weight": w, "argument": {
                "labelScoreRule": {"podSelector": ["high-comm"],
                                   "nodeSelector": [RDMA + "=true"],
                                   "score": 10}}},
            {"name": "KeepRdmaFree", "weight": w, "argument": {
                "labelScoreRule": {"podSelector": ["!high-comm"],
                                   "nodeSelector": [RDMA + "!=true"],
                                   "score": 10}}}]
def dump(name, p):
    json.dump(p, open("%s/%s.json" % (tmp, name), "w"), indent=1)
dump("builtin", {"kind": "Policy", "apiVersion": "v1",
                 "predicates": [{"name": "HighCommPodFilter"}],
                 "priorities": [{"name": "CustomPriorityPolicy",
                                 "weight": 1}]})
dump("rules", {"kind": "Policy", "apiVersion": "v1",
               "predicates": [rule_pred], "priorities": rule_prios(1)})
d = json.load(open(demo))
dump("demo-builtin", d)
r = dict(d)
r["predicates"] = [rule_pred if e["name"] == "HighCommPodFilter" else e
                   for e in d["predicates"]]
prios = []
for e in d["priorities"]:
    prios += rule_prios(e["weight"]) if e["name"] == "CustomPriorityPolicy" \
        else [e]
r["priorities"] = prios
assert r != d
dump("demo-rules", r)
PY

# Pod variants from each generated pod: as generated, with high-comm set to
# "true", to "" (the key alone selects), with high-comm only as a value, and
# each also tolerating every taint (so cordoned and tainted nodes are scored).
run "write the pods" 0 python3 - "$T_TMP" <<'PY'
import copy, glob, json, os, sys
tmp = sys.argv[1]
n = 0
for f in sorted(glob.glob(tmp + "/*/pod.json")):
    base = json.load(open(f))
    tag = os.path.basename(os.path.dirname(f))
    labels = base["metadata"].get("labels") or {}
    variants = {"asis": dict(labels),
                "hc-true": dict(labels, **{"high-comm": "true"}),
                "hc-empty": dict(labels, **{"high-comm": ""}),
                "hc-value": dict({k: v for k, v in labels.items()
                                  if k != "high-comm"}, role="high-comm")}
    for name, lab in variants.items():
        for tol in (False, True):
            p = copy.deepcopy(base)
            p["metadata"]["labels"] = lab
            if tol:
                p["spec"]["tolerations"] = [{"operator": "Exists"}]
            json.dump(p, open("%s/pod-%s-%s%s.json" % (
                tmp, tag, name, "-tol" if tol else ""), "w"))
            n += 1
assert n == 32, n
PY

# compare A.json B.json: same nodes, verdicts, reasons, scores, totals.
# Rule names map to the built-ins' (RdmaOnly -> HighCommPodFilter; the two
# score entries show the one LabelScoreRule score).
compare() {
    python3 - "$1" "$2" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["nodes"]
b = json.load(open(sys.argv[2]))["nodes"]
assert [n["name"] for n in a] == [n["name"] for n in b], "node lists differ"
pred = {"RdmaOnly": "HighCommPodFilter"}
bad = []
for x, y in zip(a, b):
    fy = [{"predicate": pred.get(f["predicate"], f["predicate"]),
           "reasons": f["reasons"]} for f in y["failures"]]
    sy = dict(y["scores"])
    if "RdmaForHighComm" in sy:
        assert sy.pop("RdmaForHighComm") == sy.pop("KeepRdmaFree")
        sy["CustomPriorityPolicy"] = y["scores"]["RdmaForHighComm"]
    if (x["feasible"], x["failures"], x["scores"], x["total"]) != \
            (y["feasible"], fy, sy, y["total"]):
        bad.append((x, y))
for x, y in bad[:3]:
    print("builtin:", json.dumps(x), "\nrules:  ", json.dumps(y))
sys.exit(1 if bad else 0)
PY
}

# The comparisons are not vacuous: the high-comm pods are refused somewhere
# and fit somewhere, and the built-in's score takes both of its values.
spread() {
    python3 - "$@" <<'PY'
import json, sys
seen = set()
for f in sys.argv[1:]:
    for n in json.load(open(f))["nodes"]:
        seen.add(("feasible", n["feasible"]))
        if "CustomPriorityPolicy" in n["scores"]:
            seen.add(("score", n["scores"]["CustomPriorityPolicy"]))
        for fl in n["failures"]:
            seen.add(("fail", fl["predicate"]))
want = {("feasible", True), ("feasible", False), ("score", 0),
        ("score", 100), ("fail", "HighCommPodFilter")}
sys.exit(0 if want <= seen else print("missing:", want - seen) or 1)
PY
}

for pod in "$T_TMP"/pod-*.json; do
    p=$(basename "$pod" .json)
    cluster="$T_TMP/n$(echo "$p" | sed 's/^pod-[a-z]*\([0-9]*\)-.*/\1/')"
    pols="builtin rules"
    case "$p" in
    *-asis | *-hc-true) pols="$pols demo-builtin demo-rules" ;;
    esac
    for pol in $(echo "$pols" | sed 's/\([a-z-]*\) \([a-z-]*\)/\1:\2/g'); do
        set -- $(echo "$pol" | tr : ' ')
        "$KPE_BIN" explain --policy "$T_TMP/$1.json" \
            --cluster "$cluster/cluster.json" --pod "$pod" --output json \
            >"$T_TMP/$p.$1.out" 2>"$T_TMP/err" &&
            "$KPE_BIN" explain --policy "$T_TMP/$2.json" \
                --cluster "$cluster/cluster.json" --pod "$pod" \
                --output json >"$T_TMP/$p.$2.out" 2>>"$T_TMP/err"
        if [ $? -ne 0 ]; then
            not_ok "$p: $1 vs $2" "explain failed: $(head -c 400 "$T_TMP/err")"
        elif msg=$(compare "$T_TMP/$p.$1.out" "$T_TMP/$p.$2.out"); then
            ok "$p: $1 and $2 agree on every node"
        else
            not_ok "$p: $1 vs $2" "$msg"
        fi
    done
done
run "the comparisons cover both verdicts and both scores" 0 spread \
    "$T_TMP"/pod-*.builtin.out

# docs/extending.md's rule examples (JSON, INI) load and keep their rules.
python3 - docs/extending.md "$T_TMP/readme" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
sec = s[s.index("### A rule in the Policy"):s.index("### A loadable plugin")]
open(sys.argv[2] + ".json", "w").write(
    re.search(r"```json\n(.*?)```", sec, re.S).group(1))
open(sys.argv[2] + ".ini", "w").write(
    re.search(r"```\n(\[predicate.*?)```", sec, re.S).group(1))
PY
for f in json ini; do
    run "docs/extending.md's $f rule example loads" 0 "$KPE_BIN" check "$T_TMP/readme.$f"
    contains "docs/extending.md's $f example keeps its rule" out \
        "args: rules=[[high-comm]:[node.kubernetes.io/rdma-enabled=true]:"
done
finish
