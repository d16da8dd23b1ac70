#!/bin/sh
# test_plugin_accessors.sh: every accessor of the plugin host tells the
# truth (issue 26). tests/data/plugins/accessor_probe.c registers one
# priority per accessor that scores a node with what the accessor returns;
# `explain --output json` runs them on one pod and a small cluster (a node
# with two pods and an extended resource, a cordoned node with one pod),
# and tests/data/plugins/accessors/check.py compares each score with the
# value computed from the same files as plugin.h documents it, including
# "pods" counts: 1 for a pod, the pods on a node.
. "$(dirname "$0")/lib.sh"
D=tests/data/plugins/accessors
PL="$T_TMP/plugins"
mkdir -m 0755 "$PL"
run "build the probe plugin" 0 ${CC_PLUGIN:-cc} -shared -fPIC -O2 -Wall \
    -Wextra -Werror -Iinclude -o "$PL/probe.so" tests/data/plugins/accessor_probe.c

python3 - "$T_TMP/policy.json" <<'PY'
import json, re, sys
src = open("tests/data/plugins/accessor_probe.c").read()
names = re.findall(r'^    ROW\("(\w+)"', src, re.M)
json.dump({"kind": "Policy", "apiVersion": "v1", "predicates": [],
           "priorities": [{"name": n, "weight": 1} for n in names]},
          open(sys.argv[1], "w"))
PY
# Every accessor of the header is probed.
missing=""
for a in $(sed -n 's/.*(\*\([a-z_]*\))(const struct kpe_\(pod\|node\) \*.*/\1/p' \
    include/kube-policy-extender/plugin.h); do
    grep -q "host->$a(" tests/data/plugins/accessor_probe.c || missing="$missing $a"
done
if [ -z "$missing" ]; then ok "the probe reads every accessor of plugin.h"
else not_ok "the probe reads every accessor of plugin.h" "missing:$missing"; fi

run "explain runs every probe" 0 "$KPE_BIN" explain --plugin "$PL/probe.so" \
    --policy "$T_TMP/policy.json" --cluster "$D/cluster.json" \
    --pod "$D/pod.json" --output json
cp "$T_TMP/out" "$T_TMP/explain.json"
run "every accessor agrees with the files" 0 python3 "$D/check.py" \
    "$D/cluster.json" "$D/pod.json" "$T_TMP/explain.json"
contains "both nodes, 19 accessors each" out "38 values checked, 0 wrong"
finish
