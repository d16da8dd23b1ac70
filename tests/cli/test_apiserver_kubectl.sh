#!/bin/sh
# test_apiserver_kubectl.sh: the API-server double (tests/apiserver/) talks
# to the stock kubectl over TLS with a bearer token: create/apply/get/
# watch/describe/delete, bindings, selectors, paging, 401, 410 and injected
# faults. kubectl must be installed (sh scripts/deps.sh): no skipping.
. "$(dirname "$0")/lib.sh"

if ! command -v kubectl >/dev/null 2>&1; then
    not_ok "kubectl is installed" "kubectl not found; run sh scripts/deps.sh"
    finish
fi
run "kubectl version --client" 0 kubectl version --client

# --- certificates and the double -------------------------------------------
D=$T_TMP
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$D/ca.key" \
    -out "$D/ca.crt" -days 1 -subj /CN=test-ca >/dev/null 2>&1
openssl req -newkey rsa:2048 -nodes -keyout "$D/srv.key" -out "$D/srv.csr" \
    -subj /CN=127.0.0.1 >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$D/ext"
openssl x509 -req -in "$D/srv.csr" -CA "$D/ca.crt" -CAkey "$D/ca.key" \
    -CAcreateserial -out "$D/srv.crt" -days 1 -extfile "$D/ext" \
    >/dev/null 2>&1
run "openssl made a server certificate" 0 test -s "$D/srv.crt"
openssl req -newkey rsa:2048 -nodes -keyout "$D/cli.key" -out "$D/cli.csr" \
    -subj /CN=tester >/dev/null 2>&1
openssl x509 -req -in "$D/cli.csr" -CA "$D/ca.crt" -CAkey "$D/ca.key" \
    -CAcreateserial -out "$D/cli.crt" -days 1 >/dev/null 2>&1
cat >"$D/load.json" <<EOF
{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
  "metadata": {"name": "fast", "uid": "11111111-2222-4333-8444-555555555555"},
  "provisioner": "example.com/fast"},
 {"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "loaded", "namespace": "team-a"},
  "spec": {"nodeName": "n9", "containers": [{"name": "c", "image": "x"}]},
  "status": {"phase": "Running"}}]}
EOF

python3 tests/apiserver/apiserver.py --port-file "$D/port" \
    --token sekrit --tls-cert "$D/srv.crt" --tls-key "$D/srv.key" \
    --client-ca "$D/ca.crt" --load "$D/load.json" --history 30 --bookmark-interval 0.3 >"$D/srv.out" 2>"$D/srv.err" &
SRV=$!
trap 'kill $SRV 2>/dev/null; rm -rf "$T_TMP"' EXIT
i=0
while [ ! -s "$D/port" ] && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
PORT=$(cat "$D/port" 2>/dev/null)
if [ -z "$PORT" ]; then
    not_ok "the double starts" "$(cat "$D/srv.err")"
    finish
fi
ok "the double listens on 127.0.0.1:$PORT"
URL=https://127.0.0.1:$PORT

cat >"$D/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: double
  cluster: {server: "$URL", certificate-authority: "$D/ca.crt"}
users:
- name: tester
  user: {token: sekrit}
contexts:
- name: double
  context: {cluster: double, user: tester, namespace: default}
current-context: double
EOF
export KUBECONFIG="$D/kubeconfig" KUBECACHEDIR="$D/kcache"

api() { # api METHOD PATH [curl args...]: status code, then body, in out
    m=$1
    p=$2
    shift 2
    curl -sS --max-time 10 --cacert "$D/ca.crt" \
        -H 'Authorization: Bearer sekrit' -X "$m" -o "$D/body" \
        -w '%{http_code}\n' "$@" "$URL$p" && cat "$D/body"
}
json_check() { # json_check NAME PYTHON-EXPR: d is the last run's stdout
    # (less the status-code line api prints first)
    cp "$T_TMP/out" "$D/check.json"
    run "$1" 0 python3 -c "import json,sys
t = open(sys.argv[1]).read()
d = json.loads(t.split('\\n', 1)[1] if t[:1].isdigit() else t)
assert ($2), json.dumps(d)[:300]" "$D/check.json"
}

