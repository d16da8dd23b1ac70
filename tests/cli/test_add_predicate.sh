#!/bin/sh
# test_add_predicate.sh: docs/extending.md's "Writing your own predicate in C",
# done for real on a copy of the tree. The copy gets exactly three things:
# the example predicate with an argument (tests/data/new_predicate/
# rack_pinning.c), its test, and one line in predicates/registry.c. Then
# it must build, its test must pass, and the Policy readers and writers
# (JSON and INI), check, list and explain must know the new name and its
# argument, with errors that name the path.
# Second case: a predicate made by copying predicates/high_comm.c (its
# name, reason and argument key renamed; the argument has defaults) is
# again its file, its test and one registry line, and the framework gives
# the copy its argument's defaults.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/tree"
W0="$T_TMP/pristine"
mkdir -p "$W" "$W0"
copy_tree "$W"
copy_tree "$W0"

# 1. one file of code, with its descriptor and argument schema
cp tests/data/new_predicate/rack_pinning.c "$W/predicates/rack_pinning.c"
# 2. one test
cp tests/data/new_predicate/test_pred_rack_pinning.c "$W/tests/"
# 3. one line in the table
sed -i 's|^    /\* one line per descriptor, above this one \*/|    X(rack_pinning) \\\n&|' \
    "$W/predicates/registry.c"
run "only the table line differs in the copy" 1 \
    diff -r -x rack_pinning.c -x test_pred_rack_pinning.c "$W0" "$W"
contains "the diff is one added line" out "> $(printf '    X(rack_pinning) \\')"
if [ "$(grep -c '^[<>]' "$T_TMP/out")" -eq 1 ]; then ok "nothing else changed"
else not_ok "nothing else changed" "$(head -c 400 "$T_TMP/out")"; fi

run "the copy builds" 0 make -C "$W" -s bin/kube-policy-extender \
    build/opt/tests/test_pred_rack_pinning
run "its test passes" 0 "$W/build/opt/tests/test_pred_rack_pinning"
B="$W/bin/kube-policy-extender"

run "list knows it" 0 "$B" list
contains "list: the row" out "  RackPinning [ours]"
contains "list: the doc line" out "pods labelled rack-pinned fit only"
contains "list: the argument" out "  rackPinning (predicate argument)"
contains "list: a field with its default" out \
    "label: string, default topology.example.com/rack"

cat >"$T_TMP/p.json" <<'JSON'
{"kind": "Policy", "apiVersion": "v1",
 "predicates": [{"name": "RackPinning",
                 "argument": {"rackPinning": {"racks": ["r1", "r2"]}}}],
 "priorities": []}
JSON
run "check reads the argument" 0 "$B" check "$T_TMP/p.json"
contains "check shows it" out "args: label=topology.example.com/rack racks=[r1, r2]"

run "convert to INI" 0 "$B" convert --to ini "$T_TMP/p.json"
cp "$T_TMP/out" "$T_TMP/p.ini"
contains "INI: a list is one line per item" out "rackPinning.racks = r2"
run "convert the INI back to JSON" 0 "$B" convert --to json "$T_TMP/p.ini"
cp "$T_TMP/out" "$T_TMP/back.json"
run "convert the JSON to JSON" 0 "$B" convert --to json "$T_TMP/p.json"
if cmp -s "$T_TMP/out" "$T_TMP/back.json"; then ok "JSON -> INI -> JSON is lossless"
else not_ok "JSON -> INI -> JSON is lossless" "$(diff "$T_TMP/out" "$T_TMP/back.json" | head -c 400)"; fi

sed 's/\["r1", "r2"\]/5/' "$T_TMP/p.json" >"$T_TMP/bad.json"
run "a wrong type is refused" 1 "$B" check "$T_TMP/bad.json"
contains "the error names the path" err \
    "predicates[0].argument.rackPinning.racks: expected an array of strings, got number 5"
printf '[predicate "RackPinning"]\nrackPinning.rack = r1\n' >"$T_TMP/bad.ini"
run "an unknown INI key is refused" 1 "$B" check "$T_TMP/bad.ini"
contains "the error lists the known keys" err \
    "(known: name, argument, serviceAffinity.labels, labelsPresence.labels, labelsPresence.presence, highComm.*, labelRule.*, rackPinning.label, rackPinning.racks)"

