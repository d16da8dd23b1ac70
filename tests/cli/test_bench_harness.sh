#!/bin/sh
# test_bench_harness.sh: the parts of make bench-e2e that are logic rather
# than timing (tests/e2e/bench*.py, bench/apiload.go), without a control
# plane: SchedulingThroughput's 1-second samples and scheduler_perf's
# percentile pick, the workload table's counts and names, the refusal of
# bad BENCH_* settings before anything starts, and apiload's ceiling
# (a Binding and an Event per pending pod of one scheduler, round-robin
# over the nodes), object creation and deletion against the API-server
# double.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/apiserver_double.sh"

py() { python3 -c "import sys; sys.path.insert(0, 'tests/e2e'); $1"; }

# Binds at 0.0 0.5 | 1.2 1.3 1.4 | 2.9: two full samples (2, 3); the
# partial last second is not a sample, as scheduler_perf's ticker.
run "throughput: full 1-second samples from the first bind" 0 py '
import bench_measure as bm
t = bm.throughput([0.0, 0.5, 1.2, 1.3, 1.4, 2.9])
print(t["samples"], t["avg"], t["p50"], t["p90"], t["p99"])'
contains "two samples, average 2.5, p50 2, p90 and p99 3" out "2 2.5 2.0 3.0 3.0"

run "throughput: nothing bound is all zeros" 0 py '
import bench_measure as bm; print(bm.throughput([]))'
contains "zero samples" out "'samples': 0"

# scheduler_perf picks the ceil(n*q/100)-th smallest: of 1..10, p50 is 5, p90 9, p99 10.
run "percentile: scheduler_perf's pick" 0 py '
import bench_measure as bm
s = [float(x) for x in range(1, 11)]
print(bm.percentile(s, 50), bm.percentile(s, 90), bm.percentile(s, 99))'
contains "p50 5, p90 9, p99 10" out "5.0 9.0 10.0"

# The API server's requests by verb and resource from its /metrics text:
# codes and versions merged, subresources kept apart, other series and
# comments ignored; a run's delta per bound pod, largest first.
run "requests: apiserver_request_total summed by verb and resource" 0 py '
import bench_measure as bm
text = """# HELP apiserver_request_total Counter
apiserver_request_total{code="201",component="apiserver",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 7
apiserver_request_total{code="409",component="apiserver",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 1
apiserver_request_total{code="201",component="apiserver",group="",resource="events",scope="namespace",subresource="",verb="POST",version="v1"} 4
apiserver_request_total{code="200",component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="WATCH",version="v1"} 2
apiserver_request_duration_seconds_count{resource="pods",verb="POST"} 99
apiserver_request_total{code="200",resource="nodes",verb="LIST"} notanumber"""
before = bm.parse_request_counts(text)
print(sorted(before.items()))
after = dict(before, **{"POST pods/binding": 18.0, "POST events": 14.0, "GET nodes": 1.0})
print(bm.request_delta(before, after, 10))
print(repr(bm.request_delta(before, after, 0)), repr(bm.request_delta(before, before, 10)))'
contains "bindings kept apart from pods, codes summed, other series and bad values ignored" out \
    "[('POST events', 4.0), ('POST pods/binding', 8.0), ('WATCH pods', 2.0)]"
contains "per bound pod, largest first, unchanged left out" out \
    "POST pods/binding 1.00, POST events 1.00, GET nodes 0.10"
contains "no pods bound or nothing made: empty" out "'' ''"

run "CPU: each process of a row of several, none for a row of one" 0 py '
import bench
print(bench.procs_cpu({"procs": {"serve": 6.44, "kube-scheduler": 32.9}}))
print(bench.procs_cpu({"procs": {"kube-scheduler": 1.0, "serve": None}}))
print(repr(bench.procs_cpu({"procs": {"schedule": 2.1}})), repr(bench.procs_cpu({})))'
contains "sorted by name, one decimal" out " (kube-scheduler 32.9, serve 6.4)"
contains "a process gone before it was read is a question mark" out " (kube-scheduler 1.0, serve ?)"
contains "one process: nothing" out "'' ''"

