#!/bin/sh
# test_schedule.sh: `schedule` against the API-server double (seed 002's
# custom scheduler, end to end): pods created with kubectl for
# my-scheduler are bound, high-comm pods on RDMA nodes only, the default
# scheduler's pods untouched; an unschedulable pod gets its
# FailedScheduling event and PodScheduled=False condition and is bound
# once a node that fits appears; a bind that loses a race (409) is
# dropped; two replicas elect one leader on a Lease and fail over when
# it dies; a leader that cannot renew exits 1; SIGTERM releases the lease.
. "$(dirname "$0")/lib.sh"
D=deploy/demo
PIDS=""
cleanup() { for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; }
trap 'cleanup; [ -n "$KEEP" ] && cp -r "$T_TMP" /tmp/st/keep; rm -rf "$T_TMP"' EXIT

python3 tests/apiserver/apiserver.py --port-file "$T_TMP/api.port" \
    --load "$D/cluster.json" >"$T_TMP/api.log" 2>&1 &
api=$!
PIDS="$api"
for _ in $(seq 1 100); do [ -s "$T_TMP/api.port" ] && break; sleep 0.1; done
api_url="http://127.0.0.1:$(cat "$T_TMP/api.port")"
cat >"$T_TMP/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: double
  cluster: {server: "$api_url"}
users:
- name: u
  user: {}
contexts:
- name: c
  context: {cluster: double, user: u}
current-context: c
KC
K="kubectl --kubeconfig $T_TMP/kubeconfig"

# start_sched LOG ARGS...: a scheduler in the background; sets $sp (pid)
# and $surl (its operations endpoint) once it is ready.
start_sched() {
    log=$1
    shift
    "$KPE_BIN" schedule --scheduler-name my-scheduler --policy "$D/policy.json" \
        --kubeconfig "$T_TMP/kubeconfig" --listen 127.0.0.1:0 --v 2 "$@" \
        2>"$log" &
    sp=$!
    PIDS="$PIDS $sp"
    port=""
    for _ in $(seq 1 100); do
        port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$log" | head -n 1)
        [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
        sleep 0.1
    done
    surl="http://127.0.0.1:$port"
}

# wait_for SECONDS CMD...: retry CMD every 0.1 s until it succeeds.
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

# node_of POD: spec.nodeName from the API (curl: faster than kubectl).
node_of() {
    curl -sf "$api_url/api/v1/namespaces/default/pods/$1" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["spec"].get("nodeName",""))'
}
bound() { [ -n "$(node_of "$1")" ]; }

pod() { # NAME SCHEDULER LABELS CPU
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default","labels":{%s}},"spec":{"schedulerName":"%s","containers":[{"name":"c","image":"nginx:1.10","resources":{"requests":{"cpu":"%s","memory":"64Mi"}}}]}}' \
        "$1" "$3" "$2" "$4"
}

# ---- the command line ----
run "schedule --help" 0 "$KPE_BIN" schedule --help
contains "help names the scheduler flags" out "--leader-elect-renew-deadline"
contains "help names --percentage-of-nodes-to-score" out "--percentage-of-nodes-to-score"
run "bad leader timings are refused" 2 "$KPE_BIN" schedule --policy "$D/policy.json" \
    --master "$api_url" --leader-elect-renew-deadline 20s
contains "the timings' rule is named" err "lease duration (15s) must be greater than the renew deadline (20s)"
run "a static snapshot cannot be scheduled" 2 "$KPE_BIN" schedule \
    --policy "$D/policy.json" --cluster "$D/cluster.json"
contains "schedule needs a live API server" err "schedule needs a live API server"
run "a bad seed is refused" 2 "$KPE_BIN" schedule --policy "$D/policy.json" \
    --master "$api_url" --seed x
contains "the flag and value are quoted" err '--seed: invalid value "x"'
run "a percentage above 100 is refused" 2 "$KPE_BIN" schedule --policy "$D/policy.json" \
    --master "$api_url" --percentage-of-nodes-to-score 101
