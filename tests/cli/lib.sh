# lib.sh: a tiny harness for command-line tests. Each script sources it,
# calls ok/not_ok per check, and ends with `finish`, which prints
# cmocka-style "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s)." lines
# that tests/run.sh counts. UPDATE_GOLDEN=1 rewrites golden files.
# shellcheck shell=sh
T_PASS=0
T_FAIL=0
: "${KPE_BIN:=bin/kube-policy-extender}"
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kpe-cli.XXXXXX") || exit 2
trap 'rm -rf "$T_TMP"' EXIT

ok() {
    T_PASS=$((T_PASS + 1))
    echo "[       OK ] $1"
}

not_ok() {
    T_FAIL=$((T_FAIL + 1))
    echo "[  FAILED  ] $1${2:+: $2}"
}

# run NAME WANT_STATUS CMD...: run CMD, keep stdout/stderr in $T_TMP, and
# check the exit status.
run() {
    t_name=$1
    t_want=$2
    shift 2
    "$@" >"$T_TMP/out" 2>"$T_TMP/err"
    t_got=$?
    if [ "$t_got" -eq "$t_want" ]; then
        ok "$t_name (exit $t_got)"
    else
        not_ok "$t_name" "exit $t_got, want $t_want; stderr: $(head -c 400 "$T_TMP/err")"
    fi
}

# golden NAME FILE: compare the last run's stdout with FILE.
golden() {
    if [ -n "${UPDATE_GOLDEN:-}" ]; then
        cp "$T_TMP/out" "$2"
    fi
    if [ -f "$2" ] && cmp -s "$T_TMP/out" "$2"; then
        ok "$1 matches $2"
    else
        not_ok "$1" "differs from $2: $(diff "$2" "$T_TMP/out" 2>&1 | head -n 20)"
    fi
}

# contains NAME WHICH(out|err) TEXT: the last run's stream has TEXT.
contains() {
    if grep -F -q -- "$3" "$T_TMP/$2"; then
        ok "$1"
    else
        not_ok "$1" "$2 lacks \"$3\": $(head -c 400 "$T_TMP/$2")"
    fi
}

# copy_tree DIR: the source tree as git sees it (tracked files and new ones
# not ignored, as they are now) into DIR; build output, payloads and other
# ignored files stay behind.
copy_tree() {
    git ls-files -co --exclude-standard | while IFS= read -r f; do
        [ -e "$f" ] && printf '%s\n' "$f"
    done >"$T_TMP/tree.list"
    tar -cf - -T "$T_TMP/tree.list" | tar -C "$1" -xf -
}

finish() {
    echo "[==========] $((T_PASS + T_FAIL)) test(s) run."
    echo "[  PASSED  ] $T_PASS test(s)."
    if [ "$T_FAIL" -ne 0 ]; then
        echo "[  FAILED  ] $T_FAIL test(s)."
        exit 1
    fi
    exit 0
}
