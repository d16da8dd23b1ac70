#!/bin/sh
# test_report.sh: `simulate --report` and `diff --report` write one
# self-contained page that a real headless browser (Debian's chromium)
# renders with no console errors and no fetch, and whose DOM holds the
# same numbers as --output json: node utilisation in every state, the
# placements (or the pods that moved), and one pod's per-node scores (as
# explain gives them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/whatif_cluster.sh"
if ! command -v chromium >/dev/null 2>&1; then
    not_ok "chromium is installed (make deps)" "$(command -v chromium)"
    finish
fi
dom() { # FILE.html -> $T_TMP/dom.html, console lines in $T_TMP/console
    timeout 120 chromium --headless=new --no-sandbox --disable-gpu \
        --disable-dev-shm-usage --no-first-run --user-data-dir="$T_TMP/chr" \
        --enable-logging=stderr --v=0 --dump-dom "file://$1" \
        >"$T_TMP/dom.html" 2>"$T_TMP/chr.log"
    grep -E 'CONSOLE|Uncaught|net::ERR' "$T_TMP/chr.log" >"$T_TMP/console"
}
no_console() { # NAME
    if [ -s "$T_TMP/dom.html" ] && [ ! -s "$T_TMP/console" ]; then
        ok "$1: rendered with no console error or failed fetch"
    else
        not_ok "$1: rendered with no console error or failed fetch" \
            "$(head -c 400 "$T_TMP/console") dom $(wc -c <"$T_TMP/dom.html")"
    fi
}
self_contained() { # NAME FILE
    if grep -Eiq '(src|href)=|url\(|@import|<link|<script' "$2"; then
        not_ok "$1: self-contained" "$(grep -Eio '(src|href)=[^ ]*|url\([^)]*|<link|<script' "$2" | head -3)"
    else ok "$1: self-contained (no src, href, url(), link or script)"; fi
}

# The console check is not vacuous: a page that logs an error is caught.
printf '<html><body><script>console.error("boom")</script></body></html>' \
    >"$T_TMP/bad.html"
dom "$T_TMP/bad.html"
if grep -q boom "$T_TMP/console"; then ok "a console error is seen"; else
    not_ok "a console error is seen" "$(tail -5 "$T_TMP/chr.log")"; fi

run "simulate --report" 0 "$KPE_BIN" simulate --policy "$W/least.json" \
    --cluster "$W/cluster.json" --pod "$W/one-cpu.json" --replicas 6 \
    --report "$T_TMP/sim.html" --output json
cp "$T_TMP/out" "$T_TMP/sim.json"
run "explain of the simulated pod" 0 "$KPE_BIN" explain \
    --policy "$W/least.json" --cluster "$W/cluster.json" \
    --pod "$W/one-cpu.json" --output json
cp "$T_TMP/out" "$T_TMP/explain.json"
self_contained "simulate report" "$T_TMP/sim.html"
dom "$T_TMP/sim.html"
no_console "simulate report"
run "simulate report: the DOM's numbers are the JSON's" 0 python3 \
    tests/cli/report_dom.py "$T_TMP/dom.html" "$T_TMP/sim.json" \
    "$T_TMP/explain.json"
grep -c 'class="placement' "$T_TMP/dom.html" >"$T_TMP/n"
[ "$(cat "$T_TMP/n")" = 6 ] && ok "six placements in the DOM" ||
    not_ok "six placements in the DOM" "$(cat "$T_TMP/n")"
contains "the unschedulable replica's reason is shown" dom.html \
    "0/3 nodes are available: 3 Insufficient cpu."

run "diff --report" 1 "$KPE_BIN" diff --policy "$W/least.json" \
    --policy "$W/most.json" --cluster "$W/cluster.json" \
    --report "$T_TMP/diff.html" --output json
cp "$T_TMP/out" "$T_TMP/diff.json"
run "explain of the moved pod under A" 0 "$KPE_BIN" explain \
    --policy "$W/least.json" --cluster "$W/cluster.json" --pod default/small \
    --output json
cp "$T_TMP/out" "$T_TMP/explain.json"
self_contained "diff report" "$T_TMP/diff.html"
dom "$T_TMP/diff.html"
no_console "diff report"
run "diff report: the DOM's numbers are the JSON's" 0 python3 \
    tests/cli/report_dom.py "$T_TMP/dom.html" "$T_TMP/diff.json" \
    "$T_TMP/explain.json"
contains "the moved pod is in the page" dom.html 'data-pod="default/small"'

# The comparison is not vacuous: a changed number is caught.
sed 's/data-a-cpu="[0-9]*"/data-a-cpu="1"/' "$T_TMP/dom.html" >"$T_TMP/dom2.html"
run "a DOM number that differs is caught" 1 python3 tests/cli/report_dom.py \
    "$T_TMP/dom2.html" "$T_TMP/diff.json"
run "--report to an unwritable path" 1 "$KPE_BIN" simulate \
    --policy "$W/least.json" --cluster "$W/cluster.json" \
    --pod "$W/one-cpu.json" --report /nonexistent/r.html
contains "the path and the cause are named" err \
    "--report /nonexistent/r.html: No such file or directory"
finish
