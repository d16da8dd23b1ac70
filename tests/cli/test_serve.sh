#!/bin/sh
# test_serve.sh: the serve command as a process: usage errors, a SIGTERM at
# any moment of startup drains and exits 0, and a bad policy at startup
# fails with a clear message.
. "$(dirname "$0")/lib.sh"
D=deploy/demo

run "serve with a bad flag" 2 "$KPE_BIN" serve --listen nowhere
contains "bad --listen is named" err "--listen"
run "serve without --policy (a usage error)" 2 "$KPE_BIN" serve --listen 127.0.0.1:0
contains "missing policy is explained" err "missing required option '--policy'"
run "serve with an invalid policy" 1 "$KPE_BIN" serve --listen 127.0.0.1:0 \
    --policy tests/data/extender/bad-policy.json
contains "invalid policy is reported as v1.22 does" err \
    'predicate type not found for "PodFitsHostNw"; did you mean "PodFitsHostNew"?'

# A port already taken is the first complaint: nothing claims to serve.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(30)' >"$T_TMP/port" &
holder=$!
for _ in $(seq 1 100); do
    [ -s "$T_TMP/port" ] && break
    sleep 0.05
done
port=$(cat "$T_TMP/port")
run "serve on a taken port" 1 "$KPE_BIN" serve --listen "127.0.0.1:$port" \
    --policy "$D/policy.json" --cluster "$D/cluster.json"
contains "the taken port is named" err "127.0.0.1:$port"
if grep -q "serving policy" "$T_TMP/err"; then
    not_ok "no \"serving policy\" line before the bind fails" "$(cat "$T_TMP/err")"
else
    ok "no \"serving policy\" line before the bind fails"
fi
kill "$holder"
wait "$holder" 2>/dev/null
run "serve on a free port logs that it serves" 0 sh -c \
    "'$KPE_BIN' serve --listen 127.0.0.1:0 --policy $D/policy.json & p=\$!; sleep 1; kill -TERM \$p; wait \$p"
contains "serving policy is logged once bound" err "serving policy $D/policy.json"

# --semantics (issue 25): GET /policy shows the release the Policy answers as.
"$KPE_BIN" serve --listen 127.0.0.1:0 --policy "$D/policy.json" \
    --cluster "$D/cluster.json" --semantics 1.20 2>"$T_TMP/sem.log" &
pid=$!
run "GET /policy shows --semantics" 0 python3 -c '
import re, sys, time, urllib.request
for _ in range(500):
    m = re.search(r"\(port (\d+)\)", open(sys.argv[1]).read())
    if m:
        break
    time.sleep(0.01)
body = urllib.request.urlopen("http://127.0.0.1:%s/policy" % m.group(1)).read()
assert b"\"semantics\": \"1.20\"" in body, body[:300]
' "$T_TMP/sem.log"
kill -TERM "$pid"
wait "$pid"
run "serve with a bad --semantics is a usage error" 2 "$KPE_BIN" serve \
    --semantics 1.2 --policy "$D/policy.json"
contains "bad --semantics is named" err '--semantics: invalid value "1.2"'

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
