#!/bin/sh
# test_schedule_preempt.sh: `schedule` preempts (DefaultPreemption, docs/
# scheduler.md) against the API-server double: a 2-CPU pod of priority
# 1000 on a node full of 1-CPU pods of priority 10..13 evicts the two of
# lowest priority (v1.22 reprieves from the highest down), binds there,
# carries status.nominatedNodeName, and each victim gets a Preempted
# event; a pod with preemptionPolicy Never evicts nothing; a
# PodDisruptionBudget (policy/v1beta1, its budget spent) saves the pod it
# covers: the victim is the other one, of higher priority.
. "$(dirname "$0")/lib.sh"
PIDS=""
cleanup() { for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; }
trap 'cleanup; rm -rf "$T_TMP"' EXIT

. "$(dirname "$0")/apiserver_double.sh"
start_api ""
PIDS="$api"
K="kubectl --kubeconfig $T_TMP/kubeconfig"
cat >"$T_TMP/policy.json" <<'POL'
{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"PodFitsResources"},{"name":"MatchNodeSelector"}],
 "priorities":[{"name":"LeastRequestedPriority","weight":1}]}
POL

wait_for() {
    w_n=$(($1 * 10))
    shift
    while [ "$w_n" -gt 0 ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
        w_n=$((w_n - 1))
    done
    return 1
}
get() { # POD JSONPATH-ish python expression on the pod object p
    curl -sf "$api_url/api/v1/namespaces/default/pods/$1" |
        python3 -c "import json,sys; p=json.load(sys.stdin); print($2)"
}
pod() { # NAME PRIORITY CPU NODE EXTRA-SPEC
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default"},"spec":{%s"schedulerName":"my-scheduler","priority":%s,%s"containers":[{"name":"c","image":"pause","resources":{"requests":{"cpu":"%s","memory":"64Mi"}}}]}}' \
        "$1" "${4:+\"nodeName\":\"$4\",}" "$2" "$5" "$3"
}

{
    echo '{"apiVersion":"v1","kind":"List","items":['
    echo '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"kubernetes.io/hostname":"n1"}},'
    echo ' "status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},'
    echo '  "conditions":[{"type":"Ready","status":"True"}]}},'
    for p in 10 11 12 13; do pod "low-$p" "$p" 1 n1; [ "$p" = 13 ] || echo ,; done
    echo ']}'
} >"$T_TMP/fill.json"
run "kubectl create a node full of low-priority pods" 0 $K create -f "$T_TMP/fill.json"

"$KPE_BIN" schedule --scheduler-name my-scheduler --policy "$T_TMP/policy.json" \
    --kubeconfig "$T_TMP/kubeconfig" --listen 127.0.0.1:0 --v 2 \
    --leader-elect=false --seed 1 2>"$T_TMP/s.log" &
sp=$!
PIDS="$PIDS $sp"
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T_TMP/s.log" | head -n 1)
    [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
done
surl="http://127.0.0.1:$port"

pod urgent 1000 2 >"$T_TMP/urgent.json"
run "kubectl create a 2-CPU pod of priority 1000" 0 $K create -f "$T_TMP/urgent.json"
bound() { [ "$(get "$1" 'p["spec"].get("nodeName","")')" = n1 ]; }
if wait_for 15 bound urgent; then ok "the preemptor is bound to n1"; else
    not_ok "the preemptor is bound to n1" "$(tail -5 "$T_TMP/s.log")"; fi
run "kubectl get the pods left" 0 $K get pods -o \
    jsonpath='{range .items[*]}{.metadata.name} {end}'
contains "the victims are the two of lowest priority" out "low-12 low-13 urgent "
if ! grep -q "low-10\|low-11" "$T_TMP/out"; then ok "low-10 and low-11 are deleted"; else
    not_ok "low-10 and low-11 are deleted" "$(cat "$T_TMP/out")"; fi
[ "$(get urgent 'p["status"].get("nominatedNodeName","")')" = n1 ] &&
    ok "the preemptor's status.nominatedNodeName is n1" ||
    not_ok "the preemptor's status.nominatedNodeName is n1" "$(get urgent 'p["status"]')"
run "kubectl get events" 0 $K get events -o \
    jsonpath='{range .items[*]}{.involvedObject.name}/{.type}/{.reason}: {.message}{"\n"}{end}'
contains "low-10 has its Preempted event" out "low-10/Normal/Preempted: Preempted by default/urgent on node n1"
contains "low-11 has its Preempted event" out "low-11/Normal/Preempted: Preempted by default/urgent on node n1"
run "metrics" 0 curl -sf "$surl/metrics"
contains "one preemption nominated a node" out "kpe_preemption_victims_count 1"
contains "with two victims" out "kpe_preemption_victims_sum 2"

pod never 1000 2 '' '"preemptionPolicy":"Never",' >"$T_TMP/never.json"
run "kubectl create a pod that never preempts" 0 $K create -f "$T_TMP/never.json"
cond() { [ "$(get never '[c["reason"] for c in p["status"].get("conditions",[])]')" = "['Unschedulable']" ]; }
if wait_for 10 cond; then ok "preemptionPolicy Never: the pod is marked Unschedulable"; else
    not_ok "preemptionPolicy Never: the pod is marked Unschedulable" "$(get never 'p["status"]')"; fi
run "kubectl get the pods left" 0 $K get pods -o \
    jsonpath='{range .items[*]}{.metadata.name} {end}'
contains "preemptionPolicy Never evicts nothing" out "low-12 low-13 never urgent "

# A PDB: on n2 (pool b) guarded (priority 20, app=guarded, covered by a
# budget with no disruption left) and plain (priority 30). Without the
# PDB the victim would be guarded, the less important.
{
    echo '{"apiVersion":"v1","kind":"List","items":['
    echo '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n2","labels":{"kubernetes.io/hostname":"n2","pool":"b"}},'
    echo ' "status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},'
    echo '  "conditions":[{"type":"Ready","status":"True"}]}},'
    pod guarded 20 2 n2 | sed 's/"namespace":"default"}/"namespace":"default","labels":{"app":"guarded"}}/'
    echo ,
    pod plain 30 2 n2
    echo ',{"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget","metadata":{"name":"guard","namespace":"default"},'
    echo ' "spec":{"selector":{"matchLabels":{"app":"guarded"}},"maxUnavailable":0}}'
    echo ']}'
} >"$T_TMP/pdb.json"
run "kubectl create n2, its pods and a PDB" 0 $K create -f "$T_TMP/pdb.json"
run "the PDB's status: no disruption allowed" 0 curl -sf -X PATCH \
    -H "Content-Type: application/merge-patch+json" \
    "$api_url/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets/guard/status" \
    -d '{"status":{"disruptionsAllowed":0,"currentHealthy":1,"desiredHealthy":1,"expectedPods":1}}'
sleep 1 # the watch brings the status
pod urgent2 1000 2 '' '"nodeSelector":{"pool":"b"},' >"$T_TMP/urgent2.json"
run "kubectl create a preemptor for pool b" 0 $K create -f "$T_TMP/urgent2.json"
if wait_for 15 eval '[ "$(get urgent2 "p[\"spec\"].get(\"nodeName\",\"\")")" = n2 ]'; then
    ok "the preemptor is bound to n2"; else
    not_ok "the preemptor is bound to n2" "$(tail -5 "$T_TMP/s.log")"; fi
run "kubectl get the pods left" 0 $K get pods -o \
    jsonpath='{range .items[*]}{.metadata.name} {end}'
contains "the PDB keeps guarded; plain is the victim" out "guarded low-12 low-13 never urgent urgent2 "
kill "$sp"
wait "$sp" 2>/dev/null
finish
