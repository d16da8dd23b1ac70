#!/usr/bin/env bash
# make bench-whatif (and the end of make bench): the speed targets of the
# read-only commands (issue 24), on seeded bench clusters
# (shared/bench/gen_payload.py, kubelet-shaped nodes):
#   1. simulate --until-unschedulable of a 1-CPU pod on 5,000 nodes with
#      150,000 pods (target: under 10 s);
#   2. diff --replay of 10,000 pods on 1,000 nodes, the Policy against its
#      own KubeSchedulerConfiguration (target: under 30 s; it must also
#      report no difference);
#   3. the live list of 5,000 nodes and 150,000 pods (explain
#      --kubeconfig, which lists every kind once, in pages, and evaluates
#      one pod) against kubectl fetching the same lists from the same API
#      server (the double, tests/apiserver) (target: within 2x). kubectl
#      fetches them with `get --raw /api/v1/nodes` and `get --raw
#      /api/v1/pods`: the bytes `get nodes,pods -A -o json` asks for, one
#      request per kind, without kubectl's own decoding and printing,
#      which is not the API server's cost and grows past 10 GB at this
#      size (at 200 nodes and 6,000 pods `-o json` already takes ~10 s and
#      800 MB against 0.2 s for --raw). LIVE_KUBECTL_JSON=1 also times
#      `kubectl get nodes,pods -A -o json` (small sizes only).
# Each figure comes with the load average (uptime) it was taken under.
# Each line prints the figure and the target; timings on a busy machine
# are not results.
#
# Environment: SIM_NODES (5000), DIFF_NODES (1000), DIFF_PODS_PER_NODE
# (10), LIVE_NODES (5000), POLICY (deploy/policy/policy.json), SKIP_LIVE=1,
# LIVE_KUBECTL_JSON=1, SHARED (../shared/bench).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared/bench}
[ -d "$shared" ] || { echo "bench-whatif: $shared not found (set SHARED=)" >&2; exit 2; }
sim_nodes=${SIM_NODES:-5000}
diff_nodes=${DIFF_NODES:-1000}
diff_ppn=${DIFF_PODS_PER_NODE:-10}
live_nodes=${LIVE_NODES:-5000}
policy=${POLICY:-deploy/policy/policy.json}
bin=bin/kube-policy-extender
tmp=$(mktemp -d)
api=""
trap '[ -n "$api" ] && kill "$api" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p bench/payloads

payload() { # NODES PODS_PER_NODE -> directory with cluster.json
    local d=bench/payloads/n$1
    [ "$2" = 30 ] || d=bench/payloads/n$1-p$2
    if [ ! -f "$d/cluster.json" ]; then
        echo "bench-whatif: generating $d" >&2
        python3 "$shared/gen_payload.py" --nodes "$1" --pods-per-node "$2" \
            --seed 1 --out "$d" >/dev/null
    fi
    echo "$d"
}

load() { # the load average the figure was taken under
    echo " [load average $(cut -d' ' -f1-3 /proc/loadavg)]"
}

secs() { # CMD... -> seconds of wall time on stdout (output to $tmp/out)
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >"$tmp/out" 2>"$tmp/err" || [ $? -eq 1 ] || {
        cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l | xargs printf '%.2f'
}

cat >"$tmp/one-cpu.json" <<'J'
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "one-cpu", "namespace": "default",
              "labels": {"app": "one-cpu"}},
 "spec": {"containers": [{"name": "c", "image": "registry.example/app:1",
          "resources": {"requests": {"cpu": "1", "memory": "256Mi"}}}]}}
J

# 1. capacity
d=$(payload "$sim_nodes" 30)
s=$(secs "$bin" simulate --policy "$policy" --cluster "$d/cluster.json" \
    --pod "$tmp/one-cpu.json" --until-unschedulable --output json)
k=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["untilUnschedulable"]["fit"])' "$tmp/out")
echo "simulate --until-unschedulable, $sim_nodes nodes, $((sim_nodes * 30)) pods: $k replicas fit, ${s} s (target < 10 s)$(load)"

# 2. diff --replay against the Policy's own KubeSchedulerConfiguration
d=$(payload "$diff_nodes" "$diff_ppn")
"$bin" convert "$policy" --to kubeschedulerconfiguration >"$tmp/ksc.yaml"
"$bin" convert "$policy" --to extender-policy >"$tmp/x.json"
s=$(secs "$bin" diff --policy "$policy" --config "$tmp/ksc.yaml" \
    --extender-policy "$tmp/x.json" --cluster "$d/cluster.json" --replay \
    --output json)
read -r n nd < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["pods"], d["differences"])' "$tmp/out")
echo "diff --replay, $diff_nodes nodes, $n pods: ${s} s (target < 30 s), $nd difference(s) (want 0)$(load)"

# 3. the live list against kubectl's
[ -n "${SKIP_LIVE:-}" ] && exit 0
d=$(payload "$live_nodes" 30)
python3 tests/apiserver/apiserver.py --port-file "$tmp/api.port" \
    --load "$d/cluster.json" >"$tmp/api.log" 2>&1 &
api=$!
for _ in $(seq 1 3000); do [ -s "$tmp/api.port" ] && break; sleep 0.1; done
[ -s "$tmp/api.port" ] || { echo "bench-whatif: the API-server double did not start" >&2; exit 1; }
cat >"$tmp/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: d, cluster: {server: "http://127.0.0.1:$(cat "$tmp/api.port")"}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: d, user: u}}]
current-context: c
KC
kn=$(secs kubectl --kubeconfig "$tmp/kubeconfig" get --raw /api/v1/nodes)
kp=$(secs kubectl --kubeconfig "$tmp/kubeconfig" get --raw /api/v1/pods)
ks=$(echo "$kn + $kp" | bc -l | xargs printf '%.2f')
ls=$(secs "$bin" explain --policy "$policy" --kubeconfig "$tmp/kubeconfig" \
    --pod "$tmp/one-cpu.json" --request-timeout 600 --output json)
r=$(echo "$ls / $ks" | bc -l | xargs printf '%.2f')
echo "live list, $live_nodes nodes, $((live_nodes * 30)) pods: explain --kubeconfig ${ls} s, kubectl get --raw nodes + pods ${ks} s: ${r}x (target <= 2x)$(load)"
if [ -n "${LIVE_KUBECTL_JSON:-}" ]; then
    kj=$(secs kubectl --kubeconfig "$tmp/kubeconfig" get nodes,pods -A -o json)
    echo "  (kubectl get nodes,pods -A -o json: ${kj} s)"
fi
