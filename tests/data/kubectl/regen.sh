#!/bin/sh
# regen.sh: make the fixtures in this folder with the real kubectl against a
# real kube-apiserver v1.20.2 (etcd and the apiserver on free 127.0.0.1
# ports, stopped on exit). Run from the repository root:
#   sh tests/data/kubectl/regen.sh [APISERVER_BIN]
# Writes cluster.yaml / cluster.json (`kubectl get nodes,pods,services -A`),
# nodes.yaml (a NodeList as `kubectl get nodes -o yaml`), pod.yaml / pod.json
# (`kubectl get pod -o yaml|json`), stream.yaml (objects joined with ---).
set -eu
OUT=tests/data/kubectl
APISERVER=${1:-$HOME/.cache/kube-policy-extender/k8s-v1.20.2/bin/kube-apiserver}
W=$(mktemp -d "${TMPDIR:-/tmp}/kpe-regen.XXXXXX")
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$W"
}
trap cleanup EXIT INT TERM
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ETCD_C=$(free_port); ETCD_P=$(free_port); API=$(free_port)
etcd --data-dir "$W/etcd" --listen-client-urls "http://127.0.0.1:$ETCD_C" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_C" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_P" >"$W/etcd.log" 2>&1 &
pids="$pids $!"
openssl genrsa -out "$W/sa.key" 2048 2>/dev/null
echo "regen-token,admin,admin,system:masters" >"$W/tokens.csv"
"$APISERVER" --etcd-servers "http://127.0.0.1:$ETCD_C" --secure-port "$API" \
    --bind-address 127.0.0.1 --cert-dir "$W/certs" \
    --token-auth-file "$W/tokens.csv" --authorization-mode AlwaysAllow \
    --service-account-issuer https://kubernetes.default.svc \
    --service-account-key-file "$W/sa.key" \
    --service-account-signing-key-file "$W/sa.key" \
    --api-audiences kubernetes --service-cluster-ip-range 10.0.0.0/24 \
    --disable-admission-plugins ServiceAccount,TaintNodesByCondition \
    >"$W/apiserver.log" 2>&1 &
pids="$pids $!"
K="kubectl --server https://127.0.0.1:$API --token regen-token --insecure-skip-tls-verify"
for _ in $(seq 1 120); do
    $K get --raw /readyz >/dev/null 2>&1 && break
    sleep 0.5
done
$K get --raw /readyz >/dev/null
$K version -o json >"$W/version.json" 2>/dev/null || true

# Nodes (TaintNodesByCondition is off: no kubelet would lift its not-ready
# taint). kube-apiserver keeps status from a create, so a node's capacity,
# allocatable and conditions go in with it (as a kubelet would post them).
node() { # NAME ZONE EXTRA-SPEC-YAML
    cat <<NODE
apiVersion: v1
kind: Node
metadata:
  name: $1
  labels:
    kubernetes.io/hostname: $1
    topology.kubernetes.io/zone: $2
$4
spec:
$3
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: 3900m, memory: 7800Mi, pods: "110"}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, message: ready}
NODE
}
{
    node rdma-1 zone-a "  unschedulable: false" "    node.kubernetes.io/rdma-enabled: \"true\""
    echo ---
    node general-1 zone-b "  podCIDR: 10.1.2.0/24" ""
    echo ---
    node gpu-1 zone-a "  taints:
  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}" ""
    echo ---
    node cordoned-1 zone-b "  unschedulable: true" ""
} >"$W/nodes.yaml"
$K create -f "$W/nodes.yaml" >/dev/null
cat >"$W/objects.yaml" <<'OBJ'
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: default
  labels: {app: web, high-comm: "yes"}
spec:
  nodeName: rdma-1
  containers:
  - name: web
    image: nginx:1.21
    ports: [{containerPort: 80, hostPort: 8080}]
    resources:
      requests: {cpu: 500m, memory: 256Mi}
      limits: {cpu: "1", memory: 512Mi}
  tolerations:
  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
---
apiVersion: v1
kind: Pod
metadata:
  name: db-1
  namespace: default
  labels: {app: db}
spec:
  nodeName: general-1
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: topology.kubernetes.io/zone, operator: In, values: [zone-b]}
  containers:
  - name: db
    image: postgres:13
    resources:
      requests: {cpu: "2", memory: 2Gi}
---
apiVersion: v1
kind: Pod
metadata:
  name: pending
  namespace: default
  labels: {app: web}
spec:
  containers:
  - name: big
    image: busybox
    command: [sleep, "3600"]
    resources:
      requests: {cpu: "3", memory: 1Gi}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
OBJ
$K create -f "$W/objects.yaml" >/dev/null
$K get nodes,pods,services -A -o yaml >"$OUT/cluster.yaml"
$K get nodes,pods,services -A -o json >"$OUT/cluster.json"
$K get nodes -o yaml >"$OUT/nodes.yaml"
$K get pod pending -o yaml >"$OUT/pod.yaml"
$K get pod pending -o json >"$OUT/pod.json"
{
    for n in cordoned-1 general-1 gpu-1 rdma-1; do
        echo ---
        $K get node "$n" -o yaml
    done
    for p in db-1 web-1; do
        echo ---
        $K get pod "$p" -o yaml
    done
} >"$OUT/stream.yaml"
{
    echo "# kubectl $(kubectl version --client -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])')"
    echo "# kube-apiserver $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["serverVersion"]["gitVersion"])' "$W/version.json" 2>/dev/null || echo '?')"
} >"$OUT/VERSIONS"
echo "regenerated $OUT"