contains "the percentage's range is named" err '--percentage-of-nodes-to-score: invalid value "101": want an integer from 0 to 100'
run "a fractional percentage is refused" 2 "$KPE_BIN" schedule --policy "$D/policy.json" \
    --master "$api_url" --percentage-of-nodes-to-score 12.5
contains "the percentage must be whole" err 'want an integer from 0 to 100'

# ---- one scheduler: the seed-002 scenario ----
start_sched "$T_TMP/s1.log" --leader-elect=false --seed 7
run "schedule is ready once its cache synced" 0 curl -sf "$surl/readyz"

{
    echo '{"apiVersion":"v1","kind":"List","items":['
    for i in 1 2 3; do pod "hc-$i" my-scheduler '"high-comm":"true"' 100m; echo ,; done
    for i in 1 2 3; do pod "web-$i" my-scheduler '"app":"web"' 200m; echo ,; done
    pod other default-scheduler '"app":"other"' 100m
    echo ']}'
} >"$T_TMP/pods.json"
run "kubectl create the pods" 0 $K create -f "$T_TMP/pods.json"
all_bound() { for p in hc-1 hc-2 hc-3 web-1 web-2 web-3; do bound "$p" || return 1; done; }
if wait_for 10 all_bound; then ok "every my-scheduler pod is bound"; else
    not_ok "every my-scheduler pod is bound" "$(tail -5 "$T_TMP/s1.log")"; fi
run "kubectl get the placements" 0 $K get pods -o \
    jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}'
cp "$T_TMP/out" "$T_TMP/placements"
bad=$(grep '^hc-' "$T_TMP/placements" | grep -v -e '=rdma-1$' -e '=rdma-2$')
if [ -z "$bad" ] && [ "$(grep -c '^hc-.*=rdma-' "$T_TMP/placements")" = 3 ]; then
    ok "high-comm pods only on RDMA nodes"; else
    not_ok "high-comm pods only on RDMA nodes" "$(cat "$T_TMP/placements")"; fi
if grep -q '^other=$' "$T_TMP/placements"; then
    ok "the default scheduler's pod is left alone"; else
    not_ok "the default scheduler's pod is left alone" "$(grep other "$T_TMP/placements")"; fi
hc1=$(grep '^hc-1=' "$T_TMP/placements" | cut -d= -f2)
run "kubectl get events" 0 $K get events -o \
    jsonpath='{range .items[*]}{.type}/{.reason}/{.source.component}: {.message}{"\n"}{end}'
contains "a Scheduled event per bind" out "Normal/Scheduled/my-scheduler: Successfully assigned default/hc-1 to $hc1"

# Unschedulable: 16 CPUs fit nowhere (4 nodes too small, 1 cordoned).
pod big my-scheduler '"app":"big"' 16 >"$T_TMP/big.json"
run "kubectl create an unschedulable pod" 0 $K create -f "$T_TMP/big.json"
want='0/5 nodes are available: 1 node(s) were unschedulable, 4 Insufficient cpu.'
has_event() { $K get events --field-selector involvedObject.name=big -o \
    jsonpath='{range .items[*]}{.type}/{.reason}/{.source.component}: {.message}{"\n"}{end}' |
    grep -qF "Warning/FailedScheduling/my-scheduler: $want"; }
if wait_for 10 has_event; then ok "FailedScheduling event with kube-scheduler's summary"; else
    not_ok "FailedScheduling event" "$($K get events -o json | head -c 600)"; fi
run "kubectl get the pod's condition" 0 $K get pod big -o \
    jsonpath='{range .status.conditions[?(@.type=="PodScheduled")]}{.status}/{.reason}/{.message}{end}'
contains "PodScheduled=False, Unschedulable, with the summary" out "False/Unschedulable/$want"
cat >"$T_TMP/huge.json" <<'NODE'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"huge-1","labels":{"kubernetes.io/hostname":"huge-1"}},
 "status":{"allocatable":{"cpu":"32","memory":"64Gi","pods":"110"},
           "capacity":{"cpu":"32","memory":"64Gi","pods":"110"},
           "conditions":[{"type":"Ready","status":"True"}]}}
