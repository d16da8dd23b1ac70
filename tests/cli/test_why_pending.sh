#!/bin/sh
# test_why_pending.sh: why a pod is pending, on a live cluster (the
# API-server double): `explain --pod NS/NAME` of a pending pod prints
# kube-scheduler's latest FailedScheduling event beside our summary and
# says whether they agree (v1.20's wording read as v1.22's); `explain
# --all-pending` prints one line per pending pod of a scheduler name with
# its summary, the predicate that rejected most nodes and the agreement.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/apiserver_double.sh"
D=deploy/demo
P="$D/policy.json"
python3 - "$D/cluster.json" "$D/pods/big.json" "$T_TMP/c.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
big = json.load(open(sys.argv[2]))
big["metadata"].pop("uid", None)
for name, sched in (("big", None), ("big-2", None), ("other", "my-sched")):
    p = json.loads(json.dumps(big))
    p["metadata"]["name"] = name
    p["metadata"]["uid"] = "uid-" + name
    p["spec"].pop("nodeName", None)
    if sched:
        p["spec"]["schedulerName"] = sched
    c["items"].append(p)
json.dump(c, open(sys.argv[3], "w"))
PY
start_api "$T_TMP/c.json"
K="kubectl --kubeconfig $T_TMP/kubeconfig"
event() { # NAME POD MESSAGE TIME
    cat >"$T_TMP/ev.json" <<J
{"apiVersion": "v1", "kind": "Event",
 "metadata": {"name": "$1", "namespace": "default"},
 "involvedObject": {"kind": "Pod", "namespace": "default", "name": "$2",
                    "uid": "uid-$2"},
 "reason": "FailedScheduling", "type": "Warning", "message": "$3",
 "lastTimestamp": "$4", "source": {"component": "default-scheduler"}}
J
    $K create -f "$T_TMP/ev.json" >/dev/null 2>&1 || not_ok "create event $1"
}
ours="0/5 nodes are available: 1 node(s) were unschedulable, 4 Insufficient cpu."
# kube-scheduler v1.20 words the same summary in another order.
event e1 big "0/5 nodes are available: 4 Insufficient cpu, 1 node(s) were unschedulable." \
    2024-01-01T00:00:00Z
run "explain a pending pod (live)" 0 "$KPE_BIN" explain --policy "$P" \
    --kubeconfig "$T_TMP/kubeconfig" --pod default/big
contains "our summary" out "$ours"
contains "kube-scheduler's event beside it" out \
    "kube-scheduler (FailedScheduling, 2024-01-01T00:00:00Z): 0/5 nodes are available: 4 Insufficient cpu, 1 node(s) were unschedulable."
contains "they agree" out "Agreement: yes"
# A later event that disagrees is the one shown.
event e2 big "0/5 nodes are available: 5 Insufficient memory." 2024-01-01T00:05:00Z
event e0 big "0/5 nodes are available: 9 old." 2023-01-01T00:00:00Z
run "explain after a later, different event (json)" 0 "$KPE_BIN" explain \
    --policy "$P" --kubeconfig "$T_TMP/kubeconfig" --pod default/big \
    --output json
contains "the latest event is taken" out \
    '"message": "0/5 nodes are available: 5 Insufficient memory."'
contains "the disagreement is reported" out '"agree": false'
run "explain a pending pod without an event" 0 "$KPE_BIN" explain \
    --policy "$P" --kubeconfig "$T_TMP/kubeconfig" --pod default/big-2
contains "no event is said so" out "no FailedScheduling event for this pod"
run "explain a bound pod" 0 "$KPE_BIN" explain --policy "$P" \
    --kubeconfig "$T_TMP/kubeconfig" --pod default/db-0
if grep -q "kube-scheduler" "$T_TMP/out"; then
    not_ok "a bound pod has no kube-scheduler line" "$(tail -3 "$T_TMP/out")"
else ok "a bound pod has no kube-scheduler line"; fi

# v1.20's wording differences are read as v1.22's.
event e3 big-2 "0/5 nodes are available: 1 node(s) were unschedulable, 4 Insufficient cpu." \
    2024-01-01T00:00:00Z
run "--all-pending (live)" 0 "$KPE_BIN" explain --policy "$P" \
    --kubeconfig "$T_TMP/kubeconfig" --all-pending
contains "the count and the scheduler" out \
    "2 pending pod(s) of default-scheduler on 5 node(s)"
contains "big: summary, top predicate, disagreement" out \
    "default/big: $ours [most rejections: GeneralPredicates, 4 node(s)] (kube-scheduler: differs: 0/5 nodes are available: 5 Insufficient memory.)"
contains "big-2 agrees" out \
    "default/big-2: $ours [most rejections: GeneralPredicates, 4 node(s)] (kube-scheduler: agrees)"
if grep -q "default/other" "$T_TMP/out"; then
    not_ok "another scheduler's pods are left out"
else ok "another scheduler's pods are left out"; fi
run "--all-pending --scheduler-name (json)" 0 "$KPE_BIN" explain \
    --policy "$P" --kubeconfig "$T_TMP/kubeconfig" --all-pending \
    --scheduler-name my-sched --output json
contains "the other scheduler's pod" out '"pod": "default/other"'
contains "no event for it" out '"event": null'
stop_api
run "--all-pending from a file (no events)" 0 "$KPE_BIN" explain \
    --policy "$P" --cluster "$T_TMP/c.json" --all-pending
contains "no kube-scheduler column without an API server" out \
    "default/big: $ours [most rejections: GeneralPredicates, 4 node(s)]"
run "--all-pending with --pod" 2 "$KPE_BIN" explain --policy "$P" \
    --cluster "$T_TMP/c.json" --all-pending --pod default/big
run "--scheduler-name without --all-pending" 2 "$KPE_BIN" explain \
    --policy "$P" --cluster "$T_TMP/c.json" --pod default/big \
    --scheduler-name x
contains "the option's purpose is named" err "chooses the pods of --all-pending"
finish
