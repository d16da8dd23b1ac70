#!/bin/sh
# test_valgrind.sh: the shipped binary under valgrind memcheck, as a process:
# `explain`, `check` and `convert` (explain also with loadable plugins and a
# refused one), then `serve` on the demo cluster (--cluster) and on the
# API-server double (--kubeconfig), each driven through filter, prioritize
# and preempt in both modes (node names and full Node objects), bind,
# /metrics, /policy, /debug/cache, malformed, oversized and abandoned
# requests, a slow reader, a SIGHUP reload (good
# and bad policy), then SIGTERM. Every run must exit as expected with no
# memcheck error and no definite or indirect leak (--error-exitcode=99).
#
# `make test` runs the reduced version (about a minute); `make valgrind`
# sets KPE_VALGRIND_FULL=1: more rounds of requests, watch faults and pod
# churn on the double.
. "$(dirname "$0")/lib.sh"
D=deploy/demo
FULL=${KPE_VALGRIND_FULL:-}
ROUNDS=2
[ -n "$FULL" ] && ROUNDS=20

if ! command -v valgrind >/dev/null 2>&1; then
    not_ok "valgrind is installed (make deps installs it)"
    finish
fi
VG="valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect \
--error-exitcode=99 --track-origins=yes --num-callers=30"

# vg_ok NAME LOG: the memcheck log reports no error.
vg_ok() {
    if grep -q "ERROR SUMMARY: 0 errors" "$2"; then
        ok "$1: no memcheck errors or leaks"
    else
        not_ok "$1: memcheck" "$(grep -E '^==[0-9]+== (   (at|by)|[A-Z].*(lost|Invalid|uninit|Conditional|Mismatched|ERROR))' "$2" | head -n 30)"
    fi
}

# vg_run NAME WANT_STATUS ARGS...: one subcommand under valgrind.
vg_run() {
    n=$1
    w=$2
    shift 2
    log="$T_TMP/vg-$(echo "$n" | tr -c 'a-zA-Z0-9\n' '-').log"
    # shellcheck disable=SC2086
    $VG --log-file="$log" "$KPE_BIN" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
    rc=$?
    if [ "$rc" -eq "$w" ]; then
        ok "$n (exit $rc)"
    else
        not_ok "$n" "exit $rc, want $w: $(head -c 300 "$T_TMP/err")"
    fi
    vg_ok "$n" "$log"
}

vg_run "explain" 0 explain --policy "$D/policy.json" \
    --cluster "$D/cluster.json" --pod "$D/pods/high-comm.json"
contains "explain answers under valgrind" out "Selected: rdma-2"
vg_run "explain --output json" 0 explain --policy "$D/policy.json" \
    --cluster "$D/cluster.json" --pod "$D/pods/big.json" --output json
vg_run "check a valid policy" 0 check "$D/policy.json"
vg_run "check --output json" 0 check --output json "$D/policy.json"
vg_run "check an invalid policy" 1 check tests/data/extender/bad-policy.json
contains "check names the bad predicate" err "PodFitsHostNw"
vg_run "convert --to ini" 0 convert "$D/policy.json" --to ini
cp "$T_TMP/out" "$T_TMP/policy.ini"
vg_run "convert ini --to json" 0 convert "$T_TMP/policy.ini" --to json
vg_run "convert --to kubeschedulerconfiguration" 0 convert "$D/policy.json" \
    --to kubeschedulerconfiguration
# Loadable plugins (examples/plugins): loaded, run, dlclose'd at exit;
# a refused one is rolled back and unmapped.
mkdir -m 0700 "$T_TMP/pl"
for p in rdma_filter rdma_score; do
    cc -shared -fPIC -O2 -Iinclude -o "$T_TMP/pl/$p.so" "examples/plugins/$p.c"
done
cp "$T_TMP/pl/rdma_filter.so" "$T_TMP/pl/again.so"
vg_run "explain with plugins" 0 explain --plugin "$T_TMP/pl/rdma_filter.so" \
    --plugin "$T_TMP/pl/rdma_score.so" --policy tests/data/plugins/policy.json \
    --cluster "$D/cluster.json" --pod "$D/pods/high-comm.json"
contains "explain runs the plugins under valgrind" out "RdmaAwareScore=100"
vg_run "a refused plugin" 1 list --plugin "$T_TMP/pl/rdma_filter.so" \
    --plugin "$T_TMP/pl/again.so"
contains "the clash is reported under valgrind" err "is already registered by plugin"
# YAML: kubectl's snapshots (a List, and a --- stream), its pod, a YAML
# Policy, and a YAML syntax error.
K=tests/data/kubectl
vg_run "explain on kubectl YAML" 0 explain --policy "$D/policy.json" \
    --cluster "$K/cluster.yaml" --pod "$K/pod.yaml"
