#!/bin/sh
# test_diff.sh: `diff` places the same pods under two Policies, or a
# Policy and a KubeSchedulerConfiguration profile (policy/ksc_read.c),
# reports the pods that land differently and exits 1 when any does; the
# property that a Policy and its own `convert --to
# kubeschedulerconfiguration` (with, in the split shape, the Policy its
# extender serves) show no difference, on the bundled clusters and on a
# generated 100-node bench cluster, replayed; later KSC versions and what
# no Policy can say are refused with the place and the cause.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/whatif_cluster.sh"
C="--cluster $W/cluster.json"
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$T_TMP/out" "$1"; }

run "diff --help" 0 "$KPE_BIN" diff --help
contains "help names --replay" out "--replay"
run "diff with one policy" 2 "$KPE_BIN" diff --policy "$W/least.json" $C
contains "two sides are asked for" err "give two --policy, or one --policy and --config"
run "diff --profile without --config" 2 "$KPE_BIN" diff \
    --policy "$W/least.json" --policy "$W/most.json" --profile x $C
contains "--profile needs --config" err "--profile names a profile of --config"

# Least vs most requested: the 0.5-CPU pod follows the 1.5-CPU one under
# MostRequested, goes to the idle node under LeastRequested.
run "least vs most, pending pods" 1 "$KPE_BIN" diff --policy "$W/least.json" \
    --policy "$W/most.json" $C --output json
contains "one pod lands differently" out '"differences": 1'
moved=$(jget '[p["pod"] for p in d["placements"] if p["differs"]]')
[ "$moved" = "['default/small']" ] && ok "the moved pod is named" ||
    not_ok "the moved pod is named" "got $moved"
same=$(jget '[p["a"] == p["b"] for p in d["placements"] if p["pod"] == "default/pending"]')
[ "$same" = "[True]" ] && ok "the pod that stays is not reported as moved" ||
    not_ok "the pod that stays is not reported as moved" "got $same"
ab=$(jget '[sum(n[k]["cpu"] for n in d["nodes"]) for k in ("before", "a", "b")]')
[ "$ab" = "[1000, 3000, 3000]" ] && ok "utilisation before, under A and under B" ||
    not_ok "utilisation before, under A and under B" "got $ab"
run "least vs most, text" 1 "$KPE_BIN" diff --policy "$W/least.json" \
    --policy "$W/most.json" $C
contains "text names the count" out "1 of 2 pod(s) land differently."
contains "text lists the moved pod" out "default/small"
run "the same Policy twice" 0 "$KPE_BIN" diff --policy "$W/least.json" \
    --policy "$W/least.json" $C --replay
contains "no difference on a replay" out "No difference"
run "replay counts every pod" 0 "$KPE_BIN" diff --policy "$W/most.json" \
    --policy "$W/most.json" $C --replay --output json
contains "three pods replayed" out '"pods": 3'

