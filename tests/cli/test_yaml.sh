#!/bin/sh
# test_yaml.sh: YAML wherever JSON is read from a file (the Policy, the pod,
# cluster snapshots), told from JSON and INI by content, with the answers
# the JSON gives; kubectl's own -o yaml / -o json of a v1.20.2 cluster
# (tests/data/kubectl/); syntax errors that name their cause and place.
. "$(dirname "$0")/lib.sh"
D=deploy/demo
K=tests/data/kubectl

# python3-yaml writes block YAML with sorted keys: "items" before "kind".
to_yaml() { # IN OUT
    python3 -c 'import json, sys, yaml
yaml.safe_dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"), default_flow_style=False)' "$1" "$2"
}
to_yaml "$D/policy.json" "$T_TMP/policy.yaml"
to_yaml "$D/cluster.json" "$T_TMP/cluster.yaml"
to_yaml "$D/pods/high-comm.json" "$T_TMP/high-comm.yaml"

# The Policy: the same effective configuration as its JSON.
run "check a YAML Policy" 0 "$KPE_BIN" check "$T_TMP/policy.yaml" --output json
sed -e '/"source":/d' -e '/"format":/d' "$T_TMP/out" >"$T_TMP/check-yaml.json"
contains "it is read as YAML" out '"format": "yaml"'
run "check the JSON Policy" 0 "$KPE_BIN" check "$D/policy.json" --output json
sed -e '/"source":/d' -e '/"format":/d' "$T_TMP/out" >"$T_TMP/check-json.json"
if cmp -s "$T_TMP/check-yaml.json" "$T_TMP/check-json.json"; then
    ok "YAML and JSON Policies resolve alike"
else
    not_ok "YAML and JSON Policies resolve alike" "$(diff "$T_TMP/check-json.json" "$T_TMP/check-yaml.json" | head -n 20)"
fi
# A name ending in .ini does not make YAML INI, nor .json YAML JSON.
cp "$T_TMP/policy.yaml" "$T_TMP/policy.ini"
run "a YAML Policy named .ini" 0 "$KPE_BIN" check "$T_TMP/policy.ini"
contains "content decides the format" out "valid (YAML"
printf '[policy]\npredicates = none\npriorities = none\n' >"$T_TMP/ini.json"
run "an INI Policy named .json" 0 "$KPE_BIN" check "$T_TMP/ini.json"
contains "INI by content" out "valid (INI"
printf 'these are not\nthe droids\n' >"$T_TMP/words.txt"
run "a file that is none of them" 1 "$KPE_BIN" check "$T_TMP/words.txt"
contains "says what it looked like" err \
    'words.txt: line 1: "these are not" looks like plain text'
printf '<?xml version="1.0"?>\n<policy/>\n' >"$T_TMP/p.xml"
run "an XML file" 1 "$KPE_BIN" check "$T_TMP/p.xml"
contains "XML is named" err 'p.xml: line 1: "<?xml version=\"1.0\"?>" looks like XML or HTML'

# Syntax errors name the cause, the place and the token.
printf 'kind: Policy\napiVersion: v1\npredicates:\n- name: PodFitsResources\n  argument\n    labelsPresence: {}\n' >"$T_TMP/bad.yaml"
run "a YAML Policy missing a colon" 1 "$KPE_BIN" check "$T_TMP/bad.yaml"
contains "YAML syntax error with line, column and token" err \
    "bad.yaml: invalid YAML at line 6, column 19: could not find expected ':' (while scanning a simple key at line 5, column 3) near \"argument\""
printf '{\n  "kind": "Policy",\n  "apiVersion": "v1",\n  "predicates": [\n    {"name": "PodFitsResources"},\n  ]\n}\n' >"$T_TMP/comma.json"
run "a JSON Policy with a trailing comma" 1 "$KPE_BIN" check "$T_TMP/comma.json"
contains "trailing comma is named" err \
    "comma.json: invalid JSON at byte 98 (line 6, column 3): trailing comma in array"
printf 'kind: Policy\napiVersion: v1\npriorities:\n- name: LeastRequestedPriority\n  weight: "1"\n' >"$T_TMP/type.yaml"
run "a YAML Policy with a string weight" 1 "$KPE_BIN" check "$T_TMP/type.yaml"
contains "decode errors keep the JSON path" err \
    'type.yaml: priorities[0].weight: expected an int64 number, got string "1"'

# A repeated key fails the load: v1.20-v1.22 decode the Policy file
# strictly (a real v1.20.2 says `key "predicates" already set in map`), in
# JSON as in YAML; keys differing only in case in extenders[] are fine there
# (the last wins). Documents after the first are ignored, even broken ones.
printf '{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"PodFitsResources"}],"predicates":[]}' >"$T_TMP/dup.json"
run "a JSON Policy with a repeated key" 1 "$KPE_BIN" check "$T_TMP/dup.json"
contains "the JSON repeat is named" err \
    'dup.json: predicates: key "predicates" already set in map (v1.22'"'"'s strict decoder refuses a Policy with a repeated key)'
