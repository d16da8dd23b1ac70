#!/bin/sh
# test_simulate_cache.sh: simulate's caches for replicas of one pod (the
# filter verdicts of engine/filter_cache.h, the PreScore states of
# engine/prescore_cache.h, both used by whatif_place) change nothing: on a
# varied cluster (zones, taints, cordoned and full nodes, host ports,
# labelled pods with anti-affinity), for pods that meet resources, ports,
# taints, node selectors, inter-pod (anti-)affinity and topology spread,
# under Policies that stop at the first failure or check all, with the
# adaptive and a fixed percentageOfNodesToScore, the whole JSON output of
# --until-unschedulable and --replicas is the same with the cache as
# without it (KPE_WHATIF_NO_CACHE, the reference path).
. "$(dirname "$0")/lib.sh"
C="$T_TMP/c"
mkdir -p "$C"
python3 - "$C" <<'PY'
import json, random, sys
out = sys.argv[1]
rnd = random.Random(7)
items = []
for i in range(240):
    name = "n%03d" % i
    cpu = rnd.choice(["2", "4", "8"])
    mem = rnd.choice(["4Gi", "8Gi", "16Gi"])
    labels = {"kubernetes.io/hostname": name,
              "topology.kubernetes.io/zone": "z%d" % (i % 4),
              "disk": rnd.choice(["ssd", "hdd"])}
    n = {"kind": "Node", "apiVersion": "v1",
         "metadata": {"name": name, "labels": labels},
         "spec": {},
         "status": {"allocatable": {"cpu": cpu, "memory": mem, "pods": "20"},
                    "capacity": {"cpu": cpu, "memory": mem, "pods": "20"},
                    "conditions": [{"type": "Ready", "status": "True"}]}}
    if i % 17 == 0:
        n["spec"]["unschedulable"] = True
    if i % 11 == 0:
        n["spec"]["taints"] = [{"key": "gpu", "value": "yes",
                                "effect": "NoSchedule"}]
    items.append(n)
    for j in range(rnd.randrange(0, 6)):
        c = {"name": "c", "image": "img-%d" % rnd.randrange(3),
             "resources": {"requests": {"cpu": rnd.choice(["100m", "500m",
                                                           "1"]),
                                        "memory": "256Mi"}}}
        if rnd.random() < 0.1:
            c["ports"] = [{"containerPort": 80, "hostPort": 8080}]
        p = {"kind": "Pod", "apiVersion": "v1",
             "metadata": {"name": "%s-p%d" % (name, j), "namespace": "default",
                          "uid": "u-%s-%d" % (name, j),
                          "labels": {"app": rnd.choice(["db", "web", "cache"])}},
             "spec": {"nodeName": name, "containers": [c]},
             "status": {"phase": "Running"}}
        if rnd.random() < 0.05:
            p["spec"]["affinity"] = {"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{
                    "labelSelector": {"matchLabels": {"app": "spread"}},
                    "topologyKey": "kubernetes.io/hostname"}]}}
        elif rnd.random() < 0.1:
            # Scoring terms of existing pods, matching the pods placed:
            # InterPodAffinity's PreScore state is not empty.
            p["spec"]["affinity"] = {"podAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [{
                    "weight": rnd.randrange(1, 100), "podAffinityTerm": {
                        "labelSelector": {"matchLabels": {
                            "app": rnd.choice(["cpu", "port", "skew"])}},
                        "topologyKey": rnd.choice([
                            "kubernetes.io/hostname",
                            "topology.kubernetes.io/zone"])}}]},
                "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [{
                    "weight": rnd.randrange(1, 100), "podAffinityTerm": {
                        "labelSelector": {"matchLabels": {
                            "app": rnd.choice(["cpu", "tolerant"])}},
                        "topologyKey": "kubernetes.io/hostname"}}]}}
        items.append(p)
json.dump({"kind": "List", "apiVersion": "v1", "items": items},
          open(out + "/cluster.json", "w"))

def pod(name, cpu="1", labels=None, port=None):
    c = {"name": "c", "image": "img-1",
         "resources": {"requests": {"cpu": cpu, "memory": "512Mi"}}}
    if port:
        c["ports"] = [{"containerPort": port, "hostPort": port}]
    return {"kind": "Pod", "apiVersion": "v1",
            "metadata": {"name": name, "namespace": "default",
                         "labels": labels or {"app": name}},
            "spec": {"containers": [c]}}
