#!/usr/bin/env bash
# make bench-sched: throughput of `schedule` against the API-server double.
# 5,000 nodes (tests/apiserver/gen_cluster.py) and 10,000 pending pods for
# my-scheduler are loaded into the double (--load); the scheduler starts
# with the API rate limit lifted and binds them all. Reported: pods bound
# per second from the first bind to the last (klog timestamps of the
# "Successfully bound" lines), the scheduler's own decision rate (from
# kpe_scheduling_algorithm_duration_seconds), and the double's time per
# Binding (kpe_binding_duration_seconds) with its CPU time, to show which
# side limits the figure. Every bind owes a Scheduled event: the run ends
# when all are posted (or dropped, or failed), and the second throughput
# line counts up to then (the end is polled every 0.1 s).
#
# Environment: NODES (5000), PODS (10000), POLICY (deploy/demo/policy.json),
# BIND_WORKERS (16), PERCENT (percentageOfNodesToScore, 0: adaptive as
# kube-scheduler's default; 100: filter every node), OUT (bench/out).
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${NODES:-5000}
pods=${PODS:-10000}
policy=${POLICY:-deploy/demo/policy.json}
workers=${BIND_WORKERS:-16}
percent=${PERCENT:-0}
out=${OUT:-bench/out}
bin=bin/kube-policy-extender
dir=bench/payloads/sched
mkdir -p "$out" "$dir"
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT

cluster=$dir/nodes-$nodes.json
pending=$dir/pending-$pods.json
[ -f "$cluster" ] || python3 tests/apiserver/gen_cluster.py --nodes "$nodes" --pods 0 >"$cluster"
[ -f "$pending" ] || python3 - "$pods" >"$pending" <<'PY'
import json, sys
n = int(sys.argv[1])
items = [{"apiVersion": "v1", "kind": "Pod",
          "metadata": {"name": "bench-%05d" % i, "namespace": "bench",
                       "uid": "20000000-0000-4000-8000-%012d" % i,
                       "creationTimestamp": "2024-01-01T00:00:00Z",
                       "labels": {"app": "bench-%d" % (i % 50)}},
          "spec": {"schedulerName": "my-scheduler", "containers": [{
              "name": "c", "image": "registry.example/app:1",
              "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]},
          "status": {"phase": "Pending"}} for i in range(n)]
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout)
PY

python3 tests/apiserver/apiserver.py --port-file "$tmp/port" --history 100000 \
    --load "$cluster" --load "$pending" >"$out/sched-api.log" 2>&1 &
api=$!
pids+=("$api")
for _ in $(seq 1 600); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || { echo "bench-sched: the double did not start" >&2; cat "$out/sched-api.log" >&2; exit 1; }
api_url="http://127.0.0.1:$(cat "$tmp/port")"
api_cpu0=$(awk '{print $14 + $15}' "/proc/$api/stat")

echo "bench-sched: $nodes nodes, $pods pending pods, policy $policy, $workers bind workers, percentageOfNodesToScore $percent" >&2
"$bin" schedule --scheduler-name my-scheduler --policy "$policy" --master "$api_url" \
    --listen 127.0.0.1:0 --leader-elect=false --kube-api-qps -1 \
    --bind-workers "$workers" --percentage-of-nodes-to-score "$percent" --v 2 2>"$out/sched.log" &
sched=$!
pids+=("$sched")
port=""
for _ in $(seq 1 300); do
    port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$out/sched.log" | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
metric() { curl -sf "http://127.0.0.1:$port/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
start=$(date +%s)
bound_at=""
while :; do
    m=$(curl -sf "http://127.0.0.1:$port/metrics" || true)
    n=$(printf '%s\n' "$m" | awk '$1 == "kpe_schedule_attempts_total{result=\"scheduled\"}" {print $2}')
    ev=$(printf '%s\n' "$m" | awk '$1 ~ /^kpe_scheduler_events_(posted|dropped)_total/ {s += $2} END {print s + 0}')
    now=$(date +%s.%N)
    [ -z "$bound_at" ] && [ "${n:-0}" -ge "$pods" ] && bound_at=$now
    [ -n "$bound_at" ] && [ "${ev:-0}" -ge "$pods" ] && break
    kill -0 "$sched" 2>/dev/null || { echo "bench-sched: the scheduler died" >&2; tail "$out/sched.log" >&2; exit 1; }
    [ $(($(date +%s) - start)) -lt 600 ] || { echo "bench-sched: timed out at $n bound, $ev events" >&2; exit 1; }
    sleep 0.1
done
events_lag=$(echo "$now - $bound_at" | bc -l)
curl -sf "http://127.0.0.1:$port/metrics" >"$out/sched-metrics.txt"
api_cpu1=$(awk '{print $14 + $15}' "/proc/$api/stat")
sched_cpu=$(awk '{print $14 + $15}' "/proc/$sched/stat")
tck=$(getconf CLK_TCK)

python3 - "$out/sched.log" "$out/sched-metrics.txt" "$pods" \
    "$(echo "($api_cpu1 - $api_cpu0) / $tck" | bc -l)" \
    "$(echo "$sched_cpu / $tck" | bc -l)" "$events_lag" <<'PY' | tee "$out/sched-report.txt"
import re, sys
log, metrics, pods, api_cpu, sched_cpu, lag = sys.argv[1:7]
ts = []
for line in open(log):
    if "Successfully bound pod" in line:
        h, m, s = line[6:21].split(":")
        ts.append(int(h) * 3600 + int(m) * 60 + float(s))
ts.sort()
mv = {}
for line in open(metrics):
    if not line.startswith("#"):
        k, v = line.rsplit(" ", 1)
        mv[k] = float(v)
def mean(name):
    c = mv.get(name + "_count", 0)
    return mv.get(name + "_sum", 0) / c if c else float("nan")
span = ts[-1] - ts[0]
dec = mean("kpe_scheduling_algorithm_duration_seconds")
bind = mean("kpe_binding_duration_seconds")
print("pods bound:                 %d (log lines %d)" % (mv['kpe_schedule_attempts_total{result="scheduled"}'], len(ts)))
print("first to last bind:         %.2f s" % span)
ev = lambda k: int(mv.get("kpe_scheduler_events_%s_total%s" % k, 0))
sent, failed = ev(("posted", '{result="sent"}')), ev(("posted", '{result="failed"}'))
dropped = ev(("dropped", ""))
print("throughput:                 %.0f pods/s" % ((len(ts) - 1) / span))
print("Scheduled events:           %d sent, %d failed, %d dropped; last %.1f s after the last bind"
      % (sent, failed, dropped, float(lag)))
print("throughput with events:     %.0f pods/s (first bind to last event)"
      % ((len(ts) - 1) / (span + float(lag))))
print("decision (filter+score):    %.3f ms mean -> %.0f decisions/s alone" % (dec * 1e3, 1 / dec))
print("Binding POST on the double: %.2f ms mean" % (bind * 1e3))
print("CPU during the run:         double %.1f s, scheduler %.1f s (2 cores)" % (float(api_cpu), float(sched_cpu)))
PY
