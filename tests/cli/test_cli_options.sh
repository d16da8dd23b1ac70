#!/bin/sh
# test_cli_options.sh: every command reads its options the same way
# (issue 27, point 7): `--x=y` and `--x y` alike, -o for --output, one
# unknown-option message naming the command and the option (exit 2), a
# trailing option without its value named as such, --feature-gates
# wherever a Policy is read, required options marked in --help; a UTF-8
# BOM before a JSON document; schedule refuses to start without
# --scheduler-name.
. "$(dirname "$0")/lib.sh"

D=deploy/demo
P=$D/policy.json
C=$D/cluster.json
POD=$D/pods/web.json

# same NAME: the last two runs' stdout ($T_TMP/a, $T_TMP/b) are equal.
same() {
    if cmp -s "$T_TMP/a" "$T_TMP/b"; then ok "$1"; else
        not_ok "$1" "$(diff "$T_TMP/a" "$T_TMP/b" | head -5)"; fi
}
keep() { cp "$T_TMP/out" "$T_TMP/$1"; }

# ---- --x=y and --x y give the same answer ----
run "check -o json" 0 "$KPE_BIN" check "$P" -o json
keep a
run "check --output=json" 0 "$KPE_BIN" check "$P" --output=json
keep b
same "check: -o json and --output=json agree"
contains "check -o json prints JSON" out '"valid": true'

run "convert --to json" 0 "$KPE_BIN" convert "$P" --to json
keep a
run "convert --to=json" 0 "$KPE_BIN" convert "$P" --to=json
keep b
same "convert: --to json and --to=json agree"

run "list -o json" 0 "$KPE_BIN" list -o json
keep a
run "list --output=json" 0 "$KPE_BIN" list --output=json
keep b
same "list: -o json and --output=json agree"

run "explain, values as next words" 0 "$KPE_BIN" explain --policy "$P" \
    --cluster "$C" --pod "$POD" -o json
keep a
run "explain, values after =" 0 "$KPE_BIN" explain --policy="$P" \
    --cluster="$C" --pod="$POD" --output=json
keep b
same "explain: --x y and --x=y agree"

run "simulate, values as next words" 0 "$KPE_BIN" simulate --policy "$P" \
    --cluster "$C" --pod "$POD" --replicas 2 -o json
keep a
run "simulate, values after =" 0 "$KPE_BIN" simulate --policy="$P" \
    --cluster="$C" --pod="$POD" --replicas=2 --output=json
keep b
same "simulate: --x y and --x=y agree"

run "diff, values as next words" 0 "$KPE_BIN" diff --policy "$P" \
    --policy "$P" --cluster "$C" --replay -o json
keep a
run "diff, values after =" 0 "$KPE_BIN" diff --policy="$P" \
    --policy="$P" --cluster="$C" --replay --output=json
keep b
same "diff: --x y and --x=y agree"

# serve and schedule run until stopped: a bad value shows how it was read.
run "serve --workers=abc" 2 "$KPE_BIN" serve --policy="$P" --workers=abc
contains "serve reads --x=y" err '--workers: invalid value "abc"'
run "serve --workers abc" 2 "$KPE_BIN" serve --policy "$P" --workers abc
contains "serve reads --x y" err '--workers: invalid value "abc"'
run "schedule --seed=x" 2 "$KPE_BIN" schedule --scheduler-name=s \
    --policy="$P" --master=http://127.0.0.1:1 --seed=x
contains "schedule reads --x=y" err '--seed: invalid value "x"'
run "schedule --seed x" 2 "$KPE_BIN" schedule --scheduler-name s \
    --policy "$P" --master http://127.0.0.1:1 --seed x
contains "schedule reads --x y" err '--seed: invalid value "x"'

# ---- one unknown-option message, one missing-value message ----
for cmd in serve schedule check convert explain simulate diff list; do
    run "$cmd --bogus" 2 "$KPE_BIN" $cmd --bogus
    contains "$cmd names the unknown option" err \
        "$cmd: unknown option '--bogus' (see 'kube-policy-extender $cmd --help')"
    run "$cmd --bogus=1" 2 "$KPE_BIN" $cmd --bogus=1
    contains "$cmd names the unknown option without its value" err \
        "$cmd: unknown option '--bogus' (see"
done
# A trailing unknown option is unknown, not "needs a value".
for cmd in check convert; do
    run "$cmd POLICY --bogus (trailing)" 2 "$KPE_BIN" $cmd "$P" --bogus
    contains "$cmd: a trailing unknown option is unknown" err \
        "$cmd: unknown option '--bogus'"
done
for cmd in explain simulate diff; do
    run "$cmd --policy P --bogus (trailing)" 2 "$KPE_BIN" $cmd --policy "$P" --bogus
    contains "$cmd: a trailing unknown option is unknown" err \
        "$cmd: unknown option '--bogus'"