cat >"$T_TMP/cluster.json" <<'JSON'
{"kind": "List", "items": [
 {"kind": "Node", "metadata": {"name": "a", "labels": {"topology.example.com/rack": "r3"}},
  "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
 {"kind": "Node", "metadata": {"name": "b", "labels": {"topology.example.com/rack": "r2"}},
  "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}]}
JSON
printf '{"kind":"Pod","metadata":{"name":"p","namespace":"default","labels":{"rack-pinned":"yes"}},"spec":{"containers":[{"name":"c"}]}}' >"$T_TMP/pod.json"
run "explain runs it" 0 "$B" explain --policy "$T_TMP/p.json" \
    --cluster "$T_TMP/cluster.json" --pod "$T_TMP/pod.json"
contains "explain: the rack outside the list fails with the reason" out \
    "node(s) are not in the pod's racks"

# ---- 2. a copy of high_comm.c ----
W1="$T_TMP/before-copy"
mkdir -p "$W1"
tar -C "$W" --exclude=./build --exclude=./bin -cf - . | tar -C "$W1" -xf -
rename() { # the identity of the copy: name, descriptor, key, reason
    sed -e 's/HighCommPodFilter/GpuFabricFilter/g' \
        -e 's/pred_high_comm_pod_filter/pred_gpu_fabric_filter/g' \
        -e 's/"highComm"/"gpuFabric"/g' \
        -e 's/Node does not support RDMA/node(s) are off the GPU fabric/g' "$@"
}
rename predicates/high_comm.c >"$W/predicates/gpu_fabric.c"
rename tests/test_pred_high_comm.c >"$W/tests/test_pred_gpu_fabric.c"
sed -i 's|^    /\* one line per descriptor, above this one \*/|    X(gpu_fabric_filter) \\\n&|' \
    "$W/predicates/registry.c"
run "the copy: only the table line differs" 1 diff -r -x build -x bin \
    -x gpu_fabric.c -x test_pred_gpu_fabric.c "$W1" "$W"
contains "the copy: the diff is one added line" out \
    "> $(printf '    X(gpu_fabric_filter) \\')"
if [ "$(grep -c '^[<>]' "$T_TMP/out")" -eq 1 ]; then ok "the copy: nothing else changed"
else not_ok "the copy: nothing else changed" "$(head -c 400 "$T_TMP/out")"; fi
run "the copy builds" 0 make -C "$W" -s bin/kube-policy-extender \
    build/opt/tests/test_pred_gpu_fabric
run "the copy's test passes" 0 "$W/build/opt/tests/test_pred_gpu_fabric"
run "list knows the copy" 0 "$B" list
contains "list: the copy's row" out "  GpuFabricFilter [ours]"
contains "list: the copy's argument" out "  gpuFabric (predicate argument)"
contains "list: its default" out "podLabel: string, default high-comm"
printf '{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"GpuFabricFilter"}],"priorities":[]}' \
    >"$T_TMP/copy.json"
run "check: the copy without an argument" 0 "$B" check "$T_TMP/copy.json"
contains "check shows the defaults it runs with" out \
    "args: podLabel=high-comm nodeLabel=node.kubernetes.io/rdma-enabled nodeLabelValue=true"
printf '{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"Fabric","argument":{"gpuFabric":{"nodeLabel":"topology.example.com/rack","nodeLabelValue":"r2"}}}],"priorities":[]}' \
    >"$T_TMP/copy-arg.json"
printf '{"kind":"Pod","metadata":{"name":"p","namespace":"default","labels":{"high-comm":""}},"spec":{"containers":[{"name":"c"}]}}' >"$T_TMP/hc-pod.json"
run "explain: the copy under a custom name, by its key" 0 "$B" explain \
    --policy "$T_TMP/copy-arg.json" --cluster "$T_TMP/cluster.json" \
    --pod "$T_TMP/hc-pod.json"
contains "explain: the copy's reason on the other rack" out \
    "Fabric: node(s) are off the GPU fabric"
contains "explain: the default pod label with the given node label" out \
    "Selected: b"
finish
