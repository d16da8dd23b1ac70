#!/bin/sh
# test_plugins.sh: loadable plugins (issue 17). Builds the two examples of
# examples/plugins/ with the one-line cc command of docs/extending.md (against the
# header as `make install` installs it), names them in a Policy, and runs
# them through list, check, convert, explain, serve (filter and prioritize,
# full Node objects and node names, /metrics, the config file, a SIGHUP
# reload that keeps them) and schedule on the API-server double. Then
# every refusal, with its exact message: a missing file, not a shared
# object, no entry point, no magic, another API version, a failing init,
# names that clash with a built-in (name, alias, plugin) or another
# plugin, a taken argument key, a group-writable file and a world-writable
# folder; each leaves nothing loaded and nothing served.
. "$(dirname "$0")/lib.sh"
D=deploy/demo
POL=tests/data/plugins/policy.json
PIDS=""
cleanup() { for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; }
trap 'cleanup; rm -rf "$T_TMP"' EXIT

# ---- build, as docs/extending.md "A loadable plugin" says ----
PREFIX_DIR="$T_TMP/prefix"
mkdir -p "$PREFIX_DIR/include/kube-policy-extender"
install -m 0644 include/kube-policy-extender/plugin.h \
    "$PREFIX_DIR/include/kube-policy-extender/plugin.h"
PL="$T_TMP/plugins"
mkdir -m 0755 "$PL"
CC=${CC_PLUGIN:-cc}
run "build rdma_filter.so with one cc line" 0 $CC -shared -fPIC -O2 \
    -Wall -Wextra -Werror -I"$PREFIX_DIR/include" -o "$PL/rdma_filter.so" \
    examples/plugins/rdma_filter.c
run "build rdma_score.so with one cc line" 0 $CC -shared -fPIC -O2 \
    -Wall -Wextra -Werror -I"$PREFIX_DIR/include" -o "$PL/rdma_score.so" \
    examples/plugins/rdma_score.c
run "the header compiles as C++ too" 0 sh -c \
    "echo '#include <kube-policy-extender/plugin.h>' | ${CXX:-g++} -x c++ -fsyntax-only -Wall -Werror -I'$PREFIX_DIR/include' -"
P="--plugin $PL/rdma_filter.so --plugin=$PL/rdma_score.so"

# ---- list, check, convert, explain ----
run "list with plugins" 0 "$KPE_BIN" list $P
contains "list shows the plugin predicate" out "RdmaAware [ours plugin]"
contains "list shows the plugin priority" out "RdmaAwareScore [ours plugin]"
contains "list shows the plugin's argument" out "rdmaAware (predicate argument)"
contains "list explains the flag" out "plugin = loaded from a shared object (--plugin)."
run "list without plugins" 0 "$KPE_BIN" list
if grep -q "ours plugin" "$T_TMP/out"; then
    not_ok "nothing of a plugin without --plugin"; else
    ok "nothing of a plugin without --plugin"; fi

run "check a Policy naming plugin names" 0 "$KPE_BIN" check $P "$POL"
contains "check runs the plugin predicate" out "4. RdmaAware [file]"
contains "check shows its argument" out \
    "args: podLabel=high-comm nodeLabel=node.kubernetes.io/rdma-enabled nodeLabelValue=true"
contains "check shows the plugin priority" out "RdmaAwareScore weight 2 [file]"
run "check without the plugins" 1 "$KPE_BIN" check "$POL"
# Without the plugin its argument key is unknown: the strict decoder
# refuses the Policy before names are resolved.
contains "an unloaded plugin's argument is unknown" err \
    'predicates[1].argument.rdmaAware: unknown field "rdmaAware"'

run "convert --to extender-policy" 0 "$KPE_BIN" convert $P "$POL" --to extender-policy
contains "plugin predicate goes to the extender" out '{"name": "RdmaAware", "argument": {"rdmaAware": {"nodeLabel": "node.kubernetes.io/rdma-enabled"}}}'
contains "plugin priority goes to the extender" out '{"name": "RdmaAwareScore", "weight": 2}'
run "convert --to scheduler-policy" 0 "$KPE_BIN" convert $P "$POL" --to scheduler-policy
if grep -q Rdma "$T_TMP/out"; then
    not_ok "kube-scheduler's Policy lacks the plugin names"; else
    ok "kube-scheduler's Policy lacks the plugin names"; fi
