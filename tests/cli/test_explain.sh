#!/bin/sh
# test_explain.sh: `kube-policy-extender explain` usage, errors, and golden
# outputs on the bundled demo cluster (tests/golden/explain/).
. "$(dirname "$0")/lib.sh"
D=deploy/demo

run "explain --help" 0 "$KPE_BIN" explain --help
contains "help names every option" out "--cluster FILE"
run "explain without --pod" 2 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster "$D/cluster.json"
contains "missing options are named" err "--policy, --cluster and --pod"
run "explain with a bad --output" 2 "$KPE_BIN" explain --output yaml
contains "bad --output is quoted" err '"yaml"'
run "explain with a missing cluster file" 1 "$KPE_BIN" explain \
    --policy "$D/policy.json" --cluster /nonexistent.json \
    --pod "$D/pods/web.json"
contains "missing file is named" err "/nonexistent.json: No such file"
printf '{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1.5.3"}}}]}}' >"$T_TMP/bad-pod.json"
run "explain with an invalid pod" 1 "$KPE_BIN" explain \
    --policy "$D/policy.json" --cluster "$D/cluster.json" \
    --pod "$T_TMP/bad-pod.json"
contains "invalid pod names file, path and value" err \
    'bad-pod.json: spec.containers[0].resources.requests.cpu: invalid quantity "1.5.3"'
run "explain with an invalid policy" 1 "$KPE_BIN" explain \
    --policy tests/policies/legacy/v1.13-defaults.json \
    --cluster "$D/cluster.json" --pod "$D/pods/web.json"
contains "policy error is v1.22's" err 'predicate type not found for "CheckNodeCondition"'

finish
