#!/usr/bin/env bash
# plugin_bench.sh: does a loadable plugin predicate cost more per node than
# the same code built in (issue 17 point 4)? Two servers on one 5,000-node
# cluster (shared/bench/gen_payload.py, 30 pods per node, the high-comm
# pending pod so the filter reads a node label on every node), each with a
# Policy of one predicate (plus the two mandatory ones): A = the built-in
# HighCommPodFilter, B = RdmaAware from examples/plugins/rdma_filter.so
# (the same rule, read through the plugin ABI's accessors), and C = a
# second built-in server, the control: C/A is what noise alone makes of
# two identical servers. Filter in names mode (nodeCacheCapable),
# interleaved rounds (the order rotates each round), each round N requests
# per server; prints each round's medians, the median of the round
# medians, and the ratios B/A and C/A. A whole request
# also parses the body, walks the cache and writes the answer, so this
# ratio carries the noise of a shared machine; the second part
# (bench/plugin_cost.c) times the two filters alone over the same 5,000
# nodes in one process, interleaved, in ns per node.
#
#   bash bench/plugin_bench.sh            # ROUNDS=9 N=60 NODES=5000
#
# Environment: ROUNDS, N, NODES, PORT (18894; B and C use PORT+1, +2), OUT
# (bench/out), SHARED (../shared/bench). Payloads are cached in
# bench/payloads (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared/bench}
[ -d "$shared" ] || { echo "plugin_bench: $shared not found (set SHARED=)" >&2; exit 2; }
rounds=${ROUNDS:-9}
n=${N:-60}
nodes=${NODES:-5000}
port=${PORT:-18894}
out=${OUT:-bench/out}
bin=bin/kube-policy-extender
d=bench/payloads/n$nodes-high-comm
mkdir -p "$out" bench/payloads
[ -x "$bin" ] || make -s "$bin"

if [ ! -f "$d/cluster.json" ]; then
    echo "plugin_bench: generating $d" >&2
    python3 "$shared/gen_payload.py" --nodes "$nodes" --pods-per-node 30 \
        --seed 1 --pod-profile high-comm --out "$d" >/dev/null
fi

# The plugin, built as docs/extending.md says (its folder must not be writable
# by others: the server refuses it otherwise).
pl=$out/plugins
mkdir -p "$pl" && chmod 0755 "$out" "$pl"
cc -shared -fPIC -O2 -Iinclude -o "$pl/rdma_filter.so" examples/plugins/rdma_filter.c

policy() { # NAME -> a Policy of that predicate alone
    printf '{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"%s"}],"priorities":[]}\n' "$1"
}
policy HighCommPodFilter >"$out/policy-builtin.json"
policy RdmaAware >"$out/policy-plugin.json"

pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done' EXIT
start() { # PORT POLICY ARGS...
    local p=$1 pol=$2
    shift 2
    "$bin" serve --listen "127.0.0.1:$p" --policy "$pol" --cluster "$d/cluster.json" \
        "$@" >"$out/plugin-bench-$p.log" 2>&1 &
    pids="$pids $!"
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:$p/readyz" >/dev/null && return 0
        sleep 0.2
    done
    echo "plugin_bench: server on $p did not become ready" >&2
    exit 1
}
start "$port" "$out/policy-builtin.json"
start $((port + 1)) "$out/policy-plugin.json" --plugin "$pl/rdma_filter.so"
start $((port + 2)) "$out/policy-builtin.json"

# Both answer the same (the same feasible and failed nodes).
for s in A:$port B:$((port + 1)); do
    curl -sf -X POST "http://127.0.0.1:${s#*:}/filter" -d @"$d/filter-names.json" |
        python3 -c 'import json,sys
r = json.load(sys.stdin)
print(len(r.get("NodeNames") or []), sorted(set((r.get("FailedNodes") or {}).values())))' \
        >"$out/plugin-bench-answer-${s%%:*}"
done
if ! cmp -s "$out/plugin-bench-answer-A" "$out/plugin-bench-answer-B"; then
    echo "plugin_bench: the two servers answer differently:" >&2
    cat "$out/plugin-bench-answer-A" "$out/plugin-bench-answer-B" >&2
    exit 1
fi
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  nproc: $(nproc)  git: $(git rev-parse --short HEAD)"
echo "$nodes nodes, names mode, high-comm pod; both answer: $(cat "$out/plugin-bench-answer-A") (feasible, reasons)"
echo "A = built-in HighCommPodFilter, B = plugin RdmaAware, C = built-in again (control); $rounds rounds x $n requests each"

measure() { # PORT TAG -> p50 ms
    python3 "$shared/extender_bench.py" "http://127.0.0.1:$1" filter \
        "$d/filter-names.json" -n "$n" -q --json-out "$out/plugin-bench-$2.json" >/dev/null
    python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["latency_ms"]["p50"])' \
        "$out/plugin-bench-$2.json"
}
a_all="" b_all="" c_all=""
for r in $(seq 1 "$rounds"); do
    case $((r % 3)) in
    1) a=$(measure "$port" A) b=$(measure $((port + 1)) B) c=$(measure $((port + 2)) C) ;;
    2) b=$(measure $((port + 1)) B) c=$(measure $((port + 2)) C) a=$(measure "$port" A) ;;
    0) c=$(measure $((port + 2)) C) a=$(measure "$port" A) b=$(measure $((port + 1)) B) ;;
    esac
    a_all="$a_all $a" b_all="$b_all $b" c_all="$c_all $c"
    echo "round $r: A p50 $a ms  B p50 $b ms  C p50 $c ms"
done
python3 - "$a_all" "$b_all" "$c_all" "$nodes" <<'PY'
import statistics, sys
a, b, c = ([float(x) for x in v.split()] for v in sys.argv[1:4])
n = int(sys.argv[4])
ma, mb, mc = statistics.median(a), statistics.median(b), statistics.median(c)
print("median of round medians: A %.3f ms, B %.3f ms, C %.3f ms; B/A = %.3f, control C/A = %.3f"
      % (ma, mb, mc, mb / ma, mc / ma))
print("per node (whole request / nodes): A %.1f ns, B %.1f ns, C %.1f ns" % (ma * 1e6 / n, mb * 1e6 / n, mc * 1e6 / n))
PY
for p in $pids; do kill "$p" 2>/dev/null || true; done
pids=""

echo "== the filters alone (bench/plugin_cost.c), $nodes nodes, one process"
make -s build/opt/bench/plugin_cost
build/opt/bench/plugin_cost "$d/cluster.json" "$d/pod.json" "$pl/rdma_filter.so" "${COST_ROUNDS:-21}"
