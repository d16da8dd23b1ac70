#!/bin/sh
# snapshot_yaml.sh NODES: peak memory and time of `explain` on the same
# cluster snapshot as JSON and as YAML (kube-policy-extender reads a YAML
# snapshot one list item at a time from the file; JSON is read whole).
# The snapshot is shared/bench/gen_payload.py's (30 pods per node, seed 1);
# the YAML is python3-yaml's block style, written one item at a time with
# "kind" after "items" as kubectl writes it. Prints /usr/bin/time's figures.
set -eu
cd "$(dirname "$0")/.."
nodes=${1:-5000}
shared=${SHARED:-../shared/bench}
dir=${OUT:-/tmp/kpe-snapshot-yaml}/p$nodes
bin=bin/kube-policy-extender
mkdir -p "$dir"
[ -f "$dir/cluster.json" ] || python3 "$shared/gen_payload.py" --nodes "$nodes" \
    --pods-per-node 30 --seed 1 --out "$dir" >/dev/null
[ -f "$dir/cluster.yaml" ] || python3 - "$dir/cluster.json" "$dir/cluster.yaml" <<'PY'
import json, sys, yaml
s = open(sys.argv[1]).read()
d = json.JSONDecoder()
i = s.index('"items":[') + len('"items":[')
out = open(sys.argv[2], "w")
out.write("apiVersion: v1\nitems:\n")
while True:
    while s[i] in " \n\t,":
        i += 1
    if s[i] == "]":
        break
    obj, i = d.raw_decode(s, i)
    out.write(yaml.dump([obj], Dumper=yaml.CSafeDumper, default_flow_style=False))
out.write("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
PY
for f in json yaml; do
    /usr/bin/time -f "$f: %e s elapsed, %U s user, %M kB peak RSS ($(stat -c %s "$dir/cluster.$f") bytes)" \
        "$bin" explain --policy deploy/demo/policy.json --cluster "$dir/cluster.$f" \
        --pod "$dir/pod.json" --output json >"$dir/explain.$f"
done
cmp "$dir/explain.json" "$dir/explain.yaml" && echo "same answer from both"
