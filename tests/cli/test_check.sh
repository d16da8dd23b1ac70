#!/bin/sh
# test_check.sh: `kube-policy-extender check` exit codes and output
# (golden files in tests/golden/check/).
. "$(dirname "$0")/lib.sh"
G=tests/golden/check

for name in v122-defaults reference-10.2-custom seed-002-custom \
    openshift-region-zone high-comm-rdma extenders-tls compat-1.1; do
    run "check $name" 0 "$KPE_BIN" check "tests/policies/$name.json"
    golden "check $name" "$G/$name.txt"
done

run "check INI form" 0 "$KPE_BIN" check tests/policies/reference-10.2-custom.ini
golden "check INI form" "$G/reference-10.2-custom.ini.txt"

run "check --output json" 0 "$KPE_BIN" check --output json \
    tests/policies/reference-10.2-custom.json
golden "check --output json" "$G/reference-10.2-custom.json.json"
run "check --output json is JSON" 0 python3 -c \
    'import json,sys; d=json.load(open(sys.argv[1])); assert d["valid"]' \
    "$G/reference-10.2-custom.json.json"

run "legacy policy without compat" 1 "$KPE_BIN" check \
    tests/policies/legacy/v1.13-defaults.json
contains "legacy refusal keeps v1.22's text" err \
    'predicate type not found for "CheckNodeCondition"'
run "legacy policy with --compat legacy" 0 "$KPE_BIN" check --compat legacy \
    tests/policies/legacy/v1.13-defaults.json
golden "legacy policy with --compat legacy" "$G/legacy-v1.13-defaults.txt"

printf '%s' '{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"PodFitsHostNw"}]}' \
    >"$T_TMP/bad.json"
run "invalid policy" 1 "$KPE_BIN" check "$T_TMP/bad.json"
contains "invalid policy: location and suggestion" err \
    'bad.json: predicates[0].name: predicate type not found for "PodFitsHostNw"; did you mean "PodFitsHostNew"?'
run "invalid policy, --output json" 1 "$KPE_BIN" check --output json \
    "$T_TMP/bad.json"
contains "invalid policy, JSON verdict" out '"valid": false'

# An unknown key is refused, as kube-scheduler v1.20-v1.22's strict
# decoder refuses it (docs/VERSION-SEMANTICS.md, "Policy decoding").
printf '%s' '{"kind":"Policy","apiVersion":"v1","predicate":[]}' >"$T_TMP/warn.json"
for sem in 1.20 1.21 1.22; do
    run "unknown key is refused as $sem" 1 "$KPE_BIN" check --semantics $sem \
        "$T_TMP/warn.json"
    contains "the unknown key is named as $sem" err \
        'predicate: unknown field "predicate" (kube-scheduler'"'"'s strict decoder refuses the Policy: found unknown field: predicate); did you mean "predicates"?'
done
printf 'kind: Policy\napiVersion: v1\nPriorities: []\n' >"$T_TMP/unknown.yaml"
run "unknown key in YAML is refused" 1 "$KPE_BIN" check "$T_TMP/unknown.yaml"
contains "the YAML key is named" err 'found unknown field: Priorities'
printf '%s' '{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"PodFitsHostPorts","argumnt":{}}]}' >"$T_TMP/unknown-nested.json"
run "unknown nested key is refused" 1 "$KPE_BIN" check "$T_TMP/unknown-nested.json"
contains "the nested key is named with its path" err \
    'predicates[0].argumnt: unknown field "argumnt"'

run "no policy is a usage error" 2 "$KPE_BIN" check
run "bad --output is a usage error" 2 "$KPE_BIN" check --output yaml \
    tests/policies/v122-defaults.json
run "unknown option is a usage error" 2 "$KPE_BIN" check --frobnicate x \
    tests/policies/v122-defaults.json
run "bad --compat is a usage error" 2 "$KPE_BIN" check --compat old \
    tests/policies/v122-defaults.json
# --semantics (issue 25): the release a Policy is evaluated as, printed.
run "check --semantics 1.20" 0 "$KPE_BIN" check --semantics 1.20 \
    tests/policies/v122-defaults.json
contains "check prints the semantics" out "semantics 1.20)"
run "check --semantics 1.21 --output json" 0 "$KPE_BIN" check \
    --semantics 1.21 --output json tests/policies/v122-defaults.json
contains "check JSON carries the semantics" out '"semantics": "1.21"'
run "bad --semantics is a usage error" 2 "$KPE_BIN" check --semantics 1.19 \
    tests/policies/v122-defaults.json
contains "bad --semantics names the option and the accepted values" err \
    '--semantics: invalid value "1.19": expected 1.20, 1.21 or 1.22'
run "missing file" 1 "$KPE_BIN" check tests/policies/does-not-exist.json
run "--help" 0 "$KPE_BIN" check --help
finish
