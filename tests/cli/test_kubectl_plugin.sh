#!/bin/sh
# test_kubectl_plugin.sh: `make install` also installs kubectl-policy, and
# kubectl runs it as a plugin: `kubectl policy explain pod/NAME -n NS`,
# `kubectl policy simulate FILE --replicas N`, `kubectl policy diff
# --policy B` (A: the installed Policy), the installed Policy found beside
# the binary when --policy is not given.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/whatif_cluster.sh"
R="$T_TMP/root"
run "make install DESTDIR" 0 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
    make -s install DESTDIR="$R" PREFIX=/usr BIN="$KPE_BIN"
if [ -x "$R/usr/bin/kubectl-policy" ]; then ok "kubectl-policy is installed"
else not_ok "kubectl-policy is installed" "$(ls -l "$R/usr/bin")"; fi
KP() { env PATH="$R/usr/bin:$PATH" kubectl policy "$@"; }
run "kubectl plugin list finds it" 0 env PATH="$R/usr/bin:$PATH" \
    kubectl plugin list
contains "the plugin is listed" out "kubectl-policy"
run "kubectl policy explain pod/NAME -n NS" 0 KP explain pod/db-0 -n default \
    --cluster deploy/demo/cluster.json
contains "the positional pod is explained" out "Pod default/db-0 on 5 node(s)"
"$KPE_BIN" explain --policy "$R/usr/share/kube-policy-extender/policy.json" \
    --cluster deploy/demo/cluster.json --pod default/db-0 >"$T_TMP/direct"
if cmp -s "$T_TMP/out" "$T_TMP/direct"; then
    ok "with the installed Policy when --policy is not given"
else
    not_ok "with the installed Policy when --policy is not given" \
        "$(diff "$T_TMP/direct" "$T_TMP/out" | head -5)"
fi
run "kubectl policy simulate FILE --replicas 2" 0 KP simulate \
    "$W/one-cpu.json" --replicas 2 --policy "$W/least.json" \
    --cluster "$W/cluster.json"
contains "the file is the pod" out "Placed 2 of 2 pod(s)"
run "kubectl policy diff --policy B (A installed)" 0 KP diff \
    --policy "$R/usr/share/kube-policy-extender/policy.json" \
    --cluster deploy/demo/cluster.json --replay
contains "A is the installed Policy" out \
    "A: $R/usr/bin/../share/kube-policy-extender/policy.json"
run "KUBECTL_POLICY_FILE chooses the Policy" 0 env \
    KUBECTL_POLICY_FILE="$W/least.json" PATH="$R/usr/bin:$PATH" kubectl \
    policy explain pod/pending --cluster "$W/cluster.json"
contains "the file's Policy is used" out "LeastRequestedPriority="
# --x=y as every command reads it: --policy=FILE is a Policy given, and
# the word after --cluster=FILE is the pod, not a value.
run "kubectl policy simulate --policy=P --cluster=C FILE" 0 KP simulate \
    --policy="$W/least.json" --cluster="$W/cluster.json" "$W/one-cpu.json" \
    --replicas=2
contains "--policy=P is not doubled by the installed one" out "Placed 2 of 2 pod(s)"
run "kubectl policy diff --policy=B (A installed)" 0 KP diff \
    --policy="$R/usr/share/kube-policy-extender/policy.json" \
    --cluster=deploy/demo/cluster.json --replay
contains "--policy=B counts as one side" out \
    "A: $R/usr/bin/../share/kube-policy-extender/policy.json"
run "kubectl policy without a command" 0 KP
contains "the usage is shown" out "Commands:"
finish
