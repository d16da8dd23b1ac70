#!/bin/sh
# test_doctor.sh: `check POLICY --scheduler-config FILE`, the wiring doctor.
# Every shipped kube-scheduler file of deploy/scheduler passes against the
# Policy it goes with (deploy/policy/extender-policy.json); then one broken
# copy per problem class, each named, exit 1.
. "$(dirname "$0")/lib.sh"
EXT=deploy/policy/extender-policy.json
D=deploy/scheduler

doctor() { # NAME WANT POLICY FILE [OPTIONS...]
    d_name=$1 d_want=$2 d_pol=$3 d_file=$4
    shift 4
    run "$d_name" "$d_want" "$KPE_BIN" check "$d_pol" --scheduler-config \
        "$d_file" "$@"
}

# ---- the shipped files ----
# sched_doc FILE OUT: the scheduler's own document of FILE (a ConfigMap's
# data value holding a Policy or a KubeSchedulerConfiguration, or FILE).
sched_doc() {
    python3 - "$1" "$2" <<'PY'
import sys, yaml
text = open(sys.argv[1]).read()
out = text
for d in yaml.safe_load_all(text):
    if isinstance(d, dict) and d.get("kind") == "ConfigMap":
        vals = [v for v in (d.get("data") or {}).values()
                if "KubeSchedulerConfiguration" in v or '"Policy"' in v]
        if len(vals) != 1:
            sys.exit("%s: %d scheduler documents in the ConfigMap" % (sys.argv[1], len(vals)))
        out = vals[0]
open(sys.argv[2], "w").write(out)
PY
}

# Every top-level file, against the versions its apiVersion names.
for f in "$D"/*.json "$D"/*.yaml; do
    doctor "shipped $f" 0 "$EXT" "$f"
    contains "shipped $f: verdict" out "kube-scheduler calls $EXT correctly"
done
# Every generation's recipe: the file beside the kube-scheduler image it
# pins, at that version and at the ends of the generation's range.
for dir in "$D"/kubeadm/v1.* "$D"/second-scheduler/v1.*; do
    gen=$(basename "$dir")
    f=$(ls "$dir"/*.json "$dir"/kube-scheduler-config.yaml "$dir"/config.yaml \
        2>/dev/null | head -n 1)
    sched_doc "$f" "$T_TMP/doc"
    pinned=$(sed -n 's/.*\(image: .*kube-scheduler:\|newTag: \)v\(1\.[0-9]*\).*/\2/p' \
        "$dir"/*.yaml | head -n 1)
    versions="$pinned"
    case $gen in
    v1.*-v1.*) versions="$versions ${gen%%-*} ${gen##*-}" ;;
    v1.*-and-later) ;;
    *) versions="$versions $gen" ;;
    esac
    [ -n "$pinned" ] || not_ok "$dir: no pinned kube-scheduler image found"
    for v in $versions; do
        doctor "shipped $f on $v" 0 "$EXT" "$T_TMP/doc" --kube-version "$v"
        contains "shipped $f on $v: verdict" out "kube-scheduler calls $EXT correctly"
    done
done
doctor "nodeCacheCapable says what serve needs" 0 "$EXT" \
    "$D/kube-scheduler-config.v1beta2.yaml"
contains "nodeCacheCapable note" out \
    "nodeCacheCapable: true: kube-scheduler sends node names only, so serve needs its own cluster state"

# The operators' page's example (docs/operators.md), as written there.
python3 - docs/operators.md "$T_TMP/readme-doctor.sh" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
b = [x for x in re.findall(r"```sh\n(.*?)```", s, re.S) if "--scheduler-config" in x]
open(sys.argv[2], "w").write(b[0])
PY
sed "s|bin/kube-policy-extender|$KPE_BIN|" "$T_TMP/readme-doctor.sh" \
    >"$T_TMP/readme-doctor.run.sh"
run "docs/operators.md doctor example" 0 sh "$T_TMP/readme-doctor.run.sh"
contains "docs/operators.md doctor example: verdict" out "kube-scheduler calls $EXT correctly"
doctor "Policy file on v1.20" 0 "$EXT" "$D/policy-config-file.json" \
    --kube-version 1.20