contains "the extender entry carries the plugin weight" out '"weight": 2'
run "convert --to ini" 0 "$KPE_BIN" convert $P "$POL" --to ini
cp "$T_TMP/out" "$T_TMP/policy.ini"
contains "the INI has the plugin's argument" out "rdmaAware.nodeLabel = node.kubernetes.io/rdma-enabled"
run "the INI reads back" 0 "$KPE_BIN" check $P "$T_TMP/policy.ini"
contains "the INI runs the plugin predicate" out "4. RdmaAware [file]"

run "explain a high-comm pod" 0 "$KPE_BIN" explain $P --policy "$POL" \
    --cluster "$D/cluster.json" --pod "$D/pods/high-comm.json"
contains "the plugin filter rejects a node without RDMA" out \
    "general-1   no               -  RdmaAware: Node does not support RDMA"
contains "the plugin score is shown" out "RdmaAwareScore=100"
contains "an RDMA node is selected" out "Selected: rdma-2"
run "explain a web pod" 0 "$KPE_BIN" explain $P --policy "$POL" \
    --cluster "$D/cluster.json" --pod "$D/pods/web.json"
contains "the plugin filter passes other pods" out "general-1   yes"
contains "other pods leave RDMA nodes free" out "Selected: general-1"

# ---- serve: full objects and node names ----
# start_serve LOG ARGS...: sets $url once /readyz answers.
start_serve() {
    log=$1
    shift
    "$KPE_BIN" serve --listen 127.0.0.1:0 "$@" 2>"$log" &
    srv=$!
    PIDS="$PIDS $srv"
    port=""
    for _ in $(seq 1 100); do
        port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$log" | head -n 1)
        [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
        sleep 0.1
    done
    url="http://127.0.0.1:$port"
}
cp "$POL" "$T_TMP/policy.json"
start_serve "$T_TMP/serve.log" $P --policy "$T_TMP/policy.json" \
    --cluster "$D/cluster.json"
run "serve is ready with plugins" 0 curl -sf "$url/readyz"
python3 - "$D" "$T_TMP" <<'PY'
import json, sys
d, t = sys.argv[1], sys.argv[2]
nodes = [i for i in json.load(open(d + "/cluster.json"))["items"] if i["kind"] == "Node"]
names = [n["metadata"]["name"] for n in nodes]
for p in ("high-comm", "web"):
    pod = json.load(open("%s/pods/%s.json" % (d, p)))
    json.dump({"Pod": pod, "Nodes": {"items": nodes}, "NodeNames": None},
              open("%s/full-%s.json" % (t, p), "w"))
    json.dump({"Pod": pod, "Nodes": None, "NodeNames": names},
              open("%s/names-%s.json" % (t, p), "w"))
PY
# verdict FILE: "feasible|failed node: reason,..." from a filter answer.
verdict() {
    python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
ok = r.get("NodeNames") or [n["metadata"]["name"] for n in (r.get("Nodes") or {}).get("items", [])]
print("feasible=" + ",".join(ok))
for k, v in sorted((r.get("FailedNodes") or {}).items()): print("failed %s: %s" % (k, v))
for k, v in sorted((r.get("FailedAndUnresolvableNodes") or {}).items()): print("unresolvable %s: %s" % (k, v))' "$1"
}
for mode in full names; do
    run "filter ($mode) a high-comm pod" 0 curl -sf -X POST "$url/filter" \
        -d @"$T_TMP/$mode-high-comm.json"
    verdict "$T_TMP/out" >"$T_TMP/v"
    if grep -qx "feasible=rdma-1,rdma-2" "$T_TMP/v" &&
        grep -qx "failed general-1: Node does not support RDMA" "$T_TMP/v"; then
        ok "filter ($mode): RdmaAware keeps the high-comm pod on RDMA nodes"
    else
        not_ok "filter ($mode): RdmaAware keeps the high-comm pod on RDMA nodes" "$(cat "$T_TMP/v")"
    fi
    run "filter ($mode) a web pod" 0 curl -sf -X POST "$url/filter" \
        -d @"$T_TMP/$mode-web.json"
    verdict "$T_TMP/out" >"$T_TMP/v"
    if grep -q "^feasible=.*general-1" "$T_TMP/v"; then
        ok "filter ($mode): other pods fit nodes without RDMA"
    else
        not_ok "filter ($mode): other pods fit nodes without RDMA" "$(cat "$T_TMP/v")"
    fi
    run "prioritize ($mode) a high-comm pod" 0 curl -sf -X POST \
        "$url/prioritize" -d @"$T_TMP/$mode-high-comm.json"
    contains "prioritize ($mode) answers every node" out '"Host":"general-1"'
    python3 -c 'import json,sys
s = {h["Host"]: h["Score"] for h in json.load(open(sys.argv[1]))}
sys.exit(0 if max(s["rdma-1"], s["rdma-2"]) > s["general-1"] else 1)' "$T_TMP/out" &&
        ok "prioritize ($mode): an RDMA node scores above general-1" ||
        not_ok "prioritize ($mode): an RDMA node scores above general-1" "$(cat "$T_TMP/out")"
done
run "metrics" 0 curl -sf "$url/metrics"
contains "/metrics counts the plugin predicate's rejections" out \
    'kpe_predicate_failures_total{predicate="RdmaAware"}'

# SIGHUP reloads the policy, not the plugins: a policy naming an unloaded
# name is refused and the running one (with the plugin) stays.
printf '{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"NoSuchPlugin"}]}' \
    >"$T_TMP/policy.json.new"
mv "$T_TMP/policy.json.new" "$T_TMP/policy.json"
kill -HUP "$srv"
sleep 1.5
if grep -q 'NoSuchPlugin' "$T_TMP/serve.log"; then
    ok "the refused reload names the unknown predicate"; else
    not_ok "the refused reload names the unknown predicate" "$(tail -n 5 "$T_TMP/serve.log")"; fi
run "filter after the refused reload" 0 curl -sf -X POST "$url/filter" \
    -d @"$T_TMP/names-high-comm.json"
verdict "$T_TMP/out" >"$T_TMP/v"
if grep -qx "failed general-1: Node does not support RDMA" "$T_TMP/v"; then
    ok "the running policy keeps the plugin predicate"; else
    not_ok "the running policy keeps the plugin predicate" "$(cat "$T_TMP/v")"; fi
kill -TERM "$srv"
wait "$srv"
rc=$?
[ "$rc" -eq 0 ] && ok "serve with plugins exits 0 on SIGTERM" ||
    not_ok "serve with plugins exits 0 on SIGTERM" "exit $rc"

# The config file: `plugin = FILE` lines.
cat >"$T_TMP/config.ini" <<INI
policy = $POL
cluster = $D/cluster.json
plugin = $PL/rdma_filter.so
plugin = $PL/rdma_score.so
INI
start_serve "$T_TMP/serve2.log" --config "$T_TMP/config.ini"
run "filter with plugins from --config" 0 curl -sf -X POST "$url/filter" \
    -d @"$T_TMP/names-high-comm.json"
contains "the config file's plugin filters" out "Node does not support RDMA"
kill -TERM "$srv"
wait "$srv"
printf 'policy = %s\nplugin = %s\n' "$POL" "$T_TMP/nope.so" >"$T_TMP/bad.ini"
run "a missing plugin in --config" 1 "$KPE_BIN" serve --config "$T_TMP/bad.ini" \
    --listen 127.0.0.1:0
contains "names the config file and the plugin" err \
    "kube-policy-extender serve: --config: plugin $T_TMP/nope.so: cannot open: No such file or directory"
run "serve --help documents --plugin" 0 "$KPE_BIN" serve --help
contains "--plugin in the help" out "--plugin FILE.so"

# ---- schedule on the API-server double ----
python3 tests/apiserver/apiserver.py --port-file "$T_TMP/api.port" \
    --load "$D/cluster.json" >"$T_TMP/api.log" 2>&1 &
api=$!
PIDS="$PIDS $api"
for _ in $(seq 1 100); do [ -s "$T_TMP/api.port" ] && break; sleep 0.1; done
api_url="http://127.0.0.1:$(cat "$T_TMP/api.port")"
"$KPE_BIN" schedule $P --scheduler-name my-scheduler --policy "$POL" \
    --master "$api_url" --listen 127.0.0.1:0 --leader-elect=false \
    2>"$T_TMP/sched.log" &
sp=$!
PIDS="$PIDS $sp"
pod() { # NAME LABELS
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default","labels":{%s}},"spec":{"schedulerName":"my-scheduler","containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}' "$1" "$2"
}
for i in 1 2 3; do
    pod "hc-$i" '"high-comm":"true"' |
        curl -sf -X POST -H 'Content-Type: application/json' \
            "$api_url/api/v1/namespaces/default/pods" -d @- >/dev/null
    pod "web-$i" '"app":"web"' |
        curl -sf -X POST -H 'Content-Type: application/json' \
            "$api_url/api/v1/namespaces/default/pods" -d @- >/dev/null