contains "explain on YAML answers under valgrind" out "Selected: rdma-1"
vg_run "explain on a YAML stream" 0 explain --policy "$D/policy.json" \
    --cluster "$K/stream.yaml" --pod "$K/pod.yaml"
python3 -c 'import json, sys, yaml
yaml.safe_dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"))' \
    "$D/policy.json" "$T_TMP/policy.yaml"
vg_run "check a YAML policy" 0 check "$T_TMP/policy.yaml"
printf 'kind: Policy\npredicates:\n- name: A\n  argument\n    x: 1\n' >"$T_TMP/bad.yaml"
vg_run "check a broken YAML policy" 1 check "$T_TMP/bad.yaml"
contains "the YAML error is named" err "could not find expected ':'"

# ---- simulate, diff, explain --all-pending (issue 24) ----------------
vg_run "simulate --until-unschedulable --report" 0 simulate \
    --policy "$D/policy.json" --cluster "$D/cluster.json" \
    --pod "$D/pods/web.json" --until-unschedulable --max-replicas 40 \
    --report "$T_TMP/sim.html"
"$KPE_BIN" convert "$D/policy.json" --to kubeschedulerconfiguration \
    >"$T_TMP/ksc.yaml"
"$KPE_BIN" convert "$D/policy.json" --to extender-policy >"$T_TMP/xp.json"
vg_run "diff against the KubeSchedulerConfiguration --replay --report" 0 \
    diff --policy "$D/policy.json" --config "$T_TMP/ksc.yaml" \
    --extender-policy "$T_TMP/xp.json" --cluster "$D/cluster.json" --replay \
    --report "$T_TMP/diff.html"
vg_run "diff of a refused profile" 1 diff --policy "$D/policy.json" \
    --config "$T_TMP/ksc.yaml" --cluster "$D/cluster.json"
vg_run "explain --all-pending" 0 explain --policy "$D/policy.json" \
    --cluster "$D/cluster.json" --all-pending --output json

# ---- request bodies --------------------------------------------------
python3 - "$D" "$T_TMP" <<'PY'
import json, sys
d, out = sys.argv[1], sys.argv[2]
items = json.load(open(d + "/cluster.json"))["items"]
nodes = [o for o in items if o["kind"] == "Node"]
names = [n["metadata"]["name"] for n in nodes]
pods = [o for o in items if o["kind"] == "Pod"]
def w(name, body):
    with open("%s/%s.json" % (out, name), "w") as f:
        f.write(json.dumps(body) if not isinstance(body, str) else body)
for pn in ("high-comm", "big", "web", "pinned"):
    pod = json.load(open("%s/pods/%s.json" % (d, pn)))
    w("names-" + pn, {"Pod": pod, "Nodes": None, "NodeNames": names})
    w("full-" + pn, {"Pod": pod, "Nodes": {"items": nodes}, "NodeNames": None})
    victims = {}
    for p in pods:
        n = p["spec"]["nodeName"]
        victims.setdefault(n, []).append(p)
    w("pmeta-" + pn, {"Pod": pod, "NodeNameToVictims": None,
                      "NodeNameToMetaVictims": {n: {"Pods": [{"UID": p["metadata"]["uid"]}
                          for p in v], "NumPDBViolations": 0} for n, v in victims.items()}})
    w("pfull-" + pn, {"Pod": pod, "NodeNameToMetaVictims": None,
                      "NodeNameToVictims": {n: {"Pods": v, "NumPDBViolations": 1}
                                            for n, v in victims.items()}})