# BENCH_INSIDE: kube-scheduler's and serve's /metrics reduced to mean ms
# per attempt and per request; extension points by name, results and
# outcomes summed, routes other than the extender's verbs and other series
# left out, a series with no count not divided by zero.
run "inside: mean ms per attempt and per request from both /metrics pages" 0 py '
import bench_inside as bi
ks = """# HELP scheduler_e2e_scheduling_duration_seconds x
scheduler_e2e_scheduling_duration_seconds_bucket{profile="p",result="scheduled",le="0.001"} 1
scheduler_e2e_scheduling_duration_seconds_sum{profile="p",result="scheduled"} 0.09
scheduler_e2e_scheduling_duration_seconds_count{profile="p",result="scheduled"} 3
scheduler_e2e_scheduling_duration_seconds_sum{profile="p",result="error"} 0.01
scheduler_e2e_scheduling_duration_seconds_count{profile="p",result="error"} 1
scheduler_scheduling_algorithm_duration_seconds_sum 0.06
scheduler_scheduling_algorithm_duration_seconds_count 4
scheduler_framework_extension_point_duration_seconds_sum{extension_point="Score",profile="p",status="Success"} 0.02
scheduler_framework_extension_point_duration_seconds_count{extension_point="Score",profile="p",status="Success"} 4
scheduler_framework_extension_point_duration_seconds_sum{extension_point="Permit",profile="p",status="Success"} 0
scheduler_framework_extension_point_duration_seconds_count{extension_point="Permit",profile="p",status="Success"} 0
scheduler_pod_scheduling_attempts_sum 9
scheduler_pod_scheduling_attempts_count 3"""
serve = """kpe_http_request_duration_seconds_sum{route="/filter",outcome="ok"} 0.004
kpe_http_request_duration_seconds_count{route="/filter",outcome="ok"} 2
kpe_http_request_duration_seconds_sum{route="/filter",outcome="error"} 0.002
kpe_http_request_duration_seconds_count{route="/filter",outcome="error"} 1
kpe_http_request_duration_seconds_sum{route="/prioritize",outcome="ok"} 0.005
kpe_http_request_duration_seconds_count{route="/prioritize",outcome="ok"} 5
kpe_http_request_duration_seconds_sum{route="/metrics",outcome="ok"} 9
kpe_http_request_duration_seconds_count{route="/metrics",outcome="ok"} 1"""
fig = bi.figures(ks, serve)
print(bi.summarize(fig))
print(repr(bi.summarize(bi.figures("", ""))), bi.summarize(bi.figures("", serve)))
print("per in-tree", bi.per_in_tree(fig), bi.per_in_tree(bi.figures("", serve)), bi.per_in_tree(None))'
contains "kube-scheduler: results summed, points by name, an empty point left out, other series ignored" out \
    "kube-scheduler ms per attempt: Score 5.00, algorithm 15.00, attempt 25.00; serve ms per request: /filter 2.00 (3), /prioritize 1.00 (5)"
contains "no pages: nothing to say; serve alone: its part only" out \
    "'' serve ms per request: /filter 2.00 (3), /prioritize 1.00 (5)"
contains "algorithm 15 ms over Score 5 ms (the only in-tree point); none without the figures" out \
    "per in-tree 3.0 None None"

# Two rows whose runs ran at different machine speeds (in-tree 10 and 20
# ms) but cost the same per in-tree ms (1.2) are equal at equal speed; a
# row that costs 1.5 per in-tree ms against 1.2 is 0.8 of it; the median
# over a row's runs; a run without figures (a row that did not start, or
# BENCH_INSIDE off) left out; a row with none gives no figure.
run "inside: split/do-nothing at equal machine speed" 0 py '
import bench_inside as bi
def run(row, in_tree, alg):
    return {"row": row, "inside": {"ks": {"PreScore": in_tree, "algorithm": alg}, "serve": {}}}
same = [run("split", 10, 12), run("do-nothing", 20, 24), run("split", 20, 24), run("do-nothing", 10, 12)]
dearer = [run("split", 10, 15), run("split", 20, 30), run("split", 30, 99), run("do-nothing", 20, 24),
          {"row": "do-nothing", "inside": None}, run("kube-scheduler", 1, 9)]
r = lambda x: None if x is None else round(x, 3)
print(r(bi.equal_speed_ratio(same, "split", "do-nothing")), r(bi.equal_speed_ratio(dearer, "split", "do-nothing")),
      bi.equal_speed_ratio(same, "split", "ceiling"))'
contains "the same cost per in-tree ms at two speeds: 1.0; 1.2 over the median 1.5: 0.8; a row without figures: None" out \
    "1.0 0.8 None"