done
node_of() {
    curl -sf "$api_url/api/v1/namespaces/default/pods/$1" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["spec"].get("nodeName",""))'
}
placed=""
for _ in $(seq 1 100); do
    placed=""
    for p in hc-1 hc-2 hc-3 web-1 web-2 web-3; do
        placed="$placed $p=$(node_of "$p")"
    done
    echo "$placed" | grep -q '=$\|= ' || break
    sleep 0.1
done
if echo "$placed" | grep -q '=\( \|$\)'; then
    not_ok "schedule binds every pod" "$placed; $(tail -n 5 "$T_TMP/sched.log")"
else
    ok "schedule binds every pod"
fi
bad=$(echo "$placed" | tr ' ' '\n' | grep '^hc-' | grep -v '=rdma-[12]$')
[ -z "$bad" ] && ok "schedule: the plugin keeps high-comm pods on RDMA nodes" ||
    not_ok "schedule: the plugin keeps high-comm pods on RDMA nodes" "$placed"
bad=$(echo "$placed" | tr ' ' '\n' | grep '^web-' | grep '=rdma-')
[ -z "$bad" ] && ok "schedule: the plugin score leaves RDMA nodes to high-comm pods" ||
    not_ok "schedule: the plugin score leaves RDMA nodes to high-comm pods" "$placed"