# --- bulk load ----------------------------------------------------------------
run "--load: a StorageClass keeps its uid" 0 kubectl get storageclass fast \
    -o 'jsonpath={.metadata.uid} {.provisioner}'
contains "loaded StorageClass" out \
    "11111111-2222-4333-8444-555555555555 example.com/fast"
run "--load: a pod keeps its status" 0 kubectl get pod loaded -n team-a \
    -o 'jsonpath={.status.phase} {.spec.nodeName}'
contains "loaded pod" out "Running n9"
run "--load: namespace team-a was created" 0 kubectl get namespace team-a \
    -o 'jsonpath={.status.phase}'
contains "namespace Active" out "Active"
run "a client certificate authenticates without a token" 0 curl -sS \
    --cacert "$D/ca.crt" --cert "$D/cli.crt" --key "$D/cli.key" \
    "$URL/api/v1/namespaces/team-a/pods"
contains "client cert: the list" out '"name":"loaded"'
run "delete the loaded pod" 0 kubectl delete pod loaded -n team-a

# --- create / apply -------------------------------------------------------
cat >"$D/nodes.yaml" <<EOF
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {zone: b}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
EOF
cat >"$D/pods.json" <<EOF
{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web-1", "labels": {"app": "web"}},
  "spec": {"containers": [{"name": "c", "image": "nginx:1.21"}]}},
 {"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web-2", "labels": {"app": "web"}},
  "spec": {"containers": [{"name": "c", "image": "nginx:1.21"}]}},
 {"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "db-1", "namespace": "kube-system",
               "labels": {"app": "db"}},
  "spec": {"containers": [{"name": "c", "image": "redis:7"}]}}]}
EOF
run "kubectl create -f nodes.yaml" 0 kubectl create -f "$D/nodes.yaml"
contains "nodes created" out "node/n2 created"
run "kubectl create -f pods.json (a List)" 0 kubectl create -f "$D/pods.json"
contains "pods created" out "pod/db-1 created"
run "create again: 409 AlreadyExists" 1 kubectl create -f "$D/pods.json"
contains "AlreadyExists text" err 'pods "web-1" already exists'

cat >"$D/applied.yaml" <<EOF
apiVersion: v1
kind: Pod
metadata: {name: applied, labels: {app: web, rev: "1"}}
spec:
  containers: [{name: c, image: busybox:1.36, resources: {limits: {cpu: 200m}}}]
EOF
run "kubectl apply -f (create)" 0 kubectl apply -f "$D/applied.yaml"
contains "apply created" out "pod/applied created"
sed 's/rev: "1"/rev: "2"/' "$D/applied.yaml" >"$D/applied2.yaml"
run "kubectl apply -f (patch)" 0 kubectl apply -f "$D/applied2.yaml"
contains "apply configured" out "pod/applied configured"
run "applied label is there" 0 kubectl get pod applied \
    -o 'jsonpath={.metadata.labels.rev} {.spec.containers[0].resources.requests.cpu} {.status.qosClass}'
contains "apply patched, limits defaulted requests" out "2 200m Burstable"

# --- get ------------------------------------------------------------------
run "kubectl get nodes,pods -A -o json" 0 kubectl get nodes,pods -A -o json
json_check "List has 2 nodes and 4 pods with server metadata" \
    'sorted(i["kind"] for i in d["items"]) == ["Node"] * 2 + ["Pod"] * 4 and
     all(i["metadata"]["uid"] and i["metadata"]["resourceVersion"] and
         i["metadata"]["creationTimestamp"] for i in d["items"])'
run "pods start Pending, unscheduled" 0 kubectl get pod web-1 -o json
json_check "status reset to Pending on create" \
    'd["status"]["phase"] == "Pending" and "nodeName" not in d["spec"]'
