#!/bin/sh
# test_whatif_inputs.sh: the inputs every read-only command shares
# (whatif/inputs.h), through explain: the live cluster listed once from
# the API-server double gives the same answer as the snapshot file; pods
# by reference (NS/NAME, pod/NAME, NAME with -n) or from a workload file
# (its pod template); bad inputs named.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/apiserver_double.sh"
D=deploy/demo
P="$D/policy.json"

# A pod by reference from a snapshot file.
run "explain --pod NS/NAME from a file" 0 "$KPE_BIN" explain --policy "$P" \
    --cluster "$D/cluster.json" --pod default/db-0 --output json
contains "the referenced pod is evaluated" out '"pod": "default/db-0"'
cp "$T_TMP/out" "$T_TMP/file.json"
run "explain --pod pod/NAME -n NS" 0 "$KPE_BIN" explain --policy "$P" \
    --cluster "$D/cluster.json" --pod pod/db-0 -n default --output json
contains "pod/NAME resolves in -n" out '"pod": "default/db-0"'
run "explain --pod NAME --namespace NS" 0 "$KPE_BIN" explain --policy "$P" \
    --cluster "$D/cluster.json" --pod coredns-78fcd69978-q8ptx \
    --namespace kube-system --output json
contains "NAME resolves in --namespace" out \
    '"pod": "kube-system/coredns-78fcd69978-q8ptx"'
run "explain --pod of an unknown pod" 1 "$KPE_BIN" explain --policy "$P" \
    --cluster "$D/cluster.json" --pod default/nope
contains "an unknown pod is named with the cluster" err \
    "no pod default/nope in the cluster ($D/cluster.json)"
run "explain --pod with two slashes" 1 "$KPE_BIN" explain --policy "$P" \
    --cluster "$D/cluster.json" --pod a/b/c
contains "a malformed reference is refused" err "neither a file nor a pod"

# A workload file: its pod template, named after it, in its namespace.
cat >"$T_TMP/deploy.yaml" <<'Y'
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: api}}
    spec:
      nodeSelector: {zone: nowhere}
      containers:
      - name: c
        resources: {requests: {cpu: 100m}}
Y
run "explain --pod DEPLOYMENT.yaml" 0 "$KPE_BIN" explain --policy "$P" \
    --cluster "$D/cluster.json" --pod "$T_TMP/deploy.yaml"
contains "the template pod is named after the workload" out "Pod shop/api on"
contains "the template's spec is used" out "didn't match Pod's node affinity"
cat >"$T_TMP/job.json" <<'J'
{"kind": "Job", "apiVersion": "batch/v1", "metadata": {"name": "j"},
 "spec": {}}
J
run "explain --pod of a Job without a template" 1 "$KPE_BIN" explain \
    --policy "$P" --cluster "$D/cluster.json" --pod "$T_TMP/job.json"
contains "the missing template is named" err \
    "job.json: spec.template: missing: a Job file needs its pod template"
printf '{"kind":"Service","metadata":{"name":"s"}}' >"$T_TMP/svc.json"
run "explain --pod of a Service file" 1 "$KPE_BIN" explain --policy "$P" \
    --cluster "$D/cluster.json" --pod "$T_TMP/svc.json"
contains "a wrong kind is named" err 'kind: expected "Pod", got "Service"'

# The live cluster, listed once: the same evaluation as the file.
start_api "$D/cluster.json"
run "explain --kubeconfig (live)" 0 "$KPE_BIN" explain --policy "$P" \
    --kubeconfig "$T_TMP/kubeconfig" --pod default/db-0 --output json
norm() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
d["nodes"].sort(key=lambda n: n["name"]); print(json.dumps(d, sort_keys=True))' "$1"; }
norm "$T_TMP/out" >"$T_TMP/live.n"
norm "$T_TMP/file.json" >"$T_TMP/file.n"
if cmp -s "$T_TMP/live.n" "$T_TMP/file.n"; then
    ok "the live list evaluates as the snapshot file"
else
    not_ok "the live list evaluates as the snapshot file" \
        "$(diff "$T_TMP/file.n" "$T_TMP/live.n" | head -c 600)"
fi
run "explain --master, the context's namespace unset" 0 "$KPE_BIN" explain \
    --policy "$P" --master "$api_url" --pod db-0
contains "--master lists the same cluster" out "Pod default/db-0 on 5 node(s)"
run "KUBECONFIG from the environment" 0 env KUBECONFIG="$T_TMP/kubeconfig" \
    "$KPE_BIN" explain --policy "$P" --pod db-0
contains "\$KUBECONFIG is read as kubectl does" out "Selected: rdma-2"
if ! grep -q "GET /api/v1/pods?limit=500" "$T_TMP/api.log"; then
    not_ok "the pods are listed in pages" "$(head -c 600 "$T_TMP/api.log")"
elif grep -q "watch=true" "$T_TMP/api.log"; then
    not_ok "no watch is made" "$(grep watch=true "$T_TMP/api.log" | head -3)"
else
    ok "no watch is made"
fi
stop_api
run "explain --cluster with --kubeconfig" 1 "$KPE_BIN" explain --policy "$P" \
    --cluster "$D/cluster.json" --kubeconfig "$T_TMP/kubeconfig" --pod db-0
contains "two cluster sources are refused" err "not both"
run "explain against an unreachable API server" 1 "$KPE_BIN" explain \
    --policy "$P" --master http://127.0.0.1:1 --pod db-0
contains "the API server and the cause are named" err \
    "API server http://127.0.0.1:1: "
run "explain --request-timeout 0" 2 "$KPE_BIN" explain --policy "$P" \
    --master http://127.0.0.1:1 --pod db-0 --request-timeout 0
contains "a bad timeout is quoted" err 'got "0"'
finish