run "inside: BENCH_PROFILE is seconds, or a clear refusal" 0 sh -c '
BENCH_PROFILE=30 python3 -c "import sys; sys.path.insert(0, \"tests/e2e\"); import bench_inside as b; print(b.profile_seconds())"
BENCH_PROFILE=soon python3 -c "import sys; sys.path.insert(0, \"tests/e2e\"); import bench_inside as b; b.profile_seconds()" 2>&1 | tail -1'
contains "30 accepted" out "30"
contains "a word refused, naming the setting" out "BENCH_PROFILE must be a whole number of seconds"

run "workloads: upstream counts at 500 and 5,000 nodes, scaled elsewhere" 0 py '
import bench_workloads as bw
w = {x["name"]: x for x in bw.by_name([])}
print(bw.counts(w["Preemption"], 500, 1), bw.counts(w["Preemption"], 5000, 1),
      bw.counts(w["SchedulingBasic"], 100, 1), bw.counts(w["Preemption"], 100, 0.1))'
contains "Preemption 2000/500 and 20000/5000; 100 nodes scale 500's; the scale shrinks measured only" out \
    "(2000, 500) (20000, 5000) (100, 200) (400, 10)"

# auto: 5,000 measured pods where they fit; PodAntiAffinity (one per node
# beside its init pods) and Preemption (one 3-CPU pod per node) stay within
# their nodes, whatever the scale asks.
run "workloads: the automatic scale, within what fits" 0 py '
import bench_workloads as bw
w = {x["name"]: x for x in bw.by_name([])}
print(bw.counts(w["SchedulingBasic"], 500), bw.counts(w["SchedulingBasic"], 5000),
      bw.counts(w["Unschedulable"], 5000), bw.counts(w["PodAntiAffinity"], 500),
      bw.counts(w["PodAntiAffinity"], 5000), bw.counts(w["Preemption"], 500),
      bw.counts(w["PodAntiAffinity"], 5000, 10), bw.upstream_counts(w["MixedChurn"], 5000),
      bw.counts(w["SchedulingBasic"], 100), bw.counts(w["SchedulingBasic"], 100, 0.5))'
# 100 nodes: 400 CPUs less the 100 init pods 10, nine tenths, at 100m: 3510.
contains "basic 1000 -> 5000; Unschedulable stays 5000; anti-affinity capped by nodes; Preemption keeps 500; 100 nodes: what their CPUs hold" out \
    "(500, 5000) (1000, 5000) (200, 5000) (100, 400) (1000, 4000) (2000, 500) (1000, 4000) (0, 2000) (100, 3510) (100, 100)"

run "pod scale: auto, a number, or a clear refusal" 0 py '
import bench_workloads as bw
print(bw.parse_pod_scale("auto"), bw.parse_pod_scale("0.5"))
for bad in ("0", "-1", "lots", "nan", "inf"):
    try:
        bw.parse_pod_scale(bad); print("accepted", bad)
    except ValueError as ex:
        print("refused:", ex)'
contains "auto and 0.5 accepted" out "auto 0.5"
contains "zero refused, naming the value" out "not '0'"
contains "a word refused" out "not 'lots'"
contains "nan refused" out "not 'nan'"
if grep -q "^accepted" "$T_TMP/out"; then not_ok "nothing bad accepted" "$(cat "$T_TMP/out")"
else ok "nothing bad accepted"; fi

run "workloads: every template the table names exists" 0 py '
import bench_workloads as bw
for w in bw.WORKLOADS:
    for t in [w["init"], w["measured"], *[c for c in w.get("churn", []) if c not in ("node", "service")]]:
        assert t is None or t in bw.POD_TEMPLATES, (w["name"], t)
print(len(bw.WORKLOADS))'
contains "nine workloads" out "9"

run "affinity_sim.py: the PodAntiAffinity cluster and pod for an offline A/B" 0 \
    python3 bench/affinity_sim.py "$T_TMP/sim" 10 4
contains "says what it wrote" out "10 nodes, 4 anti-affinity pods bound"
run "affinity_sim.py: every init pod bound with anti-affinity, the pod to place unbound" 0 \
    python3 -c '
