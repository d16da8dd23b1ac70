#!/bin/sh
# test_serve.sh: the serve command as a process: usage errors, a SIGTERM at
# any moment of startup drains and exits 0, and a bad policy at startup
# fails with a clear message.
. "$(dirname "$0")/lib.sh"
D=deploy/demo

run "serve with a bad flag" 2 "$KPE_BIN" serve --listen nowhere
contains "bad --listen is named" err "--listen"
run "serve without --policy" 1 "$KPE_BIN" serve --listen 127.0.0.1:0
contains "missing policy is explained" err "--policy is required"
run "serve with an invalid policy" 1 "$KPE_BIN" serve --listen 127.0.0.1:0 \
    --policy tests/data/extender/bad-policy.json
contains "invalid policy is reported as v1.22 does" err \
    'predicate type not found for "PodFitsHostNw"; did you mean "PodFitsHostNew"?'

# SIGTERM as soon as main has blocked the signals (before anything is
# loaded), while the cluster loads or the socket binds, and once it serves.
# (A signal that lands before main runs at all cannot be handled by any
# program.)
blocked() { # PID: SIGTERM (bit 15) is in the blocked mask
    mask=$(sed -n 's/^SigBlk:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
    [ -n "$mask" ] && [ $(( 0x$mask & 0x4000 )) -ne 0 ]
}
for delay in 0 0.01 0.05 0.3; do
    "$KPE_BIN" serve --listen 127.0.0.1:0 --policy "$D/policy.json" \
        --cluster "$D/cluster.json" 2>"$T_TMP/serve.log" &
    pid=$!
    for _ in $(seq 1 500); do
        blocked "$pid" && break
        sleep 0.01
    done
    sleep "$delay"
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    if [ "$rc" -eq 0 ]; then
        ok "SIGTERM after ${delay}s exits 0"
    else
        not_ok "SIGTERM after ${delay}s exits 0" "exit $rc: $(tail -n 3 "$T_TMP/serve.log")"
    fi
done
finish