# A profile read back: MostAllocated scoring is MostRequestedPriority.
cat >"$T_TMP/most-v1beta2.yaml" <<'Y'
apiVersion: kubescheduler.config.k8s.io/v1beta2
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: packer
  plugins:
    score:
      disabled: [{name: "*"}]
      enabled: [{name: NodeResourcesFit, weight: 1}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
Y
run "a v1beta2 MostAllocated profile vs MostRequestedPriority" 0 \
    "$KPE_BIN" diff --policy "$W/most.json" --config "$T_TMP/most-v1beta2.yaml" $C
run "the same profile vs LeastRequestedPriority" 1 \
    "$KPE_BIN" diff --policy "$W/least.json" --config "$T_TMP/most-v1beta2.yaml" $C
contains "the profile is named with its schedulerName" out \
    "most-v1beta2.yaml (profile packer)"
cat >"$T_TMP/most-v1beta1.yaml" <<'Y'
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    score:
      disabled: [{name: "*"}]
      enabled: [{name: NodeResourcesMostAllocated, weight: 1}]
Y
run "a v1beta1 NodeResourcesMostAllocated profile" 0 "$KPE_BIN" diff \
    --policy "$W/most.json" --config "$T_TMP/most-v1beta1.yaml" $C
run "a profile not in the file" 1 "$KPE_BIN" diff --policy "$W/most.json" \
    --config "$T_TMP/most-v1beta2.yaml" --profile nope $C
contains "the profiles are listed" err 'no profile "nope" (profiles: "packer")'
sed 's/v1beta2/v1beta3/' "$T_TMP/most-v1beta2.yaml" >"$T_TMP/v1beta3.yaml"
run "a v1beta3 configuration" 1 "$KPE_BIN" diff --policy "$W/most.json" \
    --config "$T_TMP/v1beta3.yaml" $C
contains "later versions are refused clearly" err \
    "apiVersion: kubescheduler.config.k8s.io/v1beta3 is not read: this project implements the plugins of v1beta1 and v1beta2"
sed 's/v1beta2/v1/' "$T_TMP/most-v1beta2.yaml" >"$T_TMP/v1.yaml"
run "a v1 configuration" 1 "$KPE_BIN" diff --policy "$W/most.json" \
    --config "$T_TMP/v1.yaml" $C
contains "v1 is refused too" err "kubescheduler.config.k8s.io/v1 is not read"
sed 's/NodeResourcesFit, weight/Foo, weight/' "$T_TMP/most-v1beta2.yaml" \
    >"$T_TMP/foo.yaml"
run "an unknown score plugin" 1 "$KPE_BIN" diff --policy "$W/most.json" \
    --config "$T_TMP/foo.yaml" $C
contains "the plugin and its place are named" err \
    'foo.yaml: profiles[0].plugins.score.enabled[0]: score plugin "Foo" has no Policy priority'
sed 's/type: MostAllocated/type: Nope/' "$T_TMP/most-v1beta2.yaml" \
    >"$T_TMP/nope.yaml"
run "an unknown scoring strategy" 1 "$KPE_BIN" diff --policy "$W/most.json" \
    --config "$T_TMP/nope.yaml" $C
contains "the strategy is quoted" err 'scoringStrategy type "Nope"'
sed 's/name: cpu, weight: 1/name: cpu, weight: 3/' "$T_TMP/most-v1beta2.yaml" \
    >"$T_TMP/w3.yaml"
run "resource weights no Policy can say" 1 "$KPE_BIN" diff \
    --policy "$W/most.json" --config "$T_TMP/w3.yaml" $C
contains "the weights are refused" err \
    "with resources other than cpu=1, memory=1 has no Policy equivalent"
printf 'kind: Policy\napiVersion: v1\n' >"$T_TMP/notksc.yaml"
run "a Policy given as --config" 1 "$KPE_BIN" diff --policy "$W/most.json" \
    --config "$T_TMP/notksc.yaml" $C
contains "the kind is named" err \
    'kind: expected KubeSchedulerConfiguration, got "Policy"'

# The property: a Policy and its own convert show no difference.
prop() { # NAME POLICY CLUSTER
    "$KPE_BIN" convert "$2" --to kubeschedulerconfiguration >"$T_TMP/p.yaml" &&
        "$KPE_BIN" convert "$2" --to extender-policy >"$T_TMP/x.json" || {
        not_ok "$1: convert" "$2"; return; }
    xp=""
    grep -q '^extenders:' "$T_TMP/p.yaml" && xp="--extender-policy $T_TMP/x.json"
    for mode in "" --replay; do
        # shellcheck disable=SC2086
        run "$1 $mode: Policy vs its KubeSchedulerConfiguration" 0 \
            "$KPE_BIN" diff --policy "$2" --config "$T_TMP/p.yaml" $xp \
            --cluster "$3" $mode --output json
    done
    if [ -n "$xp" ]; then
        "$KPE_BIN" convert "$2" --to scheduler-policy >"$T_TMP/s.json"
        run "$1: Policy vs its split shape" 0 "$KPE_BIN" diff --policy "$2" \
            --policy "$T_TMP/s.json" $xp --cluster "$3" --replay
    fi
}
prop "least" "$W/least.json" "$W/cluster.json"
prop "most" "$W/most.json" "$W/cluster.json"
prop "demo policy" deploy/demo/policy.json deploy/demo/cluster.json
prop "deploy policy" deploy/policy/policy.json deploy/demo/cluster.json
prop "v1.22 defaults" tests/policies/v122-defaults.json deploy/demo/cluster.json
run "a profile with an extender and no --extender-policy" 1 "$KPE_BIN" diff \
    --policy deploy/policy/policy.json --config "$T_TMP/p.yaml" \
    --cluster deploy/demo/cluster.json
contains "the extender is named with the way out" err \
    "the profile calls an extender (http://127.0.0.1:8888)"
if [ -f ../shared/bench/gen_payload.py ]; then
    python3 ../shared/bench/gen_payload.py --nodes 100 --pods-per-node 30 \
        --seed 1 --out "$T_TMP/bench" >/dev/null
    prop "bench 100 nodes" deploy/policy/policy.json "$T_TMP/bench/cluster.json"
    contains "every bench pod was replayed" out "No difference"
else
    not_ok "the bench generator" "../shared/bench/gen_payload.py not found"
fi
finish
