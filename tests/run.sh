#!/bin/sh
# Run cmocka test binaries (and tests/cli/*.sh scripts) and print one closing
# line "N passed, M failed" over all of them. A binary that ends without
# cmocka's summary line (a sanitizer abort, a crash, a main that runs no
# group, even with exit status 0) counts as one failed test.
# Exit status is non-zero when anything failed.
set -u
passed=0
failed=0
failures=""
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Tests find their fixtures relative to the repository root.
cd "$(dirname "$0")/.." || exit 2
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$(pwd)/tests/tsan.supp}"

run_one() {
    name=$1
    shift
    out=$("$@" 2>&1)
    rc=$?
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    summary=1
    if [ -z "$p" ] && [ -z "$f" ]; then
        summary=0
    fi
    p=${p:-0}
    f=${f:-0}
    if { [ "$rc" -ne 0 ] || [ "$summary" -eq 0 ]; } && [ "$f" -eq 0 ]; then
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$f" -ne 0 ]; then
        failures="$failures $name"
        printf '%s\n' "$out" | tail -n 60
        if [ "$summary" -eq 0 ]; then
            echo "FAIL $name (exit $rc, no cmocka summary line)"
        else
            echo "FAIL $name (exit $rc)"
        fi
    else
        echo "ok   $name ($p tests)"
    fi
}

for t in "$@"; do
    flavour=$(basename "$(dirname "$(dirname "$t")")")
    run_one "$flavour/$(basename "$t")" "$t"
done

# Command-line scripts: each prints cmocka-style summary lines through
# tests/cli/lib.sh, so they are counted the same way.
if [ -d tests/cli ] && [ -n "${KPE_BIN:-}" ]; then
    for s in tests/cli/test_*.sh; do
        [ -f "$s" ] || continue
        run_one "cli/$(basename "$s")" sh "$s"
    done
fi

if [ -n "$failures" ]; then
    echo "failed suites:$failures"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