NODE
run "kubectl create a node that fits" 0 $K create -f "$T_TMP/huge.json"
if wait_for 10 bound big && [ "$(node_of big)" = huge-1 ]; then
    ok "the unschedulable pod is bound once the node appears"; else
    not_ok "the unschedulable pod is bound once the node appears" "on '$(node_of big)'"; fi

# A lost race: our Binding lands while the scheduler's is held up (409).
curl -sf -X POST "$api_url/_fault" -d '{"action":"delay","ms":2000,"count":1,
  "path":"/api/v1/namespaces/default/pods/race/binding"}' >/dev/null
pod race my-scheduler '"app":"race"' 100m >"$T_TMP/race.json"
run "kubectl create a pod to race for" 0 $K create -f "$T_TMP/race.json"
sleep 0.5
run "bind it behind the scheduler's back" 0 curl -sf -X POST -H "Content-Type: application/json" \
    "$api_url/api/v1/namespaces/default/pods/race/binding" \
    -d '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"race"},"target":{"kind":"Node","name":"general-1"}}'
if wait_for 5 grep -q "race was bound by someone else" "$T_TMP/s1.log"; then
    ok "a 409 on bind is logged and the pod dropped"; else
    not_ok "a 409 on bind is logged and the pod dropped" "$(tail -3 "$T_TMP/s1.log")"; fi
[ "$(node_of race)" = general-1 ] && ok "the other binder's choice stands" ||
    not_ok "the other binder's choice stands" "on '$(node_of race)'"
run "metrics" 0 curl -sf "$surl/metrics"
contains "attempts: scheduled" out 'kpe_schedule_attempts_total{result="scheduled"} 7'
contains "attempts: unschedulable" out 'kpe_schedule_attempts_total{result="unschedulable"} 1'
contains "attempts: error (the lost race)" out 'kpe_schedule_attempts_total{result="error"} 1'
contains "queue depth gauge" out 'kpe_scheduler_pending_pods{queue="active"} 0'
contains "scheduling latency histogram" out 'kpe_scheduling_attempt_duration_seconds_count{result="scheduled"} 7'
contains "bind latency histogram" out 'kpe_binding_duration_seconds_count 8'
contains "leader gauge (no election: always 1)" out 'kpe_leader_election_master_status{name="my-scheduler"} 1'

# Bindings whose answer is lost (an API server going down mid-POST): the
# POST lands, the connection ends unanswered, and libcurl's resend on a
# fresh connection (if it makes one) is refused too, so schedule has no
# answer. The watch shows the pod on the node schedule asked for (while
# the POST is out, or after the pod went back to the queue): that is
# logged and its one Scheduled event posted.
lost_fault() { # POD AFTER
    curl -sf -X POST "$api_url/_fault" -d "{\"action\":\"error\",\"code\":0,\"count\":1,
      \"after\":$2,\"path\":\"/api/v1/namespaces/default/pods/$1/binding\"}" >/dev/null
}
for p in lost-1 lost-2; do
    lost_fault "$p" true
    lost_fault "$p" false
    pod "$p" my-scheduler '"app":"lost"' 100m >"$T_TMP/$p.json"
    run "kubectl create $p" 0 $K create -f "$T_TMP/$p.json"