run "kubectl get pods -l app=web" 0 kubectl get pods -l app=web -o name
run "label selector picks web pods" 0 test "$(sort "$T_TMP/out" | tr '\n' ' ')" \
    = "pod/applied pod/web-1 pod/web-2 "
run "kubectl get pods -l 'app in (db),app!=web' -A" 0 kubectl get pods -A \
    -l 'app in (db),app!=web' -o name
run "set-based selector" 0 test "$(cat "$T_TMP/out")" = "pod/db-1"
run "kubectl get pods --chunk-size=2 -A (paging)" 0 kubectl get pods -A \
    --chunk-size=2 -o name -v=6
contains "second page asked with a continue token" err "continue="
run "paging saw every pod" 0 test "$(grep -c '^pod/' "$T_TMP/out")" -eq 4
run "limit=2 gives continue + remainingItemCount" 0 api GET \
    "/api/v1/pods?limit=2"
json_check "first page" \
    'len(d["items"]) == 2 and d["metadata"]["continue"] and
     d["metadata"]["remainingItemCount"] == 2'
TOK=$(python3 -c 'import json,sys
t = open(sys.argv[1]).read().split("\n", 1)[1]
print(json.loads(t)["metadata"]["continue"])' "$D/check.json")
run "delete a pod on page 2 after page 1" 0 kubectl delete pod web-2
run "page 2 is read at page 1's snapshot" 0 api GET \
    "/api/v1/pods?limit=2&continue=$TOK"
json_check "deleted pod still on the snapshot page" \
    '[i["metadata"]["name"] for i in d["items"]] == ["web-2", "db-1"]'
run "recreate web-2" 1 kubectl create -f "$D/pods.json"
contains "web-2 back" out "pod/web-2 created"
run "get a missing pod" 1 kubectl get pod nope
contains "NotFound text" err 'pods "nope" not found'

# --- bind -----------------------------------------------------------------
cat >"$D/binding.json" <<EOF
{"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web-1"},
 "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"}}
EOF
run "kubectl create -f binding.json" 0 kubectl create -f "$D/binding.json"
run "bind again: Conflict" 1 kubectl create -f "$D/binding.json"
contains "bind conflict text" err \
    'Operation cannot be fulfilled on pods/binding "web-1": pod web-1 is already assigned to node "n1"'
sed 's/web-1/web-2/; s/"n1"/"n2"/' "$D/binding.json" >"$D/binding2.json"
run "POST pods/web-2/binding" 0 api POST \
    /api/v1/namespaces/default/pods/web-2/binding \
    -H 'Content-Type: application/json' -d @"$D/binding2.json"
contains "binding answers 201 Success" out '"status":"Success","code":201'
run "POST pods/web-2/binding again" 0 api POST \
    /api/v1/namespaces/default/pods/web-2/binding \
    -H 'Content-Type: application/json' -d @"$D/binding2.json"
contains "second binding: 409 Status" out \
    '"status":"Failure","message":"Operation cannot be fulfilled on pods/binding \"web-2\": pod web-2 is already assigned to node \"n2\"","reason":"Conflict","details":{"name":"web-2","kind":"pods/binding"},"code":409'
run "bound pod is scheduled" 0 kubectl get pod web-1 -o json
json_check "nodeName and PodScheduled condition" \
    'd["spec"]["nodeName"] == "n1" and {"type": "PodScheduled",
     "status": "True"}.items() <= d["status"]["conditions"][0].items()'
run "PATCH pods/web-1/status" 0 api PATCH \
    /api/v1/namespaces/default/pods/web-1/status \
    -H 'Content-Type: application/merge-patch+json' \
    -d '{"status":{"phase":"Running"}}'
contains "status patched" out '"phase":"Running"'
run "field selector spec.nodeName + status.phase" 0 kubectl get pods -A \
    --field-selector 'spec.nodeName=n1,status.phase=Running' -o name
run "field selector picks web-1" 0 test "$(cat "$T_TMP/out")" = "pod/web-1"
run "field selector on an unknown field" 1 kubectl get pods \
    --field-selector spec.bogus=x
