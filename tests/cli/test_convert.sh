#!/bin/sh
# test_convert.sh: `kube-policy-extender convert` to JSON, INI and
# KubeSchedulerConfiguration (golden files in tests/golden/convert/).
. "$(dirname "$0")/lib.sh"
G=tests/golden/convert
V1=kubescheduler.config.k8s.io/v1

for name in v122-defaults reference-10.2-custom seed-002-custom \
    openshift-region-zone high-comm-rdma extenders-tls compat-1.16; do
    run "convert $name (v1beta2)" 0 "$KPE_BIN" convert \
        "tests/policies/$name.json" --to kubeschedulerconfiguration
    golden "convert $name (v1beta2)" "$G/$name.v1beta2.yaml"
    run "convert $name (v1beta2) is YAML" 0 python3 -c \
        'import yaml,sys; d=yaml.safe_load(open(sys.argv[1])); assert d["kind"]=="KubeSchedulerConfiguration"' \
        "$G/$name.v1beta2.yaml"
    run "convert $name (v1)" 0 "$KPE_BIN" convert "tests/policies/$name.json" \
        --to kubeschedulerconfiguration --api-version "$V1"
    golden "convert $name (v1)" "$G/$name.v1.yaml"
done

run "--extender-url" 0 "$KPE_BIN" convert tests/policies/seed-002-custom.json \
    --to KubeSchedulerConfiguration --extender-url http://kpe.kube-system:8888
contains "--extender-url is used" out 'urlPrefix: http://kpe.kube-system:8888'
contains "custom predicate goes to the extender" out '#   filter: PodFitsHostNew'

run "legacy names go to the extender" 0 "$KPE_BIN" convert --compat legacy \
    tests/policies/legacy/openshift-3.7.json --to kubeschedulerconfiguration
golden "legacy names go to the extender" "$G/legacy-openshift-3.7.v1beta2.yaml"

run "to ini" 0 "$KPE_BIN" convert tests/policies/reference-10.2-custom.json --to ini
golden "to ini" "$G/reference-10.2-custom.ini"
cp "$T_TMP/out" "$T_TMP/rt.ini"
run "to json" 0 "$KPE_BIN" convert tests/policies/reference-10.2-custom.json --to json
golden "to json" "$G/reference-10.2-custom.json"
cp "$T_TMP/out" "$T_TMP/a.json"
run "ini back to json" 0 "$KPE_BIN" convert "$T_TMP/rt.ini" --to json
if cmp -s "$T_TMP/out" "$T_TMP/a.json"; then
    ok "JSON -> INI -> JSON is lossless"
else
    not_ok "JSON -> INI -> JSON is lossless" "$(diff "$T_TMP/a.json" "$T_TMP/out" | head)"
fi

run "missing --to" 2 "$KPE_BIN" convert tests/policies/v122-defaults.json
run "bad --to" 2 "$KPE_BIN" convert tests/policies/v122-defaults.json --to yaml
run "bad --api-version" 2 "$KPE_BIN" convert tests/policies/v122-defaults.json \
    --to kubeschedulerconfiguration --api-version kubescheduler.config.k8s.io/v1beta1
run "invalid policy" 1 "$KPE_BIN" convert tests/policies/legacy/v1.13-defaults.json --to json
finish