done
for p in lost-1 lost-2; do
    if wait_for 10 grep -q "pod default/$p is bound to node" "$T_TMP/s1.log"; then
        ok "$p: the Binding that landed unanswered is recognised"; else
        not_ok "$p: the Binding that landed unanswered is recognised" "$(grep "$p" "$T_TMP/s1.log")"; fi
    n=$(node_of "$p")
    if [ -n "$n" ] && grep -q "pod default/$p is bound to node $n, as our Binding asked" "$T_TMP/s1.log"; then
        ok "$p: the log names the node it is bound to"; else
        not_ok "$p: the log names the node it is bound to" "on '$n': $(grep "$p" "$T_TMP/s1.log")"; fi
    sched_events() {
        $K get events -o jsonpath='{range .items[*]}{.involvedObject.name}/{.reason}: {.message}{"\n"}{end}' |
            grep "^$p/Scheduled: Successfully assigned default/$p to $n\$"
    }
    if wait_for 10 sched_events; then
        c=$(sched_events | wc -l)
        [ "$c" = 1 ] && ok "$p: one Scheduled event, naming $n" ||
            not_ok "$p: one Scheduled event, naming $n" "$c of them"
    else
        not_ok "$p: one Scheduled event, naming $n" "$($K get events | grep "$p")"
    fi
done
if [ "$(grep -c "Successfully bound pod default/lost-" "$T_TMP/s1.log")" = 0 ]; then
    ok "no second Binding of a pod whose first one landed"; else
    not_ok "no second Binding of a pod whose first one landed" "$(grep "bound pod default/lost-" "$T_TMP/s1.log")"; fi
curl -sf -X POST "$api_url/_fault" -d '{"action":"clear"}' >/dev/null
kill "$sp"; wait "$sp"
[ $? = 0 ] && ok "SIGTERM: exit 0" || not_ok "SIGTERM: exit 0"

# ---- two replicas, one leader ----
LE="--leader-elect-lease-duration 2s --leader-elect-renew-deadline 1500ms --leader-elect-retry-period 500ms"
# shellcheck disable=SC2086
start_sched "$T_TMP/a.log" $LE
a=$sp
aurl=$surl
# shellcheck disable=SC2086
start_sched "$T_TMP/b.log" $LE
b=$sp
burl=$surl
leads() { grep -q "successfully acquired lease kube-system/my-scheduler" "$1"; }
one_leads() { leads "$T_TMP/a.log" || leads "$T_TMP/b.log"; }
wait_for 5 one_leads
sleep 1
if leads "$T_TMP/a.log"; then lead=$a; lurl=$aurl; llog=a; other=$b; ourl=$burl; olog=b
else lead=$b; lurl=$burl; llog=b; other=$a; ourl=$aurl; olog=a; fi
if leads "$T_TMP/$llog.log" && ! leads "$T_TMP/$olog.log"; then
    ok "exactly one replica leads"; else not_ok "exactly one replica leads"; fi
run "kubectl get the lease" 0 $K get lease -n kube-system my-scheduler -o \
    jsonpath='{.spec.holderIdentity}/{.spec.leaseDurationSeconds}'
holder=$(cat "$T_TMP/out")
case "$holder" in "$(hostname)"_*/2) ok "holderIdentity is hostname_uuid" ;;
    *) not_ok "holderIdentity is hostname_uuid" "$holder" ;; esac
run "the standby is ready too" 0 curl -sf "$ourl/readyz"
curl -sf "$ourl/metrics" >"$T_TMP/out"
contains "the standby's leader gauge is 0" out 'kpe_leader_election_master_status{name="my-scheduler"} 0'
pod ha-1 my-scheduler '"app":"ha"' 100m >"$T_TMP/ha1.json"
run "kubectl create a pod for the pair" 0 $K create -f "$T_TMP/ha1.json"
if wait_for 5 grep -q "bound pod default/ha-1" "$T_TMP/$llog.log" &&
    ! grep -q "ha-1" "$T_TMP/$olog.log"; then
    ok "only the leader binds"; else not_ok "only the leader binds"; fi

kill -9 "$lead"
wait "$lead" 2>/dev/null
if wait_for 6 leads "$T_TMP/$olog.log"; then
    ok "the standby takes over when the leader dies"; else
    not_ok "the standby takes over when the leader dies" "$(tail -3 "$T_TMP/$olog.log")"; fi
