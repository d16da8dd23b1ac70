#!/bin/sh
# test_readme.sh: the README's examples work as written: the INI example
# loads, and the five-minute walkthrough (serve the demo, filter a
# high-comm pod with curl, prioritize, explain) answers what it shows.
. "$(dirname "$0")/lib.sh"
D=deploy/demo

python3 - README.md "$T_TMP/readme.ini" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.search(r"```ini\n(.*?)```", s, re.S).group(1))
PY
run "README's INI example loads" 0 "$KPE_BIN" check "$T_TMP/readme.ini"
contains "INI example keeps its custom predicate" out "HighCommPodFilter"

"$KPE_BIN" serve --listen 127.0.0.1:0 --policy "$D/policy.json" \
    --cluster "$D/cluster.json" 2>"$T_TMP/serve.log" &
srv=$!
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T_TMP/serve.log" 2>/dev/null | head -n 1)
    [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
done
url="http://127.0.0.1:$port"
run "walkthrough: healthz" 0 curl -sf "$url/healthz"
contains "healthz says ok" out "ok"
run "walkthrough: version" 0 curl -sf "$url/version"
contains "version is JSON" out '"version":'
python3 -c 'import json; print(json.dumps({"Pod": json.load(open("deploy/demo/pods/high-comm.json")),
  "Nodes": None, "NodeNames": ["rdma-1", "rdma-2", "general-1", "gpu-1", "cordoned-1"]}))' >"$T_TMP/req.json"
run "walkthrough: filter" 0 curl -sf -X POST "$url/filter" -d @"$T_TMP/req.json"
contains "only the RDMA nodes pass" out '"NodeNames":["rdma-1","rdma-2"]'
contains "general-1 fails HighCommPodFilter" out '"general-1":"Node does not support RDMA"'
contains "cordoned-1 is unresolvable" out '"FailedAndUnresolvableNodes":{"gpu-1":'
run "walkthrough: prioritize" 0 curl -sf -X POST "$url/prioritize" -d @"$T_TMP/req.json"
contains "prioritize answers HostPriority items" out '{"Host":"rdma-1","Score":'
kill "$srv"
wait "$srv"
run "walkthrough: explain" 0 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster "$D/cluster.json" --pod "$D/pods/high-comm.json"
contains "explain selects as the README says" out "Selected: rdma-2"
contains "explain names the failing predicate" out \
    "general-1   no               -  HighCommPodFilter: Node does not support RDMA"
finish
