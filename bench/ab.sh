#!/usr/bin/env bash
# ab.sh: A/B of two kube-policy-extender builds on the same payloads,
# interleaved (shared/bench/compare.sh): "same behaviour and speed" checks
# for a restructure (issue 26). Three runs per size: the shared bench
# Policy (built-ins: HighCommPodFilter, PodFitsHostNew, a labelPreference
# priority, ...); bench/policies/ab-priorities.json (the default
# predicates and every priority whose value is made at load time:
# Least/MostRequested, SelectorSpread, InterPodAffinity with a
# hardPodAffinitySymmetricWeight, labelPreference, serviceAntiAffinity,
# requestedToCapacityRatio, CustomPriorityPolicy); then a Policy naming the
# example plugins, each side's examples/plugins/*.c built against that
# side's own plugin.h (the ABI differs between trees). compare.sh reports each side's p50, the ratio
# and whether both answered the same.
#
#   bash bench/ab.sh TREE_A TREE_B     # e.g. /work/main .
#
# A tree is a checkout with bin/kube-policy-extender built. Environment:
# SIZES ("1000 5000"), ROUNDS (7), N (20), PORT (18896; B uses PORT+1),
# CASES (compare.sh's), SHARED (../shared/bench), OUT (bench/out).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: $0 TREE_A TREE_B" >&2; exit 2; }
tree_a=$(cd "$1" && pwd)
tree_b=$(cd "$2" && pwd)
shared=${SHARED:-../shared/bench}
[ -d "$shared" ] || { echo "ab: $shared not found (set SHARED=)" >&2; exit 2; }
sizes=${SIZES:-"1000 5000"}
port=${PORT:-18896}
out=${OUT:-bench/out}
mkdir -p "$out" bench/payloads
for t in "$tree_a" "$tree_b"; do
    [ -x "$t/bin/kube-policy-extender" ] ||
        { echo "ab: $t/bin/kube-policy-extender not built" >&2; exit 2; }
done

pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# start TREE PORT POLICY CLUSTER [ARGS...]: a server, waited for.
start() {
    local tree=$1 p=$2 pol=$3 cl=$4
    shift 4
    "$tree/bin/kube-policy-extender" serve --listen "127.0.0.1:$p" \
        --policy "$pol" --cluster "$cl" --max-body-bytes 64Mi \
        --max-inflight-bytes 512Mi "$@" >"$out/ab-$p.log" 2>&1 &
    pids="$pids $!"
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:$p/readyz" >/dev/null && return 0
        sleep 0.2
    done
    echo "ab: server on $p did not become ready" >&2
    cat "$out/ab-$p.log" >&2
    exit 1
}

# plugins TREE DIR: the example plugins built against TREE's header.
plugins() {
    mkdir -p -m 0755 "$2"
    for f in rdma_filter rdma_score; do
        cc -shared -fPIC -O2 -I"$1/include" -o "$2/$f.so" \
            "$1/examples/plugins/$f.c"
    done
}

pl="$out/ab-plugins"
rm -rf "$pl"
plugins "$tree_a" "$pl/a"
plugins "$tree_b" "$pl/b"
cat >"$out/ab-plugin-policy.json" <<'JSON'
{"kind": "Policy", "apiVersion": "v1",
 "predicates": [{"name": "RdmaAware"}, {"name": "HighCommPodFilter"},
                {"name": "PodToleratesNodeTaints"}],
 "priorities": [{"name": "RdmaAwareScore", "weight": 2},
                {"name": "CustomPriorityPolicy", "weight": 1}]}
JSON

for n in $sizes; do
    d=bench/payloads/n$n
    if [ ! -f "$d/cluster.json" ]; then
        echo "ab: generating $d" >&2
        python3 "$shared/gen_payload.py" --nodes "$n" --pods-per-node 30 \
            --seed 1 --out "$d" >/dev/null
    fi
    echo "== $n nodes, built-ins (shared policy-bench.json): A = $tree_a, B = $tree_b"
    start "$tree_a" "$port" "$shared/policy-bench.json" "$d/cluster.json"
    start "$tree_b" "$((port + 1))" "$shared/policy-bench.json" "$d/cluster.json"
    ROUNDS=${ROUNDS:-7} N=${N:-20} bash "$shared/compare.sh" \
        "http://127.0.0.1:$port" "http://127.0.0.1:$((port + 1))" "$d"
    cleanup
    pids=""
    sleep 0.5
    echo "== $n nodes, every priority with a value (bench/policies/ab-priorities.json)"
    start "$tree_a" "$port" bench/policies/ab-priorities.json "$d/cluster.json"
    start "$tree_b" "$((port + 1))" bench/policies/ab-priorities.json \
        "$d/cluster.json"
    ROUNDS=${ROUNDS:-7} N=${N:-20} bash "$shared/compare.sh" \
        "http://127.0.0.1:$port" "http://127.0.0.1:$((port + 1))" "$d"
    cleanup
    pids=""
    sleep 0.5
    echo "== $n nodes, loaded plugins + HighComm: A = $tree_a, B = $tree_b"
    start "$tree_a" "$port" "$out/ab-plugin-policy.json" "$d/cluster.json" \
        --plugin "$pl/a/rdma_filter.so" --plugin "$pl/a/rdma_score.so"
    start "$tree_b" "$((port + 1))" "$out/ab-plugin-policy.json" \
        "$d/cluster.json" --plugin "$pl/b/rdma_filter.so" \
        --plugin "$pl/b/rdma_score.so"
    ROUNDS=${ROUNDS:-7} N=${N:-20} bash "$shared/compare.sh" \
        "http://127.0.0.1:$port" "http://127.0.0.1:$((port + 1))" "$d"
    cleanup
    pids=""
    sleep 0.5
done
