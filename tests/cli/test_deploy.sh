#!/bin/sh
# test_deploy.sh: everything under deploy/ is well formed and agrees with
# the server (tests/deploy/check_deploy.py: Dockerfile, systemd unit and
# config, every YAML/JSON file, kustomizations, workloads and probes,
# RBAC, extender declarations, the split shape in every kube-scheduler
# configuration and every `serve`, the Helm chart rendered by
# tests/deploy/helmlite.py), and `make install DESTDIR=...` produces the
# layout the Dockerfile copies. Each checker line becomes one test.
. "$(dirname "$0")/lib.sh"

# A nested make must not inherit the outer make's jobserver.
run "make install DESTDIR" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    make -s install DESTDIR="$T_TMP/root" BIN="$KPE_BIN"
run "make install-systemd DESTDIR PREFIX=/opt/kpe" 0 env -u MAKEFLAGS -u MFLAGS \
    -u MAKELEVEL make -s install-systemd DESTDIR="$T_TMP/sys" PREFIX=/opt/kpe \
    BIN="$KPE_BIN"
for f in opt/kpe/bin/kube-policy-extender \
    opt/kpe/lib/systemd/system/kube-policy-extender.service \
    etc/kube-policy-extender/config.ini etc/kube-policy-extender/policy.json \
    etc/kube-policy-extender/extender-policy.json; do
    if [ -f "$T_TMP/sys/$f" ]; then
        ok "install-systemd installs /$f"
    else
        not_ok "install-systemd installs /$f" "missing"
    fi
done
if grep -q '^ExecStart=/opt/kpe/bin/kube-policy-extender serve --config /etc/kube-policy-extender/config.ini$' \
    "$T_TMP/sys/opt/kpe/lib/systemd/system/kube-policy-extender.service"; then
    ok "installed unit runs the PREFIX binary"
else
    not_ok "installed unit runs the PREFIX binary" \
        "$(grep ExecStart "$T_TMP/sys/opt/kpe/lib/systemd/system/kube-policy-extender.service")"
fi
echo "; edited" >>"$T_TMP/sys/etc/kube-policy-extender/config.ini"
run "install-systemd again" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    make -s install-systemd DESTDIR="$T_TMP/sys" PREFIX=/opt/kpe BIN="$KPE_BIN"
contains "install-systemd keeps an existing config.ini" out "keep"
if grep -q '^; edited$' "$T_TMP/sys/etc/kube-policy-extender/config.ini"; then
    ok "edited config.ini survives"
else
    not_ok "edited config.ini survives" "overwritten"
fi

# checker NAME MIN_LINES ARGV...: one test per "ok"/"not ok" line the
# checker prints, then one that it exited 0 after at least MIN_LINES.
checker() {
    name=$1 min=$2
    shift 2
    "$@" >"$T_TMP/checks" 2>&1
    rc=$?
    n=0
    while IFS= read -r line; do
        case $line in
        "ok "*) ok "${line#ok }" ;;
        "not ok "*) not_ok "${line#not ok }" ;;
        "note "*) echo "[   NOTE   ] ${line#note }" ;;
        *) not_ok "$name output" "$line" ;;
        esac
        n=$((n + 1))
    done <"$T_TMP/checks"
    if [ "$rc" -eq 0 ] && [ "$n" -ge "$min" ]; then
        ok "$name ran ($n lines)"
    else
        not_ok "$name ran" "exit $rc after $n lines"
    fi
}

checker checker 50 python3 tests/deploy/check_deploy.py "$KPE_BIN" --install-root "$T_TMP/root"

# The roles bound to the server's ServiceAccount (kustomize and Helm) grant
# exactly what the C source calls (tests/deploy/check_rbac_calls.py parses
# it): nothing missing, nothing extra.
checker "RBAC checker" 40 python3 tests/deploy/check_rbac_calls.py .

# The manifests are well-formed API objects: kubectl applies every
# kustomization (and the rendered Helm objects' kinds are the same) to the
# API-server double, and reads them back.
python3 tests/apiserver/apiserver.py --port-file "$T_TMP/api.port" \
    >"$T_TMP/api.log" 2>&1 &
api=$!
for _ in $(seq 1 100); do [ -s "$T_TMP/api.port" ] && break; sleep 0.1; done
cat >"$T_TMP/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: double
  cluster: {server: "http://127.0.0.1:$(cat "$T_TMP/api.port")"}
users:
- name: u
  user: {}
contexts:
- name: c
  context: {cluster: double, user: u}
current-context: c
KC
K="kubectl --kubeconfig $T_TMP/kubeconfig"
for dir in deploy/kubernetes deploy/kubernetes/bind \
    deploy/scheduler/second-scheduler/v1.13-v1.18 deploy/scheduler/second-scheduler/v1.19-v1.21 \
    deploy/scheduler/second-scheduler/v1.22 deploy/scheduler/second-scheduler/v1.23-and-later \
    deploy/scheduler/standalone; do
    run "kubectl apply -k $dir" 0 $K apply -k "$dir"
done
run "the extender Deployment is in the API" 0 $K get deployments -A -o name
contains "extender Deployment applied" out "deployment"
run "its ConfigMap carries the policy" 0 $K get configmaps -A -o json
contains "policy in the ConfigMap" out "GeneralPredicates"
run "RBAC objects applied" 0 $K get clusterroles -o name
contains "a ClusterRole for the cache" out "clusterrole"
kill "$api"
wait "$api" 2>/dev/null

finish