pod ha-2 my-scheduler '"app":"ha"' 100m >"$T_TMP/ha2.json"
run "kubectl create a pod after failover" 0 $K create -f "$T_TMP/ha2.json"
if wait_for 5 grep -q "bound pod default/ha-2" "$T_TMP/$olog.log"; then
    ok "the new leader binds"; else not_ok "the new leader binds"; fi
run "kubectl get the lease transitions" 0 $K get lease -n kube-system my-scheduler \
    -o jsonpath='{.spec.leaseTransitions}'
[ "$(cat "$T_TMP/out")" = 1 ] && ok "one transition" || not_ok "one transition" "$(cat "$T_TMP/out")"

# A leader that cannot renew gives up within the deadline and exits 1.
curl -sf -X POST "$api_url/_fault" -d '{"action":"error","code":500,"count":0,"verb":"update",
  "path":"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/my-scheduler"}' >/dev/null
t0=$(date +%s)
wait "$other"
st=$?
t1=$(date +%s)
[ "$st" = 1 ] && ok "a leader that cannot renew exits 1" ||
    not_ok "a leader that cannot renew exits 1" "status $st"
[ $((t1 - t0)) -le 5 ] && ok "it gives up within the renew deadline" ||
    not_ok "it gives up within the renew deadline" "$((t1 - t0)) s"
grep -q "leaderelection lost" "$T_TMP/$olog.log" && ok "it says leaderelection lost" ||
    not_ok "it says leaderelection lost"
curl -sf -X POST "$api_url/_fault" -d '{"action":"clear"}' >/dev/null

# SIGTERM hands the lease back.
# shellcheck disable=SC2086
start_sched "$T_TMP/c.log" $LE
wait_for 6 leads "$T_TMP/c.log"
kill "$sp"
wait "$sp"
[ $? = 0 ] && ok "a leader's SIGTERM: exit 0" || not_ok "a leader's SIGTERM: exit 0"
run "kubectl get the released lease" 0 $K get lease -n kube-system my-scheduler \
    -o jsonpath='holder=[{.spec.holderIdentity}]'
contains "SIGTERM releases the lease" out "holder=[]"

# ---- Events the API server does not answer are tried again ----
# (client-go's sink: 12 tries; a refused Event is not retried, but for 403.)
start_sched "$T_TMP/ev.log" --leader-elect=false --event-retry-seconds 0.3
curl -sf -X POST "$api_url/_fault" -d '{"action":"error","code":0,"count":2,"verb":"create",
  "path":"/api/v1/namespaces/default/events"}' >/dev/null
pod ev-1 my-scheduler '"app":"ev"' 100m >"$T_TMP/ev1.json"
run "kubectl create a pod whose event is dropped twice" 0 $K create -f "$T_TMP/ev1.json"
scheduled_event() {
    $K get events --field-selector involvedObject.name="$1" -o \
        jsonpath='{range .items[*]}{.reason}{"\n"}{end}' | grep -qx Scheduled
}
if wait_for 10 scheduled_event ev-1; then
    ok "the Scheduled event arrives after two connections dropped"; else
    not_ok "the Scheduled event arrives after two connections dropped" "$(tail -3 "$T_TMP/ev.log")"; fi
[ "$(grep -c "event Scheduled for pod default/ev-1: no answer" "$T_TMP/ev.log")" = 2 ] &&
    ok "two retries logged" || not_ok "two retries logged" "$(grep ev-1 "$T_TMP/ev.log")"
curl -sf -X POST "$api_url/_fault" -d '{"action":"error","code":422,"count":1,"verb":"create",
  "path":"/api/v1/namespaces/default/events","message":"refused"}' >/dev/null
pod ev-2 my-scheduler '"app":"ev"' 100m >"$T_TMP/ev2.json"
run "kubectl create a pod whose event is refused" 0 $K create -f "$T_TMP/ev2.json"
if wait_for 5 grep -q "event Scheduled for pod default/ev-2 not recorded" "$T_TMP/ev.log" &&
    ! grep -q "ev-2: no answer" "$T_TMP/ev.log"; then
    ok "a refused event is not retried"; else
    not_ok "a refused event is not retried" "$(grep ev-2 "$T_TMP/ev.log")"; fi
