#!/bin/sh
# test_readme.sh: the README's and docs' examples work as written: the INI
# example of docs/policy-authors.md loads, and the README's five-minute
# walkthrough (serve the demo, filter a
# high-comm pod with curl, prioritize, explain) answers exactly what it
# shows: each output block is compared with the real output.
. "$(dirname "$0")/lib.sh"
D=deploy/demo

python3 - docs/policy-authors.md "$T_TMP/readme.ini" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.search(r"```ini\n(.*?)```", s, re.S).group(1))
PY
run "docs/policy-authors.md's INI example loads" 0 "$KPE_BIN" check "$T_TMP/readme.ini"
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

# readme_block WORD FILE: the README's output block that follows the first
# ```sh block containing WORD.
readme_block() {
    python3 - README.md "$1" "$2" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
blocks = re.findall(r"```(\w*)\n(.*?)```", s, re.S)
for i, (lang, body) in enumerate(blocks):
    if lang == "sh" and sys.argv[2] in body:
        open(sys.argv[3], "w").write(blocks[i + 1][1])
        break
else:
    sys.exit("no ```sh block with " + sys.argv[2])
PY
}
run "walkthrough: healthz" 0 curl -sf "$url/healthz"
contains "healthz says ok" out "ok"
run "walkthrough: version" 0 curl -sf "$url/version"
contains "version is JSON" out '"version":'
python3 -c 'import json; print(json.dumps({"Pod": json.load(open("deploy/demo/pods/high-comm.json")),
  "Nodes": None, "NodeNames": ["rdma-1", "rdma-2", "general-1", "gpu-1", "cordoned-1"]}))' >"$T_TMP/req.json"
run "walkthrough: filter" 0 sh -c \
    "curl -sf -X POST '$url/filter' -d @'$T_TMP/req.json' | python3 -m json.tool"
contains "only the RDMA nodes pass" out '"rdma-2"'
readme_block "/filter" "$T_TMP/want-filter"
golden "the README shows the real /filter answer" "$T_TMP/want-filter"
python3 -c 'import json; print(json.dumps({"Pod": json.load(open("deploy/demo/pods/high-comm.json")),
  "Nodes": None, "NodeNames": ["rdma-1", "rdma-2"]}))' >"$T_TMP/req2.json"
run "walkthrough: prioritize" 0 sh -c \
    "curl -sf -X POST '$url/prioritize' -d @'$T_TMP/req2.json'; echo"
contains "prioritize answers HostPriority items" out '{"Host":"rdma-1","Score":'
readme_block "/prioritize" "$T_TMP/want-prioritize"
golden "the README shows the real /prioritize answer" "$T_TMP/want-prioritize"
kill "$srv"
wait "$srv"
run "walkthrough: explain" 0 "$KPE_BIN" explain --policy "$D/policy.json" \
    --cluster "$D/cluster.json" --pod "$D/pods/high-comm.json"
contains "explain selects as the README says" out "Selected: rdma-2"
readme_block "bin/kube-policy-extender explain --policy deploy/demo/policy.json" \
    "$T_TMP/want-explain"
golden "the README shows the real explain output" "$T_TMP/want-explain"
finish