done
for cmd in serve schedule explain simulate diff; do
    run "$cmd --policy (no value)" 2 "$KPE_BIN" $cmd --policy
    contains "$cmd says --policy needs a value" err \
        "$cmd: option '--policy' needs a value (FILE)"
done
run "check -o (no value)" 2 "$KPE_BIN" check "$P" -o
contains "check says --output needs a value" err \
    "check: option '--output' needs a value (FORMAT)"
run "list -o (no value)" 2 "$KPE_BIN" list -o
contains "list says --output needs a value" err \
    "list: option '--output' needs a value (FORMAT)"
run "list --output=yaml" 2 "$KPE_BIN" list --output=yaml
contains "a bad --output value is quoted" err 'expected text or json, got "yaml"'
run "explain --all-pending=1" 2 "$KPE_BIN" explain --policy "$P" --all-pending=1
contains "a flag refuses a value" err "option '--all-pending' takes no value"

# ---- required options ----
run "explain without --policy" 2 "$KPE_BIN" explain --pod "$POD" --cluster "$C"
contains "explain names the missing option" err "explain: missing required option '--policy'"
run "convert without --to" 2 "$KPE_BIN" convert "$P"
contains "convert names the missing option" err "convert: missing required option '--to'"
run "serve without --policy" 2 "$KPE_BIN" serve --listen 127.0.0.1:0
contains "serve names the missing option" err "serve: missing required option '--policy'"
for cmd in serve schedule explain simulate diff convert; do
    run "$cmd --help" 0 "$KPE_BIN" $cmd --help
    if grep -q "(required)" "$T_TMP/out"; then ok "$cmd --help marks required options"
    else not_ok "$cmd --help marks required options"; fi
    if grep -q "JSON or INI" "$T_TMP/out"; then not_ok "$cmd --help says JSON or INI"
    else ok "$cmd --help does not forget YAML"; fi
done
run "serve --help" 0 "$KPE_BIN" serve --help
if grep -A2 -e "--policy FILE" "$T_TMP/out" | grep -q "default: none"; then
    not_ok "serve: --policy has no default shown"
else ok "serve: --policy has no default shown"; fi

# ---- --feature-gates wherever a Policy is read ----
G=--feature-gates=DefaultPodTopologySpread=false
run "check --feature-gates" 0 "$KPE_BIN" check "$P" "$G"
run "convert --feature-gates" 0 "$KPE_BIN" convert "$P" --to json "$G"
run "explain --feature-gates" 0 "$KPE_BIN" explain --policy "$P" --cluster "$C" --pod "$POD" "$G"
run "simulate --feature-gates" 0 "$KPE_BIN" simulate --policy "$P" --cluster "$C" --pod "$POD" "$G"
run "diff --feature-gates" 0 "$KPE_BIN" diff --policy "$P" --policy "$P" --cluster "$C" "$G"
run "check --feature-gates Bogus=true" 2 "$KPE_BIN" check "$P" --feature-gates Bogus=true
contains "an unknown gate is named" err "Bogus"

# ---- a UTF-8 BOM before JSON, as before YAML ----
bom() { printf '\357\273\277'; cat "$1"; }
bom "$P" >"$T_TMP/bom-policy.json"
bom "$C" >"$T_TMP/bom-cluster.json"
bom "$POD" >"$T_TMP/bom-pod.json"
run "check a JSON Policy with a BOM" 0 "$KPE_BIN" check "$T_TMP/bom-policy.json"
run "check --format json, with a BOM" 0 "$KPE_BIN" check --format json "$T_TMP/bom-policy.json"
run "explain on BOM-led JSON files" 0 "$KPE_BIN" explain \
    --policy "$T_TMP/bom-policy.json" --cluster "$T_TMP/bom-cluster.json" \
    --pod "$T_TMP/bom-pod.json" -o json
keep b
run "explain on the same files without" 0 "$KPE_BIN" explain --policy "$P" \
    --cluster "$C" --pod "$POD" -o json
keep a
# The source names differ; the decisions must not.
sed -i 's/"source": "[^"]*"//' "$T_TMP/a" "$T_TMP/b"
same "a BOM changes nothing in what is read"
printf '\357\273\277\357\273\277{}' >"$T_TMP/two-boms.json"
run "two BOMs are one too many" 1 "$KPE_BIN" check "$T_TMP/two-boms.json"

# ---- schedule needs --scheduler-name ----
run "schedule without --scheduler-name" 2 "$KPE_BIN" schedule --policy "$P" \
    --master http://127.0.0.1:1
contains "schedule names --scheduler-name" err \
    "schedule: missing required option '--scheduler-name'"

finish