kill -TERM "$sp"
wait "$sp"
rc=$?
[ "$rc" -eq 0 ] && ok "schedule with plugins exits 0 on SIGTERM" ||
    not_ok "schedule with plugins exits 0 on SIGTERM" "exit $rc"

# ---- refusals: the exact messages ----
BAD=tests/data/plugins/bad_plugin.c
bad() { # NAME CC-FLAGS...: build $PL/NAME.so from bad_plugin.c
    n=$1
    shift
    $CC -shared -fPIC -I"$PREFIX_DIR/include" -o "$PL/$n.so" "$BAD" "$@"
}
refused() { # NAME MESSAGE ARGS...: list ARGS exits 1 with MESSAGE
    r_name=$1
    r_msg=$2
    shift 2
    run "$r_name is refused" 1 "$KPE_BIN" list "$@"
    contains "$r_name: the message" err "$r_msg"
}
refused "a missing file" \
    "kube-policy-extender: --plugin $PL/nope.so: cannot open: No such file or directory" \
    --plugin "$PL/nope.so"
echo "not ELF" >"$PL/text.so"
refused "a file that is not a shared object" \
    "kube-policy-extender: --plugin $PL/text.so: not a loadable shared object: " \
    --plugin "$PL/text.so"
bad no_entry -DNO_ENTRY
refused "a shared object without an entry point" \
    "kube-policy-extender: --plugin $PL/no_entry.so: no entry point kpe_plugin_init(): not a kube-policy-extender plugin" \
    --plugin "$PL/no_entry.so"
bad no_magic -DNO_MAGIC -DPRED=X
refused "a plugin without KPE_PLUGIN_MAGIC" \
    "kube-policy-extender: --plugin $PL/no_magic.so: no KPE_PLUGIN_MAGIC (function kpe_plugin_magic()): rebuild it against kube-policy-extender/plugin.h" \
    --plugin "$PL/no_magic.so"
bad old_magic -DOLD_MAGIC -DPRED=X
refused "a plugin with the data-symbol magic of before major.minor" \
    "kube-policy-extender: --plugin $PL/old_magic.so: no KPE_PLUGIN_MAGIC (function kpe_plugin_magic()): rebuild it against kube-policy-extender/plugin.h" \
    --plugin "$PL/old_magic.so"
SERVER_ABI=$(sed -n 's/^#define KPE_PLUGIN_API_MAJOR \([0-9]*\)$/\1/p' include/kube-policy-extender/plugin.h).$(sed -n 's/^#define KPE_PLUGIN_API_MINOR \([0-9]*\)$/\1/p' include/kube-policy-extender/plugin.h)
bad v99 -DBAD_VERSION -DPRED=X
refused "a plugin for another API major" \
    "kube-policy-extender: --plugin $PL/v99.so: built for plugin API 99.0, this server speaks $SERVER_ABI: another major; rebuild it against this server's plugin.h" \
    --plugin "$PL/v99.so"