contains "unknown field label is a BadRequest" err \
    "field label not supported: spec.bogus"
run "kubectl describe pod web-1" 0 kubectl describe pod web-1
contains "describe shows the node" out "Node:         n1"
run "kubectl describe node n1" 0 kubectl describe node n1
contains "describe node lists its pods" out "default                     web-1"

# --- optimistic concurrency ---------------------------------------------
run "stale PUT: 409 Conflict" 0 api PUT /api/v1/nodes/n2 \
    -H 'Content-Type: application/json' \
    -d '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n2","resourceVersion":"1"}}'
contains "stale PUT text" out \
    'Operation cannot be fulfilled on nodes \"n2\": the object has been modified; please apply your changes to the latest version and try again'

# --- watch ----------------------------------------------------------------
timeout 10 kubectl get pods -w --output-watch-events -o json \
    >"$D/watch.out" 2>"$D/watch.err" &
WPID=$!
i=0
while ! grep -q '"type":"ADDED"' "$D/watch.out" 2>/dev/null &&
    [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
done
run "kubectl label pod web-2 (during the watch)" 0 kubectl label pod web-2 \
    seen=yes
run "kubectl delete pod applied (during the watch)" 0 kubectl delete pod \
    applied
contains "delete answers" out 'pod "applied" deleted'
i=0
while ! grep -q '"type":"DELETED"' "$D/watch.out" && [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
done
kill $WPID 2>/dev/null
wait $WPID 2>/dev/null
cp "$D/watch.out" "$T_TMP/out"
contains "kubectl get -w saw the label change" out '"type":"MODIFIED"'
contains "... with the new label" out '"seen":"yes"'
contains "kubectl get -w saw the delete" out '"type":"DELETED"'

run "watch from a recent RV" 0 api GET \
    "/api/v1/namespaces/default/pods?watch=1&resourceVersion=$(
        curl -sS --cacert "$D/ca.crt" -H 'Authorization: Bearer sekrit' \
            "$URL/api/v1/pods" | python3 -c \
            'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])'
    )&timeoutSeconds=1&allowWatchBookmarks=true"
contains "watch ends with timeoutSeconds and sends BOOKMARKs" out \
    '{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"'
RV=$(curl -sS --cacert "$D/ca.crt" -H 'Authorization: Bearer sekrit' \
    "$URL/api/v1/pods" | python3 -c \
    'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])')
run "web-1 leaves app=web" 0 kubectl label pod web-1 app=gone --overwrite
run "web-1 comes back to app=web" 0 kubectl label pod web-1 app=web \
    --overwrite
run "watch -l app=web across the relabels" 0 api GET \
    "/api/v1/namespaces/default/pods?watch=1&labelSelector=app%3Dweb&resourceVersion=$RV&timeoutSeconds=1"
cp "$T_TMP/out" "$D/relabel.out"
run "leaving the selector is DELETED, coming back is ADDED" 0 python3 -c '
import json, sys
lines = open(sys.argv[1]).read().split("\n", 1)[1].split("\n")
evs = [json.loads(x) for x in lines if x.strip()]
got = [(e["type"], e["object"]["metadata"].get("labels", {}).get("app"))
       for e in evs if e["type"] != "BOOKMARK"]
assert got == [("DELETED", "gone"), ("ADDED", "web")], got
' "$D/relabel.out"
run "compact the history (admin)" 0 api POST /_fault -d '{"action":"compact"}'
run "watch from an expired RV" 0 api GET \
    "/api/v1/pods?watch=1&resourceVersion=3"
contains "410 Expired as a watch ERROR event" out \
    '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 3 ('
contains "... reason Expired, code 410" out '"reason":"Expired","code":410}}'
run "force 410 on the next watch as HTTP 410" 0 api POST /_fault \
    -d '{"action":"expire-next-watch","http":true}'
run "the next watch gets HTTP 410" 0 api GET "/api/v1/nodes?watch=1"
contains "HTTP 410 Status" out '410
{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version'

curl -sS --cacert "$D/ca.crt" -H 'Authorization: Bearer sekrit' -N \
    "$URL/api/v1/nodes?watch=1&timeoutSeconds=20" >"$D/drop.out" 2>&1 &
CPID=$!
sleep 0.5
run "drop open watches (admin)" 0 api POST /_fault \
    -d '{"action":"drop-watches"}'
i=0
while kill -0 $CPID 2>/dev/null && [ $i -lt 30 ]; do
    sleep 0.1
    i=$((i + 1))
done
run "a dropped watch ends at once" 1 kill -0 $CPID
kill $CPID 2>/dev/null

curl -sS --cacert "$D/ca.crt" -H 'Authorization: Bearer sekrit' -N \
    --max-time 0.5 "$URL/api/v1/nodes?watch=1" >/dev/null 2>&1
i=0
while [ $i -lt 20 ]; do
    curl -sS --cacert "$D/ca.crt" "$URL/_requests" >"$D/req.json"
    grep -q '"openWatches":0' "$D/req.json" && break
    sleep 0.1
    i=$((i + 1))
done
run "a watch whose client went away is closed" 0 grep -q \
    '"openWatches":0' "$D/req.json"

# --- auth and faults --------------------------------------------------------
run "kubectl with a wrong token" 1 kubectl get pods --token=wrong
contains "kubectl reports 401" err "Unauthorized"
run "curl with a wrong token" 0 curl -sS --cacert "$D/ca.crt" \
    -H 'Authorization: Bearer wrong' -w '\n%{http_code}' "$URL/api/v1/pods"
contains "401 Status body" out \
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}
401'
run "inject two 500s on /api/v1/nodes" 0 api POST /_fault \
    -d '{"action":"error","code":500,"count":2,"path":"/api/v1/nodes"}'
run "first injected 500" 0 api GET /api/v1/nodes
contains "500 InternalError Status" out '500
{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: injected fault","reason":"InternalError"'
run "second injected 500" 0 api GET /api/v1/nodes
contains "second 500" out "500"
run "the third request passes" 0 api GET /api/v1/nodes
contains "200 after the faults" out '200
{"kind":"NodeList"'
run "delay list nodes by 600 ms once" 0 api POST /_fault \
    -d '{"action":"delay","ms":600,"count":1,"verb":"list"}'
run "a delayed answer" 0 curl -sS --cacert "$D/ca.crt" \
    -H 'Authorization: Bearer sekrit' -o /dev/null -w '%{time_total}' \
    "$URL/api/v1/nodes"
cp "$T_TMP/out" "$D/delay.out"
run "the delay was applied" 0 python3 -c \
    'import sys; assert float(open(sys.argv[1]).read()) >= 0.6' \
    "$D/delay.out"
run "inject one 401" 0 api POST /_fault \
    -d '{"action":"error","code":401,"path":"/api/v1/nodes"}'
run "kubectl sees the injected 401" 1 kubectl get nodes
contains "injected 401" err "Unauthorized"

# --- state dump matches what kubectl sees -------------------------------------
run "kubectl get pods -A -o json (for /_state)" 0 kubectl get pods -A -o json
cp "$T_TMP/out" "$D/kpods.json"
run "GET /_state" 0 curl -sS "$URL/_state" --cacert "$D/ca.crt"
cp "$T_TMP/out" "$D/state.json"
run "/_state equals kubectl's view" 0 python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))["items"]
s = json.load(open(sys.argv[2]))["resources"]["pods"]
key = lambda o: (o["metadata"]["namespace"], o["metadata"]["name"])
assert sorted(k, key=key) == sorted(s, key=key), (len(k), len(s))
' "$D/kpods.json" "$D/state.json"
run "GET /_requests" 0 curl -sS "$URL/_requests" --cacert "$D/ca.crt"
json_check "request counts" \
    'd["requests"]["create pods/binding"] == 2 and
     d["requests"]["create bindings"] == 2 and d["codes"]["401"] >= 2'

kill $SRV 2>/dev/null
finish