import json, sys
c = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
pods = [i for i in c["items"] if i["kind"] == "Pod"]
assert len([i for i in c["items"] if i["kind"] == "Node"]) == 10
assert [x["spec"]["nodeName"] for x in pods] == ["node-00000", "node-00002", "node-00004", "node-00006"], pods
assert all(x["spec"]["affinity"]["podAntiAffinity"] for x in pods)
assert "nodeName" not in p["spec"] and p["spec"]["affinity"]["podAntiAffinity"]' \
    "$T_TMP/sim/cluster.json" "$T_TMP/sim/pod.json"
run "affinity_sim.py: more init pods than nodes is refused, naming both" 2 \
    python3 bench/affinity_sim.py "$T_TMP/sim" 10 20
contains "names the numbers" err "not 10 and 20"

run "bench.py refuses an unknown workload before starting anything" 2 \
    env BENCH_WORKLOADS=SchedulingBasic,Nope python3 tests/e2e/bench.py /nonexistent
contains "the unknown workload is named" err "unknown workload(s) Nope"
run "bench.py refuses an unknown row" 2 env BENCH_ROWS=ceiling,fastest python3 tests/e2e/bench.py /nonexistent
contains "the unknown row is named" err "unknown row(s) fastest"
run "bench.py refuses a bad BENCH_POD_SCALE before starting anything" 2 \
    env BENCH_POD_SCALE=fast python3 tests/e2e/bench.py /nonexistent
contains "names the setting and the value" err "BENCH_POD_SCALE must be auto or a positive number, not 'fast'"
run "bench.py refuses the schedule-b row without BENCH_KPE_B" 2 \
    env -u BENCH_KPE_B BENCH_ROWS=schedule,schedule-b python3 tests/e2e/bench.py /nonexistent
contains "says which variable is unset" err "row schedule-b runs BENCH_KPE_B, which is unset"
run "bench.py refuses a BENCH_KPE_B that is not an executable" 2 \
    env BENCH_KPE_B=/nonexistent/kpe BENCH_ROWS=schedule-b python3 tests/e2e/bench.py /nonexistent
contains "names the path" err "/nonexistent/kpe: not an executable"
run "bench.py refuses zero rounds" 2 env BENCH_ROUNDS=0 python3 tests/e2e/bench.py /nonexistent
contains "says what must be positive" err "must be positive"
run "bench.py refuses a negative BENCH_WARMUP" 2 env BENCH_WARMUP=-1 python3 tests/e2e/bench.py /nonexistent
contains "the warm-up's rule is named" err "BENCH_WARMUP must be 0 or more"

run "split/do-nothing round by round: pairs of one round, unstarted runs left out" 0 py '
import bench
def r(row, rnd, avg, end="all"):
    return {"row": row, "round": rnd, "avg": avg, "end": end}
runs = [r("split", 0, 90.0), r("do-nothing", 0, 100.0), r("ceiling", 0, 500.0),
        r("do-nothing", 1, 50.0), r("split", 1, 60.0),
        r("split", 2, 80.0), r("do-nothing", 2, 70.0, "no start"),
        r("split", 3, 10.0)]
print(repr([round(x, 3) for x in bench.paired_ratios(runs, "split", "do-nothing")]))
print(repr(bench.paired_ratios(runs, "schedule", "kube-scheduler")))'
contains "per round, in round order" out "[0.9, 1.2]"
contains "rows that never ran: none" out "[]"

run "a warm-up run is printed and kept out of the results" 0 py '
import bench
class B(bench.Bench):
    def __init__(self):
        self.rounds, self.warmup, self.results, self.pod_scale = 2, 1, [], 1
        self.calls = []
    def init_pods(self, w, n, k):
        return 0, 0.0
    def delete_pods(self, ns):
        pass
    def run(self, w, n, row, rnd, warmup=False):
        self.calls.append((row, rnd, warmup))
        res = {"workload": w["name"], "nodes": n, "row": row, "round": rnd, "avg": 1.0, "p50": 1, "p90": 1, "p99": 1,
               "end": "all", "bound": 1, "measured": 1, "cpu": {"row": 1.0, "other": 0.0, "wall": 1.0, "busy": 1.0}}
        if not warmup:
            self.results.append(res)
        return res
b = B()
bench.Bench.workload(b, bench.bw.by_name(["SchedulingBasic"])[0], 500, ["split", "do-nothing"])
print(b.calls)
print(len(b.results), sorted({r["round"] for r in b.results}))'
contains "the warm-up runs the first row once, first" out "[('split', 'w0', True), ('split', 0, False), ('do-nothing', 0, False), ('do-nothing', 1, False), ('split', 1, False)]"
contains "only the rounds are kept" out "4 [0, 1]"

