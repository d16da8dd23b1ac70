#!/usr/bin/env bash
# rule_vs_builtin.sh: issue 17 point 4, "a rule predicate stays within 10%
# of the built-in HighCommPodFilter". Two servers on the same 5,000-node
# cluster (shared/bench/gen_payload.py, seed 1, 30 pods per node, as `make
# bench`), one Policy with HighCommPodFilter, one with the equivalent
# LabelRule; /filter in names mode (nodeCacheCapable bodies), timed with
# shared/bench/compare.sh (interleaved A/B rounds; p50 = median of the
# pooled samples; "same" = both answered the same node sets), for the
# generated pod (no high-comm label) and the same pod labelled high-comm,
# each in both orders (compare.sh measures A before B in every round).
#
#   bash bench/rule_vs_builtin.sh       (after `make`)
#
# Environment: NODES (5000), ROUNDS (7), N (requests per side per round,
# 100), PORT_A (18892), PORT_B (18893), SHARED (../shared/bench),
# OUT (bench/out/rule_vs_builtin). Payloads are cached in bench/payloads.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared/bench}
[ -d "$shared" ] || { echo "bench: $shared not found (set SHARED=)" >&2; exit 2; }
nodes=${NODES:-5000}
port_a=${PORT_A:-18892}
port_b=${PORT_B:-18893}
out=${OUT:-bench/out/rule_vs_builtin}
bin=bin/kube-policy-extender
d=bench/payloads/n$nodes
mkdir -p "$out/default" "$out/high-comm" bench/payloads
if [ ! -f "$d/cluster.json" ]; then
    echo "bench: generating $d" >&2
    python3 "$shared/gen_payload.py" --nodes "$nodes" --pods-per-node 30 \
        --seed 1 --out "$d" >/dev/null
fi

python3 - "$d" "$out" <<'PY'
import json, sys
d, out = sys.argv[1:]
body = json.load(open(d + "/filter-names.json"))
json.dump(body, open(out + "/default/filter-names.json", "w"))
labels = body["pod"]["metadata"].setdefault("labels", {})
labels["high-comm"] = "true"
json.dump(body, open(out + "/high-comm/filter-names.json", "w"))
head = {"kind": "Policy", "apiVersion": "v1", "priorities": []}
json.dump(dict(head, predicates=[{"name": "HighCommPodFilter"}]),
          open(out + "/builtin.json", "w"))
json.dump(dict(head, predicates=[{"name": "RdmaOnly", "argument": {
    "labelRule": {"podSelector": ["high-comm"],
                  "nodeSelector": ["node.kubernetes.io/rdma-enabled=true"],
                  "reason": "Node does not support RDMA"}}}]),
          open(out + "/rule.json", "w"))
PY

pids=()
cleanup() {
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
}
trap cleanup EXIT
start() { # POLICY PORT LOG
    "$bin" serve --listen "127.0.0.1:$2" --policy "$1" \
        --cluster "$d/cluster.json" >"$3" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 900); do
        curl -sf "http://127.0.0.1:$2/readyz" >/dev/null && return 0
        kill -0 "${pids[-1]}" 2>/dev/null || { cat "$3" >&2; exit 1; }
        sleep 0.2
    done
    echo "bench: server on port $2 did not become ready" >&2
    exit 1
}
start "$out/builtin.json" "$port_a" "$out/builtin.log"
start "$out/rule.json" "$port_b" "$out/rule.log"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  nproc: $(nproc)  git: $(git rev-parse --short HEAD)"
    echo "HighCommPodFilter on :$port_a, LabelRule on :$port_b;" \
        "$nodes nodes, names mode"
    for pod in default high-comm; do
        for order in "$port_a $port_b" "$port_b $port_a"; do
            set -- $order
            echo "== pod: $pod; A = :$1, B = :$2"
            ROUNDS=${ROUNDS:-7} N=${N:-100} CASES=filter-names \
                bash "$shared/compare.sh" "http://127.0.0.1:$1" \
                "http://127.0.0.1:$2" "$out/$pod"
        done
    done
} | tee "$out/report.txt"