contains "Policy file: versions named" out "Policy: read by kube-scheduler v1.13-v1.22"

# ---- apiVersion against --kube-version ----
doctor "v1beta2 on v1.20" 1 "$EXT" "$D/kube-scheduler-config.v1beta2.yaml" \
    --kube-version 1.20
contains "v1beta2 on v1.20: named" out \
    "apiVersion: v1beta2 is not read by kube-scheduler v1.20 (v1.20 reads: Policy, v1beta1)"
doctor "Policy on v1.23" 1 "$EXT" "$D/policy-config-file.json" --kube-version v1.23.4
contains "Policy on v1.23: named" out \
    "apiVersion: Policy is not read by kube-scheduler v1.23 (v1.23 reads: v1beta2, v1beta3)"
doctor "v1 on v1.24" 1 "$EXT" "$D/kube-scheduler-config.v1.yaml" --kube-version 1.24
contains "v1 on v1.24: named" out "apiVersion: v1 is not read by kube-scheduler v1.24"
doctor "bad --kube-version" 2 "$EXT" "$D/kube-scheduler-config.v1.yaml" \
    --kube-version 2.0
contains "bad --kube-version: named" err "--kube-version: expected 1.x"

run "--kube-version without --scheduler-config" 2 "$KPE_BIN" check "$EXT" \
    --kube-version 1.20
contains "--kube-version alone: named" err "go with --scheduler-config"
doctor "--output json with the doctor" 2 "$EXT" "$D/kube-scheduler-config.v1.yaml" \
    --output json
contains "--output json: named" err "--scheduler-config prints text only"
printf 'kind: Policy\napiVersion: v1\npredicates: [{name: NoSuchPredicate}]\n' \
    >"$T_TMP/unreadable.yaml"
doctor "an unreadable scheduler file" 1 "$EXT" "$T_TMP/unreadable.yaml"
contains "an unreadable scheduler file: named" out \
    'problem: '"$T_TMP"'/unreadable.yaml: predicates[0].name: predicate type not found for "NoSuchPredicate"'

# break NAME SED-EXPR [FILE]: a copy of a shipped file with one change.
break_file() {
    sed "$2" "${3:-$D/kube-scheduler-config.v1beta2.yaml}" >"$T_TMP/$1"
    echo "$T_TMP/$1"
}

# ---- urlPrefix and verbs against serve's routes ----
f=$(break_file prefix.yaml 's|svc:8888|svc:8888/scheduler/|')
doctor "urlPrefix path" 1 "$EXT" "$f"
contains "urlPrefix path: named" out \
    "extenders[0].urlPrefix: kube-scheduler posts to /scheduler/<verb>, serve answers /<verb>"
doctor "urlPrefix path with serve's --url-prefix" 0 "$EXT" "$f" --url-prefix /scheduler
f=$(break_file scheme.yaml 's|http://kube|kube|')
doctor "urlPrefix scheme" 1 "$EXT" "$f"
contains "urlPrefix scheme: named" out "expected http:// or https://"
f=$(break_file verb.yaml 's|filterVerb: filter|filterVerb: predicates|')
doctor "filterVerb" 1 "$EXT" "$f"
contains "filterVerb: named" out \
    "extenders[0].filterVerb: \"predicates\": serve answers only POST <urlPrefix>/filter; this call gets 404"
f=$(break_file noprio.yaml '/prioritizeVerb/d')
doctor "no prioritizeVerb" 1 "$EXT" "$f"
contains "no prioritizeVerb: named" out \
    "extenders: no prioritizeVerb: the served priorities (CustomPriorityPolicy, ...) never score"
f=$(break_file nofilter.yaml '/filterVerb/d; /preemptVerb/d')
doctor "no filterVerb" 1 "$EXT" "$f"
contains "no filterVerb: named" out \
    "extenders: no filterVerb: the served predicates (HighCommPodFilter, ...) are never evaluated"
