#!/usr/bin/env bash
# make bench: latency, throughput and memory of the extender on realistic,
# seeded clusters (shared/bench/gen_payload.py: kubelet-shaped nodes, 30
# pods per node) at 100, 1,000 and 5,000 nodes, over loopback, in both
# modes; then, when Go is available, an interleaved A/B against the
# idiomatic Go extender (shared/bench/go-peer) on the same bodies.
#
# Environment: SIZES ("100 1000 5000"), PORT (18890), GO_PORT (18891),
# OUT (bench/out), SKIP_GO=1 to skip the A/B, ROUNDS/N for compare.sh.
# Payloads are cached in bench/payloads (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared/bench}
[ -d "$shared" ] || { echo "bench: $shared not found (set SHARED=)" >&2; exit 2; }
sizes=${SIZES:-"100 1000 5000"}
port=${PORT:-18890}
go_port=${GO_PORT:-18891}
out=${OUT:-bench/out}
bin=bin/kube-policy-extender
mkdir -p "$out" bench/payloads

payload() { # SIZE -> directory with filter-full.json, filter-names.json, cluster.json
    local d=bench/payloads/n$1
    if [ ! -f "$d/cluster.json" ]; then
        echo "bench: generating $d" >&2
        python3 "$shared/gen_payload.py" --nodes "$1" --pods-per-node 30 \
            --seed 1 --out "$d" >/dev/null
    fi
    echo "$d"
}

requests_for() { if [ "$1" -le 100 ]; then echo 200; elif [ "$1" -le 1000 ]; then echo 50; else echo 20; fi; }

start_server() { # POLICY CLUSTER -> sets srv_pid
    # Full-object bodies reach 52 MB at 5,000 nodes: over the 16Mi default.
    "$bin" serve --listen "127.0.0.1:$port" --policy "$1" --cluster "$2" \
        --max-body-bytes 64Mi --max-inflight-bytes 512Mi \
        >"$out/server.log" 2>&1 &
    srv_pid=$!
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && return 0
        kill -0 "$srv_pid" 2>/dev/null || { cat "$out/server.log" >&2; exit 1; }
        sleep 0.2
    done
    echo "bench: server did not become ready" >&2
    exit 1
}

stop_server() {
    local hwm
    hwm=$(awk '/VmHWM/ {print $2}' "/proc/$srv_pid/status" 2>/dev/null || echo 0)
    kill "$srv_pid" 2>/dev/null || true
    wait "$srv_pid" 2>/dev/null || true
    echo "$hwm"
}

measure() { # NAME URL VERB BODY N
    python3 "$shared/extender_bench.py" "$2" "$3" "$4" -n "$5" -q \
        --json-out "$out/$1.json"
}

report=$out/report.txt
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  nproc: $(nproc)  git: $(git rev-parse --short HEAD)"
    for n in $sizes; do
        d=$(payload "$n")
        req=$(requests_for "$n")
        echo "== $n nodes (bench policy: shared/bench/policy-bench.json)"
        start_server "$shared/policy-bench.json" "$d/cluster.json"
        measure "n$n-filter-full" "http://127.0.0.1:$port" filter "$d/filter-full.json" "$req"
        measure "n$n-prioritize-full" "http://127.0.0.1:$port" prioritize "$d/filter-full.json" "$req"
        measure "n$n-filter-full-upstream" "http://127.0.0.1:$port" filter "$d/filter-full.upstream.json" "$req"
        measure "n$n-filter-names" "http://127.0.0.1:$port" filter "$d/filter-names.json" 1000
        measure "n$n-prioritize-names" "http://127.0.0.1:$port" prioritize "$d/filter-names.json" 1000
        echo "peak RSS (VmHWM, incl. loading the cluster file): $(stop_server) kB"
        echo "== $n nodes (v1.22 default policy, nodeCacheCapable)"
        start_server tests/policies/v122-defaults.json "$d/cluster.json"
        measure "n$n-default-filter-names" "http://127.0.0.1:$port" filter "$d/filter-names.json" 300
        measure "n$n-default-prioritize-names" "http://127.0.0.1:$port" prioritize "$d/filter-names.json" 300
        echo "peak RSS: $(stop_server) kB"
    done
} | tee "$report"

# Memory of the live cache (issue target: 5,000 nodes and 150,000 pods in
# under 400 MB resident), fed through the informers' event-apply path.
largest=$(echo "$sizes" | tr ' ' '\n' | sort -n | tail -n 1)
make -s build/opt/bench/cache_mem
echo "== live cache memory at $largest nodes, 30 pods per node" | tee -a "$report"
build/opt/bench/cache_mem "$(payload "$largest")/cluster.json" 2 | tee -a "$report"

if [ -z "${SKIP_GO:-}" ] && command -v go >/dev/null; then
    (cd "$shared/go-peer" && go build -o "$OLDPWD/$out/go-extender" .)
    for n in $sizes; do
        [ "$n" -ge 1000 ] || continue
        d=$(payload "$n")
        start_server "$shared/policy-bench.json" "$d/cluster.json"
        "$out/go-extender" -addr "127.0.0.1:$go_port" >"$out/go.log" 2>&1 &
        go_pid=$!
        sleep 1
        echo "== A/B at $n nodes: A = kube-policy-extender, B = Go peer" | tee -a "$report"
        ROUNDS=${ROUNDS:-5} N=${N:-10} CASES="filter-full prioritize-full" \
            bash "$shared/compare.sh" "http://127.0.0.1:$port" \
            "http://127.0.0.1:$go_port" "$d" | tee -a "$report"
        kill "$go_pid" 2>/dev/null || true
        wait "$go_pid" 2>/dev/null || true
        stop_server >/dev/null
    done
else
    echo "(Go not installed or SKIP_GO set: no A/B against the Go peer)" | tee -a "$report"
fi
echo "report: $report"
