#!/bin/sh
# test_fuzz_smoke.sh: run every libFuzzer target (build/fuzz/fuzz_*, from
# tests/fuzz/fuzz_*.c; `make test` builds them) for FUZZ_SMOKE_SECONDS
# (default 5) from its seed corpus alone. One test per target; a crash,
# leak, sanitizer report or timeout fails it. Inputs found go to a
# temporary directory, so each run starts from the seeds.
# shellcheck shell=sh
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 2

secs=${FUZZ_SMOKE_SECONDS:-5}
for src in tests/fuzz/fuzz_*.c; do
    t=$(basename "$src" .c)
    FUZZ_WORK_DIR="$T_TMP/corpus" sh tests/fuzz/run.sh "$secs" "$t" \
        >"$T_TMP/out" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
        ok "$t runs ${secs}s without a crash: $(tail -n 1 "$T_TMP/out")"
    else
        not_ok "$t" "$(tail -n 25 "$T_TMP/out")"
    fi
done
finish