f=$(break_file nopreempt.yaml '/preemptVerb/d')
doctor "no preemptVerb" 1 "$EXT" "$f"
contains "no preemptVerb: named" out "extenders[0].preemptVerb: empty while filterVerb is set"
f=$(break_file noext.yaml '/^extenders:/,$d')
doctor "no extenders" 1 "$EXT" "$f"
contains "no extenders: named" out "extenders: none: kube-scheduler never calls this server"
f=$(break_file case.yaml 's|enableHTTPS|enableHttps|')
doctor "field case" 1 "$EXT" "$f"
contains "field case: named" out \
    "extenders[0].enableHttps: not a field of KubeSchedulerConfiguration extenders (decoded case-sensitively since v1beta1); did you mean enableHTTPS?"

# ---- weight, ignorable ----
f=$(break_file weight.yaml 's|weight: 5|weight: 3|')
doctor "weight" 1 "$EXT" "$f"
contains "weight: named" out \
    "extenders[0].weight: 3, but the served priorities' weights sum to 5"
f=$(break_file weight.json 's|"weight": 5,|"weight": 1,|' "$D/policy-config-file.json")
doctor "weight (Policy file)" 1 "$EXT" "$f"
contains "weight (Policy file): named" out "extenders[0].weight: 1, but the served priorities' weights sum to 5"
f=$(break_file ignorable.yaml 's|ignorable: false|ignorable: true|')
doctor "ignorable" 1 "$EXT" "$f"
contains "ignorable: named" out \
    "extenders[0].ignorable: true: when serve is unreachable kube-scheduler schedules without the served predicates (HighCommPodFilter, ...)"

# ---- TLS ----
f=$(break_file https-http.yaml 's|enableHTTPS: false|enableHTTPS: true|')
doctor "enableHTTPS over http://" 1 "$EXT" "$f"
contains "enableHTTPS over http://: named" out \
    "extenders[0].enableHTTPS: true, but the urlPrefix is http://: kube-scheduler calls in plain HTTP"
f=$(break_file https-noca.yaml 's|http://|https://|; s|enableHTTPS: false|enableHTTPS: true|')
doctor "https without a CA" 1 "$EXT" "$f"
contains "https without a CA: named" out \
    "extenders[0].tlsConfig: no caFile or caData: with enableHTTPS kube-scheduler then does not verify serve's certificate"
f=$(break_file https-ok.yaml 's|http://|https://|; s|enableHTTPS: false|enableHTTPS: true\n    tlsConfig:\n      caFile: /etc/kpe/ca.crt\n      certFile: /etc/kpe/client.crt\n      keyFile: /etc/kpe/client.key|')
doctor "https with a CA and a client certificate" 0 "$EXT" "$f"
contains "https: what serve needs" out \
    "serve must run with --tls-cert-file and --tls-key-file, and --tls-client-ca-file"
f=$(break_file tls-http.yaml 's|enableHTTPS: false|enableHTTPS: false\n    tlsConfig:\n      caFile: /etc/kpe/ca.crt|')
doctor "tlsConfig over http://" 1 "$EXT" "$f"
contains "tlsConfig over http://: named" out "extenders[0].tlsConfig: unused: the urlPrefix is http://"

# ---- the split's halves ----
doctor "whole Policy served beside kube-scheduler's half" 1 \
    deploy/policy/policy.json "$D/policy-config-file.json"
contains "split: a predicate twice" out \
    "predicate NoVolumeZoneConflict is in both halves (here and in deploy/policy/policy.json): evaluated twice"
contains "split: a priority twice" out \
    "priority ImageLocalityPriority is in both halves"
doctor "whole Policy beside a v1beta2 profile" 1 \
    deploy/policy/policy.json "$D/kube-scheduler-config.v1beta2.yaml"
contains "v1beta2 profile: default plugins read" out \
    "is in both halves"
doctor "v1 profile: coverage not claimed" 0 "$EXT" "$D/kube-scheduler-config.v1.yaml"
contains "v1 profile: said so" out "the profiles' plugins (v1) are not read"

finish