printf '{"kind":"Policy","apiVersion":"v1","priorities":[{"name":"LeastRequestedPriority","weight":1,"weight":2}]}' >"$T_TMP/dupw.json"
run "a repeated key deep in a JSON Policy" 1 "$KPE_BIN" check "$T_TMP/dupw.json"
contains "its path is given" err 'dupw.json: priorities[0].weight: key "weight" already set in map'
printf '{"kind":"Policy","apiVersion":"v1","extenders":[{"urlPrefix":"http://a","URLPrefix":"http://b","filterVerb":"filter"}]}' >"$T_TMP/dupcase.json"
run "extender keys differing in case" 0 "$KPE_BIN" convert "$T_TMP/dupcase.json" --to json
contains "the last one wins" out '"urlPrefix": "http://b"'
printf 'kind: Policy\napiVersion: v1\npredicates:\n- name: PodFitsResources\npredicates: []\n' >"$T_TMP/dup.yaml"
run "a YAML Policy with a repeated key" 1 "$KPE_BIN" check "$T_TMP/dup.yaml"
contains "the YAML repeat is named with its line" err \
    'dup.yaml: line 5, column 1: key "predicates" already set in map (v1.22'"'"'s strict decoder refuses a Policy with a repeated key)'
printf 'kind: Policy\napiVersion: v1\npredicates:\n- name: PodFitsResources\n---\nkind: Other\nfoo: [\n' >"$T_TMP/multi.yaml"
run "a YAML Policy followed by a broken document" 0 "$KPE_BIN" check "$T_TMP/multi.yaml"
contains "the second document is said to be ignored" err \
    "only the first YAML document is the Policy; the rest is ignored"
contains "the first document is the Policy" out "PodFitsResources [file]"

# A syntax error never quotes a piece of an inline private key.
printf 'kind: Policy\napiVersion: v1\nextenders:\n- urlPrefix: https://x\n  tlsConfig:\n    keyData: "c2VjcmV0S0VZc2VjcmV0\n' >"$T_TMP/key.yaml"
run "a YAML Policy broken inside keyData" 1 "$KPE_BIN" check "$T_TMP/key.yaml"
contains "the cause and place are still given" err \
    "key.yaml: invalid YAML at line 7, column 1: found unexpected end of stream (while scanning a quoted scalar at line 6, column 14) (text not quoted: the file holds keyData)"
if grep -q "S0VZ" "$T_TMP/err"; then
    not_ok "no key text in the message" "$(cat "$T_TMP/err")"
else
    ok "no key text in the message"
fi

# explain: YAML cluster and pod answer as their JSON (golden files).
G=tests/golden/explain
run "explain on YAML (json)" 0 "$KPE_BIN" explain --policy "$T_TMP/policy.yaml" \
    --cluster "$T_TMP/cluster.yaml" --pod "$T_TMP/high-comm.yaml" --output json
golden "YAML policy, cluster and pod" "$G/high-comm.json"

# kubectl's YAML and JSON of one real cluster.
run "explain on kubectl -o json" 0 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster "$K/cluster.json" --pod "$K/pod.json"
cp "$T_TMP/out" "$T_TMP/kubectl-json.txt"
run "explain on kubectl -o yaml" 0 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster "$K/cluster.yaml" --pod "$K/pod.yaml"
golden "kubectl YAML answers as kubectl JSON" "$T_TMP/kubectl-json.txt"
contains "the pending pod fits rdma-1 only" out "Selected: rdma-1"
run "explain on a --- stream of kubectl -o yaml" 0 "$KPE_BIN" explain \
    --policy "$D/policy.json" --cluster "$K/stream.yaml" --pod "$K/pod.yaml"
contains "the stream has the same nodes" out "on 4 node(s), 1 feasible"

# serve --cluster with a YAML snapshot.
"$KPE_BIN" serve --listen 127.0.0.1:0 --policy "$T_TMP/policy.yaml" \
    --cluster "$T_TMP/cluster.yaml" 2>"$T_TMP/serve.log" &
srv=$!
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T_TMP/serve.log" 2>/dev/null | head -n 1)
    [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
done
python3 -c 'import json; print(json.dumps({"Pod": json.load(open("deploy/demo/pods/high-comm.json")),
  "Nodes": None, "NodeNames": ["rdma-1", "rdma-2", "general-1", "gpu-1", "cordoned-1"]}))' >"$T_TMP/req.json"
run "serve a YAML cluster: filter" 0 curl -sf -X POST "http://127.0.0.1:$port/filter" -d @"$T_TMP/req.json"
contains "only the RDMA nodes pass" out '"NodeNames":["rdma-1","rdma-2"]'
kill "$srv"
wait "$srv"

# Errors in snapshots name the file, the line and the path.
printf 'kind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: c\n      resources: {requests: {cpu: 1.5.3}}\n' >"$T_TMP/bad-cluster.yaml"
run "a YAML snapshot with a bad quantity" 1 "$KPE_BIN" explain \
    --policy "$D/policy.json" --cluster "$T_TMP/bad-cluster.yaml" --pod "$K/pod.yaml"
contains "the item's line and path" err \
    'bad-cluster.yaml: line 3, column 3: items[0].spec.containers[0].resources.requests.cpu: invalid quantity "1.5.3"'
run "an INI file as a cluster" 1 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster "$T_TMP/ini.json" --pod "$K/pod.yaml"
contains "INI is named" err "ini.json: looks like INI; expected Kubernetes objects in JSON or YAML"
finish