bad newer -DNEWER_MINOR -DPRED=X
refused "a plugin for a newer minor" \
    "kube-policy-extender: --plugin $PL/newer.so: built for plugin API ${SERVER_ABI%.*}.$((${SERVER_ABI#*.} + 1)), this server speaks $SERVER_ABI: a newer minor; upgrade the server or rebuild the plugin against its plugin.h" \
    --plugin "$PL/newer.so"
bad fail -DFAIL_INIT
refused "a plugin whose init fails" \
    "kube-policy-extender: --plugin $PL/fail.so: kpe_plugin_init() failed (returned 7)" \
    --plugin "$PL/fail.so"
bad builtin -DPRED=HighCommPodFilter
refused "a predicate named as a built-in" \
    "kube-policy-extender: --plugin $PL/builtin.so: predicate \"HighCommPodFilter\" clashes with a built-in predicate" \
    --plugin "$PL/builtin.so"
bad alias -DPRED=PodFitsPorts
refused "a predicate named as a built-in alias" \
    "kube-policy-extender: --plugin $PL/alias.so: predicate \"PodFitsPorts\" clashes with an alias of the built-in predicate \"PodFitsHostPorts\"" \
    --plugin "$PL/alias.so"
bad prio_alias -DPRIO=RdmaAwarePriority
refused "a priority named as a built-in alias" \
    "kube-policy-extender: --plugin $PL/prio_alias.so: priority \"RdmaAwarePriority\" clashes with an alias of the built-in priority \"CustomPriorityPolicy\"" \
    --plugin "$PL/prio_alias.so"
bad prio_builtin -DPRIO=LeastRequestedPriority
refused "a priority named as a built-in" \
    "kube-policy-extender: --plugin $PL/prio_builtin.so: priority \"LeastRequestedPriority\" clashes with a built-in priority" \
    --plugin "$PL/prio_builtin.so"
bad v122_plugin -DPRED=NodePorts
refused "a predicate named as a built-in filter plugin" \
    "kube-policy-extender: --plugin $PL/v122_plugin.so: predicate \"NodePorts\" clashes with a built-in filter plugin of that name" \
    --plugin "$PL/v122_plugin.so"
bad twice -DPRED=RdmaAware
refused "a predicate another plugin registered" \
    "kube-policy-extender: --plugin $PL/twice.so: predicate \"RdmaAware\" is already registered by plugin $PL/rdma_filter.so" \
    --plugin "$PL/rdma_filter.so" --plugin "$PL/twice.so"
bad score_twice -DPRIO=RdmaAwareScore
refused "a priority another plugin registered" \
    "kube-policy-extender: --plugin $PL/score_twice.so: priority \"RdmaAwareScore\" is already registered by plugin $PL/rdma_score.so" \
    --plugin "$PL/rdma_score.so" --plugin "$PL/score_twice.so"
bad key -DPRED=Keyed -DARG_KEY=highComm
refused "an argument key a built-in uses" \
    "kube-policy-extender: --plugin $PL/key.so: predicate \"Keyed\": argument key \"highComm\" is already taken by a built-in or another plugin" \
    --plugin "$PL/key.so"
cp "$PL/rdma_filter.so" "$PL/gw.so"
chmod 0664 "$PL/gw.so"
refused "a group-writable plugin file" \
    "kube-policy-extender: --plugin $PL/gw.so: refused: the file is group- or world-writable (mode 0664); chmod go-w it" \
    --plugin "$PL/gw.so"
mkdir -m 0777 "$T_TMP/open" && chmod 0777 "$T_TMP/open"
cp "$PL/rdma_filter.so" "$T_TMP/open/rdma_filter.so"
refused "a plugin in a world-writable folder" \
    "kube-policy-extender: --plugin $T_TMP/open/rdma_filter.so: refused: its folder $T_TMP/open is group- or world-writable (mode 0777); chmod go-w it" \
    --plugin "$T_TMP/open/rdma_filter.so"
# Every folder up to the root (sshd's safe_path): a world-writable
# ancestor lets another user swap the plugin's folder; sticky ones (/tmp)
# do not.
mkdir -m 0777 "$T_TMP/anc" && chmod 0777 "$T_TMP/anc"
mkdir -m 0755 "$T_TMP/anc/sub"
cp "$PL/rdma_filter.so" "$T_TMP/anc/sub/rdma_filter.so"
refused "a plugin under a world-writable ancestor folder" \
    "kube-policy-extender: --plugin $T_TMP/anc/sub/rdma_filter.so: refused: the ancestor folder $T_TMP/anc is group- or world-writable (mode 0777) and not sticky; chmod go-w it" \
    --plugin "$T_TMP/anc/sub/rdma_filter.so"
