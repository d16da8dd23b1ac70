#!/bin/sh
# test_explain.sh: `kube-policy-extender explain` usage, errors, and golden
# outputs on the bundled demo cluster (tests/golden/explain/).
. "$(dirname "$0")/lib.sh"
D=deploy/demo

run "explain --help" 0 "$KPE_BIN" explain --help
contains "help names every option" out "--cluster FILE"
run "explain without --pod" 2 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster "$D/cluster.json"
contains "missing options are named" err "give --pod POD or --all-pending"
run "explain with a bad --output" 2 "$KPE_BIN" explain --output yaml
contains "bad --output is quoted" err '"yaml"'
run "explain with a missing cluster file" 1 "$KPE_BIN" explain \
    --policy "$D/policy.json" --cluster /nonexistent.json \
    --pod "$D/pods/web.json"
contains "missing file is named" err "/nonexistent.json: No such file"
printf '{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1.5.3"}}}]}}' >"$T_TMP/bad-pod.json"
run "explain with an invalid pod" 1 "$KPE_BIN" explain \
    --policy "$D/policy.json" --cluster "$D/cluster.json" \
    --pod "$T_TMP/bad-pod.json"
contains "invalid pod names file, path and value" err \
    'bad-pod.json: spec.containers[0].resources.requests.cpu: invalid quantity "1.5.3"'
run "explain with an invalid policy" 1 "$KPE_BIN" explain \
    --policy tests/policies/legacy/v1.13-defaults.json \
    --cluster "$D/cluster.json" --pod "$D/pods/web.json"
contains "policy error is v1.22's" err 'predicate type not found for "CheckNodeCondition"'

# Golden outputs on the demo cluster: the seeds' scenario (a high-comm pod
# goes to RDMA nodes only; a pinned pod to its node), a plain replica, and a
# pod that fits nowhere.
G=tests/golden/explain
for pod in high-comm pinned web big; do
    run "explain $pod (json)" 0 "$KPE_BIN" explain --policy "$D/policy.json" \
        --cluster "$D/cluster.json" --pod "$D/pods/$pod.json" --output json
    golden "explain $pod (json)" "$G/$pod.json"
    run "explain $pod (text)" 0 "$KPE_BIN" explain --policy "$D/policy.json" \
        --cluster "$D/cluster.json" --pod "$D/pods/$pod.json"
    golden "explain $pod (text)" "$G/$pod.txt"
done
run "explain JSON keeps the contract's shape" 0 python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"pod", "semantics", "nodes", "summary", "selected", "event", "agree"}, d.keys()
assert d["semantics"] == "1.22"
assert d["event"] is None and d["agree"] is None  # no API server to ask
assert d["summary"] is None
assert d["pod"] == "default/high-comm" and d["selected"] in ("rdma-1", "rdma-2")
for n in d["nodes"]:
    assert set(n) == {"name", "feasible", "failures", "scores", "total"}
    assert n["feasible"] == (not n["failures"])
    assert bool(n["scores"]) == n["feasible"]
assert [n["name"] for n in d["nodes"]] == ["rdma-1", "rdma-2", "general-1", "gpu-1", "cordoned-1"]
' "$G/high-comm.json"
# The cluster can come in several files.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
nodes = [i for i in d["items"] if i["kind"] == "Node"]
rest = [i for i in d["items"] if i["kind"] != "Node"]
json.dump({"kind": "NodeList", "apiVersion": "v1", "items": nodes}, open(sys.argv[2], "w"))
json.dump({"kind": "List", "apiVersion": "v1", "items": rest}, open(sys.argv[3], "w"))
' "$D/cluster.json" "$T_TMP/nodes.json" "$T_TMP/rest.json"
run "explain over two cluster files" 0 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster "$T_TMP/nodes.json" --cluster "$T_TMP/rest.json" \
    --pod "$D/pods/high-comm.json" --output json
golden "two cluster files give the same answer" "$G/high-comm.json"

# DefaultPodTopologySpread=false: v1.22 then runs SelectorSpread on its own
# (zone-weighted) and EvenPodsSpreadPriority's PodTopologySpread with List
# defaulting, each with its own weight.
run "explain with the DefaultPodTopologySpread gate off" 0 "$KPE_BIN" explain \
    --policy "$D/policy.json" --cluster "$D/cluster.json" \
    --pod "$D/pods/web.json" --output json \
    --feature-gates DefaultPodTopologySpread=false