w("bad-json", '{"Pod": {"metadata": ')
w("bad-types", {"Pod": 5, "NodeNames": "rdma-1"})
w("bad-victims", {"Pod": {"metadata": {"name": "x"}}, "NodeNameToMetaVictims": {"rdma-1": 3}})
w("big-body", "{\"Pod\":{}" + " " * (8704 << 10) + "}")
# A reply of several MB for the slow reader: full Nodes are echoed back.
pad = "x" * 1800
many = [{"metadata": {"name": "n%05d" % i, "labels": {"pad": pad}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
        for i in range(3000)]
w("huge-reply", {"Pod": {"metadata": {"name": "p", "namespace": "default"},
                        "spec": {"containers": [{"name": "c"}]}},
                "Nodes": {"items": many}, "NodeNames": None})
PY

# vg_serve LOG ARGS...: start serve under valgrind; sets srv and url.
vg_serve() {
    log=$1
    shift
    # shellcheck disable=SC2086
    $VG --log-file="$log.vg" "$KPE_BIN" serve --listen 127.0.0.1:0 \
        --debug-endpoints --shutdown-grace 30 "$@" 2>"$log" &
    srv=$!
    port=""
    for _ in $(seq 1 600); do
        port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$log" | head -n 1)
        [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
        sleep 0.1
    done
    url="http://127.0.0.1:$port"
}

post() { # VERB FILE -> status code on stdout, body in $T_TMP/body
    curl -s -o "$T_TMP/body" -w '%{http_code}' -X POST "$url/$1" \
        --data-binary @"$T_TMP/$2.json"
}

# expect NAME WANT GOT [TEXT]: a status (and a text in the body).
expect() {
    if [ "$3" = "$2" ] && { [ -z "${4:-}" ] || grep -F -q -- "$4" "$T_TMP/body"; }; then
        ok "$1"
    else
        not_ok "$1" "status $3 (want $2): $(head -c 200 "$T_TMP/body")"
    fi
}

# drive NAME: the verbs in both modes, the read-only routes, bad input.
drive() {
    bad=0
    i=0
    while [ "$i" -lt "$ROUNDS" ]; do
        for pn in high-comm big web pinned; do
            for v in filter prioritize; do
                for m in names full; do
                    [ "$(post "$v" "$m-$pn")" = 200 ] || bad=$((bad + 1))
                done
            done
            for m in pmeta pfull; do
                [ "$(post preempt "$m-$pn")" = 200 ] || bad=$((bad + 1))
            done
        done
        i=$((i + 1))
    done
    if [ "$bad" -eq 0 ]; then ok "$1: every verb answers 200 in both modes"
    else not_ok "$1: every verb answers 200 in both modes" "$bad failed; last: $(head -c 200 "$T_TMP/body")"; fi
    expect "$1: filter answers the high-comm pod" 200 "$(post filter names-high-comm)" \
        '"NodeNames":["rdma-1","rdma-2"]'
    expect "$1: bad JSON is an Error" 200 "$(post filter bad-json)" '"Error":"request body'
    expect "$1: wrong types are an empty list for prioritize" 200 "$(post prioritize bad-types)" "[]"
    expect "$1: bad victims are a 400 for preempt" 400 "$(post preempt bad-victims)" "expected an object"
    expect "$1: a body over --max-body-bytes is a 413" 413 "$(post filter big-body)"
    for r in metrics policy debug/cache; do
        c=$(curl -s -o "$T_TMP/body" -w '%{http_code}' "$url/$r")
        expect "$1: GET /$r" 200 "$c"
    done
    # Abandoned connections: mid-headers, mid-body, and a reply never read
    # (write timeout), which must not hold the shutdown for the grace time.
    python3 - "$port" "$T_TMP/huge-reply.json" <<'PY'
import socket, sys, time
port = int(sys.argv[1]); body = open(sys.argv[2], "rb").read()
for part in (b"POST /filter HTTP/1.1\r\nHo", b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\n\r\n{"):
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(part); s.close()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", port))
s.sendall(b"POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
time.sleep(4)   # past --read-timeout 2 (valgrind is slow: keep slack)
s.close()
PY
    ok "$1: abandoned connections and a stalled reader sent"
}

# wait_log LOG TEXT N: until LOG has at least N lines with TEXT (10 s).
wait_log() {
    for _ in $(seq 1 100); do
        [ "$(grep -c "$2" "$1")" -ge "$3" ] && return 0
        sleep 0.1
    done
    return 1
}

# sighup NAME LOG POLICY: a good reload, then a bad one that is refused.
sighup() {
    n_ok=$(grep -c "policy reloaded" "$2")
    n_bad=$(grep -c "policy reload refused" "$2")
    cp "$D/policy.json" "$3"
    kill -HUP "$srv"
    if wait_log "$2" "policy reloaded" $((n_ok + 1)); then
        ok "$1: SIGHUP reloads the policy"
    else
        not_ok "$1: SIGHUP reloads the policy" "$(tail -n 3 "$2")"
    fi
    cp tests/data/extender/bad-policy.json "$3"
    kill -HUP "$srv"
    if wait_log "$2" "policy reload refused" $((n_bad + 1)); then
        ok "$1: SIGHUP refuses a bad policy"
    else
        not_ok "$1: SIGHUP refuses a bad policy" "$(tail -n 3 "$2")"
    fi
    cp "$D/policy.json" "$3"
    [ "$(post filter names-high-comm)" = 200 ] && ok "$1: serves after the refused reload" ||
        not_ok "$1: serves after the refused reload" "$(head -c 200 "$T_TMP/body")"
}

# stop NAME LOG: SIGTERM, exit 0 within the grace period, clean memcheck.
stop() {
    t0=$(date +%s)
    kill -TERM "$srv"
    wait "$srv"
    rc=$?
    dt=$(($(date +%s) - t0))
    if [ "$rc" -eq 0 ]; then ok "$1: SIGTERM exits 0"; else
        not_ok "$1: SIGTERM exits 0" "exit $rc: $(tail -n 5 "$2")"; fi
    if [ "$dt" -lt 20 ]; then ok "$1: shutdown took ${dt}s (abandoned replies do not hold it)"; else
        not_ok "$1: shutdown took ${dt}s" "$(grep 'in flight' "$2")"; fi
    vg_ok "$1" "$2.vg"
}

# ---- serve on the demo cluster ------------------------------------------
cp "$D/policy.json" "$T_TMP/policy.json"
vg_serve "$T_TMP/static.log" --policy "$T_TMP/policy.json" \
    --cluster "$D/cluster.json" --max-body-bytes 8Mi --read-timeout 2
run "static: ready under valgrind" 0 curl -sf "$url/readyz"
drive static
expect "static: bind without an API server is an Error" 200 \
    "$(curl -s -o "$T_TMP/body" -w '%{http_code}' -X POST "$url/bind" \
        -d '{"PodName":"p","PodNamespace":"default","PodUID":"","Node":"rdma-1"}')" \
    "no API server configured"
sighup static "$T_TMP/static.log" "$T_TMP/policy.json"
stop static "$T_TMP/static.log"

# ---- serve against the API-server double --------------------------------
python3 tests/apiserver/apiserver.py --port-file "$T_TMP/api.port" \
    --load "$D/cluster.json" >"$T_TMP/api.log" 2>&1 &
api=$!
for _ in $(seq 1 100); do [ -s "$T_TMP/api.port" ] && break; sleep 0.1; done
api_url="http://127.0.0.1:$(cat "$T_TMP/api.port")"
cat >"$T_TMP/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: double
  cluster: {server: "$api_url"}
users:
- name: u
  user: {}
contexts:
- name: c
  context: {cluster: double, user: u}
current-context: c
KC
vg_serve "$T_TMP/live.log" --policy "$T_TMP/policy.json" \
    --kubeconfig "$T_TMP/kubeconfig" --max-body-bytes 8Mi --read-timeout 2
run "live: ready after the first sync under valgrind" 0 curl -sf "$url/readyz"
drive live
# bind a pending pod, churn pods and drop watches, then compare caches.
i=0
nb=0
while [ "$i" -lt "$ROUNDS" ]; do
    curl -s -X POST "$api_url/api/v1/namespaces/default/pods" -H 'Content-Type: application/json' \
        -d "{\"metadata\":{\"name\":\"vg-$i\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]}}" >/dev/null
    c=$(curl -s -o "$T_TMP/body" -w '%{http_code}' -X POST "$url/bind" \
        -d "{\"PodName\":\"vg-$i\",\"PodNamespace\":\"default\",\"PodUID\":\"\",\"Node\":\"general-1\"}")
    { [ "$c" = 200 ] && grep -q '{"Error":""}' "$T_TMP/body"; } || nb=$((nb + 1))
    curl -s -X DELETE "$api_url/api/v1/namespaces/default/pods/web-5f7d8c9b6-vn5tz" >/dev/null
    curl -s -X POST "$api_url/_fault" -d '{"action":"drop-watches","mode":"reset"}' >/dev/null
    [ -n "$FULL" ] && curl -s -X POST "$api_url/_fault" -d '{"action":"expire-next-watch","count":1}' >/dev/null
    i=$((i + 1))
done
if [ "$nb" -eq 0 ]; then ok "live: bind posts Bindings ($ROUNDS pods)"; else
    not_ok "live: bind posts Bindings" "$nb failed: $(head -c 200 "$T_TMP/body")"; fi
same=""
for _ in $(seq 1 100); do
    curl -s "$url/debug/cache" >"$T_TMP/cache.json"
    if python3 - "$T_TMP/cache.json" "$ROUNDS" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
g = {n["name"]: n for n in c["nodes"]}["general-1"]
want = {"default/vg-%d" % i for i in range(int(sys.argv[2]))}
sys.exit(0 if want <= set(g["pods"]) and "default/web-5f7d8c9b6-vn5tz" not in g["pods"] else 1)
PY
    then same=1; break; fi
    sleep 0.2
done
if [ -n "$same" ]; then ok "live: the cache follows binds, deletes and dropped watches"; else
    not_ok "live: the cache follows binds, deletes and dropped watches" "$(head -c 300 "$T_TMP/cache.json")"; fi
sighup live "$T_TMP/live.log" "$T_TMP/policy.json"
stop live "$T_TMP/live.log"
kill "$api"
wait "$api" 2>/dev/null
finish