pods = {"cpu": pod("cpu"), "port": pod("port", "100m", port=8080)}
p = pod("tolerant", "500m")
p["spec"]["tolerations"] = [{"key": "gpu", "operator": "Exists"}]
p["spec"]["nodeSelector"] = {"disk": "ssd"}
pods["tolerant"] = p
p = pod("spread", "200m", labels={"app": "spread"})
p["spec"]["affinity"] = {"podAntiAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "spread"}},
        "topologyKey": "kubernetes.io/hostname"}]}}
pods["anti"] = p
p = pod("zone-solo", "100m", labels={"app": "zone-solo"})
p["spec"]["affinity"] = {"podAntiAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "zone-solo"}},
        "topologyKey": "topology.kubernetes.io/zone"}]}}
pods["zone-anti"] = p
p = pod("near-db", "300m")
p["spec"]["affinity"] = {"podAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "db"}},
        "topologyKey": "topology.kubernetes.io/zone"}],
    "preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 20, "podAffinityTerm": {
            "labelSelector": {"matchLabels": {"app": "near-db"}},
            "topologyKey": "topology.kubernetes.io/zone"}}]},
    "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 10, "podAffinityTerm": {
            "labelSelector": {"matchLabels": {"app": "web"}},
            "topologyKey": "kubernetes.io/hostname"}}]}}
pods["affinity"] = p
p = pod("skew", "700m", labels={"app": "skew"})
p["spec"]["topologySpreadConstraints"] = [{
    "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
    "whenUnsatisfiable": "DoNotSchedule",
    "labelSelector": {"matchLabels": {"app": "skew"}}}]
pods["skew"] = p
for k, v in pods.items():
    json.dump(v, open("%s/%s.json" % (out, k), "w"))
first = json.load(open("deploy/policy/policy.json"))
json.dump(first, open(out + "/first.json", "w"))
json.dump(dict(first, alwaysCheckAllPredicates=True),
          open(out + "/all.json", "w"))
PY

same() { # NAME ARGS...: cached and reference outputs agree
    t=$1
    shift
    "$KPE_BIN" simulate --cluster "$C/cluster.json" --output json "$@" \
        >"$T_TMP/cached" 2>"$T_TMP/err1"
    s1=$?
    KPE_WHATIF_NO_CACHE=1 "$KPE_BIN" simulate --cluster "$C/cluster.json" \
        --output json "$@" >"$T_TMP/plain" 2>"$T_TMP/err2"
    s2=$?
    if [ "$s1" -ne 0 ] || [ "$s2" -ne 0 ]; then
        not_ok "$t" "exit $s1/$s2: $(head -c 300 "$T_TMP/err1" "$T_TMP/err2")"
    elif cmp -s "$T_TMP/cached" "$T_TMP/plain"; then
        ok "$t"
    else
        not_ok "$t" "$(diff "$T_TMP/plain" "$T_TMP/cached" | head -n 10)"
    fi
}

for pol in first all; do
    for p in cpu port tolerant anti zone-anti affinity skew; do
        same "$pol/$p: --until-unschedulable, cached = uncached" \
            --policy "$C/$pol.json" --pod "$C/$p.json" --until-unschedulable
    done
    same "$pol/cpu: --percentage-of-nodes-to-score 10, cached = uncached" \
        --policy "$C/$pol.json" --pod "$C/cpu.json" --until-unschedulable \
        --percentage-of-nodes-to-score 10 --seed 3
done
# Replicas of one pod, then of another: the cache starts afresh.
same "two pods' replicas in turn, cached = uncached" --policy "$C/first.json" \
    --pod "$C/cpu.json" --pod "$C/port.json" --pod "$C/cpu.json" \
    --replicas 40

# The runs above are not vacuous: the first placement fails nowhere, the
# last fails for several reasons.
"$KPE_BIN" simulate --cluster "$C/cluster.json" --output json \
    --policy "$C/first.json" --pod "$C/cpu.json" --until-unschedulable \
    >"$T_TMP/out" 2>"$T_TMP/err"
python3 - "$T_TMP/out" <<'PY' && ok "the cpu run places many and ends on mixed reasons" || not_ok "the cpu run places many and ends on mixed reasons" "$(cat "$T_TMP/out" | head -c 300)"
import json, sys
d = json.load(open(sys.argv[1]))["untilUnschedulable"]
sys.exit(0 if d["fit"] > 100 and d["next"].count(",") >= 2 else 1)
PY
finish