golden "gate off" "$G/web-gate-off.json"
run "gate off unfolds the two spreading priorities" 0 python3 -c '
import json, sys
on = json.load(open(sys.argv[1]))["nodes"]
off = json.load(open(sys.argv[2]))["nodes"]
s_on = [n["scores"] for n in on if n["feasible"]]
s_off = [n["scores"] for n in off if n["feasible"]]
assert all(s["SelectorSpreadPriority"] == s["EvenPodsSpreadPriority"] for s in s_on)
assert all(s["EvenPodsSpreadPriority"] == 100 for s in s_off)
assert any(s["SelectorSpreadPriority"] != 100 for s in s_off)
' "$G/web.json" "$G/web-gate-off.json"
# A pod that fits nowhere: kube-scheduler's FitError line, with the counts
# and order recomputed here from the per-node reasons (v1.22: a histogram of
# reasons, "COUNT REASON" strings sorted bytewise, joined with ", ").
run "explain big (json) for the summary" 0 "$KPE_BIN" explain \
    --policy "$D/policy.json" --cluster "$D/cluster.json" \
    --pod "$D/pods/big.json" --output json
cp "$T_TMP/out" "$T_TMP/big.json"
run "the summary is FitError.Error() of the reasons" 0 python3 -c '
import collections, json, sys
d = json.load(open(sys.argv[1]))
h = collections.Counter(r for n in d["nodes"] if not n["feasible"]
                        for f in n["failures"] for r in f["reasons"])
want = "0/%d nodes are available: %s." % (len(d["nodes"]),
       ", ".join(sorted("%d %s" % (c, r) for r, c in h.items())))
assert d["summary"] == want, (d["summary"], want)
assert len(h) > 1
' "$T_TMP/big.json"
run "explain big (text)" 0 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster "$D/cluster.json" --pod "$D/pods/big.json"
contains "text output has the same summary line" out \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"])' "$T_TMP/big.json")"
# A taint and a cordon: the taint reason keeps its braces.
python3 -c '
import json, sys
def node(name, **spec):
    return {"kind": "Node", "metadata": {"name": name, "labels": {}},
            "spec": spec, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
t = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
json.dump({"kind": "List", "apiVersion": "v1", "items": [
    node("a", taints=t), node("b", taints=t), node("c", unschedulable=True)]},
    open(sys.argv[1], "w"))
' "$T_TMP/tainted.json"
run "explain on tainted and cordoned nodes" 0 "$KPE_BIN" explain \
    --policy "$D/policy.json" --cluster "$T_TMP/tainted.json" \
    --pod "$D/pods/web.json"
contains "taints and cordons are counted" out \
    "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) had taint {dedicated: infra}, that the pod didn't tolerate."
run "no nodes at all" 0 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster tests/data/podlist.json --pod "$D/pods/web.json"
contains "no nodes gives ErrNoNodesAvailable" out "no nodes available to schedule pods"

# v1.22 drops EqualPriority; with no score plugin and no extender every
# feasible node scores 1 (prioritizeNodes).
for prios in '[{"name": "EqualPriority", "weight": 1}]' '[]'; do
    printf '{"kind": "Policy", "apiVersion": "v1", "priorities": %s}' \
        "$prios" >"$T_TMP/equal.json"
    run "explain with priorities $prios" 0 "$KPE_BIN" explain \
        --policy "$T_TMP/equal.json" --cluster "$D/cluster.json" \
        --pod "$D/pods/web.json" --output json
    cp "$T_TMP/out" "$T_TMP/equal-out.json"
    run "every feasible node totals 1 with priorities $prios" 0 python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [n for n in d["nodes"] if n["feasible"]]
assert len(f) >= 2 and all(n["total"] == 1 and n["scores"] == {} for n in f), f
assert d["selected"] == f[0]["name"]
' "$T_TMP/equal-out.json"
done

# --semantics (issue 25) reaches the output.
run "explain --semantics 1.20 (json)" 0 "$KPE_BIN" explain --semantics 1.20 \
    --policy "$D/policy.json" --cluster "$D/cluster.json" \
    --pod "$D/pods/web.json" --output json
contains "explain JSON carries the semantics" out '"semantics": "1.20"'
run "explain --semantics 1.21 (text)" 0 "$KPE_BIN" explain --semantics 1.21 \
    --policy "$D/policy.json" --cluster "$D/cluster.json" \
    --pod "$D/pods/web.json"
contains "explain text names a non-default semantics" out \
    "(as kube-scheduler 1.21)"
run "explain with a bad --semantics" 2 "$KPE_BIN" explain --semantics 1.23 \
    --policy "$D/policy.json" --cluster "$D/cluster.json" \
    --pod "$D/pods/web.json"
contains "bad --semantics is named with the accepted values" err \
    '--semantics: invalid value "1.23": expected 1.20, 1.21 or 1.22'

run "explain with an unknown gate" 2 "$KPE_BIN" explain --feature-gates Foo=true
contains "unknown gates are named" err "unrecognized feature gate: Foo"
run "explain with a non-bool gate" 2 "$KPE_BIN" explain \
    --feature-gates DefaultPodTopologySpread=maybe
contains "bad gate values are named" err "invalid value of DefaultPodTopologySpread: maybe"

finish
