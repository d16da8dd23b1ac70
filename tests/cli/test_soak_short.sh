#!/bin/sh
# test_soak_short.sh: a bounded soak (about 25 s of load, tests/soak/soak.py)
# against the API-server double: 50 nodes and 400 pods, requests in both
# modes plus malformed, oversized, slow and abandoned ones, pod churn,
# watch faults and policy rewrites. Each of the soak's checks is one test:
# serve never crashed and exits 0 on SIGTERM, no valid request failed,
# invalid ones got the documented answers, RSS stayed flat after warm-up,
# the policy reloads were seen, and the cache equals the API server's state.
. "$(dirname "$0")/lib.sh"

python3 tests/soak/soak.py --bin "$KPE_BIN" --duration "${KPE_SOAK_SECONDS:-25}" \
    --nodes 50 --pods 400 --clients 2 --warmup 10 --settle 70 \
    --json-out "$T_TMP/soak.json" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
if [ ! -s "$T_TMP/soak.json" ]; then
    not_ok "soak ran" "exit $rc: $(tail -n 20 "$T_TMP/err")"
    finish
fi
cat "$T_TMP/out"
python3 - "$T_TMP/soak.json" >"$T_TMP/checks" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
p = " | ".join(s["problems"])
def check(name, good, why=""):
    print("%s\t%s\t%s" % ("ok" if good else "FAIL", name, why or p))
req = s["requests"]
check("no valid request failed (%d valid)" % sum(
    c["ok"] for k, c in req.items() if k in (
        "filter-names", "filter-full", "prioritize-names", "prioritize-full",
        "preempt-names", "preempt-full", "bind", "slow-valid")),
      s["valid_failed"] == 0, "%s" % s["failures"][:3])
check("malformed, oversized and stalled requests got the documented answers",
      s["invalid_unexpected"] == 0, "%s" % s["failures"][:3])
check("every kind of request was sent", all(
    req.get(k, {}).get("ok", 0) > 0 for k in (
        "filter-names", "filter-full", "prioritize-names", "prioritize-full",
        "preempt-names", "preempt-full", "bind", "bad-json", "wrong-types",
        "truncated", "oversized", "huge-headers", "slow-valid", "stalled",
        "abandoned")), "%s" % sorted(req))
ev = s["events"]
check("pods were churned and watches faulted",
      sum(v for k, v in ev.items() if k.startswith("churn ")) > 20 and
      sum(v for k, v in ev.items() if k.startswith("fault: ")) >= 3, "%s" % ev)
m = s["server_metrics"]
check("good policies reloaded and bad ones refused",
      m.get("reloads success", 0) >= 2 and m.get("reloads failure", 0) >= 1,
      "%s" % m)
r = s["rss"]
check("RSS flat after warm-up", bool(r) and r["growth_kib"] <= r["allowed_kib"],
      "%s" % r)
check("cache equals the API server's state",
      s["cache_converged_after_s"] is not None, p)
check("serve exits 0 on SIGTERM (never crashed)", s["serve_exit"] == 0, p)
check("no problem reported", not s["problems"], p)
PY
while IFS="$(printf '\t')" read -r st name why; do
    if [ "$st" = ok ]; then ok "soak: $name"; else not_ok "soak: $name" "$why"; fi
done <"$T_TMP/checks"
finish
