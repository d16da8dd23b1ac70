#!/bin/sh
# run.sh SECONDS TARGET...: run each libFuzzer target in build/fuzz for
# SECONDS with its seed corpus (tests/fuzz/corpus/TARGET, read only) and a
# working corpus ($FUZZ_WORK_DIR/TARGET, default build/fuzz/corpus/TARGET,
# where new inputs go). Prints
# one line per target with the executions done; exits non-zero when any
# target crashed, leaked or timed out (the input is in build/fuzz/artifacts).
set -u
cd "$(dirname "$0")/../.." || exit 2
secs=$1
shift
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p build/fuzz/artifacts build/fuzz/logs
failed=""
for t in "$@"; do
    bin=build/fuzz/$t
    work=${FUZZ_WORK_DIR:-build/fuzz/corpus}/$t
    seeds=tests/fuzz/corpus/$t
    log=build/fuzz/logs/$t.log
    mkdir -p "$work"
    dict=""
    if [ -f "tests/fuzz/$t.dict" ]; then
        dict="-dict=tests/fuzz/$t.dict"
    fi
    if [ ! -x "$bin" ]; then
        echo "FAIL $t: $bin is not built (make fuzz-build)"
        failed="$failed $t"
        continue
    fi
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t-" \
        $dict "$work" "$seeds" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        echo "ok   $t: ${execs:-?} executions in ${secs}s (log $log)"
    else
        tail -n 40 "$log"
        echo "FAIL $t (exit $rc; log $log)"
        failed="$failed $t"
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz targets failed:$failed"
    exit 1
fi
exit 0