mkdir -m 1777 "$T_TMP/sticky" && chmod 1777 "$T_TMP/sticky"
mkdir -m 0755 "$T_TMP/sticky/sub"
cp "$PL/rdma_filter.so" "$T_TMP/sticky/sub/rdma_filter.so"
run "a plugin under a sticky world-writable ancestor loads" 0 "$KPE_BIN" \
    list --plugin "$T_TMP/sticky/sub/rdma_filter.so"
run "--plugin without a value" 2 "$KPE_BIN" list --plugin
contains "--plugin without a value: the message" err \
    "kube-policy-extender: --plugin: missing value (FILE.so)"
# A refused plugin is never half-loaded: serve does not start.
run "serve with a refused plugin does not start" 1 "$KPE_BIN" serve \
    --listen 127.0.0.1:0 --policy "$POL" --cluster "$D/cluster.json" \
    --plugin "$PL/rdma_filter.so" --plugin "$PL/twice.so"
if grep -q "serving policy" "$T_TMP/err"; then
    not_ok "nothing is served after a refusal" "$(cat "$T_TMP/err")"; else
    ok "nothing is served after a refusal"; fi
# ---- faults name themselves (issue 26) ----
bad crash -DPRED=Crashy -DCRASH
bad hang -DPRED=Hangs -DHANG
for n in Crashy Hangs; do
    printf '{"kind": "Policy", "apiVersion": "v1", "predicates": [{"name": "%s"}]}\n' \
        "$n" >"$T_TMP/$n.json"
done
# A crash in a plugin: one line naming it, then death by the same signal.
run "a plugin that crashes kills explain with SIGSEGV" 139 "$KPE_BIN" \
    explain --plugin "$PL/crash.so" --policy "$T_TMP/Crashy.json" \
    --cluster "$D/cluster.json" --pod "$D/pods/web.json"
contains "the crash names the plugin, the verb, the pod and the node" err \
    'fatal SIGSEGV in plugin "Crashy" (filter) for pod default/web-'
if [ "$(grep -c 'fatal SIGSEGV' "$T_TMP/err")" -eq 1 ] &&
    grep 'fatal SIGSEGV' "$T_TMP/err" | grep -q ' on node '; then
    ok "one crash line, with the node"
else
    not_ok "one crash line, with the node" "$(cat "$T_TMP/err")"
fi
# A plugin stuck in its filter: the request gets 503 at --eval-timeout,
# the probes still answer, the call is named in the log, and /healthz
# fails past --plugin-timeout (the kubelet then restarts the pod).
start_serve "$T_TMP/hang.log" --plugin "$PL/hang.so" \
    --policy "$T_TMP/Hangs.json" --cluster "$D/cluster.json" \
    --eval-timeout 1 --plugin-timeout 2 --workers 1
run "a stuck filter is answered 503 at --eval-timeout" 22 curl -sf \
    -m 10 -X POST "$url/filter" -d @"$T_TMP/names-web.json"
run "/metrics answers beside the stuck evaluation" 0 curl -sf -m 2 \
    "$url/metrics"
contains "the deadline is counted" out "kpe_http_eval_deadline_total 1"
if grep -q 'evaluation past --eval-timeout (1 s): answered 503, still in plugin "Hangs" (filter) for pod default/web-' "$T_TMP/hang.log"; then
    ok "the late evaluation names the plugin call"
else
    not_ok "the late evaluation names the plugin call" "$(tail -n 5 "$T_TMP/hang.log")"
fi
sleep 2.5
run "/healthz fails past --plugin-timeout" 22 curl -sf -m 2 "$url/healthz"
run "/healthz says why" 0 curl -s -m 2 "$url/healthz"
contains "/healthz names the stuck call" out \
    'unhealthy: plugin "Hangs" (filter) for pod default/web-'
if grep -q 'past --plugin-timeout 2 s); /healthz fails from now on' "$T_TMP/hang.log"; then
    ok "the stuck plugin call is logged"
else
    not_ok "the stuck plugin call is logged" "$(tail -n 5 "$T_TMP/hang.log")"
fi
kill -9 "$srv"

finish