# apiload against the double: 3 nodes, 5 pending pods for my-scheduler in
# sched-test, one for another scheduler and one already bound.
run "apiload builds (Go standard library only)" 0 \
    env GOFLAGS= GOPROXY=off GO111MODULE=off go build -o "$T_TMP/apiload" bench/apiload.go
python3 - "$T_TMP/cluster.json" <<'PY'
import json, sys
sys.path.insert(0, "tests/e2e")
import bench_workloads as bw
items = [bw.node(i) for i in range(3)]
for i in range(5):
    items.append(bw.pod("default", f"m-{i}", "sched-test", "my-scheduler"))
items.append(bw.pod("default", "other", "sched-test", "default-scheduler"))
items.append(bw.pod("default", "placed", "sched-test", "my-scheduler", node="node-00002"))
for it in items:
    it["metadata"]["uid"] = "u-" + it["metadata"]["name"]
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, open(sys.argv[1], "w"))
PY
start_api "$T_TMP/cluster.json"
echo token >"$T_TMP/token"
run "apiload bind: the pending pods of my-scheduler" 0 "$T_TMP/apiload" -server "$api_url" \
    -token-file "$T_TMP/token" -workers 4 bind -namespace sched-test -scheduler my-scheduler
contains "five requested, none failed" out "apiload bind: 5 requested, 0 failed"
curl -s "$api_url/api/v1/namespaces/sched-test/pods" >"$T_TMP/pods.json"
curl -s "$api_url/api/v1/namespaces/sched-test/events" >"$T_TMP/events.json"
run "apiload bind: round-robin over the nodes, others' pods untouched, one Scheduled event each" 0 \
    python3 - "$T_TMP/pods.json" "$T_TMP/events.json" <<'PY'
import collections, json, sys
pods = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in json.load(open(sys.argv[1]))["items"]}
per_node = collections.Counter(pods[f"m-{i}"] for i in range(5))
assert sorted(per_node.values()) == [1, 2, 2] and set(per_node) == {"node-00000", "node-00001", "node-00002"}, per_node
assert pods["other"] is None and pods["placed"] == "node-00002", pods
ev = [e for e in json.load(open(sys.argv[2]))["items"] if e["reason"] == "Scheduled"]
assert sorted(e["involvedObject"]["name"] for e in ev) == [f"m-{i}" for i in range(5)], ev
PY
printf '/api/v1/nodes\t%s\n' '{"apiVersion":"v1","kind":"Node","metadata":{"name":"extra"}}' >"$T_TMP/lines"
run "apiload post: creates each line's object" 0 sh -c \
    "'$T_TMP/apiload' -server '$api_url' -token-file '$T_TMP/token' post <'$T_TMP/lines'"
contains "one requested, none failed" out "apiload post: 1 requested, 0 failed"
run "apiload post: a line without a path is refused, naming the line" 1 sh -c \
    "echo '{}' | '$T_TMP/apiload' -server '$api_url' -token-file '$T_TMP/token' post"
contains "names the line" err "stdin line 1: want PATH<TAB>JSON"
run "apiload post: a refused object fails the run, naming the request" 1 sh -c \
    "'$T_TMP/apiload' -server '$api_url' -token-file '$T_TMP/token' post <'$T_TMP/lines'"
contains "names the failed request" err "POST /api/v1/nodes: HTTP 409"
run "apiload delete (-http1, the ceiling-h1 row's client): every pod of the namespace" 0 \
    "$T_TMP/apiload" -http1 -server "$api_url" -token-file "$T_TMP/token" delete \
    -namespace sched-test -resource pods
contains "seven requested, none failed" out "apiload delete: 7 requested, 0 failed"
curl -s "$api_url/api/v1/namespaces/sched-test/pods" >"$T_TMP/pods.json"
run "apiload delete: none left" 0 python3 -c \
    'import json, sys; assert not json.load(open(sys.argv[1]))["items"]' "$T_TMP/pods.json"
run "apiload: delete of another resource is a usage error" 2 \
    "$T_TMP/apiload" -server "$api_url" -token-file "$T_TMP/token" delete -namespace x -resource nodes
run "apiload: bind without a scheduler is a usage error" 2 \
    "$T_TMP/apiload" -server "$api_url" -token-file "$T_TMP/token" bind -namespace x
stop_api
finish
