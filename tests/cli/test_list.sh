#!/bin/sh
# test_list.sh: `kube-policy-extender list`: every registry row appears
# (names read from the registry sources, not from the output), the JSON
# form parses and agrees with what `check` resolves (mandatory and default
# sets, default weights, legacy names), and the text form matches
# tests/golden/list.txt.
. "$(dirname "$0")/lib.sh"

run "list" 0 "$KPE_BIN" list
golden "list text" tests/golden/list.txt
cp "$T_TMP/out" "$T_TMP/list.txt"

run "list --output json" 0 "$KPE_BIN" list --output json
cp "$T_TMP/out" "$T_TMP/list.json"
run "list --output json parses" 0 python3 -c 'import json,sys; json.load(open(sys.argv[1]))' \
    "$T_TMP/list.json"

run "list --output yaml is a usage error" 2 "$KPE_BIN" list --output yaml
contains "usage error names the value" err 'got "yaml"'
run "list with a stray argument" 2 "$KPE_BIN" list policy.json
run "list --help" 0 "$KPE_BIN" list --help
contains "list --help" out "Usage: kube-policy-extender list"
run "top-level help names list" 0 "$KPE_BIN" --help
contains "top-level help names list" out "  list "

# Registry row names and aliases, from the C sources: the macro each row
# of pred_rows[]/prio_rows[] and each alias uses, resolved in the headers
# or in the plugin's own file.
cat >"$T_TMP/names.py" <<'EOF'
import glob, re, sys
def macros(h):
    return dict(re.findall(r'#define\s+(\w+)\s+"([^"]*)"', open(h).read()))
# Every descriptor in the plugin folders: its name and its aliases.
def descriptors(folder, kind, m):
    out = []
    for c in sorted(glob.glob(folder + '/*.c')):
        pat = r'const struct %s_def %s_\w+ = \{(.*?)\n\};' % (kind, kind)
        mc = dict(m, **macros(c))
        for body in re.findall(pat, open(c).read(), re.S):
            out.append(mc[re.search(r'\.name = (\w+)', body).group(1)])
            al = re.search(r'\.aliases = \(const char \*const\[\]\)\{([^}]*)\}',
                           body)
            if al:
                out += [mc[x] for x in re.findall(r'\b(?!NULL\b)[A-Z]\w+',
                                                  al.group(1))]
    return out
names = descriptors('predicates', 'pred', macros('predicates/predicates.h'))
names += descriptors('priorities', 'prio', macros('priorities/priorities.h'))
if len(names) < 40:
    sys.exit('only %d names found in the registry sources' % len(names))
print('\n'.join(names))
EOF
run "registry names from the sources" 0 python3 "$T_TMP/names.py"
cp "$T_TMP/out" "$T_TMP/names"
while read -r name; do
    if grep -q -E "^  $name( |\$)" "$T_TMP/list.txt" ||
        grep -q -E "^  $name -> " "$T_TMP/list.txt"; then
        ok "text lists $name"
    else
        not_ok "text lists $name" "no row or alias line"
    fi
done <"$T_TMP/names"

run "JSON lists every registry name exactly once" 0 python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
want = open(sys.argv[2]).read().split()
got = [r["name"] for r in d["predicates"] + d["priorities"]]
got += [a["name"] for a in d["aliases"]]
assert sorted(got) == sorted(want), (sorted(set(got) ^ set(want)))
' "$T_TMP/list.json" "$T_TMP/names"

# What `check` resolves must agree with the flags `list` prints.
printf '%s' '{"kind":"Policy","apiVersion":"v1","predicates":[]}' >"$T_TMP/empty.json"
printf '%s' '{"kind":"Policy","apiVersion":"v1"}' >"$T_TMP/none.json"
"$KPE_BIN" check --output json "$T_TMP/empty.json" >"$T_TMP/empty.out" 2>/dev/null
"$KPE_BIN" check --output json "$T_TMP/none.json" >"$T_TMP/none.out" 2>/dev/null
run "mandatory flags = what check adds to an empty list" 0 python3 -c '
import json, sys
l = json.load(open(sys.argv[1])); c = json.load(open(sys.argv[2]))
want = sorted(r["name"] for r in l["predicates"] if "mandatory" in r["flags"])
got = sorted(p["name"] for p in c["predicates"])
assert want == got, (want, got)
' "$T_TMP/list.json" "$T_TMP/empty.out"
run "default flags and weights = check without the keys" 0 python3 -c '
import json, sys
l = json.load(open(sys.argv[1])); c = json.load(open(sys.argv[2]))
want = sorted(r["name"] for r in l["predicates"] if "default" in r["flags"])
got = sorted(p["name"] for p in c["predicates"])
assert want == got, ("predicates", want, got)
w = {r["name"]: r["defaultWeight"] for r in l["priorities"] if "default" in r["flags"]}
keys = sorted(k for p in c["priorities"] for k in p["keys"])
assert sorted(w) == keys, ("priorities", sorted(w), keys)
for p in c["priorities"]:
    if len(p["keys"]) == 1:
        assert w[p["keys"][0]] == p["weight"], p
' "$T_TMP/list.json" "$T_TMP/none.out"

# Every name flagged legacy fails without --compat legacy and loads with it;
# every other non-custom-only name loads as is.
python3 -c '
import json, sys
l = json.load(open(sys.argv[1]))
for kind in ("predicates", "priorities"):
    for r in l[kind]:
        if "custom-only" in r["flags"]:
            continue
        print(kind, r["name"], "legacy" if "legacy" in r["flags"] else "v122")
' "$T_TMP/list.json" >"$T_TMP/loadable"
while read -r kind name what; do
    if [ "$kind" = predicates ]; then
        entry="{\"name\":\"$name\"}"
    else
        entry="{\"name\":\"$name\",\"weight\":1}"
    fi
    printf '{"kind":"Policy","apiVersion":"v1","%s":[%s]}' "$kind" "$entry" \
        >"$T_TMP/one.json"
    if [ "$what" = legacy ]; then
        run "$name needs --compat legacy" 1 "$KPE_BIN" check "$T_TMP/one.json"
        run "$name loads with --compat legacy" 0 "$KPE_BIN" check \
            --compat legacy "$T_TMP/one.json"
    else
        run "$name loads" 0 "$KPE_BIN" check "$T_TMP/one.json"
    fi
done <"$T_TMP/loadable"

# docs/POLICY-REFERENCE.md embeds `list` verbatim.
run "list for the reference page" 0 "$KPE_BIN" list
python3 - docs/POLICY-REFERENCE.md "$T_TMP/out" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
block = re.search(r"```\n(.*?)```", page, re.S).group(1)
sys.exit(0 if block == open(sys.argv[2]).read() else 1)
PY
if [ $? -eq 0 ]; then ok "docs/POLICY-REFERENCE.md matches list"; else
    not_ok "docs/POLICY-REFERENCE.md matches list" \
        "regenerate it from kube-policy-extender list"; fi

finish
