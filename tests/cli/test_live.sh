#!/bin/sh
# test_live.sh: serve against the API-server double (tests/apiserver):
# ready only after the first sync, filter answers from the live cache and
# follow changes made with kubectl, the bind verb posts Bindings (a second
# bind of the same pod is reported as already bound), and an unreachable
# or unauthorised API server is reported clearly.
. "$(dirname "$0")/lib.sh"
D=deploy/demo

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
K="kubectl --kubeconfig $T_TMP/kubeconfig"

"$KPE_BIN" serve --listen 127.0.0.1:0 --policy "$D/policy.json" \
    --kubeconfig "$T_TMP/kubeconfig" 2>"$T_TMP/serve.log" &
srv=$!
port=""
for _ in $(seq 1 200); do
    port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T_TMP/serve.log" 2>/dev/null | head -n 1)
    [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
done
url="http://127.0.0.1:$port"
run "ready after the first sync from the API server" 0 curl -sf "$url/readyz"

req() { # POD_FILE -> ExtenderArgs with every node name
    python3 -c 'import json,sys; print(json.dumps({"Pod": json.load(open(sys.argv[1])),
      "Nodes": None, "NodeNames": ["rdma-1", "rdma-2", "general-1", "gpu-1", "cordoned-1"]}))' "$1"
}
req "$D/pods/high-comm.json" >"$T_TMP/hc.json"
run "filter from the live cache" 0 curl -sf -X POST "$url/filter" -d @"$T_TMP/hc.json"
contains "high-comm pod goes to RDMA nodes only" out '"NodeNames":["rdma-1","rdma-2"]'

# Cordon rdma-2 through the API: the watch must carry it into the cache.
run "kubectl cordon" 0 $K patch node rdma-2 -p '{"spec":{"unschedulable":true}}'
ok_seen=""
for _ in $(seq 1 50); do
    curl -sf -X POST "$url/filter" -d @"$T_TMP/hc.json" >"$T_TMP/out"
    grep -q '"NodeNames":\["rdma-1"\]' "$T_TMP/out" && { ok_seen=1; break; }
    sleep 0.1
done
if [ -n "$ok_seen" ]; then ok "a node change reaches the cache"; else
    not_ok "a node change reaches the cache" "$(cat "$T_TMP/out")"; fi

# A pod taking hostPort 8080 elsewhere: pods are watched too.
cat >"$T_TMP/hp.json" <<'POD'
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"hp","namespace":"default"},
 "spec":{"nodeName":"rdma-1","containers":[{"name":"c","image":"x",
   "ports":[{"containerPort":80,"hostPort":9090}]}]}}
POD
run "kubectl create a pod with a host port" 0 $K create -f "$T_TMP/hp.json"
cat >"$T_TMP/want.json" <<'POD'
{"metadata":{"name":"w","namespace":"default","labels":{"high-comm":"x"}},
 "spec":{"containers":[{"name":"c","ports":[{"containerPort":80,"hostPort":9090}]}]}}
POD
req "$T_TMP/want.json" >"$T_TMP/want-req.json"
ok_seen=""
for _ in $(seq 1 50); do
    curl -sf -X POST "$url/filter" -d @"$T_TMP/want-req.json" >"$T_TMP/out"
    grep -q '"rdma-1":"node(s) didn.t have free ports' "$T_TMP/out" && { ok_seen=1; break; }
    sleep 0.1
done
if [ -n "$ok_seen" ]; then ok "a new pod's host port reaches the cache"; else
    not_ok "a new pod's host port reaches the cache" "$(cat "$T_TMP/out")"; fi

# bind: a pending pod, bound once, then refused as already bound.
cat >"$T_TMP/pending.json" <<'POD'
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pending","namespace":"default"},
 "spec":{"containers":[{"name":"c","image":"x"}]}}
POD
run "kubectl create a pending pod" 0 $K create -f "$T_TMP/pending.json"
bind='{"PodName":"pending","PodNamespace":"default","PodUID":"","Node":"general-1"}'
run "bind" 0 curl -sf -X POST "$url/bind" -d "$bind"
contains "bind succeeds" out '{"Error":""}'
run "the pod is bound in the API server" 0 $K get pod pending -o jsonpath='{.spec.nodeName}'
contains "bound to general-1" out "general-1"
run "bind again" 0 curl -sf -X POST "$url/bind" -d "$bind"
contains "a second bind is reported as already bound" out "already bound"
run "bind with a malformed body" 0 curl -sf -X POST "$url/bind" -d '{"PodName":1}'
contains "bad bind bodies name the field" out '"Error":"PodName: expected a string"'
kill "$srv"; wait "$srv"

# docs/policy-authors.md's "why is my pod pending" recipe, against the same API server.
run "docs: snapshot with kubectl" 0 $K get nodes,pods,services,replicationcontrollers,replicasets,statefulsets,pv,pvc,storageclasses,csinodes,namespaces -A -o json
cp "$T_TMP/out" "$T_TMP/snapshot.json"
run "docs: explain on the snapshot" 0 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster "$T_TMP/snapshot.json" --pod "$D/pods/high-comm.json"
contains "the cordoned node is explained" out "rdma-2      no               -  CheckNodeUnschedulable: node(s) were unschedulable"
contains "explain selects the remaining RDMA node" out "Selected: rdma-1"

# --context picks a context other than current-context (here a dead one).
cat >"$T_TMP/kubeconfig2" <<KC
apiVersion: v1
kind: Config
clusters:
- {name: double, cluster: {server: "$api_url"}}
- {name: dead, cluster: {server: "http://127.0.0.1:1"}}
users:
- {name: u, user: {}}
contexts:
- {name: good, context: {cluster: double, user: u}}
- {name: bad, context: {cluster: dead, user: u}}
current-context: bad
KC
"$KPE_BIN" serve --listen 127.0.0.1:0 --policy "$D/policy.json" \
    --kubeconfig "$T_TMP/kubeconfig2" --context good 2>"$T_TMP/ctx.log" &
srv=$!
port=""
for _ in $(seq 1 200); do
    port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T_TMP/ctx.log" 2>/dev/null | head -n 1)
    [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
done
run "--context selects the working context" 0 curl -sf "http://127.0.0.1:$port/readyz"
kill "$srv"; wait "$srv"
run "an unknown --context is refused clearly" 1 "$KPE_BIN" serve \
    --listen 127.0.0.1:0 --policy "$D/policy.json" \
    --kubeconfig "$T_TMP/kubeconfig2" --context nope
contains "the missing context is named" err 'context "nope" not found'

# Unreachable and unauthorised API servers are reported, not hidden.
"$KPE_BIN" serve --listen 127.0.0.1:0 --policy "$D/policy.json" \
    --master http://127.0.0.1:1 2>"$T_TMP/dead.log" &
srv=$!
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T_TMP/dead.log" 2>/dev/null | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
sleep 1
run "not ready while the API server is unreachable" 22 curl -sf "http://127.0.0.1:$port/readyz"
curl -s "http://127.0.0.1:$port/readyz" >"$T_TMP/out"
if grep -q "not ready" "$T_TMP/out"; then ok "readyz says why"; else
    not_ok "readyz says why" "$(cat "$T_TMP/out")"; fi
kill "$srv"; wait "$srv"
kill "$api"; wait "$api" 2>/dev/null
finish
