#!/bin/sh
# test_simulate.sh: `simulate` places pods in order, each placement
# assumed before the next: CPU runs out after as many replicas as the
# nodes hold, a host port once per node, a zone anti-affinity once per
# zone; --until-unschedulable counts them and names what stops the next;
# --seed makes the choice among equal nodes repeatable; JSON and text
# agree; bad options are named.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/whatif_cluster.sh"
S() { "$KPE_BIN" simulate --cluster "$W/cluster.json" "$@"; }
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$T_TMP/out" "$1"; }

run "simulate --help" 0 "$KPE_BIN" simulate --help
contains "help names --until-unschedulable" out "--until-unschedulable"
run "simulate without --pod" 2 "$KPE_BIN" simulate --policy "$W/least.json"
contains "missing options are named" err "missing required option '--pod'"
run "simulate --replicas 0" 2 S --policy "$W/least.json" \
    --pod "$W/one-cpu.json" --replicas 0
contains "a bad count is quoted" err 'got "0"'
run "simulate --until-unschedulable with --replicas" 2 S \
    --policy "$W/least.json" --pod "$W/one-cpu.json" --replicas 2 \
    --until-unschedulable
contains "the conflict is named" err "takes no --replicas"

# --semantics (issue 25) comes with the shared policy options.
run "simulate --semantics 1.20" 0 S --policy "$W/least.json" \
    --pod "$W/one-cpu.json" --semantics 1.20
run "simulate with a bad --semantics" 2 S --policy "$W/least.json" \
    --pod "$W/one-cpu.json" --semantics 2.0
contains "the bad --semantics is named with the accepted values" err \
    '--semantics: invalid value "2.0": expected 1.20, 1.21 or 1.22'

# Capacity: 6 CPUs, 1 used: five 1-CPU replicas fit, the sixth fails.
run "until-unschedulable (json)" 0 S --policy "$W/least.json" \
    --pod "$W/one-cpu.json" --until-unschedulable --output json
fit=$(jget 'd["untilUnschedulable"]["fit"]')
[ "$fit" = 5 ] && ok "five 1-CPU replicas fit in 5 free CPUs" ||
    not_ok "five 1-CPU replicas fit in 5 free CPUs" "got $fit"
contains "the next one's FitError" out \
    '"next": "0/3 nodes are available: 3 Insufficient cpu."'
after=$(jget '[n["after"]["cpu"] for n in d["nodes"]]')
[ "$after" = "[2000, 2000, 2000]" ] && ok "every CPU is used after" ||
    not_ok "every CPU is used after" "got $after"
run "until-unschedulable (text)" 0 S --policy "$W/least.json" \
    --pod "$W/one-cpu.json" --until-unschedulable
contains "text states the capacity" out \
    "5 more replica(s) of default/one-cpu fit; the next: 0/3 nodes are available: 3 Insufficient cpu."
contains "text names the predicate" out \
    "Most rejections: GeneralPredicates (3 node(s))"

# LeastRequested spreads: the two idle nodes get the first two replicas
# (the second sees the first assumed), then all three are equal.
run "least-requested places in order" 0 S --policy "$W/least.json" \
    --pod "$W/one-cpu.json" --replicas 3 --output json
nodes=$(jget 'sorted(p["node"] for p in d["placements"][:2])')
[ "$nodes" = "['node-2', 'node-3']" ] &&
    ok "each placement is assumed before the next" ||
    not_ok "each placement is assumed before the next" "got $nodes"
run "most-requested packs" 0 S --policy "$W/most.json" \
    --pod "$W/one-cpu.json" --replicas 2 --output json
nodes=$(jget '[p["node"] for p in d["placements"]]')
[ "$nodes" = "['node-1', 'node-2']" ] || [ "$nodes" = "['node-1', 'node-3']" ] &&
    ok "a full node is skipped after it fills" ||
    not_ok "a full node is skipped after it fills" "got $nodes"

# Host ports: one per node; zone anti-affinity: one per zone.
run "host ports" 0 S --policy "$W/least.json" --pod "$W/port.json" \
    --until-unschedulable --output json
contains "three replicas with one host port" out '"fit": 3'
contains "the fourth finds the ports taken" out \
    "3 node(s) didn't have free ports for the requested pod ports"
run "zone anti-affinity" 0 S --policy "$W/least.json" --pod "$W/anti.json" \
    --until-unschedulable --output json
contains "one replica per zone" out '"fit": 3'
contains "the fourth breaks the anti-affinity" out "anti-affinity"

# Several pods in order; the pending pod of the cluster by reference.
run "several pods" 0 S --policy "$W/least.json" --pod default/pending \
    --pod "$W/one-cpu.json" --pod "$W/port.json"
contains "the referenced pod is placed first" out "default/pending"
contains "all three are placed" out "Placed 3 of 3 pod(s); 0 unschedulable."

# --seed: the same seed, the same choices among equal nodes.
run "seed 7, first run" 0 S --policy "$W/least.json" --pod "$W/port.json" \
    --replicas 2 --seed 7 --output json
cp "$T_TMP/out" "$T_TMP/seed7"
run "seed 7, second run" 0 S --policy "$W/least.json" --pod "$W/port.json" \
    --replicas 2 --seed 7 --output json
if cmp -s "$T_TMP/out" "$T_TMP/seed7"; then ok "a seed repeats the run"; else
    not_ok "a seed repeats the run" "$(diff "$T_TMP/seed7" "$T_TMP/out")"; fi
seen=""
for s in 1 2 3 4 5 6 7 8; do
    S --policy "$W/least.json" --pod "$W/port.json" --replicas 1 --seed $s \
        --output json >"$T_TMP/out"
    seen="$seen $(jget 'd["placements"][0]["node"]')"
done
n=$(echo "$seen" | tr ' ' '\n' | sort -u | grep -c node)
[ "$n" -ge 2 ] && ok "seeds choose among equal nodes ($seen)" ||
    not_ok "seeds choose among equal nodes" "always$seen"
finish