# 403 is tried again: a kube-apiserver that has just started refuses
# everyone until its RBAC authorizer has synced.
curl -sf -X POST "$api_url/_fault" -d '{"action":"error","code":403,"count":2,"verb":"create",
  "path":"/api/v1/namespaces/default/events","message":"forbidden"}' >/dev/null
pod ev-3 my-scheduler '"app":"ev"' 100m >"$T_TMP/ev3.json"
run "kubectl create a pod whose event is forbidden twice" 0 $K create -f "$T_TMP/ev3.json"
if wait_for 10 scheduled_event ev-3; then
    ok "the Scheduled event arrives after two 403s"; else
    not_ok "the Scheduled event arrives after two 403s" "$(grep ev-3 "$T_TMP/ev.log")"; fi
[ "$(grep -c "event Scheduled for pod default/ev-3: forbidden" "$T_TMP/ev.log")" = 2 ] &&
    ok "two 403 retries logged" || not_ok "two 403 retries logged" "$(grep ev-3 "$T_TMP/ev.log")"
kill "$sp"
wait "$sp"

kill "$api"
wait "$api" 2>/dev/null

# ---- percentageOfNodesToScore on a cluster past 100 nodes ----
# 400 plain nodes, then the demo's two RDMA nodes last: adaptive 47% of
# 402 stops after 188 feasible nodes, but a high-comm pod fits only the
# RDMA nodes, so the search goes on to the end (as kube-scheduler's does)
# and finds them; plain pods are bound from the partial scan.
python3 tests/apiserver/gen_cluster.py --nodes 400 --pods 0 >"$T_TMP/big-nodes.json"
python3 - "$T_TMP/big-nodes.json" "$D/cluster.json" >"$T_TMP/big.json" <<'PY'
import json, sys
big = json.load(open(sys.argv[1]))
demo = json.load(open(sys.argv[2]))
big["items"] += [i for i in demo["items"]
                 if i["kind"] == "Node" and i["metadata"]["name"].startswith("rdma-")]
json.dump(big, sys.stdout)
PY
python3 tests/apiserver/apiserver.py --port-file "$T_TMP/api2.port" \
    --load "$T_TMP/big.json" >"$T_TMP/api2.log" 2>&1 &
api=$!
PIDS="$PIDS $api"
for _ in $(seq 1 100); do [ -s "$T_TMP/api2.port" ] && break; sleep 0.1; done
api_url="http://127.0.0.1:$(cat "$T_TMP/api2.port")"
sed -i "s|server: .*|server: \"$api_url\"}|" "$T_TMP/kubeconfig"
start_sched "$T_TMP/big-s.log" --leader-elect=false --seed 3
{
    echo '{"apiVersion":"v1","kind":"List","items":['
    for i in 1 2 3; do pod "hc-$i" my-scheduler '"high-comm":"true"' 100m; echo ,; done
    for i in 1 2 3; do pod "web-$i" my-scheduler '"app":"web"' 200m; [ "$i" = 3 ] || echo ,; done
    echo ']}'
} >"$T_TMP/big-pods.json"
run "kubectl create pods on 402 nodes" 0 $K create -f "$T_TMP/big-pods.json"
if wait_for 10 all_bound; then ok "402 nodes: every pod is bound"; else
    not_ok "402 nodes: every pod is bound" "$(tail -5 "$T_TMP/big-s.log")"; fi
run "kubectl get the placements on 402 nodes" 0 $K get pods -o \
    jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}'
if [ "$(grep -c '^hc-.*=rdma-[12]$' "$T_TMP/out")" = 3 ]; then
    ok "402 nodes: high-comm pods still only on RDMA nodes"; else
    not_ok "402 nodes: high-comm pods still only on RDMA nodes" "$(cat "$T_TMP/out")"; fi
kill "$sp" "$api"
wait "$sp" "$api" 2>/dev/null
finish
